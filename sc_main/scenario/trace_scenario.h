// A profiler trace (sc_main/replay/profiler_trace.h) as a scenario: one queue per stream, its
// kernels with duration-driven bodies and what the hardware measured, its copies and fills, and
// the host's calls for a closed-loop replay (docs/replay.md). `gpuvp import` writes the
// document; `gpuvp run TRACE` reads the same document as a scenario.
#pragma once
#include "sc_main/replay/profiler_trace.h"
#include "sc_main/scenario/scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace gpuvp {

struct TraceImportOptions {
    std::optional<int64_t> device;         // the GPU to replay (a trace's `device`); unset: the first with kernels
    ReplayMode mode = ReplayMode::closed;  // host.replay
    bool skip_unfit = false;               // leave out (and count) a kernel the platform cannot hold, instead of an error
    std::string name;                      // the scenario's name; empty: from the trace's file name
    // --platform: a platform file over the trace's own platform (a preset, or what `gpuvp
    // calibrate` wrote): the GPU the trace ran on, as the model should take it. The kernels'
    // cycles are computed on it; --set afterwards is a what-if of the same cycles.
    std::optional<PlatformSource> platform;
};

// What an import made, for the user.
struct TraceImportSummary {
    int64_t device = 0;
    std::string gpu;     // the device's name in the trace
    std::string preset;  // the platform preset it matched ("" if none)
    uint64_t kernels = 0, copies = 0, calls = 0, streams = 0, host_threads = 0;
    uint64_t skipped_unfit = 0;     // with skip_unfit
    uint64_t shapes_defaulted = 0;  // kernels without grid or block in the trace
    uint64_t other_devices = 0;     // kernels and copies of other GPUs, not replayed
    // `Stream Wait Event` and `Event Sync` records that do not name their event's record call:
    // joined to it by the importer, or left unresolved (replayed without their wait: a wait
    // gives no `after`, a sync is CPU time). docs/replay.md, "Events".
    uint64_t events_joined = 0, events_unresolved = 0;
    double measured_makespan_ns = 0;
};

// Blocks of a kernel one SM holds at once, by its warp slots, registers and shared memory
// (0: none fits).
uint64_t blocks_per_sm(const SmConfig& sm, uint64_t threads, uint32_t vregs, uint32_t shared_bytes);
// A replayed kernel's body: its kernel-argument load, then `cycles` of vector ALU work (as
// 65535-cycle instructions repeated and the rest; at most 65535 x 2^31 cycles, days at any
// clock), then the end.
std::vector<ProgramStep> duration_program(uint64_t cycles);

// The trace as scenario YAML text. Throws TraceError for a trace that cannot be replayed (no
// kernels on the device, a kernel the platform cannot hold without skip_unfit, a grid beyond the
// packet's 32-bit fields).
std::string trace_scenario_yaml(const ProfilerTrace& trace, const TraceImportOptions& options,
                                TraceImportSummary* summary = nullptr);
// The trace as a scenario, with `overrides` (--set), exactly as its YAML would load.
Scenario load_trace_scenario(const ProfilerTrace& trace, const TraceImportOptions& options, const Overrides& overrides,
                             TraceImportSummary* summary = nullptr);

}  // namespace gpuvp
