#include "sc_main/run/recorder.h"
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/usa/load_flags.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gpuvp {

using sc_core::sc_time;


namespace {
double us(const sc_time& t) { return to_ns(t) / 1000; }
uint64_t ps_of(const sc_time& t) { return uint64_t(std::llround(t.to_seconds() * 1e12)); }
uint64_t block_key(uint32_t slot, uint64_t block) { return uint64_t(slot) << 48 | block; }
// A difference of two times in ns, to whole picoseconds (as the results write them).
double ns_diff(const sc_time& a, const sc_time& b) { return std::round((to_ns(a) - to_ns(b)) * 1000) / 1000; }
}  // namespace

LaunchRef Recorder::resolve(uint32_t queue, uint64_t packet) const {
    LaunchRef r;
    if (lookup_ && !lookup_(queue, packet, r)) r = LaunchRef{};
    return r;
}

InstanceStats& Recorder::stats(uint32_t launch) {
    if (launch >= stats_.size()) stats_.resize(launch + 1);
    return stats_[launch];
}

void Recorder::push(Event&& ev, std::initializer_list<TraceArg> args) {
    reserve_args(ev, args.size());
    ev.args.insert(ev.args.end(), args);
    push(std::move(ev));
}

void Recorder::push(Event&& ev) {
    owners_.push_back(static_cast<const Owner&>(ev));
    events_.push_back(std::move(static_cast<TraceEvent&>(ev)));
}

// What every instance adds, kernel or draw: its completion, its end, whether it was ok.
// True if it was (its latencies are then added too).
bool Recorder::fold_end(InstanceStats& st, const std::optional<sc_core::sc_time>& completed,
                        const std::optional<sc_core::sc_time>& end, KernelError error) {
    ++st.completed;
    if (completed && (!st.last_complete || *st.last_complete < *completed)) st.last_complete = completed;
    if (end) {
        ++st.ended;
        if (!st.last_end || *st.last_end < *end) st.last_end = end;
    }
    if (error != KernelError::none || !completed) return false;
    ++st.ok;
    return true;
}

// A kernel instance's completion, into its launch's figures.
void Recorder::fold(const Kernel& k) {
    InstanceStats& st = stats(k.ref.launch);
    if (!fold_end(st, k.completed, k.stages[size_t(Stage::last_block_done)], k.error)) return;
    auto first_instruction = k.stages[size_t(Stage::kernarg_load_done)];
    if (!first_instruction) first_instruction = k.stages[size_t(Stage::first_instruction_issued)];
    if (first_instruction) {
        st.launch_latency.add(ns_diff(*first_instruction, k.ref.submit));
        st.dispatch_latency.add(ns_diff(*first_instruction, k.ref.doorbell));
    }
    if (const auto& w = k.stages[size_t(Stage::first_warp_started)]) st.response.add(ns_diff(*w, k.ref.submit));
    st.turnaround.add(ns_diff(*k.completed, k.ref.submit));
}

void Recorder::fold(const Draw& d) {
    InstanceStats& st = stats(d.ref.launch);
    if (!fold_end(st, d.completed, d.stages[size_t(DrawStage::tasks_done)], d.error)) return;
    if (const auto& f = d.stages[size_t(DrawStage::first_task)]) st.response.add(ns_diff(*f, d.ref.submit));
    st.turnaround.add(ns_diff(*d.completed, d.ref.submit));
}

template <class T>
T& Recorder::Slots<T>::accept(uint32_t slot, uint32_t queue, uint64_t packet, const LaunchRef& ref, const sc_time& t) {
    if (slot >= keys.size()) {
        keys.resize(slot + 1, {~0u, 0});
        refs.resize(slot + 1);
    }
    keys[slot] = {queue, packet};
    refs[slot] = ref;
    T& r = records[{queue, packet}];
    r = T{};
    r.queue = queue;
    r.packet = packet;
    r.ref = ref;
    r.accepted = t;
    return r;
}

template <class T>
T* Recorder::Slots<T>::live(uint32_t slot) {
    if (slot >= keys.size()) return nullptr;
    auto it = records.find(keys[slot]);
    return it == records.end() ? nullptr : &it->second;
}

template <class T>
const T* Recorder::Slots<T>::find(uint32_t queue, uint64_t packet) const {
    auto it = records.find({queue, packet});
    return it == records.end() ? nullptr : &it->second;
}

template <class T>
void Recorder::complete(Slots<T>& slots, uint32_t slot, T& r, KernelError e, const sc_time& t) {
    r.completed = t;
    r.error = e;
    slots.keys[slot] = {~0u, 0};
    slots.refs[slot] = LaunchRef{};
    if (r.ref.launch == ~0u) return;
    fold(r);
    if (r.ref.instance != 0) slots.records.erase({r.queue, r.packet});  // its launch's figures have it
}

const Recorder::Kernel* Recorder::kernel(uint32_t queue, uint64_t packet) const { return kernels_.find(queue, packet); }

const Recorder::Draw* Recorder::draw(uint32_t queue, uint64_t packet) const { return draws_.find(queue, packet); }

bool Recorder::room() {
    if (events_.size() < limit_) return true;
    ++dropped_;
    return false;
}

uint32_t Recorder::lane(std::vector<double>& lanes, double start, double end) {
    for (uint32_t i = 0; i < lanes.size(); ++i)
        if (lanes[i] <= start) {
            lanes[i] = end;
            return i;
        }
    lanes.push_back(end);
    return uint32_t(lanes.size() - 1);
}

void Recorder::enable_vcd(const std::vector<std::string>& queues, uint32_t sms) {
    vcd_on_ = true;
    vcd_irq_ = vcd_.add("gpu", "irq", 1);
    for (const std::string& q : queues) {
        std::string name = "doorbell_";
        for (char c : q) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        vcd_doorbell_.push_back(vcd_.add("gpu.cp", name, 64, true));  // x until the first doorbell
    }
    for (uint32_t i = 0; i < sms; ++i) {
        vcd_sm_busy_.push_back(vcd_.add("gpu.sm" + std::to_string(i), "busy", 1));
        vcd_sm_blocks_.push_back(vcd_.add("gpu.sm" + std::to_string(i), "blocks", 16));
    }
    sm_blocks_.assign(sms, 0);
    const char* usa[] = {"idle_vertex_flag", "idle_pixel_flag", "vertex_cores", "busy_vertex", "busy_pixel"};
    const unsigned width[] = {2, 2, 8, 8, 8};
    for (size_t i = 0; i < 5; ++i) vcd_usa_[i] = vcd_.add("gpu.usa", usa[i], width[i]);
}

void Recorder::doorbell(uint32_t queue, uint64_t value, const sc_time& t) {
    if (vcd_on_ && queue < vcd_doorbell_.size()) vcd_.change(vcd_doorbell_[queue], value, t);
}

void Recorder::kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_time& doorbell,
                               const sc_time& t) {
    kernels_.accept(slot, queue, packet, resolve(queue, packet), t).doorbell_seen = doorbell;
}

