// RunRecord: everything one run produced, typed. The run fills it once; results.json, the
// console table, the expectations and report.html are written from it. Each member is named
// once, in its type's `fields` (sc_main/record/fields.h): results.json's layout is that list.
// docs/results.md describes every member.
#pragma once
#include <gpuvp/firmware/workload.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/glc/global_logic_controller.h>
#include <gpuvp/models/memory/cache.h>
#include <gpuvp/models/sm/lock_arbiter.h>
#include <gpuvp/models/sm/sm.h>
#include <gpuvp/models/usa/unified_shading_array.h>
#include "sc_main/record/fields.h"
#include "sc_main/record/launch_status.h"
#include "sc_main/record/replay_metrics.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp {

// The launch path as results.json's `stages`, the table and the report show it: each stage
// runs from the previous milestone to its own (the first from submit to the doorbell).
struct LaunchStage {
    const char* name;
    const char* meaning;
    std::optional<Stage> ends_at;  // none: the doorbell
};
extern const std::array<LaunchStage, 13> kLaunchStages;

struct PolicyNames {
    STATS_RECORD;
    std::string dispatch, launch, lock, scalar, shading, issue;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("dispatch", s.dispatch, {"", "M1: how blocks and warps are ordered (fifo, priority-block, priority-warp)"});
        v("launch", s.launch, {"", "M5: how a kernel's arguments reach it (serial, prefetch)"});
        v("lock", s.lock, {"", "M2: warp mutexes (spin, priority)"});
        v("scalar", s.scalar, {"", "M3: scalar registers (per-warp, multilevel)"});
        v("shading", s.shading, {"", "M4: the shading array's balance (static, adaptive, adaptive-depth-first)"});
        v("issue", s.issue, {"", "the SMs' issue order among ready warps (gto, lrr)"});
    }
};

// What results.json says of the platform: only with `platform.preset`, the preset's name.
struct PlatformTag {
    STATS_RECORD;
    std::string preset;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("preset", s.preset, {"", "the platform preset the scenario named (`platform.preset`, docs/presets.md)"});
    }
};

// A variant's name and its `set:` overrides.
struct VariantTag {
    STATS_RECORD;
    std::string name;
    Named<std::string> set;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("name", s.name, {"", "the variant's name"});
        v("set", s.set, {"", "its overrides: each KEY as written, its VALUE as YAML flow text"});
    }
};

// One stage of the launch path: from the previous milestone to its own.
struct StageRecord {
    STATS_RECORD;
    std::string stage;
    double start_ns = 0, end_ns = 0, ns = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("stage", s.stage, {"", "the stage's name (docs/results.md, launch stages)"});
        v("start_ns", s.start_ns, {"ns", "when it began"});
        v("end_ns", s.end_ns, {"ns", "when it ended"});
        v("ns", s.ns, {"ns", "how long it took"});
    }
};

// Every milestone of a kernel's launch (null: not reached).
struct Milestones {
    STATS_RECORD;
    double submit_ns = 0;
    std::array<std::optional<double>, size_t(Stage::count)> stage_ns;  // by Stage
    std::optional<double> complete_ns, host_saw_completion_ns;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("submit_ns", s.submit_ns, {"ns", "the host started launching it"});
        static const auto names = [] {
            std::array<std::string, size_t(Stage::count)> n;
            for (size_t i = 0; i < n.size(); ++i) n[i] = std::string(stage_name(Stage(i))) + "_ns";
            return n;
        }();
        for (size_t i = 0; i < names.size(); ++i) v(names[i], s.stage_ns[i], {"ns", stage_meaning(Stage(i))});
        v("complete_ns", s.complete_ns, {"ns", "the completion signal was written"});
        v("host_saw_completion_ns", s.host_saw_completion_ns, {"ns", "the host saw the completion"});
    }
};

// How many instances fell in each of equal bins from `from_ns`.
struct HistogramRecord {
    STATS_RECORD;
    double from_ns = 0, bin_ns = 0;
    std::vector<uint64_t> counts;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("from_ns", s.from_ns, {"ns", "the first bin's start: the smallest value"});
        v("bin_ns", s.bin_ns, {"ns", "each bin's width: (max - min) / 20 (0 when every value is the same)"});
        v("counts", s.counts, {"count", "instances per bin, 20 bins; a value goes to the bin of its 0.1 % bucket's largest value"});
    }
};

