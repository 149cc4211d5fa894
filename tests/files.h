// Files for tests: read one whole, make a fresh folder.
#pragma once
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

namespace gpuvp::test {

inline std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A new empty folder under /tmp, left for the OS to clean.
inline std::string temp_dir() {
    char tmpl[] = "/tmp/gpuvp-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    return tmpl;
}

}  // namespace gpuvp::test
