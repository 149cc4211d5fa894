// The metrics an expectation names without a path: of the whole run, and of the lock figures
// of one warp priority (M2). One table each: the scenario loader checks names against it, the
// run evaluates them on its RunRecord, `gpuvp stats` and docs/results.md list them.
// A kernel's or a draw's metrics are the members of its entry (KernelRecord, DrawRecord) that
// its `fields` marks kMetric, and of its `instances` summary (entry_metrics).
#pragma once
#include "sc_main/record/run_record.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp {

struct RunMetric {
    const char* name;
    const char* meaning;  // and where in results.json it comes from
    fields::json (*value)(const RunRecord&);
};

namespace metric_detail {
using json = fields::json;
inline uint64_t kernels_ok(const RunRecord& r) {
    return uint64_t(std::count_if(r.kernels.begin(), r.kernels.end(), [](const KernelRecord& k) { return k.status.ok(); }));
}
inline uint64_t draws_ok(const RunRecord& r) {
    return uint64_t(std::count_if(r.usa.draws.begin(), r.usa.draws.end(), [](const DrawRecord& d) { return d.status.ok(); }));
}
}  // namespace metric_detail

inline const RunMetric kRunMetrics[] = {
    {"sim_end_ns", "simulated time at the end (sim_end_ns)", [](const RunRecord& r) { return fields::json(r.sim_end_ns); }},
    {"kernels_ok", "kernels whose status is ok", [](const RunRecord& r) { return fields::json(metric_detail::kernels_ok(r)); }},
    {"kernels_failed", "kernels whose status is not ok",
     [](const RunRecord& r) { return fields::json(r.kernels.size() - metric_detail::kernels_ok(r)); }},
    {"lock_acquisitions", "M2: locks acquired (locks.acquisitions)", [](const RunRecord& r) { return fields::json(r.locks.counts.acquisitions); }},
    {"sync_failures", "M2: lock tries that failed (locks.sync_failures)", [](const RunRecord& r) { return fields::json(r.locks.counts.sync_failures); }},
    {"forced_releases", "M2: locks taken from a lower-priority holder (locks.forced_releases)",
     [](const RunRecord& r) { return fields::json(r.locks.counts.forced_releases); }},
    {"hold_limit_releases", "M2: locks released at the hold limit (locks.hold_limit_releases)",
     [](const RunRecord& r) { return fields::json(r.locks.counts.hold_limit_releases); }},
    {"redone_instructions", "M2: instructions run again after a forced release (locks.redone_instructions)",
     [](const RunRecord& r) { return fields::json(r.locks.counts.redone_instructions); }},
    {"lock_deadlocks", "M2: lock deadlocks the watchdog reported (locks.deadlocks)", [](const RunRecord& r) { return fields::json(r.locks.counts.deadlocks); }},
    {"hangs", "1 if the run hung (hang), else 0", [](const RunRecord& r) { return fields::json(r.hang ? 1 : 0); }},
    {"retakes", "M2: locks taken again after a forced release (locks.retakes)", [](const RunRecord& r) { return fields::json(r.locks.counts.retakes); }},
    {"resident_warps_max", "M3: the most warps resident at once on any SM (scalar.resident_warps_max)",
     [](const RunRecord& r) {
         uint32_t m = 0;
         for (uint32_t x : r.scalar.resident_warps_max) m = std::max(m, x);
         return fields::json(m);
     }},
    {"allocation_stalls", "M3: slice allocations refused (scalar.allocation_stalls)",
     [](const RunRecord& r) { return fields::json(r.scalar.allocation_stalls); }},
    {"scalar_updates", "M3: kernel- and workgroup-level writes after their sync (scalar.updates)",
     [](const RunRecord& r) { return fields::json(r.scalar.updates); }},
    {"scalar_pool_peak", "M3: the most pool registers in use on one SM (scalar.pool_peak.total)",
     [](const RunRecord& r) { return fields::json(r.scalar.pool_peak.total); }},
    {"draws_ok", "M4: draws whose status is ok", [](const RunRecord& r) { return fields::json(metric_detail::draws_ok(r)); }},
    {"draws_failed", "M4: draws whose status is not ok",
     [](const RunRecord& r) { return fields::json(r.usa.draws.size() - metric_detail::draws_ok(r)); }},
    {"draws_complete_ns", "M4: when the last ok draw completed (null if none did)",
     [](const RunRecord& r) {
         double end = 0;
         for (const DrawRecord& d : r.usa.draws)
             if (d.status.ok() && d.complete_ns) end = std::max(end, *d.complete_ns);
         return metric_detail::draws_ok(r) ? fields::json(end) : fields::json(nullptr);
     }},
    {"usa_utilization", "M4: busy core time over active time (usa.utilization)", [](const RunRecord& r) { return fields::json(r.usa.utilization); }},
    {"usa_reassignments", "M4: cores that changed type (usa.reassignments)", [](const RunRecord& r) { return fields::json(r.usa.counts.reassignments); }},
    {"usa_vertex_cores", "M4: vertex cores at the end (usa.cores.vertex)", [](const RunRecord& r) { return fields::json(r.usa.cores.vertex); }},
    {"usa_pixel_cores", "M4: pixel cores at the end (usa.cores.pixel)", [](const RunRecord& r) { return fields::json(r.usa.cores.pixel); }},
};