// min, mean and max of a figure over instances (null: none completed ok).
struct Spread3 {
    STATS_RECORD;
    std::optional<double> min, mean, max;
    Omit<double> p50, p90, p99;  // when any instance ended ok
    Omit<HistogramRecord> histogram;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("min", s.min, {"ns", "the smallest"});
        v("mean", s.mean, {"ns", "the mean"});
        v("max", s.max, {"ns", "the largest"});
        v("p50", s.p50, {"ns", "the median: an observed value within 0.1 % of the exact one"});
        v("p90", s.p90, {"ns", "the 90th percentile, as p50"});
        v("p99", s.p99, {"ns", "the 99th percentile, as p50"});
        v("histogram", s.histogram, {"", "the values' distribution in 20 equal bins from min to max"});
    }
};

// A kernel's or a draw's `instances`: counts, and each figure over the instances that ended ok.
struct InstancesSummary {
    STATS_RECORD;
    uint64_t count = 0;
    double interval_ns = 0;
    uint64_t submitted = 0, ok = 0, failed = 0;
    Omit<Spread3> launch_latency_ns, dispatch_latency_ns;  // kernels only
    Spread3 response_ns, turnaround_ns;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("count", s.count, {"count", "instances the scenario asked for"});
        v("interval_ns", s.interval_ns, {"ns", "between two instances' submits"});
        v("submitted", s.submitted, {"count", "instances the host posted"});
        v("ok", s.ok, {"count", "instances that ended ok"});
        v("failed", s.failed, {"count", "instances that did not end ok"});
        v("launch_latency_ns", s.launch_latency_ns, {"ns", "kernels: submit -> first instruction with its arguments"});
        v("dispatch_latency_ns", s.dispatch_latency_ns, {"ns", "kernels: doorbell -> first instruction with its arguments"});
        v("response_ns", s.response_ns, {"ns", "submit -> first warp (draws: first task)"});
        v("turnaround_ns", s.turnaround_ns, {"ns", "submit -> completion signal written"});
    }
};

struct KernelRecord {
    STATS_RECORD;
    std::string name, queue;
    Omit<std::string> label;
    uint32_t priority = 0;
    LaunchStatus status;
    std::optional<uint64_t> packet;
    uint64_t blocks = 0, warps = 0;
    double submit_ns = 0;
    std::optional<double> doorbell_ns, first_block_dispatch_ns, first_warp_start_ns, first_instruction_ns, end_ns,
        complete_ns, launch_latency_ns, response_ns, turnaround_ns;
    Omit<std::optional<double>> alone_turnaround_ns, slowdown;  // with measure_alone
    std::optional<double> dispatch_latency_ns;
    std::vector<StageRecord> stages;
    Milestones milestones;
    Omit<InstancesSummary> instances;
    // A replayed trace's kernel: what the hardware measured, and when its launch call started and
    // returned in the model (closed-loop replay; otherwise submit_ns and doorbell_ns stand for them).
    Omit<MeasuredTimes> measured;
    Omit<double> call_start_ns, call_end_ns;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("name", s.name, {"", "the kernel's name in the scenario"});
        v("label", s.label, {"", "the scenario's label for it, if any (a replay: the NVTX range around its launch)"});
        v("queue", s.queue, {"", "its queue"});
        v("priority", s.priority, {"", "its queue's priority (0 is the highest)"});
        v("status", s.status, {"", "ok, or what went wrong"});
        v("packet", s.packet, {"", "its packet's index in the queue (null: never posted)"});
        v("blocks", s.blocks, {"count", "blocks in its grid", kMetric});
        v("warps", s.warps, {"count", "warps in its grid", kMetric});
        v("submit_ns", s.submit_ns, {"ns", "when the host started launching it"});
        v("doorbell_ns", s.doorbell_ns, {"ns", "when the host rang its doorbell", kMetric});
        v("first_block_dispatch_ns", s.first_block_dispatch_ns, {"ns", "when its first block was placed", kMetric});
        v("first_warp_start_ns", s.first_warp_start_ns, {"ns", "when its first warp took a slot", kMetric});
        v("first_instruction_ns", s.first_instruction_ns, {"ns", "when its first instruction ran with its arguments", kMetric});
        v("end_ns", s.end_ns, {"ns", "when its last block finished", kMetric});
        v("complete_ns", s.complete_ns, {"ns", "when its completion signal was written", kMetric});
        v("launch_latency_ns", s.launch_latency_ns, {"ns", "submit -> first instruction with its arguments", kMetric});
        v("response_ns", s.response_ns, {"ns", "submit -> first warp running", kMetric});
        v("turnaround_ns", s.turnaround_ns, {"ns", "submit -> completion signal written", kMetric});
        v("alone_turnaround_ns", s.alone_turnaround_ns, {"ns", "with measure_alone: its turnaround run alone", kMetric});
        v("slowdown", s.slowdown, {"ratio", "with measure_alone: turnaround / alone_turnaround_ns", kMetric});
        v("dispatch_latency_ns", s.dispatch_latency_ns, {"ns", "doorbell -> first instruction with its arguments", kMetric});
        v("stages", s.stages, {"", "the launch path, stage by stage"});
        v("milestones", s.milestones, {"ns", "each milestone of the launch"});
        v("instances", s.instances, {"", "with instances: the summary over them"});
        v("measured", s.measured, {"ns", "a replayed trace's kernel: what the hardware measured, on the replay's time base"});
        v("call_start_ns", s.call_start_ns, {"ns", "closed-loop replay: when its launch call started"});
        v("call_end_ns", s.call_end_ns, {"ns", "closed-loop replay: when its launch call returned"});
    }
};

