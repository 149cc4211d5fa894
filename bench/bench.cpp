// gpuvp_bench: speed of the simulator, measured (never asserted by a test).
// Runs each bundled benchmark scenario in a child process of its own (SystemC allows one
// elaboration per process) and prints simulated warp-instructions per host second, kernel
// launches per host second, lock acquisitions (M2) and shading-array tasks (M4) per host second.
//   gpuvp_bench [SCENARIO_DIR]   (default: the source tree's scenarios/bench)
#include "platform/run.h"
#include "platform/scenario.h"

#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const bool kQuietBanner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;  // before SystemC starts

struct Measure {
    double host_seconds, sim_ns;
    unsigned long long instructions, kernels, acquisitions, tasks;
    int status;
};

// Runs one scenario in a child; the child writes its measure into a pipe.
bool measure(const std::string& file, Measure& m) {
    int fd[2];
    if (pipe(fd) != 0) return false;
    std::fflush(stdout);  // the child must not print the parent's buffered lines again
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        Measure r{};
        try {
            gpuvp::Scenario s = gpuvp::load_scenario(file);
            gpuvp::RunOutput o = gpuvp::run_scenario(s, gpuvp::RunOptions{false});
            r = Measure{o.host_seconds, o.sim_end_ns,      o.warp_instructions, o.kernels,
                        o.lock_acquisitions, o.shading_tasks, o.ok ? 0 : 1};
        } catch (const std::exception& e) {
            std::cerr << file << ": " << e.what() << "\n";
            r.status = 2;
        }
        ssize_t n = write(fd[1], &r, sizeof r);
        _exit(n == sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], &m, sizeof m);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return n == sizeof m && m.status == 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : GPUVP_SOURCE_DIR "/scenarios/bench";
    int failures = 0;
    Measure m{};
    if (measure(dir + "/compute.yaml", m)) {
        std::printf("compute:      %12.0f warp-instructions per host second  (%llu instructions, %.3f s host, %.1f us simulated)\n",
                    m.instructions / m.host_seconds, m.instructions, m.host_seconds, m.sim_ns / 1000);
    } else {
        std::printf("compute:      failed\n");
        ++failures;
    }
    if (measure(dir + "/launch_storm.yaml", m)) {
        std::printf("launch storm: %12.0f kernel launches per host second    (%llu kernels, %.3f s host, %.1f us simulated)\n",
                    m.kernels / m.host_seconds, m.kernels, m.host_seconds, m.sim_ns / 1000);
    } else {
        std::printf("launch storm: failed\n");
        ++failures;
    }
    if (measure(dir + "/locks.yaml", m)) {
        std::printf("locks:        %12.0f lock acquisitions per host second  (%llu acquisitions, %llu instructions, %.3f s host, %.1f us simulated)\n",
                    m.acquisitions / m.host_seconds, m.acquisitions, m.instructions, m.host_seconds, m.sim_ns / 1000);
    } else {
        std::printf("locks:        failed\n");
        ++failures;
    }
    if (measure(dir + "/draws.yaml", m)) {
        std::printf("draws:        %12.0f shading tasks per host second      (%llu tasks, %.3f s host, %.1f us simulated)\n",
                    m.tasks / m.host_seconds, m.tasks, m.host_seconds, m.sim_ns / 1000);
    } else {
        std::printf("draws:        failed\n");
        ++failures;
    }
    return failures ? 1 : 0;
}