void Recorder::kernel_stage(uint32_t slot, Stage s, const sc_time& t) {
    if (Kernel* k = kernels_.live(slot)) {
        auto& v = k->stages[size_t(s)];
        if (!v || t < *v) v = t;  // several SMs report: the earliest counts
    }
}

void Recorder::kernel_completed(uint32_t slot, KernelError e, const sc_time& t) {
    Kernel* k = kernels_.live(slot);
    if (!k) return;
    if (trace_ && room()) {
        Event ev{{"", "kernel", 'X', us(k->doorbell_seen), us(t) - us(k->doorbell_seen), TracePid::kernels, 0, {}}};
        own(ev, k->ref);
        ev.tid = lane(kernel_lanes_, ev.ts_us, ev.ts_us + ev.dur_us);
        push(std::move(ev), {{"queue", k->queue}, {"packet", k->packet}, {"status", e == KernelError::none ? "ok" : kernel_error_text(e)}});
    }
    complete(kernels_, slot, *k, e, t);
}

void Recorder::barrier_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (!trace_ || !room()) return;
    Event ev{{"barrier packet " + std::to_string(packet), "barrier", 'X', us(start), us(end) - us(start),
                  TracePid::cp, 100 + queue, {}}};
    push(std::move(ev), {});
}

void Recorder::copy_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (!trace_ || !room()) return;
    Event ev{{"copy packet " + std::to_string(packet), "copy", 'X', us(start), us(end) - us(start), TracePid::cp,
              100 + queue, {}}};
    push(std::move(ev), {});
}