struct DrawRecord {
    STATS_RECORD;
    std::string name, queue;
    LaunchStatus status;
    std::optional<uint64_t> packet;
    uint64_t vertex_tasks = 0, pixel_tasks = 0;
    double submit_ns = 0;
    std::optional<double> doorbell_ns, arrived_ns, first_task_ns, vertex_done_ns, end_ns, complete_ns, response_ns,
        turnaround_ns;
    Omit<InstancesSummary> instances;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("name", s.name, {"", "the draw's name in the scenario"});
        v("queue", s.queue, {"", "its queue"});
        v("status", s.status, {"", "ok, or what went wrong"});
        v("packet", s.packet, {"", "its packet's index in the queue"});
        v("vertex_tasks", s.vertex_tasks, {"count", "vertex tasks"});
        v("pixel_tasks", s.pixel_tasks, {"count", "pixel tasks"});
        v("submit_ns", s.submit_ns, {"ns", "when the host started launching it"});
        v("doorbell_ns", s.doorbell_ns, {"ns", "when the host rang its doorbell", kMetric});
        v("arrived_ns", s.arrived_ns, {"ns", "when the shading array took it", kMetric});
        v("first_task_ns", s.first_task_ns, {"ns", "when its first task started", kMetric});
        v("vertex_done_ns", s.vertex_done_ns, {"ns", "when its last vertex task ended", kMetric});
        v("end_ns", s.end_ns, {"ns", "when its last task ended", kMetric});
        v("complete_ns", s.complete_ns, {"ns", "when its completion signal was written", kMetric});
        v("response_ns", s.response_ns, {"ns", "submit -> first task", kMetric});
        v("turnaround_ns", s.turnaround_ns, {"ns", "submit -> completion signal written", kMetric});
        v("instances", s.instances, {"", "with instances: the summary over them"});
    }
};

struct MeanMax {
    STATS_RECORD;
    double mean = 0, max = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("mean", s.mean, {"ns", "the mean"});
        v("max", s.max, {"ns", "the largest"});
    }
};

