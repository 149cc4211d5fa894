#include "sc_main/run/builders.h"
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gpuvp::build {

using sc_core::sc_time;

namespace {

// What became of a kernel or a draw: ok, its error, or why it did not complete. `unfinished`
// says how the run ended for what did not complete ("{what}" in its detail: kernel, draw or copy).
LaunchStatus launch_status(const LaunchRecord& l, const System& sys, const Recorder& rec, const LaunchStatus& unfinished) {
    using State = LaunchStatus::State;
    const auto& cq = sys.gpu.cp().queue(l.queue);
    if (!l.done && cq.status != QueueError::none && (!l.rung || l.packet >= cq.read_index))  // submitted after it stopped
        return {State::not_processed, "queue stopped by " + std::string(queue_error_name(cq.status)) + " at packet " +
                                          std::to_string(cq.error_packet)};
    if (!l.done) {
        LaunchStatus status = unfinished;
        const size_t at = status.detail.find("{what}");
        if (at != std::string::npos) status.detail.replace(at, 6, l.draw ? "draw" : l.copy ? "copy" : "kernel");
        if (!l.rung) status.detail += "; the host had not rung its doorbell";
        const std::string w = sys.gpu.cp().waiting_for(l.queue);
        if (!w.empty()) status.detail += "; its queue: " + w;
        return status;
    }
    if (l.error.empty()) return {};
    LaunchStatus status = LaunchStatus::from_text(l.error);  // the host's words for how it ended
    bool stop_named = false;
    for (const auto& r : rec.rejections()) {
        if (r.queue != l.queue) continue;
        const std::string why = std::string(queue_error_name(r.why.error)) + ": " + r.why.field + ": " + r.why.detail;
        if (r.packet == l.packet) return {State::failed, why};  // its own packet was rejected
        if (!stop_named && status.state == State::not_processed) {
            status.detail += " (" + why + ")";  // the first rejection is what stopped the queue
            stop_named = true;
        }
    }
    return status;
}

// A copy of what launch_status reads, for one instance of a launch.
LaunchRecord instance_view(const LaunchRecord& l, bool rung, uint64_t packet, bool done, const std::string& error) {
    LaunchRecord v;
    v.name = l.name;
    v.draw = l.draw;
    v.queue = l.queue;
    v.rung = rung;
    v.packet = packet;
    v.done = done;
    v.error = error;
    return v;
}

// The status of a kernel or draw with `instances`: ok when every instance ended ok, else how
// many did not and what became of the lowest-numbered of them.
LaunchStatus instances_status(const LaunchRecord& l, size_t launch, const System& sys, const Recorder& rec,
                              const LaunchStatus& unfinished) {
    if (l.done && l.failed == 0) return {};
    const auto unended = sys.host.first_unended(launch);
    uint64_t first = 0;
    LaunchStatus status(LaunchStatus::State::failed, "");  // (neither a failure nor an instance left: no words)
    if (l.first_failure && (!unended || l.first_failure->instance < unended->instance)) {
        first = l.first_failure->instance;
        status = launch_status(instance_view(l, true, l.first_failure->packet, true, l.first_failure->error), sys, rec, unfinished);
    } else if (unended) {
        first = unended->instance;
        status = launch_status(instance_view(l, unended->posted, unended->packet, false, ""), sys, rec, unfinished);
    }
    for (const auto& st : rec.lock_stalls())  // M2: the watchdog's report names the stuck warps
        if (st.ref.launch == launch && st.ref.instance == first) status.note(st.state);
    status.instances = LaunchStatus::Instances{l.instances - (l.ended - l.failed), l.instances, first};
    return status;
}

// The `instances` summary: counts, and min / mean / max of each figure over the instances that
// completed ok.
InstancesSummary instances_summary(const LaunchRecord& l, double interval_ns, const InstanceStats* st, bool kernel) {
    auto spread = [](const Spread* sp) {
        Spread3 s;
        if (sp && sp->n) {
            s.min = sp->min;
            s.mean = std::round(sp->sum / double(sp->n) * 1000) / 1000;
            s.max = sp->max;
            s.p50 = sp->percentile(0.5);
            s.p90 = sp->percentile(0.9);
            s.p99 = sp->percentile(0.99);
            HistogramRecord h;
            h.from_ns = sp->min;
            h.bin_ns = std::round((sp->max - sp->min) / 20 * 1000) / 1000;
            h.counts = sp->histogram(h.from_ns, h.bin_ns, 20);
            s.histogram = std::move(h);
        }
        return s;
    };
    InstancesSummary in;
    in.count = l.instances;
    in.interval_ns = interval_ns;
    in.submitted = l.posted;
    in.ok = l.ended - l.failed;
    in.failed = l.instances - in.ok;
    if (kernel) {
        in.launch_latency_ns = spread(st ? &st->launch_latency : nullptr);
        in.dispatch_latency_ns = spread(st ? &st->dispatch_latency : nullptr);
    }
    in.response_ns = spread(st ? &st->response : nullptr);
    in.turnaround_ns = spread(st ? &st->turnaround : nullptr);
    return in;
}

}  // namespace

std::vector<LaunchStatus> launch_statuses(const Ran& ran, const LaunchStatus& unfinished) {
    const auto& launches = ran.sys.host.launches();
    std::vector<LaunchStatus> statuses;
    for (size_t i = 0; i < launches.size(); ++i)
        statuses.push_back(ran.instanced(i) ? instances_status(launches[i], i, ran.sys, ran.rec, unfinished)
                                            : launch_status(launches[i], ran.sys, ran.rec, unfinished));
    return statuses;
}

void name_signals(std::vector<std::string>& state, const std::vector<LaunchRecord>& launches) {
    for (std::string& line : state)
        for (const LaunchRecord& l : launches) {
            const std::string a = hex(l.signal);
            for (size_t at = line.find(a); at != std::string::npos; at = line.find(a, at + 1)) {
                const size_t end_of = at + a.size();
                if (end_of < line.size() && std::isxdigit(static_cast<unsigned char>(line[end_of]))) continue;
                const std::string whose = " (" + l.name + "'s completion signal)";
                line.insert(end_of, whose);
                at = end_of + whose.size() - 1;
            }
        }
}

void scenario_header(RunRecord& r, const Scenario& s) {
    r.scenario = s.name;
    if (!s.variant.empty()) {  // one variant of a scenario with `variants:`
        VariantTag tag;
        tag.name = s.variant;
        tag.set.assign(s.variant_set.begin(), s.variant_set.end());
        r.variant = std::move(tag);
    }
    r.policy = {policy_name(s.policy.dispatch), policy_name(s.policy.launch), policy_name(s.policy.lock),
                policy_name(s.policy.scalar), policy_name(s.policy.shading), policy_name(s.policy.issue)};
    if (!s.preset.empty()) {
        PlatformTag platform;
        platform.preset = s.preset;
        r.platform = std::move(platform);
    }
}

void kernels(RunRecord& r, const Ran& ran, const std::vector<LaunchStatus>& statuses, const std::vector<double>& alone) {
    const Scenario& s = ran.s;
    Recorder& rec = ran.rec;
    const auto& launches = ran.sys.host.launches();
    r.kernels.reserve(s.workload.kernels.size());
    for (size_t i = 0; i < s.workload.kernels.size(); ++i) {
        const LaunchRecord& l = launches[i];
        const KernelSpec& spec = s.workload.kernels[i];
        const Recorder::Kernel* k = l.rung ? rec.kernel(l.queue, l.packet) : nullptr;
        auto stage = [&](Stage st) -> std::optional<sc_time> { return k ? k->stages[size_t(st)] : std::nullopt; };

        // With `instances`: the entry is the whole set, from instance 0's submit to the latest end.
        const bool instanced = spec.instances_key;
        const InstanceStats* inst = rec.instance_stats(uint32_t(i));
        LaunchStatus status = statuses[i];
        if (!instanced)
            for (const auto& st : rec.lock_stalls())  // M2: the watchdog's report names the stuck warps
                if (l.rung && st.kernel == std::make_pair(l.queue, l.packet)) status.note(st.state);

        const double submit = ns_of(l.submit);
        std::optional<sc_time> first_instruction = stage(Stage::kernarg_load_done);
        if (!first_instruction) first_instruction = stage(Stage::first_instruction_issued);
        std::optional<sc_time> complete = k ? k->completed : std::nullopt;
        std::optional<sc_time> end = stage(Stage::last_block_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            complete = inst && inst->completed == l.instances ? inst->last_complete : std::nullopt;
            end = inst && inst->ended == l.instances ? inst->last_end : std::nullopt;
        }

        KernelRecord& j = r.kernels.emplace_back();
        j.name = l.name;
        j.queue = ran.queue_name(l.queue);
        j.priority = ran.queue_priority(l.queue);
        j.status = std::move(status);
        if (l.rung) j.packet = l.packet;
        j.blocks = block_count(spec);
        j.warps = warp_count(spec, s.platform.sm.warp_size);
        j.submit_ns = submit;
        if (l.rung) j.doorbell_ns = ns_of(l.doorbell);
        j.first_block_dispatch_ns = opt_ns(stage(Stage::first_block_dispatched));
        j.first_warp_start_ns = opt_ns(stage(Stage::first_warp_started));
        j.first_instruction_ns = opt_ns(first_instruction);
        j.end_ns = opt_ns(end);
        j.complete_ns = opt_ns(complete);
        auto since_submit = [&](const std::optional<sc_time>& t) {
            return t ? std::optional<double>(ns_diff(ns_of(*t), submit)) : std::nullopt;
        };
        j.launch_latency_ns = since_submit(first_instruction);
        j.response_ns = since_submit(stage(Stage::first_warp_started));
        j.turnaround_ns = since_submit(complete);
        if (s.measure_alone) {
            const double a = alone[i];
            j.alone_turnaround_ns = std::isnan(a) ? std::nullopt : std::optional<double>(a);
            j.slowdown = std::isnan(a) || !complete || a <= 0
                             ? std::nullopt
                             : std::optional<double>(std::round(ns_diff(ns_of(*complete), submit) / a * 10000) / 10000);
        }
        if (first_instruction && l.rung)  // doorbell -> first instruction with its arguments: the GPU's share
            j.dispatch_latency_ns = ns_diff(ns_of(*first_instruction), ns_of(l.doorbell));

        // Each stage runs from the previous milestone reached to its own.
        std::vector<std::pair<std::string, std::pair<double, double>>> trace_stages;
        double prev = submit;
        for (const LaunchStage& ls : kLaunchStages) {
            const std::optional<sc_time> mark =
                ls.ends_at ? stage(*ls.ends_at) : l.rung ? std::optional<sc_time>(l.doorbell) : std::nullopt;
            if (!mark) continue;
            const double at = ns_of(*mark);
            j.stages.push_back({ls.name, prev, std::max(prev, at), std::max(0.0, ns_diff(at, prev))});
            trace_stages.push_back({ls.name, {prev, std::max(prev, at)}});
            prev = std::max(prev, at);
        }
        j.milestones.submit_ns = submit;
        for (size_t st = 0; st < size_t(Stage::count); ++st) j.milestones.stage_ns[st] = opt_ns(stage(Stage(st)));
        j.milestones.complete_ns = opt_ns(k ? k->completed : std::nullopt);
        if (l.first_done && l.rung) j.milestones.host_saw_completion_ns = ns_of(l.seen_complete);
        if (instanced) j.instances = instances_summary(l, spec.interval_ns, inst, true);
        if (spec.measured) j.measured = *spec.measured;
        if (!spec.label.empty()) j.label = spec.label;
        if (l.call_start) j.call_start_ns = ns_of(*l.call_start);
        if (l.call_end) j.call_end_ns = ns_of(*l.call_end);
        rec.add_launch_stages(l.name, trace_stages, uint32_t(i));
    }
}

uint64_t sms(RunRecord& r, const Ran& ran) {
    System& sys = ran.sys;
    const Recorder& rec = ran.rec;
    const sc_time& end = ran.end;
    uint64_t instructions = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        const auto& st = sm.stats();
        instructions += st.instructions;
        const SmConfig own = ran.s.platform.sm_of(i);
        SmRecord& x = r.sms.emplace_back();
        x.id = i;
        x.busy_fraction = end.value() ? sm.busy_time().to_seconds() / end.to_seconds() : 0.0;
        x.warp_slots = own.warp_slots;
        x.registers = own.registers;
        x.shared_memory = own.shared_memory;
        x.issue_width = own.issue_width;
        x.counters = st;
        x.l1i = sys.gpu.l1i(i).stats();
        x.l1d = sys.gpu.l1d(i).stats();
        OccupancyRecord occupancy;
        occupancy.bin_ns = double(rec.occupancy().bin_ps()) / 1000;
        occupancy.warps = rec.occupancy().mean_warps(i, uint64_t(std::llround(end.to_seconds() * 1e12)));
        x.occupancy = std::move(occupancy);
    }
    return instructions;
}

