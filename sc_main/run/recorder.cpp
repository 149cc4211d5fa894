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

bool Recorder::admit(trace::Detail level) {
    if (level > detail_) {
        ++left_out_[size_t(level)];
        return false;
    }
    if (kept() < limit_) return true;
    // Full: the latest event of the last rank after this one's gives way.
    const size_t rank = trace::rank_of(level);
    size_t last = trace::kRanks;
    while (last > rank + 1 && held_[last - 1].empty()) --last;
    ++dropped_;
    if (last == rank + 1) {  // (no later rank holds any)
        ++left_out_[size_t(level)];
        return false;
    }
    const size_t place = held_[last - 1].back();
    held_[last - 1].pop_back();
    ++left_out_[size_t(trace::detail_of(events_[place]))];
    event_rank_[place] = kHole;
    if (++holes_ > limit_ / 4) compact();  // (memory: at most a quarter more than the limit)
    return true;
}

void Recorder::compact() {
    size_t to = 0;
    for (size_t from = 0; from < events_.size(); ++from)
        if (event_rank_[from] != kHole) {
            if (to != from) {
                events_[to] = std::move(events_[from]);
                event_rank_[to] = event_rank_[from];
            }
            ++to;
        }
    events_.erase(events_.begin() + std::ptrdiff_t(to), events_.end());
    event_rank_.resize(to);
    for (auto& places : held_) places.clear();
    for (size_t i = 0; i < to; ++i) held_[event_rank_[i]].push_back(i);
    holes_ = 0;
}

template <class T>
void Recorder::add(const T& e) {
    constexpr trace::Detail level = trace::level_of<T>;
    if (!admit(level)) return;
    constexpr uint8_t rank = uint8_t(trace::rank_of(level));
    held_[rank].push_back(events_.size());
    events_.emplace_back(e);
    event_rank_.push_back(rank);
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
    if (trace_) {
        trace::Kernel ev{us(k->doorbell_seen), us(t) - us(k->doorbell_seen), owner(k->ref), false, k->queue, k->packet, e};
        ev.lane = lane(kernel_lanes_, ev.ts, ev.ts + ev.dur);
        add(ev);
    }
    complete(kernels_, slot, *k, e, t);
}

void Recorder::barrier_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (trace_) add(trace::Packet{us(start), us(end) - us(start), false, queue, packet});
}

void Recorder::copy_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (trace_) add(trace::Packet{us(start), us(end) - us(start), true, queue, packet});
}

void Recorder::packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_time& t) {
    rejections_.push_back({queue, packet, why, t});
    if (trace_) add(trace::Rejected{us(t), queue, packet, why});
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
    if (sm >= block_lanes_.size()) block_lanes_.resize(sm + 1);
    trace::Block ev{us(it->second), us(t) - us(it->second), owner(kernels_.ref(slot)), sm};
    ev.lane = lane(block_lanes_[sm], ev.ts, ev.ts + ev.dur);
    ev.block = block;
    add(ev);
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
    if (!trace_) return;
    add(trace::Warp{us(w.start), us(w.end) - us(w.start), owner(kernels_.ref(w.kernel_slot)), w.sm, w.slot,
                                     w.warp, w.block, w.instructions, in_flight});
}

void Recorder::table_update(const TableSource& source, const char* table, uint64_t row, const std::string& values,
                            const sc_time& t) {
    ++table_updates_;
    add(trace::TableWrite{us(t), source.sm, table, row, values});
}

// M2: each lock event, whose warp's kernel it is (none from the arbiter).
void Recorder::lock_event(const LockEvent& e) {
    if (trace_) add(trace::Lock{us(e.t), e.slot == ~0u ? trace::Owner{} : owner(kernels_.ref(e.kernel_slot)), e});
}

