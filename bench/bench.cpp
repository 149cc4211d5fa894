// gpuvp_bench: speed of the simulator, measured (never asserted by a test).
// Runs each measurement in a child process of its own (SystemC allows one elaboration per
// process) and prints, with each child's peak resident memory:
//   - simulated warp-instructions per host second on the compute benchmark (80 SMs of 64
//     warp slots, long programs mixing vector ALU, scalar ALU and memory operations);
//   - warps per host second on short warps (3 instructions, as a replayed trace's);
//   - kernel launches per host second on a launch storm of tiny kernels;
//   - the host time of a scenario with 1 s of idle simulated time (and of the same work
//     without the idle time);
//   - lock acquisitions (M2) and shading-array tasks (M4) per host second;
//   - SystemC's own timed-event rate, from an SC_METHOD ping-pong, and the ratio of the
//     warp-instruction rate to it (1 or more: a warp-instruction costs no more than a timed
//     SystemC event);
//   - where the host time of a whole `gpuvp run` of the launch storm goes: the scenario file,
//     the simulation, the rest of the run (elaboration, results) and the files and report;
//   - real workloads: the A100 AlexNet trace of examples/traces/ replayed without a trace
//     (`gpuvp run TRACE --no-trace`), simulated warps per host second; the V100 trace of 4350
//     kernels too, without --quick;
//   - the import of a real profiler trace (read_profiler_trace of examples/traces/'s V100
//     trace: gunzip and Kineto JSON): kernels per host second, MB of JSON text per second;
//   - the cost per warp-instruction of the compute program from 8 to 128 SMs and at 304, two waves of
//     blocks per SM at every size.
//   gpuvp_bench [SCENARIO_DIR]   (default: the source tree's scenarios/bench)
//   gpuvp_bench --quick [DIR]    the same without the scaling table
//   gpuvp_bench --big [DIR]      large work in bounded memory (default: scenarios/big): for grids
//                                of 2^16, 2^18 and 2^20 blocks and queues of 10^4 and 10^5 packets,
//                                the peak resident memory and host time of `gpuvp run FILE --out
//                                DIR`, with and without a trace (docs/limits.md)
// docs/performance.md explains every figure and what bounds it.
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/trace_scenario.h"
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"

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
    double load_seconds, run_seconds, write_seconds;  // the whole-run line's phases
    unsigned long long instructions, kernels, acquisitions, tasks;
    unsigned long long bytes;  // the import line's JSON text
    unsigned long long warps, blocks;
    int status;
    long peak_kb;  // the child's peak resident memory (it starts as a copy of this small parent)
};

// Runs `work` in a child, which writes its measure into a pipe; the parent adds the child's
// peak resident memory. False if the child failed.
template <class Work>
bool in_child(Work work, Measure& m) {
    int fd[2];
    if (pipe(fd) != 0) return false;
    std::fflush(stdout);  // the child must not print the parent's buffered lines again
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        Measure r{};
        try {
            r = work();
        } catch (const std::exception& e) {
            std::cerr << e.what() << "\n";
            r.status = 2;
        }
        ssize_t n = write(fd[1], &r, sizeof r);
        _exit(n == sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], &m, sizeof m);
    close(fd[0]);
    int st = 0;
    struct rusage usage {};
    wait4(pid, &st, 0, &usage);
    m.peak_kb = usage.ru_maxrss;
    return n == sizeof m && m.status == 0;
}

// The figures of a run without a trace (run_scenario, RunOptions{false}).
Measure figures(const gpuvp::Scenario& s) {
    gpuvp::RunOutput o = gpuvp::run_scenario(s, gpuvp::RunOptions{false});
    Measure r{};
    r.host_seconds = o.host_seconds;
    r.sim_ns = o.sim_end_ns;
    r.instructions = o.warp_instructions;
    r.kernels = o.kernels;
    r.acquisitions = o.lock_acquisitions;
    r.tasks = o.shading_tasks;
    r.warps = o.record->totals.warps;
    r.blocks = o.record->totals.blocks_dispatched;
    r.status = o.ok ? 0 : 1;
    return r;
}

bool measure(const std::string& file, Measure& m, const gpuvp::Overrides& overrides = {}) {
    return in_child([&] { return figures(gpuvp::load_scenario(file, overrides)); }, m);
}

// A profiler trace replayed as `gpuvp run TRACE --no-trace` replays it (docs/replay.md): the
// trace read and imported with its own platform, then run; host_seconds is sc_start's.
bool replay(const std::string& file, Measure& m) {
    return in_child([&] { return figures(gpuvp::load_trace_scenario(gpuvp::read_profiler_trace(file), {}, {})); }, m);
}