// M2: the lock figures of the warps of one priority.
struct PriorityLocks {
    STATS_RECORD;
    uint64_t warps = 0, acquisitions = 0;
    MeanMax wait_ns;
    uint64_t retakes = 0;
    MeanMax task_end_ns;
    uint64_t sync_failures = 0, forced_releases = 0, hold_limit_releases = 0, redone_instructions = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("warps", s.warps, {"count", "warps of this priority that took locks"});
        v("acquisitions", s.acquisitions, {"count", "locks they acquired"});
        v("wait_ns", s.wait_ns, {"ns", "request -> grant, per acquisition"});
        v("retakes", s.retakes, {"count", "locks taken again after a forced release"});
        v("task_end_ns", s.task_end_ns, {"ns", "when the warps ended"});
        v("sync_failures", s.sync_failures, {"count", "lock tries that failed"});
        v("forced_releases", s.forced_releases, {"count", "locks taken from them by a higher priority"});
        v("hold_limit_releases", s.hold_limit_releases, {"count", "locks released at the hold limit"});
        v("redone_instructions", s.redone_instructions, {"count", "instructions run again after a forced release"});
    }
};

// M2: the SMs' lock units' statistics summed and the arbiters' together, each declared by its
// block (models/sm/lock_unit.h, lock_arbiter.h) and listed here in results.json's order.
struct LocksRecord {
    STATS_RECORD;
    std::string policy;
    std::optional<uint32_t> hold_limit;
    LockStats counts;             // (its by_priority left empty: the results' own is below)
    LockArbiter::Stats arbiters;
    Named<PriorityLocks> by_priority;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("policy", s.policy, {"", "spin or priority"});
        v("hold_limit", s.hold_limit, {"instructions", "priority: the most a warp holds a lock a higher one wants"});
        for (const char* c : {"acquisitions", "releases", "sync_failures", "forced_releases", "hold_limit_releases", "retakes",
                              "redone_instructions", "arbiter_requests"})
            pick(s.counts, v, c);
        pick(s.arbiters, v, "fifo_max", "arbiter_fifo_max");
        pick(s.counts, v, "stale_decisions");
        pick(s.counts, v, "deadlocks");
        v("by_priority", s.by_priority, {"", "per warp priority (CPR), over the warps that took locks"});
    }
};

struct ScalarLevels {
    STATS_RECORD;
    uint32_t kernel = 0, workgroup = 0, warp = 0, slice = 0, total = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("kernel", s.kernel, {"registers", "kernel level, on the SM that used most"});
        v("workgroup", s.workgroup, {"registers", "workgroup level"});
        v("warp", s.warp, {"registers", "warp level"});
        v("slice", s.slice, {"registers", "slice level"});
        v("total", s.total, {"registers", "all levels at once"});
    }
};

struct ScalarRecord {
    STATS_RECORD;
    std::string policy;
    std::optional<std::string> split;
    uint32_t pool = 0, slice_threshold = 0;
    Named<uint32_t> vregs_per_thread;
    ScalarLevels pool_peak;
    uint64_t allocation_stalls = 0, blocks_waited_for_pool = 0, updates = 0, quota_moves = 0;
    std::vector<uint32_t> resident_warps_max;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("policy", s.policy, {"", "per-warp or multilevel"});
        v("split", s.split, {"", "multilevel: how the pool is split (preset, dynamic, kernel)"});
        v("pool", s.pool, {"registers", "scalar registers per SM"});
        v("slice_threshold", s.slice_threshold, {"registers", "the slice level's threshold"});
        v("vregs_per_thread", s.vregs_per_thread, {"registers", "per kernel: vector registers per thread"});
        v("pool_peak", s.pool_peak, {"registers", "the most in use, per level"});
        v("allocation_stalls", s.allocation_stalls, {"count", "slice allocations refused (the warp waited)"});
        v("blocks_waited_for_pool", s.blocks_waited_for_pool, {"count", "blocks that waited for pool room"});
        v("updates", s.updates, {"count", "kernel- and workgroup-level writes carried out after their sync"});
        v("quota_moves", s.quota_moves, {"count", "dynamic split: quota moved between levels"});
        v("resident_warps_max", s.resident_warps_max, {"warps", "per SM: the most warps resident at once"});
    }
};

struct VertexPixel {
    STATS_RECORD;
    uint64_t vertex = 0, pixel = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("vertex", s.vertex, {"count", "vertex"});
        v("pixel", s.pixel, {"count", "pixel"});
    }
};