// M3: a counter track per SM: scalar registers in use per level.
void Recorder::scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_time& t) {
    if (trace_) add(trace::Scalar{us(t), sm, used});
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
    if (trace_) {
        const sc_time from = d->stages[size_t(DrawStage::arrived)].value_or(d->accepted);
        trace::Kernel ev{us(from), us(t) - us(from), owner(d->ref), true, d->queue, d->packet, e};
        ev.lane = lane(draw_lanes_, ev.ts, ev.ts + ev.dur);
        add(ev);
        usa_seen_ = true;
    }
    complete(draws_, slot, *d, e, t);
}

// Each task is a slice on its core's row, named by its type.
void Recorder::shading_task(const ShadingTask& task) {
    if (!trace_) return;
    usa_seen_ = true;
    add(trace::Task{us(task.assigned), us(task.end) - us(task.assigned), owner(draws_.ref(task.draw_slot)),
                                     task.core, task.type, task.task, to_ns(task.start), task.switched});
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
    auto counter = [&](trace::Shading::Which which, uint64_t vertex, uint64_t pixel, bool changed) {
        if (changed) add(trace::Shading{us(t), which, vertex, pixel});
    };
    counter(trace::Shading::load_flags, s.flags.idle_vertex, s.flags.idle_pixel, !was || was->flags != s.flags);
    counter(trace::Shading::cores_by_type, s.vertex_cores, s.pixel_cores, !was || was->vertex_cores != s.vertex_cores);
    counter(trace::Shading::busy_cores, s.busy_vertex, s.busy_pixel,
            !was || was->busy_vertex != s.busy_vertex || was->busy_pixel != s.busy_pixel);
    counter(trace::Shading::ready_tasks, s.ready_vertex, s.ready_pixel,
            !was || was->ready_vertex != s.ready_vertex || was->ready_pixel != s.ready_pixel);
    last_usa_ = s;
}

void Recorder::shading_reassigned(uint32_t core, CoreType to, const LoadFlags& f, const sc_time& t) {
    if (!trace_) return;
    usa_seen_ = true;
    add(trace::Reassigned{us(t), core, to, f});
}

void Recorder::irq(bool level, const sc_time& t) {
    if (vcd_on_) vcd_.change(vcd_irq_, level, t);
    if (trace_) add(trace::Irq{us(t), level});
}

void Recorder::add_launch_stages(const std::string& kernel,
                                 const std::vector<std::pair<std::string, std::pair<double, double>>>& stages,
                                 uint32_t lane) {
    if (!trace_) return;
    stage_rows_[lane] = kernel;
    for (const auto& [name, span] : stages) add(trace::Stage{span.first / 1000, (span.second - span.first) / 1000, lane, name});
}

TraceRecord Recorder::take_trace(std::vector<TraceLaunch> launches, std::vector<std::string> queue_names, uint32_t sms,
                                 uint32_t warp_slots, uint32_t usa_cores) {
    TraceRecord out;
    out.launches = std::move(launches);
    out.queues = std::move(queue_names);
    out.sm_slots.assign(sms, warp_slots);
    out.usa = usa_seen_;
    if (usa_seen_) {
        out.usa_cores = usa_cores;
        out.draw_rows = uint32_t(draw_lanes_.size());
    }
    out.stage_rows = std::move(stage_rows_);
    stage_rows_ = {};
    // Times to whole picoseconds (so 1.5 us reads 1.5 and not 1.5000000000000002); end_ns from them.
    auto ps = [](double us) { return std::round(us * 1e6) / 1e6; };
    compact();
    out.events = std::move(events_);
    events_ = {};
    event_rank_ = {};
    held_ = {};
    for (trace::Event& event : out.events)
        std::visit(
            [&](auto& e) {
                e.ts = ps(e.ts);
                double end = e.ts * 1000;
                if constexpr (trace::is_span<std::decay_t<decltype(e)>>) {
                    e.dur = ps(e.dur);
                    if (std::isfinite(e.dur * 1000)) end += e.dur * 1000;
                }
                if (std::isfinite(e.ts * 1000)) out.end_ns = std::max(out.end_ns, end);
            },
            event);
    out.detail = detail_;
    out.limit = limit_;
    out.left_out = left_out_;
    return out;
}

}  // namespace gpuvp