void queues(RunRecord& r, const Ran& ran) {
    const Recorder& rec = ran.rec;
    const auto& queues = ran.s.workload.queues;
    for (uint32_t q = 0; q < std::max<size_t>(queues.size(), 1); ++q) {
        const auto& cq = ran.sys.gpu.cp().queue(q);
        r.queues.push_back({ran.queue_name(q), ran.queue_priority(q), policy_name(ran.queue_type(q)),
                            queue_status_name(cq.status), cq.read_index,
                            ran.sys.gpu.cp().waiting_for(q)});
    }
    for (const auto& x : rec.rejections())
        r.errors.push_back({ran.queue_name(x.queue), x.packet, queue_error_name(x.why.error), x.why.field, x.why.detail,
                            ns_of(x.at)});
    for (const auto& st : rec.lock_stalls())
        r.errors.push_back({ran.queue_name(st.kernel.first), st.kernel.second, "lock_deadlock", "locks", st.state,
                            ns_of(st.at)});
    std::stable_sort(r.errors.begin(), r.errors.end(),
                     [](const ErrorRecord& a, const ErrorRecord& b) { return a.time_ns < b.time_ns; });
}

// M2: warp mutexes, over every SM; per warp priority over the warps that took locks.
void locks(RunRecord& r, const Ran& ran) {
    const Scenario& s = ran.s;
    System& sys = ran.sys;
    LocksRecord& lr = r.locks;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        lr.counts += sys.gpu.sm(i).stats().locks;
        lr.arbiters += sys.gpu.arbiter(i).stats();
    }
    auto mean_ns = [](const sc_time& sum, uint64_t n) { return n ? std::round(to_ns(sum) / double(n) * 1000) / 1000 : 0.0; };
    for (const auto& [cpr, p] : lr.counts.by_priority) {
        PriorityLocks x;
        x.warps = p.warps;
        x.acquisitions = p.acquisitions;
        x.wait_ns = {mean_ns(p.wait_sum, p.acquisitions), ns_of(p.wait_max)};
        x.retakes = p.retakes;
        x.task_end_ns = {mean_ns(p.end_sum, p.warps), ns_of(p.end_max)};
        x.sync_failures = p.sync_failures;
        x.forced_releases = p.forced_releases;
        x.hold_limit_releases = p.hold_limit_releases;
        x.redone_instructions = p.redone_instructions;
        lr.by_priority.emplace_back(std::to_string(cpr), x);
    }
    lr.counts.by_priority.clear();
    lr.policy = policy_name(s.policy.lock);
    if (s.policy.lock == LockPolicy::priority) lr.hold_limit = s.platform.sm.lock_hold_limit;
}

