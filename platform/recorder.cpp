#include "platform/recorder.h"
#include "platform/json_text.h"
#include "models/common/timing.h"
#include "models/common/tlm_util.h"
#include "models/usa/load_flags.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gpuvp {

using sc_core::sc_time;

using json = nlohmann::ordered_json;

namespace {
double us(const sc_time& t) { return to_ns(t) / 1000; }
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

void Recorder::push(TraceEvent&& ev, std::string&& args) {
    ev.args = std::move(args);
    events_.push_back(std::move(ev));
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

const Recorder::Kernel* Recorder::kernel(uint32_t queue, uint64_t packet) const {
    auto it = kernels_.find({queue, packet});
    return it == kernels_.end() ? nullptr : &it->second;
}

const Recorder::Draw* Recorder::draw(uint32_t queue, uint64_t packet) const {
    auto it = draws_.find({queue, packet});
    return it == draws_.end() ? nullptr : &it->second;
}

Recorder::Kernel* Recorder::live(uint32_t slot) {
    if (slot >= slot_key_.size()) return nullptr;
    auto it = kernels_.find(slot_key_[slot]);
    return it == kernels_.end() ? nullptr : &it->second;
}

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
    if (slot >= slot_key_.size()) {
        slot_key_.resize(slot + 1, {~0u, 0});
        slot_ref_.resize(slot + 1);
    }
    slot_key_[slot] = {queue, packet};
    Kernel& k = kernels_[{queue, packet}];
    k = Kernel{};
    k.queue = queue;
    k.packet = packet;
    k.ref = resolve(queue, packet);
    slot_ref_[slot] = k.ref;
    k.doorbell_seen = doorbell;
    k.accepted = t;
}

void Recorder::kernel_stage(uint32_t slot, Stage s, const sc_time& t) {
    if (Kernel* k = live(slot)) {
        auto& v = k->stages[size_t(s)];
        if (!v || t < *v) v = t;  // several SMs report: the earliest counts
    }
}

void Recorder::kernel_completed(uint32_t slot, KernelError e, const sc_time& t) {
    Kernel* k = live(slot);
    if (!k) return;
    k->completed = t;
    k->error = e;
    if (trace_ && room()) {
        TraceEvent ev{"", "kernel", 'X', us(k->doorbell_seen), us(t) - us(k->doorbell_seen), kKernelPid, 0, {}};
        ev.launch = k->ref.launch;
        ev.instance = k->ref.instance;
        ev.tid = lane(kernel_lanes_, ev.ts_us, ev.ts_us + ev.dur_us);
        push(std::move(ev), JsonObjectText(args_text_)
                                .add("queue", k->queue)
                                .add("packet", k->packet)
                                .add("status", e == KernelError::none ? "ok" : kernel_error_text(e))
                                .text());
    }
    slot_key_[slot] = {~0u, 0};
    slot_ref_[slot] = LaunchRef{};
    if (k->ref.launch != ~0u) {
        fold(*k);
        if (k->ref.instance != 0) kernels_.erase({k->queue, k->packet});  // its launch's figures have it
    }
}

void Recorder::barrier_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (!trace_ || !room()) return;
    TraceEvent ev{"barrier packet " + std::to_string(packet), "barrier", 'X', us(start), us(end) - us(start),
                  kCpPid, 100 + queue, {}};
    push(std::move(ev), {});
}

void Recorder::packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_time& t) {
    rejections_.push_back({queue, packet, why, t});
    if (!trace_ || !room()) return;
    TraceEvent ev{std::string("rejected: ") + queue_error_name(why.error), "error", 'i', us(t), 0, kCpPid,
                  100 + queue, {}};
    push(std::move(ev), JsonObjectText(args_text_).add("packet", packet).add("field", why.field).add("detail", why.detail).text());
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
    TraceEvent ev{"block " + std::to_string(block), "block", 'X', us(it->second), us(t) - us(it->second),
                  kSmPid + sm, 0, {}};
    ev.tid = 1000 + lane(block_lanes_[sm], ev.ts_us, ev.ts_us + ev.dur_us);
    if (slot < slot_ref_.size()) {
        ev.launch = slot_ref_[slot].launch;
        ev.instance = slot_ref_[slot].instance;
    }
    push(std::move(ev), JsonObjectText(args_text_).add("block", block).add("sm", sm).text());
    block_start_.erase(it);
}