struct PriorityMetric {
    const char* name;
    const char* meaning;
    fields::json (*value)(const PriorityLocks&);
};

inline const PriorityMetric kPriorityMetrics[] = {
    {"lock_wait_mean_ns", "mean request -> grant (wait_ns.mean)", [](const PriorityLocks& p) { return fields::json(p.wait_ns.mean); }},
    {"lock_wait_max_ns", "longest request -> grant (wait_ns.max)", [](const PriorityLocks& p) { return fields::json(p.wait_ns.max); }},
    {"task_end_mean_ns", "mean end of the warps (task_end_ns.mean)", [](const PriorityLocks& p) { return fields::json(p.task_end_ns.mean); }},
    {"task_end_max_ns", "latest end of the warps (task_end_ns.max)", [](const PriorityLocks& p) { return fields::json(p.task_end_ns.max); }},
    {"lock_acquisitions", "locks acquired (acquisitions)", [](const PriorityLocks& p) { return fields::json(p.acquisitions); }},
    {"sync_failures", "lock tries that failed", [](const PriorityLocks& p) { return fields::json(p.sync_failures); }},
    {"forced_releases", "locks taken from them", [](const PriorityLocks& p) { return fields::json(p.forced_releases); }},
    {"hold_limit_releases", "locks released at the hold limit", [](const PriorityLocks& p) { return fields::json(p.hold_limit_releases); }},
    {"redone_instructions", "instructions run again", [](const PriorityLocks& p) { return fields::json(p.redone_instructions); }},
    {"retakes", "locks taken again after a forced release", [](const PriorityLocks& p) { return fields::json(p.retakes); }},
    {"warps", "warps of the priority that took locks", [](const PriorityLocks& p) { return fields::json(p.warps); }},
};

// A kernel's (KernelRecord) or a draw's (DrawRecord) metrics, with what each means: the members
// its `fields` marks kMetric; then `instances_ok`, `instances_failed` and, for each of those
// members the `instances` summary spreads over the instances (InstancesSummary), its
// `instance_<figure>_<min|mean|max|p50|p90|p99>_ns`.
struct EntryMetric {
    std::string name, meaning;
};

template <class Entry>
std::vector<EntryMetric> entry_metrics() {
    std::vector<EntryMetric> own, spread;
    std::vector<std::string> summarised;
    auto names = [&](std::string_view name, const auto&, const Doc& = {}) { summarised.emplace_back(name); };
    const InstancesSummary summary;
    InstancesSummary::fields(summary, names);
    auto add = [&](std::string_view name, const auto&, const Doc& doc = {}) {
        if (!doc.metric) return;
        own.push_back({std::string(name), doc.text});
        if (std::find(summarised.begin(), summarised.end(), name) == summarised.end()) return;
        const std::string figure(name.substr(0, name.size() - 3));  // response_ns: response
        for (const char* stat : {"min", "mean", "max", "p50", "p90", "p99"})
            spread.push_back({"instance_" + figure + "_" + stat + "_ns",
                              std::string("with instances: the ") + stat + " of " + std::string(name) + " over those that ended ok"});
    };
    const Entry entry;
    Entry::fields(entry, add);
    own.push_back({"instances_ok", "with instances: instances that ended ok (instances.ok)"});
    own.push_back({"instances_failed", "with instances: instances that did not end ok (instances.failed)"});
    own.insert(own.end(), spread.begin(), spread.end());
    return own;
}

}  // namespace gpuvp