// M3: the scalar pools, over every SM: peaks per level are the largest any SM reached.
void scalar(RunRecord& r, const Ran& ran) {
    const Scenario& s = ran.s;
    System& sys = ran.sys;
    const bool multilevel = s.policy.scalar == ScalarPolicy::multilevel;
    ScalarRecord& sr = r.scalar;
    for (const KernelSpec& k : s.workload.kernels)  // (names are unique: the loader refuses a second)
        sr.vregs_per_thread.emplace_back(k.name, vector_registers(k, multilevel));
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const StreamingMultiprocessor& sm = sys.gpu.sm(i);
        uint32_t* peak[] = {&sr.pool_peak.kernel, &sr.pool_peak.workgroup, &sr.pool_peak.warp, &sr.pool_peak.slice};
        for (size_t l = 0; l < 4; ++l) *peak[l] = std::max(*peak[l], sm.scalar_pool().peak(ScalarLevel(l)));
        sr.pool_peak.total = std::max(sr.pool_peak.total, sm.scalar_pool().peak_total());
        sr.allocation_stalls += sm.stats().scalar_stalls;
        sr.blocks_waited_for_pool += sm.stats().pool_waits;
        sr.updates += sm.stats().scalar_updates;
        sr.quota_moves += sm.scalar_pool().moves();
        sr.resident_warps_max.push_back(sm.stats().resident_warps_max);
    }
    const SmConfig& smc = s.platform.sm;
    sr.policy = policy_name(s.policy.scalar);
    if (multilevel) sr.split = policy_name(smc.scalar_split);
    sr.pool = smc.scalar_pool;
    sr.slice_threshold = smc.slice_threshold;
}