void Recorder::packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_time& t) {
    rejections_.push_back({queue, packet, why, t});
    if (!trace_ || !room()) return;
    Event ev{{std::string("rejected: ") + queue_error_name(why.error), "error", 'i', us(t), 0, TracePid::cp,
                  100 + queue, {}}};
    push(std::move(ev), {{"packet", packet}, {"field", why.field}, {"detail", why.detail}});
}

void Recorder::block_started(uint32_t slot, uint64_t block, uint32_t sm, const sc_time& t) {
    if (vcd_on_ && sm < sm_blocks_.size()) {
        vcd_.change(vcd_sm_blocks_[sm], ++sm_blocks_[sm], t);
        vcd_.change(vcd_sm_busy_[sm], 1, t);
    }
    if (trace_) block_start_[block_key(slot, block)] = t;
}

void Recorder::block_finished(uint32_t slot, uint64_t block, uint32_t sm, const sc_time& t) {
    if (vcd_on_ && sm < sm_blocks_.size() && sm_blocks_[sm] > 0) {
        vcd_.change(vcd_sm_blocks_[sm], --sm_blocks_[sm], t);
        vcd_.change(vcd_sm_busy_[sm], sm_blocks_[sm] > 0, t);
    }
    if (!trace_) return;
    auto it = block_start_.find(block_key(slot, block));
    if (it == block_start_.end()) return;
    if (!room()) {
        block_start_.erase(it);
        return;
    }
    if (sm >= block_lanes_.size()) block_lanes_.resize(sm + 1);
    Event ev{{"block " + std::to_string(block), "block", 'X', us(it->second), us(t) - us(it->second),
                  TracePid::sm0 + sm, 0, {}}};
    ev.tid = 1000 + lane(block_lanes_[sm], ev.ts_us, ev.ts_us + ev.dur_us);
    own(ev, kernels_.ref(slot));
    push(std::move(ev), {{"block", block}, {"sm", sm}});
    block_start_.erase(it);
}

void Occupancy::add(uint32_t sm, uint64_t start_ps, uint64_t end_ps) {
    if (end_ps <= start_ps) return;
    if (sm >= sms_.size()) sms_.resize(sm + 1);
    while (end_ps > bin_ps_ * kBins) {  // fold every SM's bins in pairs
        for (std::vector<uint64_t>& bins : sms_) {
            for (size_t i = 0; 2 * i < bins.size(); ++i) bins[i] = bins[2 * i] + (2 * i + 1 < bins.size() ? bins[2 * i + 1] : 0);
            bins.resize((bins.size() + 1) / 2);
        }
        bin_ps_ *= 2;
    }
    std::vector<uint64_t>& bins = sms_[sm];
    const size_t last = size_t((end_ps - 1) / bin_ps_);
    if (bins.size() <= last) bins.resize(last + 1, 0);
    for (size_t b = size_t(start_ps / bin_ps_); b <= last; ++b) {
        const uint64_t lo = std::max<uint64_t>(start_ps, b * bin_ps_), hi = std::min<uint64_t>(end_ps, (b + 1) * bin_ps_);
        bins[b] += hi - lo;
    }
}

