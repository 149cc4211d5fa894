// A profiler trace (sc_main/profiler/profiler_trace.h) as a scenario: one queue per stream, its
// kernels with duration-driven bodies and what the hardware measured, its copies and fills, and
// the host's calls for a closed-loop replay (docs/replay.md). `gpuvp import` writes the
// document; `gpuvp run TRACE` reads the same document as a scenario.
#pragma once
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/scenario.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

// An imported kernel's body to solve (docs/replay.md, "Kernel bodies"): its shape, the duration
// the hardware measured, and the formula's estimate of its cycles (a start for the solve).
struct BodyTarget {
    std::array<uint32_t, 3> grid{}, block{};  // work-items
    uint32_t vregs = 32, shared_bytes = 0;
    double duration_ns = 0;
    uint64_t estimate = 1;  // cycles
};
// Its solved body: `cycles` of work per warp, and its floor, the kernel's duration alone on the
// platform with a body of one cycle (its dispatch, argument load and waves at their shortest).
// A kernel measured shorter than its floor is dispatch-bound: its body is one cycle.
struct BodySolution {
    uint64_t cycles = 1;
    double floor_ns = 0;
};
// What a solve did, for the user.
struct SolveStats {
    uint64_t shapes = 0;       // distinct kernel shapes
    uint64_t simulations = 0;  // kernels simulated alone (each shape at several bodies)
    double host_seconds = 0;
};
// What the refinement of overlapped kernels did (BodyRefiner).
struct RefineStats {
    uint64_t kernels = 0;  // kernels another kernel overlapped on the hardware
    uint64_t replays = 0;  // whole replays simulated
    double host_seconds = 0;
};
// Solves each target's body on `platform` (the scenario the trace imports to: its platform,
// policies and host; its work is ignored). sc_main/replay/kernel_solve.h.
using BodySolver =
    std::function<std::vector<BodySolution>(const Scenario& platform, const std::vector<BodyTarget>&, SolveStats&)>;
// The bodies of the kernels that another kernel overlapped on the hardware, refined against
// replays of the whole imported scenario (`replay`, its bodies solved): each kernel's cycles in
// scenario order, or none to keep them. sc_main/replay/kernel_solve.h.
using BodyRefiner = std::function<std::vector<uint64_t>(const Scenario& replay, RefineStats&)>;

struct TraceImportOptions {
    std::optional<int64_t> device;         // the GPU to replay (a trace's `device`); unset: the first with kernels
    ReplayMode mode = ReplayMode::closed;  // host.replay
    bool skip_unfit = false;               // leave out (and count) a kernel the platform cannot hold, instead of an error
    std::string name;                      // the scenario's name; empty: from the trace's file name
    // --platform: a platform file over the trace's own platform (a preset, or what `gpuvp
    // calibrate` wrote): the GPU the trace ran on, as the model should take it. The kernels'
    // cycles are computed on it; --set afterwards is a what-if of the same cycles.
    std::optional<PlatformSource> platform;
    // How each kernel's body is found: solved against simulations of the kernel alone (`gpuvp`
    // sets solve_kernel_bodies), or, unset (`--no-solve`), the formula of docs/replay.md.
    BodySolver solve;
    BodyRefiner refine;  // unset: the solved bodies as they are
    // Wait calls the trace records no target for: inferred from the timeline where it shows one
    // (docs/replay.md, "Inferred waits"), or only counted (`--no-infer-waits`).
    bool infer_waits = true;
};

// What an import on the default platform says (TraceImportSummary::default_platform): in a
// warning, and in an error that platform causes.
inline constexpr const char* kUnnamedGpu =
    "the trace does not name its GPU, so it was imported on the default platform (docs/presets.md): "
    "name it with --preset NAME (gpuvp presets) or --platform FILE";

// What an import made, for the user.
struct TraceImportSummary {
    int64_t device = 0;
    std::string gpu;     // the device's name in the trace ("": the trace does not name its GPU)
    std::string preset;  // the platform preset it matched ("" if none)
    // The trace does not name its GPU and nothing else did (--platform, --preset or a --set of
    // platform or platform.*): imported on the default platform.
    bool default_platform = false;
    uint64_t kernels = 0, copies = 0, calls = 0, streams = 0, host_threads = 0;
    uint64_t graphs = 0;  // CUDA graphs traced whole: each replayed as one opaque piece of work (a copy)
    uint64_t skipped_unfit = 0;     // with skip_unfit
    uint64_t shapes_defaulted = 0;  // kernels without grid or block in the trace
    uint64_t other_devices = 0;     // kernels and copies of other GPUs, not replayed
    // `Stream Wait Event` and `Event Sync` records that do not name their event's record call:
    // joined to it by the importer, or left unresolved (replayed without their wait: a wait
    // gives no `after`, a sync is CPU time). docs/replay.md, "Events".
    uint64_t events_joined = 0, events_unresolved = 0;
    double measured_makespan_ns = 0;
    // Wait calls without a record the import resolves: inferred (a dependency made) or unmatched.
    uint64_t inferred_waits = 0, unmatched_waits = 0;
    uint64_t dispatch_bound = 0;  // kernels measured shorter than their floor (BodySolution)
    double host_seconds = 0;      // the import's, the solve's included
    bool solved = false;          // the bodies were solved (TraceImportOptions::solve)
    SolveStats solve;
    bool refined = false;  // TraceImportOptions::refine ran
    RefineStats refine;
};

// Blocks of a kernel one SM holds at once, by its warp slots, registers and shared memory
// (0: none fits).
uint64_t blocks_per_sm(const SmConfig& sm, uint64_t threads, uint32_t vregs, uint32_t shared_bytes);
// A replayed kernel's body: its kernel-argument load, then `cycles` of vector ALU work (as
// 65535-cycle instructions repeated and the rest; at most 65535 x 2^31 cycles, days at any
// clock), then the end.
std::vector<ProgramStep> duration_program(uint64_t cycles);
// The cycles a duration_program's body is busy for: its vector ALU work, repeats counted.
uint64_t program_cycles(const std::vector<ProgramStep>& program);

// The trace as scenario YAML text. Throws TraceError for a trace that cannot be replayed (no
// kernels on the device, a kernel the platform cannot hold without skip_unfit, a grid beyond the
// packet's 32-bit fields).
std::string trace_scenario_yaml(const ProfilerTrace& trace, const TraceImportOptions& options,
                                TraceImportSummary* summary = nullptr);
// The trace as a scenario, with `overrides` (--set), exactly as its YAML would load.
Scenario load_trace_scenario(const ProfilerTrace& trace, const TraceImportOptions& options, const Overrides& overrides,
                             TraceImportSummary* summary = nullptr);

}  // namespace gpuvp