void Recorder::warp_finished(const WarpRecord& w) {
    ++warps_;
    if (!trace_ || !room()) return;
    TraceEvent ev{"warp " + std::to_string(w.warp), "warp", 'X', us(w.start), us(w.end) - us(w.start), kSmPid + w.sm,
                  w.slot, {}};
    if (w.kernel_slot < slot_ref_.size()) {
        ev.launch = slot_ref_[w.kernel_slot].launch;
        ev.instance = slot_ref_[w.kernel_slot].instance;
    }
    ev.block = w.block;
    push(std::move(ev), JsonObjectText(args_text_)
                            .add("block", w.block)
                            .add("warp", w.warp)
                            .add("sm", w.sm)
                            .add("slot", w.slot)
                            .add("instructions", w.instructions)
                            .text());
}

void Recorder::table_update(const std::string& block, const char* table, uint64_t row, const std::string& values,
                            const sc_time& t) {
    ++table_updates_;
    if (!room()) return;
    uint32_t pid = kGlcPid;
    if (block.rfind("sm[", 0) == 0) pid = kSmPid + uint32_t(std::stoul(block.substr(3)));
    TraceEvent ev{std::string(table) + "[" + std::to_string(row) + "]", "table", 'i', us(t), 0, pid, kTableTid, {}};
    push(std::move(ev), JsonObjectText(args_text_).add("values", values).text());
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
    TraceEvent ev{name, "lock", 'i', us(e.t), 0, kSmPid + e.sm, from_arbiter ? kArbiterTid : e.slot, {}};
    if (!from_arbiter && e.kernel_slot < slot_ref_.size()) {
        ev.launch = slot_ref_[e.kernel_slot].launch;
        ev.instance = slot_ref_[e.kernel_slot].instance;
    }
    JsonObjectText args(args_text_);
    args.add(from_arbiter ? "row" : "block", e.block).add("warp", e.warp);
    if (e.lock != ~0u) args.add("lock", e.lock);
    if (e.other != ~0u) args.add("other", e.other);
    if (e.cpr != ~0u) args.add("cpr", e.cpr);
    if (e.other_cpr != ~0u) args.add("other_cpr", e.other_cpr);
    if (e.kind == LockEventKind::acquired) args.add("word", hex(e.word)).add("wait_ns", to_ns(e.wait));
    if (e.redone) args.add("redone_instructions", e.redone);
    push(std::move(ev), args.text());
}

// M3: a counter track per SM: scalar registers in use per level.
void Recorder::scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_time& t) {
    if (!trace_ || !room()) return;
    TraceEvent ev{"scalar pool", "scalar", 'C', us(t), 0, kSmPid + sm, 0, {}};
    push(std::move(ev),
         JsonObjectText(args_text_).add("kernel", used[0]).add("workgroup", used[1]).add("warp", used[2]).add("slice", used[3]).text());
}

void Recorder::lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_time& t) {
    const auto key = kernel_slot < slot_key_.size() ? slot_key_[kernel_slot] : std::make_pair(~0u, uint64_t(0));
    const LaunchRef ref = kernel_slot < slot_ref_.size() ? slot_ref_[kernel_slot] : LaunchRef{};
    lock_stalls_.push_back({key, ref, state, t});
}

// --- M4: draws and the unified shading array --------------------------------------------

void Recorder::draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_time& doorbell, const sc_time& t) {
    if (slot >= draw_slot_key_.size()) {
        draw_slot_key_.resize(slot + 1, {~0u, 0});
        draw_slot_ref_.resize(slot + 1);
    }
    draw_slot_key_[slot] = {queue, packet};
    Draw& d = draws_[{queue, packet}];
    d = Draw{};
    d.queue = queue;
    d.packet = packet;
    d.ref = resolve(queue, packet);
    draw_slot_ref_[slot] = d.ref;
    d.accepted = t;
}

void Recorder::draw_stage(uint32_t slot, DrawStage s, const sc_time& t) {
    if (slot >= draw_slot_key_.size()) return;
    auto it = draws_.find(draw_slot_key_[slot]);
    if (it != draws_.end() && !it->second.stages[size_t(s)]) it->second.stages[size_t(s)] = t;
}