struct VertexPixelNs {
    STATS_RECORD;
    double vertex = 0, pixel = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("vertex", s.vertex, {"ns", "vertex"});
        v("pixel", s.pixel, {"ns", "pixel"});
    }
};

struct UsaCores {
    STATS_RECORD;
    uint32_t vertex = 0, pixel = 0;
    uint64_t total = 0;
    uint32_t clusters = 0;
    std::string types;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("vertex", s.vertex, {"cores", "vertex cores at the end"});
        v("pixel", s.pixel, {"cores", "pixel cores at the end"});
        v("total", s.total, {"cores", "cores"});
        v("clusters", s.clusters, {"count", "clusters of cores"});
        v("types", s.types, {"", "each core's type at the end, V or P, a group per cluster"});
    }
};

struct UsaCluster {
    STATS_RECORD;
    uint32_t vertex = 0, pixel = 0;
    double utilization = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("vertex", s.vertex, {"cores", "vertex cores at the end"});
        v("pixel", s.pixel, {"cores", "pixel cores at the end"});
        v("utilization", s.utilization, {"fraction", "busy core time over active time"});
    }
};

// M4: the shading array's counts as it declares them (models/usa/unified_shading_array.h) and
// what the run derives from its times, cores and draws, in results.json's order.
struct UsaRecord {
    STATS_RECORD;
    std::string policy;
    UsaCores cores;
    VertexPixel initial;
    UnifiedShadingArray::Stats counts;  // (only its counts are read back from results.json)
    double utilization = 0, active_ns = 0;
    VertexPixelNs busy_ns;
    VertexPixel tasks;
    Named<double> flags_time_ns;
    std::vector<UsaCluster> clusters;
    std::vector<DrawRecord> draws;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("policy", s.policy, {"", "static, adaptive or adaptive-depth-first"});
        v("cores", s.cores, {"", "the cores at the end"});
        v("initial", s.initial, {"cores", "the split at the start"});
        for (const char* c : {"reassignments", "to_vertex", "to_pixel"}) pick(s.counts, v, c);
        v("utilization", s.utilization, {"fraction", "busy core time over active time times cores"});
        v("active_ns", s.active_ns, {"ns", "time with a task running or ready"});
        v("busy_ns", s.busy_ns, {"ns", "core time busy, by task type"});
        v("tasks", s.tasks, {"count", "tasks run, by type"});
        for (const char* c : {"shader_switches", "draws_refused", "pixel_queue_peak"}) pick(s.counts, v, c);
        v("flags_time_ns", s.flags_time_ns, {"ns", "active time by (idle vertex, idle pixel) load flags"});
        v("clusters", s.clusters, {"", "per cluster"});
        v("draws", s.draws, {"", "each draw"});
    }
};

using CacheRecord = Cache::Stats;  // a cache's own statistics (models/memory/cache.h)

// An SM's resident warps over the whole run, from the run's own data (not the trace, so not cut
// at its event limit): the mean over each of at most 128 equal bins.
struct OccupancyRecord {
    STATS_RECORD;
    double bin_ns = 0;
    std::vector<double> warps;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("bin_ns", s.bin_ns, {"ns", "each bin's width (the same on every SM): 64 ns, doubled until the run fits 128 bins"});
        v("warps", s.warps, {"warps", "the mean number of warps resident in each bin, from time 0 to the run's end"});
    }
};

struct SmRecord {
    STATS_RECORD;
    uint32_t id = 0;
    double busy_fraction = 0;
    uint32_t warp_slots = 0, registers = 0, shared_memory = 0, issue_width = 0;
    StreamingMultiprocessor::Stats counters;  // the SM's own statistics (models/sm/sm.h)
    CacheRecord l1i, l1d;
    Omit<OccupancyRecord> occupancy;  // (always written; absent in results.json of gpuvp before it)
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("id", s.id, {"", "the SM's index"});
        v("busy_fraction", s.busy_fraction, {"fraction", "time with a warp resident over the run"});
        v("warp_slots", s.warp_slots, {"warps", "its warp slots"});
        v("registers", s.registers, {"registers", "its vector registers"});
        v("shared_memory", s.shared_memory, {"bytes", "its shared memory"});
        v("issue_width", s.issue_width, {"instructions", "issued per cycle at most"});
        decltype(s.counters)::fields(s.counters, v);  // its members, at this level
        v("l1i", s.l1i, {"", "its instruction cache"});
        v("l1d", s.l1d, {"", "its data cache"});
        v("occupancy", s.occupancy, {"", "its resident warps over the run, binned (the report's SM overview)"});
    }
};