// A whole run as `gpuvp run FILE [--no-trace] --out DIR` does it (files and report), in a
// child, timed by phase: the scenario file, the run (host_seconds of it in sc_start), the files
// and report. Its status is the run's exit code (2 if its files could not be written).
bool whole_run(const std::string& file, Measure& m, const gpuvp::Overrides& overrides = {}, bool trace = true) {
    char out_dir[] = "/tmp/gpuvp-bench-XXXXXX";
    if (!mkdtemp(out_dir)) return false;
    const bool ok = in_child(
        [&] {
            using clock = std::chrono::steady_clock;
            auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
            const auto t0 = clock::now();
            const gpuvp::Scenario s = gpuvp::load_scenario(file, overrides);
            const auto t1 = clock::now();
            gpuvp::RunOptions options;
            options.trace = trace;
            const gpuvp::RunOutput o = gpuvp::run_variants(s, options);
            const auto t2 = clock::now();
            std::string error;
            const bool written = gpuvp::write_run_output(out_dir, o, true, &error);
            const auto t3 = clock::now();
            if (!written) std::cerr << file << ": " << error << "\n";
            Measure r{};
            r.host_seconds = o.host_seconds;
            r.sim_ns = o.sim_end_ns;
            r.load_seconds = seconds(t0, t1);
            r.run_seconds = seconds(t1, t2);
            r.write_seconds = seconds(t2, t3);
            r.kernels = o.kernels;
            r.status = written ? o.exit_code : 2;
            return r;
        },
        m);
    std::error_code ec;
    std::filesystem::remove_all(out_dir, ec);
    return ok;
}

// SystemC's timed-event rate on this machine: two SC_METHODs, each notifying the other's
// event 1 ns ahead, `events` times in all. No model code runs.
struct PingPong : sc_core::sc_module {
    sc_core::sc_event ping_event, pong_event;
    unsigned long long count = 0, events;
    PingPong(sc_core::sc_module_name name, unsigned long long n) : sc_module(name), events(n) {
        SC_HAS_PROCESS(PingPong);
        SC_METHOD(ping);
        sensitive << ping_event;
        dont_initialize();
        SC_METHOD(pong);
        sensitive << pong_event;
        dont_initialize();
    }
    void start_of_simulation() override { ping_event.notify(1, sc_core::SC_NS); }
    void ping() {
        if (++count < events) pong_event.notify(1, sc_core::SC_NS);
    }
    void pong() {
        if (++count < events) ping_event.notify(1, sc_core::SC_NS);
    }
};

bool ping_pong(unsigned long long events, Measure& m) {
    return in_child(
        [&] {
            PingPong p("ping_pong", events);
            const auto t0 = std::chrono::steady_clock::now();
            sc_core::sc_start();
            Measure r{};
            r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            r.sim_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
            r.instructions = p.count;  // events taken
            r.status = p.count == events ? 0 : 1;
            return r;
        },
        m);
}

// read_profiler_trace of a trace file, timed whole; then its read and gunzip alone; then the
// trace as a scenario (load_trace_scenario: the document `gpuvp import` writes, read and
// checked), of the trace and of `copies` copies of it one after the other (a trace
// `copies` times as long).
bool import_trace(const std::string& file, unsigned copies, Measure& m) {
    return in_child(
        [&] {
            using clock = std::chrono::steady_clock;
            const auto t0 = clock::now();
            gpuvp::ProfilerTrace t = gpuvp::read_profiler_trace(file);
            const auto t1 = clock::now();
            const std::string text = gpuvp::read_trace_text(file);
            const auto t2 = clock::now();
            Measure r{};
            r.host_seconds = std::chrono::duration<double>(t1 - t0).count();
            r.load_seconds = std::chrono::duration<double>(t2 - t1).count();
            for (const gpuvp::TraceGpuOp& op : t.ops) r.kernels += op.kind == gpuvp::TraceGpuOp::Kind::kernel;
            r.bytes = text.size();
            if (copies > 1) {  // the same work again after the trace's end, with new correlations
                int64_t first = INT64_MAX, last = 0, corr = 0;
                for (const auto& op : t.ops) first = std::min(first, op.start_ns), last = std::max(last, op.end_ns);
                for (const auto& c : t.calls) first = std::min(first, c.start_ns), corr = std::max(corr, c.correlation);
                const size_t ops = t.ops.size(), calls = t.calls.size(), syncs = t.syncs.size();
                for (unsigned k = 1; k < copies; ++k) {
                    const int64_t shift = int64_t(k) * (last - first + 1000), c = int64_t(k) * (corr + 1);
                    for (size_t i = 0; i < ops; ++i) {
                        gpuvp::TraceGpuOp op = t.ops[i];
                        op.start_ns += shift, op.end_ns += shift;
                        if (op.correlation >= 0) op.correlation += c;
                        t.ops.push_back(op);
                    }
                    for (size_t i = 0; i < calls; ++i) {
                        gpuvp::TraceHostCall call = t.calls[i];
                        call.start_ns += shift, call.end_ns += shift;
                        if (call.correlation >= 0) call.correlation += c;
                        t.calls.push_back(call);
                    }
                    for (size_t i = 0; i < syncs; ++i) {
                        gpuvp::TraceSync sync = t.syncs[i];
                        sync.start_ns += shift, sync.end_ns += shift;
                        if (sync.correlation >= 0) sync.correlation += c;
                        if (sync.wait_on_event_record >= 0) sync.wait_on_event_record += c;
                        t.syncs.push_back(sync);
                    }
                }
                r.kernels *= copies;
            }
            const auto t3 = clock::now();
            const gpuvp::Scenario s = gpuvp::load_trace_scenario(t, {}, {});
            r.run_seconds = std::chrono::duration<double>(clock::now() - t3).count();
            r.instructions = s.workload.kernels.size();
            return r;
        },
        m);
}

