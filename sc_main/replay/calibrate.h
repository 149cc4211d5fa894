// `gpuvp calibrate`: fits the front end's latencies to what profiler traces measured
// (docs/replay.md, "Calibration"). A seeded, bounded search over the model: each evaluation
// replays the first trace with one set of values and compares the same-stream gap and the idle
// launch latency of the launches it fits on with the measured ones, launch by launch
// (calibrate.cpp, objective).
#pragma once
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/scenario.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

// A latency the calibration fits: a scenario key and the range it searches.
struct CalibrationParam {
    std::string key;  // "host.api_overhead_ns", "platform.cp.wakeup_cycles", ...
    double lo = 0, hi = 0;
    std::string what;
    double Workload::*host = nullptr;  // a `host.` key's field; a `platform.` key is read through get_param
};
const std::vector<CalibrationParam>& calibration_params();

struct CalibrationOptions {
    unsigned evaluations = 160;  // simulations at most, the first one the defaults
    uint64_t seed = 1;
    unsigned jobs = 1;          // simulations at once (a process each)
    std::string work_dir;       // their results go here (removed at the end, the fit done or failed)
    // --platform or --preset: the GPU the traces ran on, under the fitted values (unset: each
    // trace's own, or the default platform where a trace does not name its GPU).
    std::optional<PlatformSource> platform;
    // Called after each evaluation: how many so far, the best error so far (ns).
    std::function<void(unsigned, double)> progress;
};

// The two figures the fit compares, on one side of one set of launches: each side's median, and
// on a simulated side the paired error (the median of |simulated - measured| over the launches
// the hardware gives the figure for; replay_metrics.h, PairedError).
struct FitFigures {
    std::optional<double> gap_median, idle_median;  // ns
    uint64_t gaps = 0, idles = 0;                   // samples
    std::optional<double> gap_error, idle_error;    // ns, simulated sides only
};

// One trace's figures for one set of launches: measured, and simulated with the defaults
// (before) and with the fitted values (after).
struct CalibrationRow {
    std::string trace;
    std::string launches;  // "fit" (the even launches of the first trace), "held out" (its odd ones), "all"
    FitFigures measured, before, after;
};

// What the traces' kernel durations say of the GLC's cost of a placement
// (`glc.decision_cycles`): a kernel takes no less than its placements, one after another, so
// its measured duration over its placements bounds a decision's cycles from above (a bound, not
// a measure: the duration holds the blocks' work too). A decision's cycles cannot be told from
// a descriptor's on lone kernels: the bound takes `glc.descriptor_cycles` as the platform has it.
struct DispatchBound {
    std::optional<double> cycles;  // the tightest bound; none without a kernel of two placements or more
    std::string trace, kernel;     // the kernel that gives it
    uint64_t placements = 0;
    double duration_ns = 0;
};
// The bound over `s`'s kernels with measured times (`trace` names it in the result).
DispatchBound dispatch_bound(const Scenario& s, const std::string& trace);

struct CalibrationResult {
    std::vector<std::pair<std::string, double>> values;  // the fitted value of each parameter
    double error_before = 0, error_after = 0;            // the fit's objective (ns), defaults and fitted
    unsigned evaluations = 0;
    std::vector<CalibrationRow> rows;
    // glc.decision_cycles: the default, or the traces' bound where that is lower (then among
    // `values`), and the kernels measured shorter than their placements at the fitted cost.
    DispatchBound bound;
    double decision_cycles = 0;
    uint64_t kernels = 0, dispatch_bound_kernels = 0;
    std::string platform_text;  // the platform file of the fitted values (over CalibrationOptions::platform)
};

// `traces`: each read as a scenario with `overrides` (the first is fitted on). Throws
// std::runtime_error when a replay cannot run.
CalibrationResult calibrate(const std::vector<ProfilerTrace>& traces, const Overrides& overrides,
                            const CalibrationOptions& options);

// The platform file (`--platform`) the fit gives: the fitted values as YAML.
std::string calibration_yaml(const CalibrationResult& result, const std::vector<std::string>& trace_files);
// The table `gpuvp calibrate` prints: per trace and set of launches, measured against before and after.
std::string calibration_table(const CalibrationResult& result);
// A sentence for each fitted value at an end of its search range, and what that suggests (what
// `gpuvp calibrate` prints on stderr); none when every value is inside its range.
std::vector<std::string> calibration_warnings(const CalibrationResult& result);

}  // namespace gpuvp