void Recorder::draw_completed(uint32_t slot, KernelError e, const sc_time& t) {
    if (slot >= draw_slot_key_.size()) return;
    auto it = draws_.find(draw_slot_key_[slot]);
    if (it == draws_.end()) return;
    Draw& d = it->second;
    d.completed = t;
    d.error = e;
    if (trace_ && room()) {
        const sc_time from = d.stages[size_t(DrawStage::arrived)].value_or(d.accepted);
        TraceEvent ev{"", "draw", 'X', us(from), us(t) - us(from), kUsaPid, 0, {}};
        ev.launch = d.ref.launch;
        ev.instance = d.ref.instance;
        ev.tid = 1000 + lane(draw_lanes_, ev.ts_us, ev.ts_us + ev.dur_us);
        push(std::move(ev), JsonObjectText(args_text_)
                                .add("queue", d.queue)
                                .add("packet", d.packet)
                                .add("status", e == KernelError::none ? "ok" : kernel_error_text(e))
                                .text());
        usa_seen_ = true;
    }
    draw_slot_key_[slot] = {~0u, 0};
    draw_slot_ref_[slot] = LaunchRef{};
    if (d.ref.launch != ~0u) {
        fold(d);
        if (d.ref.instance != 0) draws_.erase(it);
    }
}

// Each task is a slice on its core's row, named by its type.
void Recorder::shading_task(const ShadingTask& task) {
    if (!trace_ || !room()) return;
    usa_seen_ = true;
    TraceEvent ev{core_type_name(task.type), "shading", 'X', us(task.assigned), us(task.end) - us(task.assigned),
                  kUsaPid, task.core, {}};
    if (task.draw_slot < draw_slot_ref_.size()) {
        ev.launch = draw_slot_ref_[task.draw_slot].launch;
        ev.instance = draw_slot_ref_[task.draw_slot].instance;
    }
    JsonObjectText args(args_text_);
    args.add("task", task.task).add("start_ns", to_ns(task.start));  // start: inputs in (and shader state loaded)
    if (task.switched) args.add("switched", true);
    push(std::move(ev), args.text());
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
        TraceEvent ev{name, "usa", 'C', us(t), 0, kUsaPid, 0, {}};
        push(std::move(ev), JsonObjectText(args_text_).add(a, av).add(b, bv).text());
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
    TraceEvent ev{std::string("to ") + core_type_name(to) + " (V=" + flag_bits(f.idle_vertex) + " P=" +
                      flag_bits(f.idle_pixel) + ")",
                  "usa", 'i', us(t), 0, kUsaPid, core, {}};
    push(std::move(ev), JsonObjectText(args_text_)
                            .add("core", core)
                            .add("idle_vertex", flag_bits(f.idle_vertex))
                            .add("idle_pixel", flag_bits(f.idle_pixel))
                            .text());
}

void Recorder::irq(bool level, const sc_time& t) {
    if (vcd_on_) vcd_.change(vcd_irq_, level, t);
    if (!trace_ || !room()) return;
    TraceEvent ev{"irq", "irq", 'C', us(t), 0, kHostPid, 0, {}};
    push(std::move(ev), JsonObjectText(args_text_).add("level", level ? 1 : 0).text());
}

void Recorder::add_launch_stages(const std::string& kernel,
                                 const std::vector<std::pair<std::string, std::pair<double, double>>>& stages,
                                 uint32_t lane) {
    if (!trace_) return;
    thread_names_[{kLaunchPid, lane}] = kernel;
    for (const auto& [name, span] : stages) {
        if (!room()) continue;  // counted as dropped
        TraceEvent ev{name, "launch", 'X', span.first / 1000, (span.second - span.first) / 1000, kLaunchPid, lane, {}};
        push(std::move(ev), JsonObjectText(args_text_).add("kernel", kernel).text());
    }
}