std::vector<double> Occupancy::mean_warps(uint32_t sm, uint64_t end_ps) const {
    std::vector<double> out;
    if (sm >= sms_.size() || sms_[sm].empty()) return out;
    const size_t n = std::min<size_t>(kBins, size_t((end_ps + bin_ps_ - 1) / bin_ps_));
    for (size_t b = 0; b < n; ++b)
        out.push_back(b < sms_[sm].size() ? std::round(double(sms_[sm][b]) / double(bin_ps_) * 1000) / 1000 : 0.0);
    return out;
}

void Recorder::warp_finished(const WarpRecord& w) {
    ++warps_;
    warp_span(w, false);
}

void Recorder::warp_in_flight(const WarpRecord& w) { warp_span(w, true); }

void Recorder::warp_span(const WarpRecord& w, bool in_flight) {
    occupancy_.add(w.sm, ps_of(w.start), ps_of(w.end));
    if (!trace_ || !room()) return;
    Event ev{{"warp " + std::to_string(w.warp), "warp", 'X', us(w.start), us(w.end) - us(w.start), TracePid::sm0 + w.sm,
                  w.slot, {}}};
    own(ev, kernels_.ref(w.kernel_slot));
    ev.block = w.block;
    if (in_flight) ev.args.emplace_back("in_flight", true);
    push(std::move(ev), {{"block", w.block}, {"warp", w.warp}, {"sm", w.sm}, {"slot", w.slot}, {"instructions", w.instructions}});
}

void Recorder::table_update(const std::string& block, const char* table, uint64_t row, const std::string& values,
                            const sc_time& t) {
    ++table_updates_;
    if (!room()) return;
    uint32_t pid = TracePid::glc;
    if (block.rfind("sm[", 0) == 0) pid = TracePid::sm0 + uint32_t(std::stoul(block.substr(3)));
    Event ev{{std::string(table) + "[" + std::to_string(row) + "]", "table", 'i', us(t), 0, pid, TracePid::table_tid, {}}};
    push(std::move(ev), {{"values", values}});
}

// M2: each lock event is an instant on its warp's slot row (the arbiter's on its own row).
void Recorder::lock_event(const LockEvent& e) {
    if (!trace_ || !room()) return;
    const std::string lock = "lock " + std::to_string(e.lock);
    const std::string other = e.other == ~0u ? "" : "warp " + std::to_string(e.other);
    std::string name;
    switch (e.kind) {
    case LockEventKind::acquired: name = lock + " acquired"; break;
    case LockEventKind::released: name = lock + " released"; break;
    case LockEventKind::requested: name = lock + " held by " + other + ": request"; break;
    case LockEventKind::arbiter_push:
        name = "fifo <- (" + std::to_string(e.warp) + ", " + std::to_string(e.other) + ") " + lock;
        break;
    case LockEventKind::arbiter_decision:
        name = "warp " + std::to_string(e.warp) + (e.verdict == LockVerdict::preempt ? " pre-empts " : " waits for ") +
               other + " (" + lock + ")";
        break;
    case LockEventKind::forced_release: name = lock + " forced release for " + other; break;
    case LockEventKind::hold_limit_release: name = lock + " released: hold limit"; break;
    case LockEventKind::sync_failure: name = "sync failure on " + lock + " (held by " + other + ")"; break;
    case LockEventKind::failure_release: name = lock + " released: sync failure"; break;
    case LockEventKind::parked: name = "waits for " + lock; break;
    case LockEventKind::woken: name = lock + " free: retry"; break;
    case LockEventKind::exit_release: name = lock + " released at exit"; break;
    case LockEventKind::rewound: name = "critical section abandoned: " + std::to_string(e.redone) + " instructions to redo"; break;
    case LockEventKind::count: break;
    }
    const bool from_arbiter = e.slot == ~0u;
    Event ev{{name, "lock", 'i', us(e.t), 0, TracePid::sm0 + e.sm, from_arbiter ? TracePid::arbiter_tid : e.slot, {}}};
    if (!from_arbiter) own(ev, kernels_.ref(e.kernel_slot));
    const bool acquired = e.kind == LockEventKind::acquired;
    reserve_args(ev, 2 + (e.lock != ~0u) + (e.other != ~0u) + (e.cpr != ~0u) + (e.other_cpr != ~0u) + 2 * acquired +
                         (e.redone != 0));
    std::vector<TraceArg>& args = ev.args;
    args.emplace_back(from_arbiter ? "row" : "block", e.block);
    args.emplace_back("warp", e.warp);
    if (e.lock != ~0u) args.emplace_back("lock", e.lock);
    if (e.other != ~0u) args.emplace_back("other", e.other);
    if (e.cpr != ~0u) args.emplace_back("cpr", e.cpr);
    if (e.other_cpr != ~0u) args.emplace_back("other_cpr", e.other_cpr);
    if (acquired) {
        args.emplace_back("word", hex(e.word));
        args.emplace_back("wait_ns", to_ns(e.wait));
    }
    if (e.redone) args.emplace_back("redone_instructions", e.redone);
    push(std::move(ev));
}