// One expectation as checked: a bound on a metric, or a comparison `A OP F * B`.
struct ExpectationRecord {
    STATS_RECORD;
    Omit<std::string> variant, kernel, draw;
    Omit<uint32_t> priority;
    Omit<std::string> metric;
    Omit<std::optional<double>> min, max;
    Omit<std::string> compare;
    Omit<std::vector<std::string>> variants;  // a comparison across variants: the two variants
    fields::json value;                       // the metric's value; a comparison's two
    bool passed = false;
    int line = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("variant", s.variant, {"", "with variants: the variant it was checked in"});
        v("kernel", s.kernel, {"", "the kernel whose metric it bounds"});
        v("draw", s.draw, {"", "the draw whose metric it bounds"});
        v("priority", s.priority, {"", "the warp priority whose lock metric it bounds"});
        v("metric", s.metric, {"", "the metric"});
        v("min", s.min, {"", "the lower bound"});
        v("max", s.max, {"", "the upper bound"});
        v("compare", s.compare, {"", "a comparison, as written"});
        v("variants", s.variants, {"", "a comparison across variants: the variants of its two sides"});
        v("value", s.value, {"", "the value found (a comparison: both sides)"});
        v("passed", s.passed, {"", "whether it held"});
        v("line", s.line, {"", "its line in the scenario file"});
    }
};

struct QueueRecord {
    STATS_RECORD;
    std::string name;
    uint32_t priority = 0;
    std::string type;
    std::string status;
    uint64_t packets_processed = 0;
    std::string waiting_for;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("name", s.name, {"", "the queue's name"});
        v("priority", s.priority, {"", "its priority (0 is the highest)"});
        v("type", s.type, {"", "HSA's queue type: multi or single"});
        v("status", s.status, {"", "ok, or the error that stopped it"});
        v("packets_processed", s.packets_processed, {"count", "packets the CP took from it"});
        v("waiting_for", s.waiting_for, {"", "what its next packet waits for at the end"});
    }
};

struct ErrorRecord {
    STATS_RECORD;
    std::string queue;
    uint64_t packet = 0;
    std::string error, field, detail;
    double time_ns = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("queue", s.queue, {"", "the queue"});
        v("packet", s.packet, {"", "the packet's index"});
        v("error", s.error, {"", "the error's name"});
        v("field", s.field, {"", "the packet field (or locks)"});
        v("detail", s.detail, {"", "what was wrong"});
        v("time_ns", s.time_ns, {"ns", "when"});
    }
};

struct HangRecord {
    STATS_RECORD;
    std::string cause;
    double detected_ns = 0, no_progress_since_ns = 0;
    uint32_t in_flight = 0;
    std::vector<std::string> state;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("cause", s.cause, {"", "watchdog or idle"});
        v("detected_ns", s.detected_ns, {"ns", "when it was seen"});
        v("no_progress_since_ns", s.no_progress_since_ns, {"ns", "the start of the window without progress"});
        v("in_flight", s.in_flight, {"count", "kernels and draws launched and not complete"});
        v("state", s.state, {"", "the GPU's state, a line each"});
    }
};

struct ReadsWrites {
    STATS_RECORD;
    uint64_t reads = 0, writes = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("reads", s.reads, {"count", "reads"});
        v("writes", s.writes, {"count", "writes"});
    }
};

struct MemoryLatencies {
    STATS_RECORD;
    double host = 0, link = 0, device = 0, l2 = 0, l1 = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("host", s.host, {"ns", "host memory"});
        v("link", s.link, {"ns", "the link between host and GPU"});
        v("device", s.device, {"ns", "device memory"});
        v("l2", s.l2, {"ns", "the L2"});
        v("l1", s.l1, {"ns", "an L1"});
    }
};

