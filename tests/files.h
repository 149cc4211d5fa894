// Files for tests: read one whole, make a fresh folder.
#pragma once
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>

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

// What a command line printed (stdout and stderr together) and its exit code (-1: it did not exit).
struct CliResult {
    int exit_code;
    std::string output;
};

// Runs `command` with /bin/sh, SystemC's banner off.
inline CliResult run_cli(const std::string& command) {
    const std::string cmd = "SC_COPYRIGHT_MESSAGE=DISABLE " + command + " 2>&1";
    CliResult r{-1, ""};
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    const int st = pclose(p);
    r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

}  // namespace gpuvp::test