double mb(long kb) { return kb / 1024.0; }

// A big run is a whole run (above) whose peak resident set (wait4) and wall-clock time the
// parent measures. The child starts as a copy of this small parent, whose pages count in its
// peak.
struct BigRun {
    const char* label;
    const char* file;
    gpuvp::Overrides overrides;
};

// A line on stderr as each benchmark starts, when stderr is a terminal (a line may take seconds).
void starting(const std::string& what) {
    if (isatty(2)) std::fprintf(stderr, "gpuvp_bench: %s ...\n", what.c_str());
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
            Measure m{};
            starting(std::string(r.label) + (trace ? ", traced" : ", --no-trace"));
            const auto t0 = std::chrono::steady_clock::now();
            const bool ok = whole_run(dir + "/" + r.file, m, r.overrides, trace);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("  %-24s %-10s %9.1f MB %10.2f s %13.1f us%s\n", r.label, trace ? "on" : "--no-trace",
                        mb(m.peak_kb), seconds, m.sim_ns / 1000, ok ? "" : "  FAILED");
            failures += !ok;
        }
    return failures ? 1 : 0;
}

}  // namespace

// The bundled scenarios and traces: installed beside the program (PREFIX/share/gpuvp for
// PREFIX/bin/gpuvp_bench, `cmake --install`), else the source tree's.
struct DataDirs {
    std::string scenarios, traces;
};
DataDirs data_dirs() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::filesystem::path share = exe.parent_path().parent_path() / "share" / "gpuvp";
        if (std::filesystem::is_directory(share / "scenarios" / "bench", ec))
            return {(share / "scenarios").string(), (share / "traces").string()};
    }
    return {GPUVP_SOURCE_DIR "/scenarios", GPUVP_SOURCE_DIR "/examples/traces"};
}

