// Files for tests: read one whole, make a fresh folder.
#pragma once
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpuvp::test {

inline std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The folders temp_dir made, removed with everything in them when the test program exits
// (each test case runs in a process of its own), unless GPUVP_KEEP_TEST_FILES is set.
struct TempDirs {
    std::vector<std::string> made;
    ~TempDirs() {
        if (std::getenv("GPUVP_KEEP_TEST_FILES")) return;
        std::error_code ec;
        for (const std::string& d : made) std::filesystem::remove_all(d, ec);
    }
};

// A new empty folder under /tmp.
inline std::string temp_dir() {
    static TempDirs dirs;
    char tmpl[] = "/tmp/gpuvp-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dirs.made.push_back(tmpl);
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