// Written event by event, as nlohmann's compact dump of the whole document would write it, so
// the output never exists twice (as a document and as text).
std::string Recorder::trace_text(const std::vector<TraceLaunch>& launches, const std::vector<std::string>& queue_names,
                                 uint32_t sms, uint32_t warp_slots, uint32_t usa_cores) const {
    std::string out = "{\"traceEvents\":[";
    out.reserve(out.size() + events_.size() * 200);
    bool first = true;
    auto next_event = [&] {  // the comma before every event but the first
        if (!first) out += ',';
        first = false;
    };
    auto put = [&](const std::string& text) {
        next_event();
        out += text;
    };
    auto meta = [&](const char* what, uint32_t pid, uint32_t tid, const std::string& name) {
        put(json{{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}}.dump());
    };
    meta("process_name", kHostPid, 0, "host");
    meta("process_name", kCpPid, 0, "command processor");
    for (uint32_t q = 0; q < queue_names.size(); ++q) meta("thread_name", kCpPid, 100 + q, "queue " + queue_names[q]);
    meta("process_name", kGlcPid, 0, "global logic controller");
    meta("process_name", kLaunchPid, 0, "launch stages");
    meta("process_name", kKernelPid, 0, "kernels");
    for (uint32_t s = 0; s < sms; ++s) {
        meta("process_name", kSmPid + s, 0, "sm[" + std::to_string(s) + "]");
        put(json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", kSmPid + s}, {"args", {{"sort_index", 10 + s}}}}.dump());
        for (uint32_t w = 0; w < warp_slots; ++w) meta("thread_name", kSmPid + s, w, "warp slot " + std::to_string(w));
        meta("thread_name", kSmPid + s, kArbiterTid, "lock arbiters");
        meta("thread_name", kSmPid + s, kTableTid, "block status table");
    }
    if (usa_seen_) {
        meta("process_name", kUsaPid, 0, "unified shading array");
        for (uint32_t c = 0; c < usa_cores; ++c)
            meta("thread_name", kUsaPid, c,
                 "SSC" + std::to_string(c / kCoresPerCluster + 1) + " core" + std::to_string(c % kCoresPerCluster + 1));
        for (uint32_t l = 0; l < draw_lanes_.size(); ++l) meta("thread_name", kUsaPid, 1000 + l, "draws");
    }
    for (const auto& [key, name] : thread_names_) meta("thread_name", key.first, key.second, name);
    // Times to whole picoseconds, so 1.5 us prints as 1.5 and not as 1.5000000000000002.
    auto ps = [&](double us) { append_json_number(out, std::round(us * 1e6) / 1e6); };
    std::string name;
    for (const TraceEvent& e : events_) {
        const std::string_view cat = e.cat;
        const TraceLaunch* l = e.launch < launches.size() ? &launches[e.launch] : nullptr;
        const std::string* shown = &e.name;
        if (l && (cat == "kernel" || cat == "draw" || cat == "block" || cat == "warp")) {  // named after its kernel or draw
            name = l->name;
            if (l->instanced) name += "[" + std::to_string(e.instance) + "]";
            if (cat == "block") name += " " + e.name;
            if (cat == "warp") name += " b" + std::to_string(e.block) + " " + e.name;
            shown = &name;
        }
        next_event();
        out += "{\"name\":";
        append_json_string(out, *shown);
        out += ",\"cat\":";
        append_json_string(out, cat);
        out += ",\"ph\":";
        append_json_string(out, std::string_view(&e.ph, 1));
        out += ",\"ts\":";
        ps(e.ts_us);
        if (e.ph == 'X') {
            out += ",\"dur\":";
            ps(e.dur_us);
        }
        if (e.ph == 'i') out += ",\"s\":\"t\"";
        out += ",\"pid\":" + std::to_string(e.pid) + ",\"tid\":" + std::to_string(e.tid);
        if (l) {  // its kernel or draw (and instance) added to its arguments
            out += ",\"args\":";
            out.append(e.args.empty() ? std::string_view("{") : std::string_view(e.args).substr(0, e.args.size() - 1));
            if (!e.args.empty()) out += ',';
            append_json_string(out, cat == "draw" || cat == "shading" ? "draw" : "kernel");
            out += ':';
            append_json_string(out, l->name);
            if (l->instanced) out += ",\"instance\":" + std::to_string(e.instance);
            out += '}';
        } else if (!e.args.empty()) {
            out += ",\"args\":" + e.args;
        }
        out += '}';
    }
    out += "],\"displayTimeUnit\":\"ns\"";
    if (dropped_)
        out += ",\"otherData\":" + json{{"note", "trace full: " + std::to_string(dropped_) + " events dropped (the limit is " +
                                                       std::to_string(limit_) + "; see --trace-limit)"}}.dump();
    out += '}';
    return out;
}

}  // namespace gpuvp