// The bundled benchmark scenarios, a line each; the compute rate (warp-instructions per host
// second, 0 if it failed).
double scenario_lines(const std::string& dir, int& failures) {
    Measure m{};
    double instruction_rate = 0;
    starting("compute (compute.yaml)");
    if (measure(dir + "/compute.yaml", m)) {
        instruction_rate = m.instructions / m.host_seconds;
        std::printf("compute:      %12.0f warp-instructions per host second  (%llu instructions, %.3f s host, %.1f us simulated, %.1f MB peak)\n",
                    instruction_rate, m.instructions, m.host_seconds, m.sim_ns / 1000, mb(m.peak_kb));
    } else {
        std::printf("compute:      failed\n");
        ++failures;
    }
    starting("warps (warps.yaml)");
    if (measure(dir + "/warps.yaml", m)) {
        std::printf("warps:        %12.0f warps per host second              (%llu warps of %.1f instructions, %llu blocks, %.3f s host, %.1f us simulated, %.1f MB peak)\n",
                    m.warps / m.host_seconds, m.warps, double(m.instructions) / double(m.warps), m.blocks, m.host_seconds,
                    m.sim_ns / 1000, mb(m.peak_kb));
    } else {
        std::printf("warps:        failed\n");
        ++failures;
    }
    starting("launch storm (launch_storm.yaml)");
    if (measure(dir + "/launch_storm.yaml", m)) {
        std::printf("launch storm: %12.0f kernel launches per host second    (%llu kernels, %.3f s host, %.1f us simulated, %.1f MB peak)\n",
                    m.kernels / m.host_seconds, m.kernels, m.host_seconds, m.sim_ns / 1000, mb(m.peak_kb));
    } else {
        std::printf("launch storm: failed\n");
        ++failures;
    }
    // The same two kernels 10 us apart tell the idle second's own cost from the launches'.
    Measure near{};
    starting("idle (idle.yaml)");
    if (measure(dir + "/idle.yaml", m) && measure(dir + "/idle.yaml", near, {{"kernels.second.submit_ns", "10000"}})) {
        std::printf("idle:         %12.3f ms host for %.3f s simulated, nearly all of it idle  (%llu kernels; %.3f ms with them 10 us apart; %.1f MB peak)\n",
                    m.host_seconds * 1e3, m.sim_ns / 1e9, m.kernels, near.host_seconds * 1e3, mb(m.peak_kb));
    } else {
        std::printf("idle:         failed\n");
        ++failures;
    }
    starting("locks (locks.yaml)");
    if (measure(dir + "/locks.yaml", m)) {
        std::printf("locks:        %12.0f lock acquisitions per host second  (%llu acquisitions, %llu instructions, %.3f s host, %.1f us simulated, %.1f MB peak)\n",
                    m.acquisitions / m.host_seconds, m.acquisitions, m.instructions, m.host_seconds, m.sim_ns / 1000, mb(m.peak_kb));
    } else {
        std::printf("locks:        failed\n");
        ++failures;
    }
    starting("draws (draws.yaml)");
    if (measure(dir + "/draws.yaml", m)) {
        std::printf("draws:        %12.0f shading tasks per host second      (%llu tasks, %.3f s host, %.1f us simulated, %.1f MB peak)\n",
                    m.tasks / m.host_seconds, m.tasks, m.host_seconds, m.sim_ns / 1000, mb(m.peak_kb));
    } else {
        std::printf("draws:        failed\n");
        ++failures;
    }
    return instruction_rate;
}

// SystemC's own timed-event rate, the ratio of the compute rate to it, and a whole run's parts.
void engine_lines(const std::string& dir, double instruction_rate, int& failures) {
    Measure m{};
    double event_rate = 0;
    starting("SystemC's timed-event rate");
    if (ping_pong(20000000, m)) {
        event_rate = m.instructions / m.host_seconds;
        std::printf("SystemC:      %12.0f timed events per host second       (SC_METHOD ping-pong, %llu events, %.3f s host, %.1f MB peak)\n",
                    event_rate, m.instructions, m.host_seconds, mb(m.peak_kb));
    } else {
        std::printf("SystemC:      failed\n");
        ++failures;
    }
    if (instruction_rate > 0 && event_rate > 0)
        std::printf("ratio:        %12.3f warp-instructions per SystemC timed event's host time (compute rate / SystemC rate)\n",
                    instruction_rate / event_rate);
    starting("whole run (launch_storm.yaml)");
    if (whole_run(dir + "/launch_storm.yaml", m)) {
        const double total = m.load_seconds + m.run_seconds + m.write_seconds;
        std::printf("whole run:    %12.3f s host for `gpuvp run launch_storm.yaml --out DIR`  (%.1f times the simulation; scenario file %.3f s, "
                    "simulation %.3f s, the rest of the run %.3f s, files and report %.3f s; %.1f MB peak)\n",
                    total, total / m.host_seconds, m.load_seconds, m.host_seconds, m.run_seconds - m.host_seconds, m.write_seconds,
                    mb(m.peak_kb));
    } else {
        std::printf("whole run:    failed\n");
        ++failures;
    }
}