struct MemoryRecord {
    STATS_RECORD;
    CacheRecord l2;
    ReadsWrites host_memory, device_memory;
    MemoryLatencies latency_ns;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("l2", s.l2, {"", "the L2"});
        v("host_memory", s.host_memory, {"", "host memory"});
        v("device_memory", s.device_memory, {"", "device memory"});
        v("latency_ns", s.latency_ns, {"ns", "the platform's latencies"});
    }
};

struct GlcRecord {
    STATS_RECORD;
    GlobalLogicController::Stats blocks_placed;  // the GLC's own statistics (models/glc/global_logic_controller.h)
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("blocks_placed", s.blocks_placed, {"", "blocks placed, by kind"});
    }
};

struct TraceCounts {
    STATS_RECORD;
    uint64_t events = 0, dropped = 0, limit = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("events", s.events, {"count", "trace events kept"});
        v("dropped", s.dropped, {"count", "trace events past the limit"});
        v("limit", s.limit, {"count", "the most kept"});
    }
};

struct ViolationRecord {
    STATS_RECORD;
    std::string checker, rule, detail;
    double at_ns = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("checker", s.checker, {"", "the connection"});
        v("rule", s.rule, {"", "the rule broken"});
        v("detail", s.detail, {"", "what happened"});
        v("at_ns", s.at_ns, {"ns", "when"});
    }
};

struct ProtocolRecord {
    STATS_RECORD;
    uint64_t checkers = 0, transactions = 0, debug_transactions = 0, dmi_requests = 0, dmi_grants = 0,
             invalidations = 0, violation_count = 0;
    std::vector<ViolationRecord> violations;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("checkers", s.checkers, {"count", "connections checked"});
        v("transactions", s.transactions, {"count", "b_transport calls"});
        v("debug_transactions", s.debug_transactions, {"count", "transport_dbg calls"});
        v("dmi_requests", s.dmi_requests, {"count", "get_direct_mem_ptr calls"});
        v("dmi_grants", s.dmi_grants, {"count", "of those, granted"});
        v("invalidations", s.invalidations, {"count", "invalidate_direct_mem_ptr calls"});
        v("violation_count", s.violation_count, {"count", "violations, kept or not"});
        v("violations", s.violations, {"", "the first violations, with their detail"});
    }
};

struct Totals {
    STATS_RECORD;
    uint64_t warp_instructions = 0, warps = 0, blocks_dispatched = 0, packets_processed = 0, interrupts = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("warp_instructions", s.warp_instructions, {"count", "warp-instructions issued on every SM"});
        v("warps", s.warps, {"count", "warps that ended"});
        v("blocks_dispatched", s.blocks_dispatched, {"count", "blocks the GLC placed"});
        v("packets_processed", s.packets_processed, {"count", "AQL packets the CP took"});
        v("interrupts", s.interrupts, {"count", "interrupts the host saw"});
    }
};

struct HostRecord {
    STATS_RECORD;
    double quantum_ns = 0;
    uint64_t syncs = 0;
    std::string code;
    Omit<std::string> serial_args;  // (always written; absent in results.json of gpuvp before it)
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("quantum_ns", s.quantum_ns, {"ns", "the host's time quantum"});
        v("syncs", s.syncs, {"count", "times the host synchronised with the GPU"});
        v("code", s.code, {"", "M5: how the code object reaches device memory (per-launch, once)"});
        v("serial_args", s.serial_args,
          {"", "M5: where launch serial reads a kernel's arguments (device-copy, host-memory)"});
    }
};

struct VariantEntry;

struct RunRecord {
    STATS_RECORD;
    static constexpr bool listed_once = true;  // a variant's results: listed at the top level
    std::string scenario;
    Omit<VariantTag> variant;
    std::string status;
    // A variant whose child process died before it wrote its results: only scenario, variant,
    // status, unfinished, exit_code and expectations are meaningful.
    bool unfinished = false;
    int exit_code = 0;
    PolicyNames policy;
    Omit<PlatformTag> platform;  // with a platform preset
    double sim_end_ns = 0;
    Omit<double> host_seconds;
    std::vector<KernelRecord> kernels;
    LocksRecord locks;
    ScalarRecord scalar;
    UsaRecord usa;
    std::vector<SmRecord> sms;
    std::vector<ExpectationRecord> expectations;
    std::vector<QueueRecord> queues;
    std::vector<ErrorRecord> errors;
    std::optional<HangRecord> hang;
    MemoryRecord memory;
    GlcRecord glc;
    TraceCounts trace;
    Omit<ProtocolRecord> protocol;
    Totals totals;
    HostRecord host;
    Omit<ReplayRecord> replay;  // a replayed trace's: the model against the hardware
    Omit<std::vector<VariantEntry>> variants;  // with `variants:`: each variant's own