// M3: a counter track per SM: scalar registers in use per level.
void Recorder::scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_time& t) {
    if (!trace_ || !room()) return;
    Event ev{{"scalar pool", "scalar", 'C', us(t), 0, TracePid::sm0 + sm, 0, {}}};
    push(std::move(ev), {{"kernel", used[0]}, {"workgroup", used[1]}, {"warp", used[2]}, {"slice", used[3]}});
}

void Recorder::lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_time& t) {
    lock_stalls_.push_back({kernels_.key(kernel_slot), kernels_.ref(kernel_slot), state, t});
}

// --- M4: draws and the unified shading array --------------------------------------------

void Recorder::draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_time&, const sc_time& t) {
    draws_.accept(slot, queue, packet, resolve(queue, packet), t);
}

void Recorder::draw_stage(uint32_t slot, DrawStage s, const sc_time& t) {
    Draw* d = draws_.live(slot);
    if (d && !d->stages[size_t(s)]) d->stages[size_t(s)] = t;
}

void Recorder::draw_completed(uint32_t slot, KernelError e, const sc_time& t) {
    Draw* d = draws_.live(slot);
    if (!d) return;
    if (trace_ && room()) {
        const sc_time from = d->stages[size_t(DrawStage::arrived)].value_or(d->accepted);
        Event ev{{"", "draw", 'X', us(from), us(t) - us(from), TracePid::usa, 0, {}}};
        own(ev, d->ref);
        ev.tid = TracePid::usa_draw_tid0 + lane(draw_lanes_, ev.ts_us, ev.ts_us + ev.dur_us);
        push(std::move(ev), {{"queue", d->queue}, {"packet", d->packet}, {"status", e == KernelError::none ? "ok" : kernel_error_text(e)}});
        usa_seen_ = true;
    }
    complete(draws_, slot, *d, e, t);
}

// Each task is a slice on its core's row, named by its type.
void Recorder::shading_task(const ShadingTask& task) {
    if (!trace_ || !room()) return;
    usa_seen_ = true;
    Event ev{{core_type_name(task.type), "shading", 'X', us(task.assigned), us(task.end) - us(task.assigned),
                  TracePid::usa, task.core, {}}};
    own(ev, draws_.ref(task.draw_slot));
    reserve_args(ev, 2 + task.switched);
    ev.args.emplace_back("task", task.task);
    ev.args.emplace_back("start_ns", to_ns(task.start));  // start: inputs in (and shader state loaded)
    if (task.switched) ev.args.emplace_back("switched", true);
    push(std::move(ev));
}

