// The model against the hardware: a replayed trace's kernels as the hardware measured them and
// as the model simulated them, and the figures that compare the two sides (docs/replay.md, "The
// model against the hardware"). Pure functions on plain times; no SystemC. The run fills
// results.json's `replay` from them (replay_summary); the report draws their samples.
//
// Every figure is computed the same way on each side from the same five times per kernel. A
// kernel without a start or an end (it never ran) takes part in none of them.
#pragma once
#include "sc_main/record/fields.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp {

// One kernel on one side, in ns.
struct KernelTimes {
    std::string name;    // BASENAME#INDEX in an imported scenario
    std::string stream;  // its queue
    double launch_ns = 0, launch_end_ns = 0;  // its launch call started, returned
    std::optional<double> start_ns, end_ns;   // it ran on the GPU
    std::optional<double> floor_ns;           // measured side: its floor in the model (MeasuredTimes)
    std::string label;                        // KernelRecord::label ("": none)
};

// The kernels of a replay, side by side: measured[i] and simulated[i] are one kernel.
struct ReplaySides {
    std::vector<KernelTimes> measured, simulated;
};

// Samples summarised (nearest rank: the p-th percentile of n sorted samples is the one of rank
// ceil(p / 100 * n), counting from 1). Without samples: count 0, the rest null.
struct Distribution {
    STATS_RECORD;
    std::optional<double> median, p90, max;
    uint64_t count = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("median", s.median, {"", "the median (nearest rank)"});
        v("p90", s.p90, {"", "the 90th percentile (nearest rank)"});
        v("max", s.max, {"", "the largest"});
        v("count", s.count, {"count", "samples"});
    }
};

// A figure compared launch by launch: simulated minus measured, per launch, over the launches
// that give the figure on the hardware (the model's value for the same launch, whether or not
// it gives the figure in the model). Without such launches: count 0, the rest null.
struct PairedError {
    STATS_RECORD;
    std::optional<double> median_abs, p90_abs;
    uint64_t count = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("median_abs", s.median_abs, {"ns", "the median of the absolute differences (nearest rank)"});
        v("p90_abs", s.p90_abs, {"ns", "the 90th percentile of the absolute differences (nearest rank)"});
        v("count", s.count, {"count", "launches compared"});
    }
};

// A figure in ns, a distribution per side, and the two compared launch by launch.
struct SidesDistribution {
    STATS_RECORD;
    Distribution measured, simulated;
    Omit<PairedError> error;  // (always written; absent in results.json of gpuvp before it)
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("measured", s.measured, {"ns", "as the hardware measured it"});
        v("simulated", s.simulated, {"ns", "as the model simulated it"});
        v("error", s.error, {"ns", "per launch the hardware gives it for, simulated minus measured"});
    }
};

struct SidesValue {
    STATS_RECORD;
    std::optional<double> measured, simulated;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("measured", s.measured, {"", "on the hardware"});
        v("simulated", s.simulated, {"", "in the model"});
    }
};