// M4: the unified shading array and its draws.
void usa(RunRecord& r, const Ran& ran, const std::vector<LaunchStatus>& statuses) {
    const Scenario& s = ran.s;
    System& sys = ran.sys;
    const Recorder& rec = ran.rec;
    const auto& launches = sys.host.launches();
    UsaRecord& ur = r.usa;
    const size_t kernel_count = s.workload.kernels.size();  // launches: the kernels, then the draws
    for (size_t i = kernel_count; i < kernel_count + s.workload.draws.size(); ++i) {
        const LaunchRecord& l = launches[i];
        const DrawSpec& spec = s.workload.draws[i - kernel_count];
        const Recorder::Draw* d = l.rung ? rec.draw(l.queue, l.packet) : nullptr;
        const bool instanced = spec.instances_key;
        const InstanceStats* inst = rec.instance_stats(uint32_t(i));
        auto stage = [&](DrawStage st) { return d ? opt_ns(d->stages[size_t(st)]) : std::nullopt; };
        const double submit = ns_of(l.submit);
        auto since_submit = [&](const std::optional<double>& t) {
            return t ? std::optional<double>(ns_diff(*t, submit)) : std::nullopt;
        };
        DrawRecord& j = ur.draws.emplace_back();
        j.complete_ns = d ? opt_ns(d->completed) : std::nullopt;
        j.end_ns = stage(DrawStage::tasks_done);
        if (instanced) {  // the latest of every instance, once every instance has one
            j.complete_ns = inst && inst->completed == l.instances ? opt_ns(inst->last_complete) : std::nullopt;
            j.end_ns = inst && inst->ended == l.instances ? opt_ns(inst->last_end) : std::nullopt;
        }
        j.name = l.name;
        j.queue = ran.queue_name(l.queue);
        j.status = statuses[i];
        if (l.rung) j.packet = l.packet;
        j.vertex_tasks = spec.vertex_tasks;
        j.pixel_tasks = uint64_t(spec.vertex_tasks) * spec.pixel_tasks_per_vertex_task;
        j.submit_ns = submit;
        if (l.rung) j.doorbell_ns = ns_of(l.doorbell);
        j.arrived_ns = stage(DrawStage::arrived);
        j.first_task_ns = stage(DrawStage::first_task);
        j.vertex_done_ns = stage(DrawStage::vertex_done);
        j.response_ns = since_submit(j.first_task_ns);
        j.turnaround_ns = since_submit(j.complete_ns);
        if (instanced) j.instances = instances_summary(l, spec.interval_ns, inst, false);
    }
    const UnifiedShadingArray& usa = sys.gpu.usa();
    const auto& us = usa.stats();
    const double busy_ns = ns_of(us.busy[0] + us.busy[1]);
    const double active_ns = ns_of(us.active);
    auto round6 = [](double v) { return std::round(v * 1e6) / 1e6; };
    const uint32_t cluster_count = clusters_for(uint32_t(usa.cores().size()));
    for (uint32_t c = 0; c < cluster_count; ++c) {
        UsaCluster& x = ur.clusters.emplace_back();
        sc_time busy;
        for (uint32_t i = c * kCoresPerCluster; i < std::min<size_t>((c + 1) * kCoresPerCluster, usa.cores().size()); ++i) {
            const auto& core = usa.cores()[i];
            (core.type == CoreType::vertex ? x.vertex : x.pixel)++;
            busy += core.busy_time;
            ur.cores.types += core.type == CoreType::vertex ? 'V' : 'P';
        }
        x.utilization = active_ns > 0 ? round6(ns_of(busy) / (active_ns * (x.vertex + x.pixel))) : 0.0;
        if (c + 1 < cluster_count) ur.cores.types += ' ';
    }
    for (uint8_t v = 0; v < 3; ++v)
        for (uint8_t p = 0; p < 3; ++p)
            ur.flags_time_ns.emplace_back(std::string(flag_bits(v)) + "/" + flag_bits(p), ns_of(us.flags_time[v][p]));
    const ShadingState& final_state = usa.state();
    ur.policy = policy_name(s.policy.shading);
    ur.cores.vertex = final_state.vertex_cores;
    ur.cores.pixel = final_state.pixel_cores;
    ur.cores.total = usa.cores().size();
    ur.cores.clusters = cluster_count;
    ur.initial = {s.platform.usa.vertex_cores, s.platform.usa.cores - s.platform.usa.vertex_cores};
    ur.counts = us;
    ur.utilization = active_ns > 0 ? round6(busy_ns / (active_ns * usa.cores().size())) : 0.0;
    ur.active_ns = active_ns;
    ur.busy_ns = {ns_of(us.busy[0]), ns_of(us.busy[1])};
    ur.tasks = {us.tasks[0], us.tasks[1]};
}

