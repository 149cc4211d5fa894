// Progress reports during a run (what `gpuvp run` shows on a terminal).
#include "platform/run.h"
#include "platform/scenario.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

TEST_CASE("a run reporting its progress goes in slices and gives the same results", "[cli][progress]") {
    const std::string yaml = std::string(GPUVP_SOURCE_DIR) + "/scenarios/lock-contention.yaml";
    // The run without progress, in a child (one elaboration per process).
    int fd[2];
    REQUIRE(pipe(fd) == 0);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        const std::string r = gpuvp::run_scenario(gpuvp::load_scenario(yaml), gpuvp::RunOptions{false}).results;
        _exit(write(fd[1], r.data(), r.size()) == ssize_t(r.size()) ? 0 : 1);
    }
    close(fd[1]);
    std::string plain;
    char buf[4096];
    for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) plain.append(buf, size_t(n));
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    // With progress reported after every slice.
    std::vector<gpuvp::Progress> seen;
    gpuvp::RunOptions o{false};
    o.progress = [&](const gpuvp::Progress& p) { seen.push_back(p); };
    o.progress_seconds = 0;
    const std::string sliced = gpuvp::run_scenario(gpuvp::load_scenario(yaml), o).results;
    auto a = nlohmann::json::parse(plain), b = nlohmann::json::parse(sliced);
    a.erase("host_seconds");
    b.erase("host_seconds");
    CHECK(a.dump() == b.dump());
    REQUIRE(seen.size() >= 3);
    for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].sim_ns >= seen[i - 1].sim_ns);
    CHECK(seen.front().kernels_done == 0);
    CHECK(seen.back().kernels_done == seen.back().kernels);
    CHECK(seen.back().sim_ns == b["sim_end_ns"].get<double>());
}