// Real workloads: profiler traces replayed and imported.
void trace_lines(const DataDirs& data, bool quick, int& failures) {
    Measure m{};
    // The V100 trace's replay only in the full run: minutes.
    auto replay_line = [&](const char* label, const char* name) {
        starting(std::string("replay of ") + name);
        if (replay(data.traces + "/" + name, m)) {
            std::printf("%-13s %12.0f warps per host second              (%s: %llu kernels, %llu blocks, %llu warps, %llu instructions, "
                        "%.3f s host, %.3f ms simulated, %.1f MB peak)\n",
                        label, m.warps / m.host_seconds, name, m.kernels, m.blocks, m.warps, m.instructions, m.host_seconds,
                        m.sim_ns / 1e6, mb(m.peak_kb));
        } else {
            std::printf("%-13s failed\n", label);
            ++failures;
        }
    };
    replay_line("replay:", "a100-alexnet-step.json.gz");
    if (!quick) replay_line("replay V100:", "v100-training-4350-kernels.json.gz");
    const std::string trace = data.traces + "/v100-training-4350-kernels.json.gz";
    starting("import of the V100 trace");
    if (import_trace(trace, 1, m)) {
        std::printf("import:       %12.0f kernels per host second            (read_profiler_trace of the V100 trace: %llu kernels, "
                    "%.1f MB of JSON, %.3f s host, %.1f MB/s; its read and gunzip alone %.3f s; then as a scenario %.3f s; "
                    "%.1f MB peak)\n",
                    m.kernels / m.host_seconds, m.kernels, m.bytes / 1e6, m.host_seconds, m.bytes / 1e6 / m.host_seconds,
                    m.load_seconds, m.run_seconds, mb(m.peak_kb));
    } else {
        std::printf("import:       failed\n");
        ++failures;
    }
    // A trace of about 20 000 kernels (the V100 trace five times over): read at the rate above,
    // 50 MB of JSON take about 50 / (MB/s) s more.
    starting("import of the V100 trace five times over");
    if (import_trace(trace, 5, m)) {
        std::printf("import 20k:   %12.3f s host for a trace as a scenario    (the V100 trace 5 times over: %llu kernels; "
                    "reading it 5 x %.3f s, as a scenario %.3f s; %.1f MB peak)\n",
                    5 * m.host_seconds + m.run_seconds, m.kernels, m.host_seconds, m.run_seconds, mb(m.peak_kb));
    } else {
        std::printf("import 20k:   failed\n");
        ++failures;
    }
}

// Scaling: the compute program on N SMs, 16 blocks of 256 threads per SM (two waves).
void scaling_table(const std::string& dir, int& failures) {
    Measure m{};
    std::printf("\nScaling: the compute program, 16 blocks of 8 warps per SM (two waves of 64 warp slots)\n");
    std::printf("  %5s %14s %10s %14s %12s %10s\n", "SMs", "instructions", "host s", "ns/instruction", "vs 8 SMs", "peak MB");
    double base = 0;
    for (unsigned sms : {8u, 16u, 32u, 64u, 80u, 128u, 304u}) {
        const gpuvp::Overrides o = {{"platform.sms", std::to_string(sms)},
                                    {"kernels.compute.grid", "[" + std::to_string(4096u * sms) + "]"}};
        starting("scaling, " + std::to_string(sms) + " SMs");
        if (!measure(dir + "/compute.yaml", m, o)) {
            std::printf("  %5u failed\n", sms);
            ++failures;
            continue;
        }
        const double per = m.host_seconds * 1e9 / double(m.instructions);
        if (base == 0) base = per;
        std::printf("  %5u %14llu %10.3f %14.1f %11.2fx %10.1f\n", sms, m.instructions, m.host_seconds, per, per / base,
                    mb(m.peak_kb));
    }
}

int sc_main(int argc, char** argv) {
    const DataDirs data = data_dirs();
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "-h" || first == "--help" || (first.rfind("-", 0) == 0 && first != "--big" && first != "--quick") ||
        argc > 3 || (argc == 3 && first != "--big" && first != "--quick")) {
        std::fprintf(first == "-h" || first == "--help" ? stdout : stderr,
                     "usage: gpuvp_bench [SCENARIO_DIR]          every measurement and the scaling table (default: %s)\n"
                     "       gpuvp_bench --quick [SCENARIO_DIR]  the same without the scaling table\n"
                     "       gpuvp_bench --big [DIR]             big grids and long queues (default: %s)\n"
                     "docs/performance.md explains every figure.\n",
                     (data.scenarios + "/bench").c_str(), (data.scenarios + "/big").c_str());
        return first == "-h" || first == "--help" ? 0 : 2;
    }
    if (argc > 1 && std::string(argv[1]) == "--big") return big_runs(argc > 2 ? argv[2] : data.scenarios + "/big");
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const int dir_arg = quick ? 2 : 1;
    const std::string dir = argc > dir_arg ? argv[dir_arg] : data.scenarios + "/bench";
    int failures = 0;
    const double instruction_rate = scenario_lines(dir, failures);
    engine_lines(dir, instruction_rate, failures);
    trace_lines(data, quick, failures);
    if (!quick) scaling_table(dir, failures);
    return failures ? 1 : 0;
}