void memory(RunRecord& r, const Ran& ran) {
    const Scenario& s = ran.s;
    System& sys = ran.sys;
    const auto& mc = s.platform.memory;
    r.memory.l2 = sys.gpu.l2().stats();
    r.memory.host_memory = {sys.host_memory.reads(), sys.host_memory.writes()};
    r.memory.device_memory = {sys.gpu.device_memory().reads(), sys.gpu.device_memory().writes()};
    r.memory.latency_ns = {mc.host_latency_ns, mc.link_latency_ns, mc.device_latency_ns, mc.l2_latency_ns, mc.l1_latency_ns};
    r.glc.blocks_placed = sys.gpu.glc().stats();
}

ProtocolRecord protocol(const ProtocolLog& log) {
    ProtocolRecord pr;
    pr.checkers = log.checkers();
    pr.transactions = log.transactions();
    pr.debug_transactions = log.debug_transactions();
    pr.dmi_requests = log.dmi_requests();
    pr.dmi_grants = log.dmi_grants();
    pr.invalidations = log.invalidations();
    pr.violation_count = log.violation_count();
    for (const ProtocolViolation& v : log.violations())
        pr.violations.push_back({v.checker, v.rule, v.detail, v.at.to_seconds() * 1e9});
    return pr;
}

void replay(RunRecord& r, const Scenario& s) {
    if (std::none_of(r.kernels.begin(), r.kernels.end(), [](const KernelRecord& k) { return bool(k.measured); })) return;
    r.replay = replay_summary(replay_sides(r.kernels));
    uint64_t inferred = 0, unmatched = 0;  // the import's wait calls without a resolved record
    auto count = [&](const std::optional<MeasuredTimes>& m) {
        if (!m) return;
        inferred += m->inferred_after.size();
        unmatched += m->unmatched_waits;
    };
    for (const KernelSpec& k : s.workload.kernels) count(k.measured);
    for (const CopySpec& c : s.workload.copies) count(c.measured);
    r.replay->inferred_waits = inferred;
    r.replay->unmatched_waits = unmatched;
}

}  // namespace gpuvp::build