// results.json's `replay`.
struct ReplayRecord {
    STATS_RECORD;
    uint64_t kernels = 0;
    // (always written; absent in results.json of gpuvp before them)
    Omit<uint64_t> dispatch_bound_kernels;
    Omit<uint64_t> inferred_waits, unmatched_waits;  // set by the run from the kernels' measured
    SidesDistribution same_stream_gap_ns, idle_launch_latency_ns;
    Distribution kernel_duration_ratio;
    // (always written; absent in results.json of gpuvp before them)
    Omit<Distribution> kernel_duration_ratio_alone, kernel_duration_ratio_overlapped;
    SidesValue makespan_ns;
    std::optional<double> makespan_ratio;
    SidesValue cross_stream_overlap;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("kernels", s.kernels, {"count", "kernels replayed (those with measured times)"});
        v("dispatch_bound_kernels", s.dispatch_bound_kernels,
          {"count", "kernels measured shorter than their floor: the model cannot dispatch them that fast"});
        v("inferred_waits", s.inferred_waits,
          {"count", "wait calls the trace gives no target for, made dependencies from the timeline by the import"});
        v("unmatched_waits", s.unmatched_waits,
          {"count", "wait calls the trace gives no target for, neither resolved nor inferred: replayed without a wait"});
        v("same_stream_gap_ns", s.same_stream_gap_ns,
          {"ns", "start - previous end on one stream, where the launch had returned before the previous ended"});
        v("idle_launch_latency_ns", s.idle_launch_latency_ns,
          {"ns", "launch call start -> kernel start with no kernel running or queued, first launch of a name left out"});
        v("kernel_duration_ratio", s.kernel_duration_ratio, {"ratio", "per kernel, simulated over measured end - start"});
        v("kernel_duration_ratio_alone", s.kernel_duration_ratio_alone,
          {"ratio", "the same, over the kernels no other kernel overlapped on the hardware"});
        v("kernel_duration_ratio_overlapped", s.kernel_duration_ratio_overlapped,
          {"ratio", "the same, over the kernels another kernel overlapped on the hardware"});
        v("makespan_ns", s.makespan_ns, {"ns", "first launch call start -> last kernel end"});
        v("makespan_ratio", s.makespan_ratio, {"ratio", "makespan, simulated over measured"});
        v("cross_stream_overlap", s.cross_stream_overlap,
          {"fraction", "kernel time during which a kernel of another stream runs, over all kernel time"});
    }
};

// The name whose first launch loads code: the part before the last '#' (all of it without one).
std::string_view base_name(std::string_view kernel);

// The samples of one side, in the order of the kernels that give them.
std::vector<double> same_stream_gaps(const std::vector<KernelTimes>& kernels);
std::vector<double> idle_launch_latencies(const std::vector<KernelTimes>& kernels);
// The same per kernel: kernels[i]'s sample (as the next kernel of a gap; as the launch of an
// idle latency), or null where it gives none.
std::vector<std::optional<double>> same_stream_gap_of(const std::vector<KernelTimes>& kernels);
std::vector<std::optional<double>> idle_launch_latency_of(const std::vector<KernelTimes>& kernels);
// Per kernel that ran on both sides with a measured duration above 0: simulated over measured.
// With `overlapped`, only the kernels that another kernel did (true) or did not (false)
// overlap on the hardware (overlapped_kernels of the measured side).
std::vector<double> kernel_duration_ratios(const ReplaySides& sides, std::optional<bool> overlapped = std::nullopt);
// The measured kernels shorter than their floor (KernelTimes::floor_ns), by index.
std::vector<size_t> dispatch_bound_kernels(const std::vector<KernelTimes>& measured);
// Per kernel (by index): whether another kernel of the side ran during part of it (their
// start-end intervals share more than a point). A kernel that did not run: false.
std::vector<bool> overlapped_kernels(const std::vector<KernelTimes>& kernels);
// Per kernel (by index): the figure in the model minus on the hardware, for the kernels whose
// measured side gives it and that ran in the model (null elsewhere). A gap pairs the kernel
// with its predecessor on the hardware's stream; an idle latency is the model's launch call
// start -> kernel start of the same launch.
std::vector<std::optional<double>> same_stream_gap_errors(const ReplaySides& sides);
std::vector<std::optional<double>> idle_launch_latency_errors(const ReplaySides& sides);
PairedError paired_error(const std::vector<double>& errors);

// The p-th percentile of `sorted` (ascending, not empty), nearest rank.
double nearest_rank(const std::vector<double>& sorted, double p);
Distribution distribution(std::vector<double> samples);

// null without kernels that ran (or, for the overlap, without kernel time).
std::optional<double> cross_stream_overlap(const std::vector<KernelTimes>& kernels);
std::optional<double> makespan(const std::vector<KernelTimes>& kernels);

// Everything above, for both sides.
ReplayRecord replay_summary(const ReplaySides& sides);

}  // namespace gpuvp
