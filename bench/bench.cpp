// gpuvp_bench: speed of the simulator, measured (never asserted by a test).
// Runs each bundled benchmark scenario in a child process of its own (SystemC allows one
// elaboration per process) and prints simulated warp-instructions per host second, kernel
// launches per host second, lock acquisitions (M2) and shading-array tasks (M4) per host second.
//   gpuvp_bench [SCENARIO_DIR]   (default: the source tree's scenarios/bench)
//   gpuvp_bench --big [DIR]      large work in bounded memory (default: scenarios/big): for grids
//                                of 2^16, 2^18 and 2^20 blocks and queues of 10^4 and 10^5 packets,
//                                the peak resident memory and host time of `gpuvp run FILE --out
//                                DIR`, with and without a trace (docs/limits.md)
#include "platform/run.h"
#include "platform/scenario.h"

#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <sys/resource.h>
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

// One big run as `gpuvp run FILE [--no-trace] --out DIR` does it, in a child whose peak
// resident set and wall-clock time the parent measures (wait4). The child starts as a copy of
// this small parent, whose pages count in its peak.
struct BigRun {
    const char* label;
    const char* file;
    gpuvp::Overrides overrides;
};

bool big_run(const std::string& file, const gpuvp::Overrides& overrides, bool trace, double& seconds, long& peak_kb,
             double& sim_ns) {
    char out_dir[] = "/tmp/gpuvp-big-XXXXXX";
    if (!mkdtemp(out_dir)) return false;
    int fd[2];
    if (pipe(fd) != 0) return false;
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double sim = -1;
        int code = 2;
        try {
            gpuvp::RunOptions options;
            options.trace = trace;
            gpuvp::RunOutput o = gpuvp::run_variants(gpuvp::load_scenario(file, overrides), options);
            std::string error;
            code = gpuvp::write_run_output(out_dir, o, true, &error) ? o.exit_code : 2;
            if (!error.empty()) std::cerr << file << ": " << error << "\n";
            sim = o.sim_end_ns;
        } catch (const std::exception& e) {
            std::cerr << file << ": " << e.what() << "\n";
        }
        ssize_t n = write(fd[1], &sim, sizeof sim);
        _exit(n == sizeof sim ? code : 2);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], &sim_ns, sizeof sim_ns);
    close(fd[0]);
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    peak_kb = usage.ru_maxrss;
    std::error_code ec;
    std::filesystem::remove_all(out_dir, ec);
    return n == sizeof sim_ns && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int big_runs(const std::string& dir) {
    const BigRun runs[] = {
        {"grid of 2^16 blocks", "grid-1m-blocks.yaml", {{"kernels.grid.grid", "[4194304]"}}},
        {"grid of 2^18 blocks", "grid-1m-blocks.yaml", {{"kernels.grid.grid", "[16777216]"}}},
        {"grid of 2^20 blocks", "grid-1m-blocks.yaml", {}},
        {"queue of 10^4 packets", "queue-100k-packets.yaml", {{"kernels.tiny.instances", "10000"}}},
        {"queue of 10^5 packets", "queue-100k-packets.yaml", {}},
    };
    std::printf("Big runs: peak resident memory and host time of `gpuvp run FILE --out DIR`, each in a child process\n");
    std::printf("  %-24s %-10s %12s %12s %16s\n", "run", "trace", "peak RSS", "host time", "simulated");
    int failures = 0;
    for (const BigRun& r : runs)
        for (bool trace : {false, true}) {
            double seconds = 0, sim = 0;
            long kb = 0;
            const bool ok = big_run(dir + "/" + r.file, r.overrides, trace, seconds, kb, sim);
            std::printf("  %-24s %-10s %9.1f MB %10.2f s %13.1f us%s\n", r.label, trace ? "on" : "--no-trace", kb / 1024.0,
                        seconds, sim / 1000, ok ? "" : "  FAILED");
            failures += !ok;
        }
    return failures ? 1 : 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--big") return big_runs(argc > 2 ? argv[2] : GPUVP_SOURCE_DIR "/scenarios/big");
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