// Counter tracks: the load flags, the split, busy cores and ready tasks, each when it changes.
void Recorder::shading_state(const ShadingState& s, const sc_time& t) {
    if (vcd_on_) {
        const uint64_t v[] = {s.flags.idle_vertex, s.flags.idle_pixel, s.vertex_cores, s.busy_vertex, s.busy_pixel};
        for (size_t i = 0; i < 5; ++i) vcd_.change(vcd_usa_[i], v[i], t);
    }
    if (!trace_) return;
    const ShadingState* was = last_usa_ ? &*last_usa_ : nullptr;
    usa_seen_ = true;
    auto counter = [&](const char* name, const char* a, uint64_t av, const char* b, uint64_t bv, bool changed) {
        if (!changed || !room()) return;
        Event ev{{name, "usa", 'C', us(t), 0, TracePid::usa, 0, {}}};
        push(std::move(ev), {{a, av}, {b, bv}});
    };
    counter("load flags", "idle_vertex", s.flags.idle_vertex, "idle_pixel", s.flags.idle_pixel,
            !was || was->flags != s.flags);
    counter("cores by type", "vertex", s.vertex_cores, "pixel", s.pixel_cores,
            !was || was->vertex_cores != s.vertex_cores);
    counter("busy cores", "vertex", s.busy_vertex, "pixel", s.busy_pixel,
            !was || was->busy_vertex != s.busy_vertex || was->busy_pixel != s.busy_pixel);
    counter("ready tasks", "vertex", s.ready_vertex, "pixel", s.ready_pixel,
            !was || was->ready_vertex != s.ready_vertex || was->ready_pixel != s.ready_pixel);
    last_usa_ = s;
}

void Recorder::shading_reassigned(uint32_t core, CoreType to, const LoadFlags& f, const sc_time& t) {
    if (!trace_ || !room()) return;
    usa_seen_ = true;
    Event ev{{std::string("to ") + core_type_name(to) + " (V=" + flag_bits(f.idle_vertex) + " P=" +
                      flag_bits(f.idle_pixel) + ")",
                  "usa", 'i', us(t), 0, TracePid::usa, core, {}}};
    push(std::move(ev), {{"core", core}, {"idle_vertex", flag_bits(f.idle_vertex)}, {"idle_pixel", flag_bits(f.idle_pixel)}});
}

void Recorder::irq(bool level, const sc_time& t) {
    if (vcd_on_) vcd_.change(vcd_irq_, level, t);
    if (!trace_ || !room()) return;
    Event ev{{"irq", "irq", 'C', us(t), 0, TracePid::host, 0, {}}};
    push(std::move(ev), {{"level", level ? 1 : 0}});
}

void Recorder::add_launch_stages(const std::string& kernel,
                                 const std::vector<std::pair<std::string, std::pair<double, double>>>& stages,
                                 uint32_t lane) {
    if (!trace_) return;
    thread_names_[{TracePid::launch, lane}] = kernel;
    for (const auto& [name, span] : stages) {
        if (!room()) continue;  // counted as dropped
        Event ev{{name, "launch", 'X', span.first / 1000, (span.second - span.first) / 1000, TracePid::launch, lane, {}}};
        push(std::move(ev), {{"kernel", kernel}});
    }
}

