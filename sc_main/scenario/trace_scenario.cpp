// A profiler trace as a scenario document (docs/replay.md, "What each event becomes").
#include "sc_main/scenario/trace_scenario.h"
#include "sc_main/scenario/device_platform.h"
#include "sc_main/scenario/document.h"
#include <gpuvp/models/glc/glc_config.h>
#include <gpuvp/models/common/aql.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

namespace gpuvp {

namespace {

using Kind = TraceGpuOp::Kind;
using Call = TraceHostCall::Kind;

constexpr uint32_t kMaxValuCycles = 65535;  // a valu instruction's 16-bit count
constexpr uint64_t kMaxQueuePackets = 131072;  // a queue's `size` at most (docs/scenario.md)

// "void at::native::(anonymous namespace)::elementwise_kernel<128, 2, ...>(int, ...)" ->
// "elementwise_kernel": the function's own name, letters, digits and '_' only, 48 at most.
std::string short_name(const std::string& full) {
    std::string s = full;
    for (size_t at; (at = s.find("(anonymous namespace)")) != std::string::npos;) s.replace(at, 21, "anon");
    int depth = 0;
    size_t end = s.size();
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<') {
            if (depth == 0 && i > 0) {
                end = i;
                break;
            }
            ++depth;
        } else if (s[i] == '>') --depth;
        else if (s[i] == '(' && depth == 0) {
            end = i;
            break;
        }
    }
    s = s.substr(0, end);
    if (size_t sp = s.rfind(' '); sp != std::string::npos) s = s.substr(sp + 1);
    if (size_t colon = s.rfind("::"); colon != std::string::npos) s = s.substr(colon + 2);
    std::string out;
    for (char ch : s) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        if (ok) out += ch;
        else if (!out.empty() && out.back() != '_') out += '_';
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    if (out.size() > 48) out.resize(48);
    return out.empty() ? "kernel" : out;
}