    template <class S, class V>
    static void fields(S& s, V& v);  // run_record.h, below VariantEntry
};

struct VariantEntry {
    STATS_RECORD;
    std::string name;
    Named<std::string> set;
    int exit_code = 0;
    RunRecord results;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("name", s.name, {"", "the variant's name"});
        v("set", s.set, {"", "its overrides"});
        v("exit_code", s.exit_code, {"", "its run's exit code"});
        v("results", s.results, {"", "its results, as a run without variants writes them"});
    }
};

template <class S, class V>
void RunRecord::fields(S& s, V& v) {
    v("scenario", s.scenario, {"", "the scenario's name"});
    v("variant", s.variant, {"", "a variant's own results: its name and overrides"});
    v("status", s.status, {"", "ok, or error: a kernel or draw failed, a packet was rejected, a protocol violation"});
    if (s.unfinished) {  // (a reader learns it before it reads the rest: see read_results)
        v("unfinished", s.unfinished, {"", "a variant that could not run: true"});
        v("exit_code", s.exit_code, {"", "its exit code"});
        v("expectations", s.expectations);
        v("host_seconds", s.host_seconds);
        v("variants", s.variants);
        return;
    }
    v("policy", s.policy, {"", "the policies"});
    v("platform", s.platform, {"", "with a platform preset: its name"});
    v("sim_end_ns", s.sim_end_ns, {"ns", "simulated time at the end"});
    v("host_seconds", s.host_seconds, {"s", "host time the simulation took (the only figure that varies)"});
    v("kernels", s.kernels, {"", "each kernel, in scenario order"});
    v("locks", s.locks, {"", "M2: warp mutexes, over every SM"});
    v("scalar", s.scalar, {"", "M3: scalar registers, over every SM"});
    v("usa", s.usa, {"", "M4: the unified shading array and its draws"});
    v("sms", s.sms, {"", "each SM"});
    v("expectations", s.expectations, {"", "each expectation as checked"});
    v("queues", s.queues, {"", "each queue"});
    v("errors", s.errors, {"", "rejected packets and lock deadlocks, in time order"});
    v("hang", s.hang, {"", "the watchdog's report, or null"});
    v("memory", s.memory, {"", "the memory system"});
    v("glc", s.glc, {"", "the global logic controller"});
    v("trace", s.trace, {"", "trace.json's events"});
    v("protocol", s.protocol, {"", "with --check-protocol: the TLM-2.0 base-protocol checkers"});
    v("totals", s.totals, {"", "totals over the GPU"});
    v("host", s.host, {"", "the host model"});
    v("replay", s.replay, {"", "a replayed trace: the model against the hardware (docs/replay.md)"});
    v("variants", s.variants, {"", "with variants: each variant's own results"});
}

#undef GPUVP_RECORD

// results.json's text for a record (two-space indents, a final newline).
std::string results_text(const RunRecord& r);
// A record from results.json's parsed document; throws fields::FieldError naming what is wrong.
RunRecord read_results(const fields::json& document);

// A replayed run's kernels (those with `measured`), as the hardware measured them and as the model
// simulated them: the launch call from call_start_ns and call_end_ns (or submit_ns and
// doorbell_ns), the kernel from first_warp_start_ns to end_ns; each side shifted so that its 0 is
// its earliest kernel launch call's start (a copy's call before it, which results.json does not
// list, is before 0 on neither side).
ReplaySides replay_sides(const std::vector<KernelRecord>& kernels);

// Every member of results.json and every metric an expectation may name, as Markdown tables
// (`gpuvp stats`; docs/results.md, "Every member", holds the same text).
std::string stats_markdown();

}  // namespace gpuvp