TraceRecord Recorder::take_trace(const std::vector<TraceLaunch>& launches, const std::vector<std::string>& queue_names,
                                 uint32_t sms, uint32_t warp_slots, uint32_t usa_cores) {
    std::vector<TraceEvent> ev;  // the metadata
    auto meta = [&](const char* what, uint32_t pid, std::optional<uint32_t> tid, TraceArg arg) {
        TraceEvent& e = ev.emplace_back();
        e.name = what;
        e.ph = 'M';
        e.pid = pid;
        e.tid = tid;
        e.args.push_back(std::move(arg));
    };
    auto name_of = [&](uint32_t pid, uint32_t tid, const char* what, std::string name) {
        meta(what, pid, tid, {"name", std::move(name)});
    };
    name_of(TracePid::host, 0, "process_name", "host");
    name_of(TracePid::cp, 0, "process_name", "command processor");
    for (uint32_t q = 0; q < queue_names.size(); ++q) name_of(TracePid::cp, 100 + q, "thread_name", "queue " + queue_names[q]);
    name_of(TracePid::glc, 0, "process_name", "global logic controller");
    name_of(TracePid::launch, 0, "process_name", "launch stages");
    name_of(TracePid::kernels, 0, "process_name", "kernels");
    for (uint32_t s = 0; s < sms; ++s) {
        name_of(TracePid::sm0 + s, 0, "process_name", "sm[" + std::to_string(s) + "]");
        meta("process_sort_index", TracePid::sm0 + s, std::nullopt, {"sort_index", 10 + s});
        for (uint32_t w = 0; w < warp_slots; ++w) name_of(TracePid::sm0 + s, w, "thread_name", "warp slot " + std::to_string(w));
        name_of(TracePid::sm0 + s, TracePid::arbiter_tid, "thread_name", "lock arbiters");
        name_of(TracePid::sm0 + s, TracePid::table_tid, "thread_name", "block status table");
    }
    if (usa_seen_) {
        name_of(TracePid::usa, 0, "process_name", "unified shading array");
        for (uint32_t c = 0; c < usa_cores; ++c)
            name_of(TracePid::usa, c, "thread_name",
                    "SSC" + std::to_string(c / kCoresPerCluster + 1) + " core" + std::to_string(c % kCoresPerCluster + 1));
        for (uint32_t l = 0; l < draw_lanes_.size(); ++l) name_of(TracePid::usa, TracePid::usa_draw_tid0 + l, "thread_name", "draws");
    }
    for (const auto& [key, name] : thread_names_) name_of(key.first, key.second, "thread_name", name);

    // The events, in their own array: named, times to whole picoseconds (so 1.5 us reads 1.5 and
    // not 1.5000000000000002).
    auto ps = [](double us) { return std::round(us * 1e6) / 1e6; };
    for (size_t i = 0; i < events_.size(); ++i) {
        TraceEvent& e = events_[i];
        const Owner& o = owners_[i];
        const std::string_view cat = e.cat;
        const TraceLaunch* l = o.launch < launches.size() ? &launches[o.launch] : nullptr;
        if (l && (cat == "kernel" || cat == "draw" || cat == "block" || cat == "warp")) {  // named after its kernel or draw
            std::string name = l->name;
            if (l->instanced) name += "[" + std::to_string(o.instance) + "]";
            if (cat == "block") name += " " + e.name;
            if (cat == "warp") name += " b" + std::to_string(o.block) + " " + e.name;
            e.name = std::move(name);
        }
        if (l) {  // its kernel or draw (and instance) added to its arguments
            e.args.reserve(e.args.size() + 1 + l->instanced);
            e.args.emplace_back(cat == "draw" || cat == "shading" ? "draw" : "kernel", l->name);
            if (l->instanced) e.args.emplace_back("instance", o.instance);
        }
        e.ts_us = ps(e.ts_us);
        e.dur_us = e.ph == 'X' ? ps(e.dur_us) : 0;
    }
    owners_ = {};
    // The metadata moved in front of them, in the same array (a new one only if it has no room
    // left for the metadata).
    TraceRecord out;
    out.events = std::move(events_);
    events_ = {};
    const size_t n = out.events.size();
    out.events.reserve(n + ev.size());
    out.events.resize(n + ev.size());
    std::move_backward(out.events.begin(), out.events.begin() + ptrdiff_t(n), out.events.end());
    std::move(ev.begin(), ev.end(), out.events.begin());
    if (dropped_)
        out.note = "trace full: " + std::to_string(dropped_) + " events dropped (the limit is " + std::to_string(limit_) +
                   "; see --trace-limit)";
    return out;
}

}  // namespace gpuvp