// "Memcpy HtoD (Pageable -> Device)" -> "memcpy_HtoD"; "Memset (Device)" -> "memset"; a CUDA
// graph traced whole -> "graph".
std::string copy_name(const TraceGpuOp& op) {
    if (op.kind == Kind::fill) return "memset";
    if (op.kind == Kind::graph) return "graph";
    for (const char* dir : {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"})
        if (op.name.find(dir) != std::string::npos) return std::string("memcpy_") + dir;
    return "memcpy";
}

using yaml::Node;

Node flow_list() { return Node::sequence(true); }
Node flow_map() { return Node::map(true); }

template <class T>
Node dims(const std::array<T, 3>& d) {
    Node n = flow_list();
    for (T x : d) n.push_back(Node::scalar(uint64_t(x)));
    return n;
}

// The formula of a kernel's body (docs/replay.md, "Kernel bodies"; `--no-solve`, and the start
// of a solve): the cycles each warp is busy for so that the kernel takes `duration` cycles at
// the occupancy the platform gives it, its blocks in waves of `per_sm` blocks on every SM, placed
// `per_sm` at a time one placement after another (placement_cycles): the kernel takes its
// placements and then `waves` bodies. Its floor is its placements and one cycle.
BodySolution body_formula(const PlatformConfig& p, uint64_t blocks, uint64_t per_sm, double duration_ns) {
    const double ghz = p.clock_mhz / 1000;
    const double per_wave = double(std::max<uint64_t>(1, per_sm * p.sms));
    const double waves = std::max(1.0, std::ceil(double(blocks) / per_wave));
    const double placing = double(placement_cycles(p.glc, blocks, std::max<uint64_t>(1, per_sm)));
    BodySolution b;
    b.cycles = uint64_t(std::max(1.0, std::round((duration_ns * ghz - placing) / waves)));
    b.floor_ns = (placing + 1) / ghz;
    return b;
}

// A replayed kernel's program (duration_program) as the scenario writes it.
Node program_node(uint64_t cycles) {
    Node program = Node::sequence(true);
    for (const ProgramStep& step : duration_program(cycles)) {
        Node v = flow_map();
        if (step.insn.op == Opcode::end) continue;
        v.set("op", Node::scalar(opcode_name(step.insn.op)));
        if (step.insn.op == Opcode::valu) v.set("cycles", Node::scalar(step.insn.a));
        if (step.repeat > 1) v.set("repeat", Node::scalar(step.repeat));
        program.push_back(std::move(v));
    }
    return program;
}

struct Replayed {  // an op of the replayed device, as the scenario names it
    const TraceGpuOp* op = nullptr;
    std::string name, queue;
    const TraceHostCall* call = nullptr;  // its launch call (null: none in the trace)
    int64_t launch = 0, launch_end = 0;   // on the trace's clock
    std::vector<std::string> after;
    std::vector<std::string> inferred;  // of `after`, the waits inferred from the timeline (infer_waits)
    uint32_t unmatched = 0;             // wait calls before its launch neither recorded nor inferred
};

class Importer {
public:
    Importer(const ProfilerTrace& t, const TraceImportOptions& o) : t_(t), o_(o) {}

    // The document without its work: name, platform, host, queues (what the cycles depend on).
    Node header(TraceImportSummary& sum);
    // The work: kernels, copies and the host's calls, on the traced platform (`base`: the
    // document read without its work).
    void work(Node& doc, const Scenario& base, TraceImportSummary& sum);
    bool default_platform_ = false;  // TraceImportSummary::default_platform: an unfit kernel's error says so

private:
    using CallsByCorr = std::unordered_map<int64_t, const TraceHostCall*>;  // the host's calls by correlation
    using SyncsByCorr = std::unordered_map<int64_t, const TraceSync*>;      // the device's syncs by correlation
    [[noreturn]] void fail(const TraceGpuOp& op, const std::string& why) const { throw op_error(t_, op, why); }
    // The device (the one asked for, else the first with kernels or graphs traced whole) and its
    // ops, each with its launch call; t0_, the first launch.
    void device_ops(TraceImportSummary& sum);
    // The platform: the preset the device matches, then what its deviceProperties state.
    Node platform(TraceImportSummary& sum) const;
    // A queue per stream, deep enough for the stream's deepest backlog.
    Node queues();
    const TraceGpuOp* op_before(int64_t stream, int64_t t) const;  // the stream's last op launched before t
    // Each op's name (its kernel's short name, unique, then #launch) and queue; a kernel the
    // platform cannot hold is an error or, with --skip-unfit, left out. Then ops_ in launch
    // order, indexed.
    void name_work(const PlatformConfig& p, TraceImportSummary& sum);
    // The device's event waits and syncs that do not name their record call: joined to one, or
    // counted as unresolved.
    void join_events(const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr, TraceImportSummary& sum);
    // Cross-stream waits: the next work launched on the waiting stream after the wait waits for
    // the recorded work's completion signal. Gives the device's syncs by correlation.
    SyncsByCorr cross_stream_waits(const CallsByCorr& call_by_corr);
    // The wait calls no record says the target of (docs/replay.md, "Inferred waits").
    void infer_waits(const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr, TraceImportSummary& sum);
    // The document's kernels and copies, the kernels' bodies solved against simulations of each
    // alone (or the formula).
    void work_nodes(Node& doc, const Scenario& base, TraceImportSummary& sum);
    // The host's calls, thread by thread, from the first replayed launch on: launches and
    // syncs; every other call's CPU time, and the time between calls, goes into the gap before
    // the next call. A call whose work is not replayed (another GPU's) is CPU time too.
    void call_nodes(Node& doc, const CallsByCorr& call_by_corr, const SyncsByCorr& sync_by_corr, TraceImportSummary& sum);
    // What a wait or sync's event recorded: the last work launched on `stream` before `at`.
    struct EventRecord {
        int64_t stream = -1, at = 0;
    };
    std::optional<EventRecord> event_record(const TraceSync& s, int64_t before,
                                            const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr) const;

    const ProfilerTrace& t_;
    const TraceImportOptions& o_;
    int64_t device_ = 0;
    int64_t t0_ = 0;
    std::vector<Replayed> ops_;
    std::map<int64_t, std::string> queue_of_;                // stream -> queue name
    std::unordered_map<const TraceGpuOp*, size_t> index_;     // op -> ops_ index
    std::map<int64_t, std::vector<size_t>> by_stream_;       // ops_ indices in launch order
    std::unordered_map<const TraceSync*, EventRecord> joined_;  // join_events
};

void Importer::device_ops(TraceImportSummary& sum) {
    bool found = false;
    for (const TraceGpuOp& op : t_.ops)
        if ((op.kind == Kind::kernel || op.kind == Kind::graph) && (!o_.device || op.device == *o_.device)) {
            device_ = op.device;
            found = true;
            break;
        }
    if (!found)
        throw TraceError(t_.file, TraceError::Where::none, 0,
                         o_.device ? "no kernels on device " + std::to_string(*o_.device) : "no kernels in the trace");
    std::unordered_multimap<int64_t, const TraceHostCall*> calls;  // launch calls by correlation
    for (const TraceHostCall& c : t_.calls)
        if (c.correlation >= 0 && (c.kind == Call::launch || c.kind == Call::graph_launch || c.kind == Call::copy ||
                                   c.kind == Call::fill))
            calls.emplace(c.correlation, &c);
    for (const TraceGpuOp& op : t_.ops) {
        if (op.device != device_) {
            ++sum.other_devices;
            continue;
        }
        Replayed r;
        r.op = &op;
        auto it = calls.find(op.correlation);
        r.call = it == calls.end() ? nullptr : it->second;
        r.launch = r.call ? r.call->start_ns : op.start_ns;
        r.launch_end = r.call ? r.call->end_ns : op.start_ns;
        ops_.push_back(r);
    }
    t0_ = ops_.front().launch;
    for (const Replayed& r : ops_) t0_ = std::min(t0_, r.launch);
}

Node Importer::platform(TraceImportSummary& sum) const {
    Node platform = Node::map();
    for (const TraceDevice& d : t_.devices)
        if (d.id == device_ || t_.devices.size() == 1) {
            sum.gpu = d.name;
            sum.preset = preset_for(d);
            if (!sum.preset.empty()) platform.set("preset", Node::scalar(sum.preset));
            for (const auto& [param, value] : device_values(d)) {  // "sm.warp_slots" -> platform.sm.warp_slots
                const size_t dot = param.find('.');
                if (dot == std::string::npos) platform.set(param, Node::scalar(value));
                else platform.child(param.substr(0, dot)).set(param.substr(dot + 1), Node::scalar(value));
            }
            break;
        }
    return platform;
}

Node Importer::queues() {
    std::set<int64_t> streams;
    for (const Replayed& r : ops_) streams.insert(r.op->stream);
    // Each stream's deepest backlog on the hardware: work launched and not yet ended. A queue
    // holds at least that many packets, so that the host is never held by a ring the runtime's
    // own queue did not fill.
    std::map<int64_t, std::vector<std::pair<int64_t, int>>> edges;  // stream -> (time, +1 launch / -1 end)
    for (const Replayed& r : ops_) {
        edges[r.op->stream].emplace_back(r.launch, +1);
        edges[r.op->stream].emplace_back(std::max(r.op->end_ns, r.launch), -1);
    }
    Node queues = Node::sequence();
    for (int64_t s : streams) {
        const std::string q = "stream" + std::to_string(s);
        queue_of_[s] = q;
        Node n = flow_map();
        n.set("name", Node::scalar(q));
        std::vector<std::pair<int64_t, int>>& e = edges[s];
        std::sort(e.begin(), e.end());  // (an end at a launch's time first: -1 < +1)
        int64_t depth = 0, deepest = 0;
        for (const auto& [t, step] : e) deepest = std::max(deepest, depth += step);
        uint64_t size = QueueSpec{}.size;
        while (size <= uint64_t(deepest) && size < kMaxQueuePackets) size *= 2;
        if (size != QueueSpec{}.size) n.set("size", Node::scalar(size));
        queues.push_back(std::move(n));
    }
    return queues;
}

Node Importer::header(TraceImportSummary& sum) {
    device_ops(sum);
    Node doc = Node::map();
    std::string name = o_.name;
    if (name.empty()) {
        name = t_.file.substr(t_.file.find_last_of('/') + 1);
        for (const char* ext : {".gz", ".json", ".csv", ".sqlite", ".db"})
            if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
                name.resize(name.size() - std::strlen(ext));
    }
    doc.set("name", Node::scalar(name));
    Node platform = this->platform(sum);
    Node queues = this->queues();
    const size_t streams = queues.size();
    if (streams > CpConfig{}.max_queues) {
        Node cp = Node::map();
        cp.set("max_queues", Node::scalar(uint64_t(streams)));
        platform.set("cp", std::move(cp));
    }
    // A kernel of the trace runs for as long as it did: the watchdog waits longer than that.
    int64_t longest = 0, end = 0;
    for (const Replayed& r : ops_) {
        longest = std::max(longest, r.op->end_ns - r.op->start_ns);
        end = std::max(end, r.op->end_ns);
    }
    platform.set("watchdog_ns", Node::scalar(uint64_t(std::max<int64_t>(5'000'000, 4 * longest))));
    if (platform.size()) doc.set("platform", std::move(platform));
    sum.measured_makespan_ns = double(end - t0_);
    doc.set("max_sim_ns", Node::scalar(std::max(1e9, 20.0 * sum.measured_makespan_ns)));
    Node host = Node::map();
    host.set("code", Node::scalar("once"));  // warm launches: the first launch of each kernel is left out of the metrics
    host.set("replay", Node::scalar(policy_name(o_.mode)));
    doc.set("host", std::move(host));
    doc.set("queues", std::move(queues));
    sum.device = device_;
    sum.streams = streams;
    return doc;
}

const TraceGpuOp* Importer::op_before(int64_t stream, int64_t t) const {
    auto it = by_stream_.find(stream);
    if (it == by_stream_.end()) return nullptr;
    const TraceGpuOp* last = nullptr;
    for (size_t i : it->second) {
        if (ops_[i].launch >= t) break;
        last = ops_[i].op;
    }
    return last;
}

// A `Stream Wait Event` or `Event Sync` record that names its event (wait_on_cuda_event_id) but
// neither the stream it was recorded on nor its record call: CUPTI 13 with PyTorch's
// cudaEventRecordWithFlags writes all of them so, and the record call's trace event says
// neither the event nor the stream. Where no record of the trace names its record call (a
// trace that does has CUPTI's event records: a record naming none is of an event not recorded
// in the trace), each is joined to:
// - the event's record call: the last cudaEventRecord or cudaEventRecordWithFlags of the
//   waiting call's host thread before it, unless that call would record two events (two event
//   ids joined to it: neither is taken);
// - the event's stream: the stream of the last work that thread launched before the record
//   call (its current stream, as PyTorch records);
// and taken only if the measured timeline agrees: the recorded work ended by the time the
// waiting stream's next work started (a wait) or the sync call returned (a sync). What names
// no record call and is not joined (a record without an event too), where the replay would
// have used it, is counted (`events_unresolved`).
void Importer::join_events(const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr, TraceImportSummary& sum) {
    using S = TraceSync::Kind;
    const bool names_records = std::any_of(t_.syncs.begin(), t_.syncs.end(), [](const TraceSync& s) {
        return s.wait_on_stream >= 0 || s.wait_on_event_record >= 0;
    });
    auto call_of = [&](const TraceSync& s) -> const TraceHostCall* {
        auto c = call_by_corr.find(s.correlation);
        return s.correlation >= 0 && c != call_by_corr.end() ? c->second : nullptr;
    };
    // The next work launched on the waiting stream at or after the wait (none: nothing waits).
    auto waiter = [&](const TraceSync& s) -> const Replayed* {
        auto waiting = by_stream_.find(s.stream);
        if (waiting == by_stream_.end()) return nullptr;
        const TraceHostCall* c = call_of(s);
        const int64_t at = c ? c->start_ns : s.start_ns;
        for (size_t i : waiting->second)
            if (ops_[i].launch >= at) return &ops_[i];
        return nullptr;
    };
    // Those the replay would use: a wait with work after it, a sync whose call is replayed.
    std::vector<const TraceSync*> open;
    for (const TraceSync& s : t_.syncs) {
        if (s.device != device_ && s.device >= 0) continue;
        if ((s.kind != S::stream_wait_event && s.kind != S::event_sync) || s.wait_on_stream >= 0) continue;
        const TraceHostCall* c = call_of(s);
        const bool used = s.kind == S::stream_wait_event ? waiter(s) != nullptr : c && c->start_ns >= t0_;
        if (used) open.push_back(&s);
    }
    if (open.empty()) return;
    std::unordered_map<const TraceHostCall*, std::set<int64_t>> events_of;  // record call -> the events joined to it
    std::unordered_map<const TraceSync*, std::pair<const TraceHostCall*, const TraceGpuOp*>> found;  // its record, that thread's last work
    if (!names_records) {
        std::unordered_map<const TraceHostCall*, std::vector<const TraceSync*>> by_call;
        for (const TraceSync* s : open)
            if (const TraceHostCall* c = call_of(*s); c && s->event >= 0) by_call[c].push_back(s);
        std::unordered_map<int64_t, const TraceGpuOp*> op_of;  // correlation -> its work, any device
        for (const TraceGpuOp& op : t_.ops)
            if (op.correlation >= 0) op_of.emplace(op.correlation, &op);
        std::unordered_map<int64_t, const TraceGpuOp*> launched;  // thread -> its last work launched
        std::unordered_map<int64_t, std::pair<const TraceHostCall*, const TraceGpuOp*>> record;  // thread -> its last record
        for (const TraceHostCall& c : t_.calls) {
            if (c.kind == Call::launch || c.kind == Call::graph_launch || c.kind == Call::copy || c.kind == Call::fill)
                if (auto op = op_of.find(c.correlation); c.correlation >= 0 && op != op_of.end()) launched[c.thread] = op->second;
            if (c.kind == Call::event_record) record[c.thread] = {&c, launched.count(c.thread) ? launched[c.thread] : nullptr};
            auto waits = by_call.find(&c);
            auto r = record.find(c.thread);
            if (waits == by_call.end() || r == record.end()) continue;
            for (const TraceSync* s : waits->second) {
                found[s] = r->second;
                events_of[r->second.first].insert(s->event);
            }
        }
    }
    for (const TraceSync* s : open) {
        auto f = found.find(s);
        const TraceGpuOp* last = f != found.end() ? f->second.second : nullptr;
        const TraceGpuOp* target = nullptr;
        if (last && last->device == device_ && events_of[f->second.first].size() == 1)
            target = op_before(last->stream, f->second.first->start_ns);
        bool agrees = target != nullptr;
        if (agrees && s->kind == S::event_sync) agrees = call_of(*s)->end_ns >= target->end_ns;
        if (agrees && s->kind == S::stream_wait_event) agrees = waiter(*s)->op->start_ns >= target->end_ns;
        if (agrees) {
            joined_[s] = {last->stream, f->second.first->start_ns};
            ++sum.events_joined;
        } else {
            ++sum.events_unresolved;
        }
    }
}

std::optional<Importer::EventRecord> Importer::event_record(
    const TraceSync& s, int64_t before, const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr) const {
    if (auto j = joined_.find(&s); j != joined_.end()) return j->second;
    if (s.wait_on_stream < 0) return std::nullopt;
    auto rec = call_by_corr.find(s.wait_on_event_record);
    return EventRecord{s.wait_on_stream, rec != call_by_corr.end() ? rec->second->start_ns : before};
}

// A cudaStreamWaitEvent call whose `Stream Wait Event` record is missing (older profilers write
// none) or names no event record the import can resolve waits for something the trace does not
// say. The work its thread launches next (K, a kernel or a copy) shows it where the hardware held K for
// another stream's work: K started at most kInferWindowNs after the end of work J of another
// stream, although K's launch call had returned, and K's own stream's work before it had
// ended, before J ended. K then waits for J (`after`, listed in `measured.inferred_after`);
// otherwise, or with infer_waits off, the wait is counted on K (`measured.unmatched_waits`).
// A wait call whose thread launches nothing after it waits for nothing the replay runs; on a
// device with one stream, every wait is held by the stream's order.
void Importer::infer_waits(const std::unordered_map<int64_t, const TraceHostCall*>& call_by_corr, TraceImportSummary& sum) {
    constexpr int64_t kInferWindowNs = 5000;
    if (by_stream_.size() < 2) return;  // one stream: its order already holds whatever a wait could
    std::unordered_map<int64_t, const TraceSync*> recorded;  // wait records by their call's correlation
    for (const TraceSync& s : t_.syncs)
        if (s.kind == TraceSync::Kind::stream_wait_event && (s.device == device_ || s.device < 0) && s.correlation >= 0)
            recorded.emplace(s.correlation, &s);
    std::unordered_map<const TraceHostCall*, size_t> launched;  // launch call -> its first work (ops_ index)
    for (size_t i = 0; i < ops_.size(); ++i)
        if (ops_[i].call) launched.emplace(ops_[i].call, i);
    std::unordered_map<int64_t, size_t> pending;                 // thread -> waits not yet followed by a launch
    std::vector<std::pair<const TraceHostCall*, size_t>> waits;           // wait call, the work it precedes
    for (const TraceHostCall& c : t_.calls) {
        if (c.start_ns < t0_) continue;
        if (c.kind == Call::stream_wait_event) {
            auto r = recorded.find(c.correlation);
            const bool resolved = c.correlation >= 0 && r != recorded.end() && event_record(*r->second, c.start_ns, call_by_corr);
            if (!resolved) ++pending[c.thread];
            continue;
        }
        auto l = launched.find(&c);
        if (l == launched.end()) continue;
        auto p = pending.find(c.thread);
        if (p == pending.end()) continue;
        for (size_t n = 0; n < p->second; ++n) waits.emplace_back(&c, l->second);
        pending.erase(p);
    }
    for (const auto& [call, k] : waits) {
        Replayed& kr = ops_[k];
        const TraceGpuOp& ko = *kr.op;
        // K's own stream's work before it: when it ended.
        int64_t own_end = INT64_MIN;
        for (size_t i : by_stream_.at(ko.stream)) {
            if (i == k) break;
            own_end = std::max(own_end, ops_[i].op->end_ns);
        }
        const Replayed* held_by = nullptr;
        for (const Replayed& j : ops_) {
            const TraceGpuOp& jo = *j.op;
            if (jo.stream == ko.stream || jo.end_ns > ko.start_ns || ko.start_ns - jo.end_ns > kInferWindowNs) continue;
            if (jo.end_ns <= call->end_ns || jo.end_ns <= own_end) continue;
            if (!held_by || jo.end_ns > held_by->op->end_ns) held_by = &j;
        }
        // (A second wait before the same launch waits for something else: not this J again.)
        if (held_by && o_.infer_waits &&
            std::find(kr.inferred.begin(), kr.inferred.end(), held_by->name) == kr.inferred.end()) {
            if (std::find(kr.after.begin(), kr.after.end(), held_by->name) == kr.after.end()) kr.after.push_back(held_by->name);
            kr.inferred.push_back(held_by->name);
            ++sum.inferred_waits;
        } else {
            ++kr.unmatched;
            ++sum.unmatched_waits;
        }
    }
}

void Importer::work(Node& doc, const Scenario& base, TraceImportSummary& sum) {
    name_work(base.platform, sum);
    CallsByCorr call_by_corr;
    for (const TraceHostCall& c : t_.calls)
        if (c.correlation >= 0) call_by_corr.emplace(c.correlation, &c);
    join_events(call_by_corr, sum);
    const SyncsByCorr sync_by_corr = cross_stream_waits(call_by_corr);
    infer_waits(call_by_corr, sum);
    work_nodes(doc, base, sum);
    call_nodes(doc, call_by_corr, sync_by_corr, sum);
}

void Importer::name_work(const PlatformConfig& p, TraceImportSummary& sum) {
    std::map<std::string, std::string> short_of;  // full name -> its short name, one each
    std::map<std::string, uint64_t> launches;     // short name -> launches so far
    std::set<std::string> shorts;
    std::vector<Replayed> kept;
    for (Replayed& r : ops_) {
        const TraceGpuOp& op = *r.op;
        std::string base;
        if (op.kind == Kind::kernel) {
            auto it = short_of.find(op.name);
            if (it == short_of.end()) {
                std::string s = short_name(op.name), unique = s;
                for (int n = 2; shorts.count(unique); ++n) unique = s + "_" + std::to_string(n);
                shorts.insert(unique);
                it = short_of.emplace(op.name, unique).first;
            }
            base = it->second;
            const uint64_t threads = uint64_t(op.block[0]) * op.block[1] * op.block[2];
            std::string unfit;
            if (threads > 1024) unfit = "a block of " + std::to_string(threads) + " threads (the most is 1024)";
            for (int d = 0; d < 3 && unfit.empty(); ++d)
                if (uint64_t(op.grid[d]) * op.block[d] > 0xffffffffull)
                    unfit = "a grid of " + std::to_string(uint64_t(op.grid[d]) * op.block[d]) + " work-items in dimension " +
                            std::to_string(d) + ", beyond the AQL packet's 32-bit grid size";
            const uint32_t vregs = std::clamp<uint32_t>(op.registers ? op.registers : 32, 1, 256);
            const bool any_gpu = !unfit.empty();  // what no platform holds; below, what this one does not
            if (unfit.empty() && op.shared_bytes > p.sm.shared_memory)
                unfit = std::to_string(op.shared_bytes) + " bytes of shared memory per block (an SM has " +
                        std::to_string(p.sm.shared_memory) + ")";
            if (unfit.empty() && threads && blocks_per_sm(p.sm, threads, vregs, op.shared_bytes) == 0)
                unfit = "a block of " + std::to_string(threads) + " threads with " + std::to_string(vregs) +
                        " registers each does not fit an SM";
            if (!unfit.empty()) {
                if (!o_.skip_unfit)
                    fail(op, "kernel " + base + " (" + op.name.substr(0, 120) + "): " + unfit +
                                 " (--skip-unfit leaves such kernels out)" +
                                 (default_platform_ && !any_gpu ? std::string("; ") + kUnnamedGpu : ""));
                ++sum.skipped_unfit;
                continue;
            }
        } else {
            base = copy_name(op);
        }
        r.name = base + "#" + std::to_string(launches[base]++);
        r.queue = queue_of_.at(op.stream);
        kept.push_back(r);
    }
    ops_ = std::move(kept);
    std::stable_sort(ops_.begin(), ops_.end(), [](const Replayed& a, const Replayed& b) { return a.launch < b.launch; });
    for (size_t i = 0; i < ops_.size(); ++i) {
        index_[ops_[i].op] = i;
        by_stream_[ops_[i].op->stream].push_back(i);
    }
}

Importer::SyncsByCorr Importer::cross_stream_waits(const CallsByCorr& call_by_corr) {
    SyncsByCorr sync_by_corr;
    for (const TraceSync& s : t_.syncs) {
        if (s.device != device_ && s.device >= 0) continue;
        sync_by_corr.emplace(s.correlation, &s);
        if (s.kind != TraceSync::Kind::stream_wait_event) continue;
        const std::optional<EventRecord> r = event_record(s, s.start_ns, call_by_corr);
        if (!r || r->stream == s.stream) continue;
        const TraceGpuOp* target = op_before(r->stream, r->at);
        auto waiting = by_stream_.find(s.stream);
        if (!target || waiting == by_stream_.end()) continue;
        const int64_t at = call_by_corr.count(s.correlation) ? call_by_corr.at(s.correlation)->start_ns : s.start_ns;
        for (size_t i : waiting->second)
            if (ops_[i].launch >= at) {
                auto& after = ops_[i].after;
                const std::string& name = ops_[index_.at(target)].name;
                if (std::find(after.begin(), after.end(), name) == after.end()) after.push_back(name);
                break;
            }
    }
    return sync_by_corr;
}

void Importer::work_nodes(Node& doc, const Scenario& base, TraceImportSummary& sum) {
    const PlatformConfig& p = base.platform;
    std::vector<BodyTarget> targets;
    std::vector<BodySolution> formula;  // the formula's, each target's (and the solve's start)
    for (const Replayed& r : ops_) {
        const TraceGpuOp& op = *r.op;
        if (op.kind != Kind::kernel) continue;
        BodyTarget& t = targets.emplace_back();
        for (int d = 0; d < 3; ++d) t.grid[d] = op.grid[d] * op.block[d];
        t.block = op.block;
        t.vregs = std::clamp<uint32_t>(op.registers ? op.registers : 32, 1, 256);
        t.shared_bytes = op.shared_bytes;
        t.duration_ns = double(op.end_ns - op.start_ns);
        const uint64_t threads = uint64_t(op.block[0]) * op.block[1] * op.block[2];
        const uint64_t blocks = uint64_t(op.grid[0]) * op.grid[1] * op.grid[2];
        formula.push_back(body_formula(p, blocks, blocks_per_sm(p.sm, threads, t.vregs, t.shared_bytes), t.duration_ns));
        t.estimate = formula.back().cycles;
    }
    std::vector<BodySolution> bodies;
    if (o_.solve) {
        bodies = o_.solve(base, targets, sum.solve);
        sum.solved = true;
    }
    if (bodies.size() != targets.size()) bodies = std::move(formula);

    Node kernels = Node::sequence(), copies = Node::sequence();
    size_t kernel = 0;
    for (const Replayed& r : ops_) {
        const TraceGpuOp& op = *r.op;
        Node n = flow_map();
        n.set("name", Node::scalar(r.name));
        if (op.kind == Kind::kernel && !op.label.empty()) n.set("label", Node::scalar(op.label));
        n.set("queue", Node::scalar(r.queue));
        n.set("submit_ns", Node::scalar(r.launch - t0_));
        const int64_t duration = op.end_ns - op.start_ns;
        int64_t floor_ns = 0;
        if (op.kind == Kind::kernel) {
            const BodyTarget& t = targets[kernel];
            const BodySolution& body = bodies[kernel++];
            n.set("grid", dims(t.grid));
            n.set("block", dims(t.block));
            n.set("vregs", Node::scalar(t.vregs));
            if (t.shared_bytes) n.set("shared_bytes", Node::scalar(t.shared_bytes));
            n.set("global_bytes", Node::scalar(0));
            n.set("barrier", Node::scalar(true));
            const uint64_t cycles = body.cycles;
            if (body.floor_ns > 0) floor_ns = std::max<int64_t>(1, int64_t(std::llround(body.floor_ns)));
            sum.dispatch_bound += duration < floor_ns;
            n.set("program", program_node(cycles));
        } else {
            n.set("duration_ns", Node::scalar(duration));
            if (op.bytes) n.set("bytes", Node::scalar(op.bytes));
            if (op.kind == Kind::fill) n.set("fill", Node::scalar(true));
        }
        if (!r.after.empty()) {
            Node after = flow_list();
            for (const std::string& a : r.after) after.push_back(Node::scalar(a));
            n.set("after", after);
        }
        Node m = flow_map();
        m.set("launch_ns", Node::scalar(r.launch - t0_));
        m.set("launch_end_ns", Node::scalar(std::max(r.launch, r.launch_end) - t0_));
        m.set("start_ns", Node::scalar(std::max(op.start_ns, t0_) - t0_));
        m.set("end_ns", Node::scalar(std::max(op.end_ns, std::max(op.start_ns, t0_)) - t0_));
        if (floor_ns) m.set("floor_ns", Node::scalar(floor_ns));
        if (!r.inferred.empty()) {
            Node inferred = flow_list();
            for (const std::string& a : r.inferred) inferred.push_back(Node::scalar(a));
            m.set("inferred_after", inferred);
        }
        if (r.unmatched) m.set("unmatched_waits", Node::scalar(r.unmatched));
        n.set("measured", m);
        (op.kind == Kind::kernel ? kernels : copies).push_back(std::move(n));
        (op.kind == Kind::kernel ? sum.kernels : op.kind == Kind::graph ? sum.graphs : sum.copies)++;
        sum.shapes_defaulted += op.kind == Kind::kernel && op.shape_defaulted;
    }
    if (copies.size()) doc.set("copies", std::move(copies));
    doc.set("kernels", std::move(kernels));
}

void Importer::call_nodes(Node& doc, const CallsByCorr& call_by_corr, const SyncsByCorr& sync_by_corr,
                          TraceImportSummary& sum) {
    // What an event recorded: the last work of its stream launched before its cudaEventRecord.
    auto recorded = [&](const TraceSync& s, int64_t before) -> const TraceGpuOp* {
        const std::optional<EventRecord> r = event_record(s, before, call_by_corr);
        return r ? op_before(r->stream, r->at) : nullptr;
    };
    std::unordered_multimap<const TraceHostCall*, size_t> work_of;
    for (size_t i = 0; i < ops_.size(); ++i)
        if (ops_[i].call) work_of.emplace(ops_[i].call, i);
    std::map<int64_t, uint32_t> thread_of;
    std::vector<int64_t> thread_end;  // per thread: when its previous call returned
    Node calls = Node::sequence();
    for (const TraceHostCall& c : t_.calls) {
        if (c.start_ns < t0_) continue;
        auto [it, fresh] = thread_of.emplace(c.thread, uint32_t(thread_of.size()));
        if (fresh) thread_end.push_back(t0_);
        const uint32_t th = it->second;
        Node n = flow_map();
        auto range = work_of.equal_range(&c);
        std::vector<size_t> work;
        for (auto w = range.first; w != range.second; ++w) work.push_back(w->second);
        std::sort(work.begin(), work.end());
        const TraceSync* sync = sync_by_corr.count(c.correlation) ? sync_by_corr.at(c.correlation) : nullptr;
        const bool blocking_copy = (c.kind == Call::copy || c.kind == Call::fill) && c.name.find("Async") == std::string::npos;
        std::string kind;
        if (!work.empty()) {
            kind = "launch";
            Node names = flow_list();
            for (size_t i : work) names.push_back(Node::scalar(ops_[i].name));
            n.set("work", names);
            n.set("duration_ns", Node::scalar(blocking_copy ? 0 : c.end_ns - c.start_ns));
        } else if (c.kind == Call::device_sync || (sync && sync->kind == TraceSync::Kind::context_sync)) {
            kind = "sync-device";
        } else if (c.kind == Call::stream_sync || (sync && sync->kind == TraceSync::Kind::stream_sync)) {
            const int64_t s = sync ? sync->stream : c.stream.value_or(-1);
            if (queue_of_.count(s)) {
                kind = "sync-queue";
                n.set("queue", Node::scalar(queue_of_[s]));
            } else if (!sync && !c.stream) kind = "sync-device";
        } else if (c.kind == Call::event_sync || (sync && sync->kind == TraceSync::Kind::event_sync)) {
            const TraceGpuOp* target = sync ? recorded(*sync, c.start_ns) : nullptr;
            if (target && index_.count(target)) {
                kind = "sync-work";
                Node names = flow_list();
                names.push_back(Node::scalar(ops_[index_.at(target)].name));
                n.set("work", names);
            }
        }
        if (kind.empty()) continue;  // CPU time only: in the next call's gap
        Node entry = flow_map();  // call, thread, gap first: the order a reader scans
        entry.set("call", Node::scalar(kind));
        if (th) entry.set("thread", Node::scalar(th));
        entry.set("gap_ns", Node::scalar(std::max<int64_t>(0, c.start_ns - thread_end[th])));
        for (const auto& kv : n) entry.add(kv.first, kv.second);
        thread_end[th] = c.end_ns;
        calls.push_back(entry);
        if (blocking_copy && !work.empty()) {  // cudaMemcpy: returns when the copy is done
            Node w = flow_map();
            w.set("call", Node::scalar("sync-work"));
            if (th) w.set("thread", Node::scalar(th));
            w.set("gap_ns", Node::scalar(0));
            w.set("work", n["work"]);
            calls.push_back(w);
        }
    }
    // Work whose launch call the trace lacks (a rocprofv3 trace without its API trace): launched
    // by a host thread of its own at its measured launch time. (Every launch call starts at t0 or
    // later: t0 is the first of them.)
    const uint32_t own = uint32_t(thread_of.size());
    bool own_used = false;
    int64_t prev = t0_;
    for (const Replayed& r : ops_) {
        if (r.call) continue;
        Node n = flow_map();
        n.set("call", Node::scalar("launch"));
        if (own) n.set("thread", Node::scalar(own));
        n.set("gap_ns", Node::scalar(std::max<int64_t>(0, r.launch - prev)));
        Node names = flow_list();
        names.push_back(Node::scalar(r.name));
        n.set("work", names);
        prev = r.launch;
        calls.push_back(std::move(n));
        own_used = true;
    }
    sum.calls = calls.size();
    doc.child("host").set("calls", std::move(calls));
    sum.host_threads = std::max<size_t>(1, thread_of.size() + own_used);
}

// The document of the whole trace, and the platform its cycles were computed on.
Node document(const ProfilerTrace& trace, const TraceImportOptions& options, const Overrides& overrides,
              TraceImportSummary& sum) {
    const auto began = std::chrono::steady_clock::now();
    Importer im(trace, options);
    Node doc = im.header(sum);
    // The traced GPU: the trace's own platform, or the platform file in its place (--platform: a
    // preset, or what `gpuvp calibrate` fitted). The cycles are its; --set makes a what-if of them.
    // A trace that does not name its GPU has no platform of its own: --set of platform.* names it.
    Overrides gpu;
    if (sum.gpu.empty())
        for (const auto& kv : overrides)
            if (kv.first == "platform" || kv.first.rfind("platform.", 0) == 0) gpu.push_back(kv);
    sum.default_platform = im.default_platform_ = sum.gpu.empty() && !options.platform && gpu.empty();
    yaml::Limits limits = scenario_limits(0, gpu, options.platform);
    const Scenario base = read_document(doc, trace.file, gpu, options.platform, limits);
    im.work(doc, base, sum);
    if (options.refine) {  // the overlapped kernels' bodies, against replays of the whole document
        yaml::Limits again = scenario_limits(0, gpu, options.platform);
        const Scenario replay = read_document(doc, trace.file, gpu, options.platform, again);
        const std::vector<uint64_t> cycles = options.refine(replay, sum.refine);
        sum.refined = true;
        Node* kernels = doc.find("kernels");
        for (size_t i = 0; kernels && i < cycles.size() && i < kernels->size(); ++i) (*kernels)[i].set("program", program_node(cycles[i]));
    }
    sum.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return doc;
}

}  // namespace

uint64_t blocks_per_sm(const SmConfig& sm, uint64_t threads, uint32_t vregs, uint32_t shared) {
    const uint64_t warps = (threads + sm.warp_size - 1) / sm.warp_size;
    uint64_t n = sm.warp_slots / warps;
    n = std::min<uint64_t>(n, sm.registers / (uint64_t(vregs) * warps * sm.warp_size));
    if (shared) n = std::min<uint64_t>(n, sm.shared_memory / shared);
    return n;
}

uint64_t program_cycles(const std::vector<ProgramStep>& program) {
    uint64_t cycles = 0;
    for (const ProgramStep& step : program)
        if (step.insn.op == Opcode::valu) cycles += uint64_t(step.insn.a) * step.repeat;
    return cycles;
}

std::vector<ProgramStep> duration_program(uint64_t cycles) {
    cycles = std::min<uint64_t>(cycles, uint64_t(kMaxValuCycles) << 31);  // a step repeats 2^31 times at most
    std::vector<ProgramStep> program(1);
    program[0].insn.op = Opcode::kernarg_load;
    auto valu = [&](uint64_t c, uint64_t repeat) {
        ProgramStep& step = program.emplace_back();
        step.insn.op = Opcode::valu;
        step.insn.a = uint16_t(c);
        step.repeat = uint32_t(repeat);
    };
    if (cycles / kMaxValuCycles) valu(kMaxValuCycles, cycles / kMaxValuCycles);
    if (cycles % kMaxValuCycles) valu(cycles % kMaxValuCycles, 1);
    program.emplace_back();  // end
    return program;
}

std::string trace_scenario_yaml(const ProfilerTrace& trace, const TraceImportOptions& options, TraceImportSummary* summary) {
    TraceImportSummary sum;
    Node doc = document(trace, options, {}, sum);
    if (options.platform) {  // the GPU it was imported for, in the file
        yaml::Limits limits = scenario_limits(0, {}, options.platform);
        lay_platform(doc, *options.platform, limits);
    }
    if (summary) *summary = sum;
    return yaml::write(doc, "gpuvp import of " + trace.file + " (docs/replay.md)");
}

Scenario load_trace_scenario(const ProfilerTrace& trace, const TraceImportOptions& options, const Overrides& overrides,
                             TraceImportSummary* summary) {
    TraceImportSummary sum;
    Node doc = document(trace, options, overrides, sum);
    if (summary) *summary = sum;
    // Read in place: the document has no variants, so nothing needs it again.
    yaml::Limits limits = scenario_limits(0, overrides, options.platform);
    return read_document(std::move(doc), trace.file, overrides, options.platform, limits);
}

}  // namespace gpuvp
