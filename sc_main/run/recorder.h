// Records what the blocks report (an Observer): per-kernel launch stages, completions,
// rejected packets, and the trace events. Kernels are keyed by (queue, packet index), which
// is how the host names them too; the host's lookup (set_launch_lookup) says which kernel or
// draw of the scenario, and which instance of it, a packet is.
//
// Bounded memory: a kernel's (or draw's) record is kept for its first instance only; every
// other instance's is folded into its launch's InstanceStats when it completes and dropped.
// The trace holds the events of its level of detail, at most `trace_limit` of them (the rest are
// counted): at the limit an event takes the place of the latest of a later rank's (trace::rank_of:
// launches, then blocks and warps, then register tables). Each is a 120-byte typed event.
#pragma once
#include <gpuvp/models/common/observer.h>
#include "sc_main/record/trace_record.h"
#include "sc_main/run/vcd.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpuvp {

// Which kernel or draw of the scenario a packet is, as the host posted it.
struct LaunchRef {
    uint32_t launch = ~0u;  // index into the host's launches(): the kernels, then the draws
    uint64_t instance = 0;
    sc_core::sc_time submit, doorbell;  // the instance's submit time; when the host rang its doorbell
};

// min, mean and max of a series, kept as it comes.
struct Spread {
    uint64_t n = 0;
    double min = 0, max = 0, sum = 0;
    void add(double v) {
        min = n ? std::min(min, v) : v;
        max = n ? std::max(max, v) : v;
        sum += v;
        ++n;
        const uint64_t ps = uint64_t(std::llround(std::max(0.0, v) * 1000));
        Bucket& b = buckets_[bucket_of(ps)];
        ++b.count;
        b.max = std::max(b.max, v);
    }
    // The p-th percentile (0 < p <= 1): the largest value seen in the bucket that holds the
    // ceil(p * n)-th smallest value. Buckets are 1/1024 of their value wide (values below
    // 1.024 ns: 1 ps), so this is an observed value within 0.1 % of the exact percentile, in
    // memory bounded by the buckets used, not by n. (n > 0.)
    double percentile(double p) const {
        const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(p * double(n))));
        uint64_t seen = 0;
        for (const auto& [key, b] : buckets_)
            if ((seen += b.count) >= rank) return b.max;
        return max;
    }

    // Counts in `bins` equal bins of width `w` from `lo` (each bucket's values counted at its
    // largest; the last bin holds the maximum; w == 0: all in the first).
    std::vector<uint64_t> histogram(double lo, double w, size_t bins) const {
        std::vector<uint64_t> out(bins, 0);
        for (const auto& [key, b] : buckets_) {
            const double x = w > 0 ? std::floor((b.max - lo) / w) : 0;
            out[size_t(std::clamp(x, 0.0, double(bins - 1)))] += b.count;
        }
        return out;
    }

private:
    struct Bucket {
        uint64_t count = 0;
        double max = 0;
    };
    // The value's top 11 significant bits and its magnitude: exact below 1024 ps.
    static uint64_t bucket_of(uint64_t ps) {
        if (ps < 1024) return ps;
        const int e = 63 - __builtin_clzll(ps);  // >= 10
        return (uint64_t(e - 9) << 10) | ((ps >> (e - 10)) & 1023);
    }
    std::map<uint64_t, Bucket> buckets_;  // in value order
};

// Each SM's resident warps over the whole run, in bounded memory: warp-picoseconds per bin of
// equal width, at most kBins bins per SM; when a warp ends past the last bin, every SM's bins
// are folded in pairs and the width doubles. Independent of the trace (and of its event limit).
class Occupancy {
public:
    static constexpr size_t kBins = 128;
    void add(uint32_t sm, uint64_t start_ps, uint64_t end_ps);
    // Bin width (ps) and each SM's bins up to `end_ps` (the last partly filled one included).
    uint64_t bin_ps() const { return bin_ps_; }
    // The mean number of warps resident in each bin of `sm` up to end_ps (empty: none ran).
    std::vector<double> mean_warps(uint32_t sm, uint64_t end_ps) const;

private:
    uint64_t bin_ps_ = 64'000;  // 64 ns to start with
    std::vector<std::vector<uint64_t>> sms_;  // per SM: warp-ps per bin
};

// What the instances of one kernel (or draw) did, folded in as each completes.
struct InstanceStats {
    uint64_t completed = 0;  // completions reported by the CP (ok or failed)
    uint64_t ok = 0;         // of those, without error
    // Over the ok ones (ns): launch latency, response, turnaround, dispatch latency (draws:
    // response and turnaround only).
    Spread launch_latency, response, turnaround, dispatch_latency;
    uint64_t ended = 0;  // instances that reached last_block_done (draws: their last task's end)
    std::optional<sc_core::sc_time> last_end, last_complete;  // the latest of each
};

class Recorder : public Observer {
public:
    // `trace_limit`: the most trace events kept (memory stays bounded on huge runs); the
    // rest are counted as dropped. `detail`: the events recorded (the others only counted).
    explicit Recorder(bool trace = true, uint64_t trace_limit = 250'000, trace::Detail detail = trace::Detail::all)
        : trace_(trace), limit_(trace_limit), detail_(detail) {}
    uint64_t trace_events() const { return kept(); }
    // Also record the key signals as a VCD: the irq line, each queue's last doorbell value,
    // each SM's resident blocks and busy flag, the shading array's flags and cores (M4).
    void enable_vcd(const std::vector<std::string>& queues, uint32_t sms);
    std::string vcd_text() const { return vcd_.text(); }
    uint64_t trace_dropped() const { return dropped_; }

    // The host's lookup: the launch and instance of packet `packet` of queue `q`; false if none.
    void set_launch_lookup(std::function<bool(uint32_t q, uint64_t packet, LaunchRef&)> lookup) {
        lookup_ = std::move(lookup);
    }
    // Launch `launch`'s instances so far (nullptr if none completed).
    const InstanceStats* instance_stats(uint32_t launch) const {
        return launch < stats_.size() ? &stats_[launch] : nullptr;
    }
    // Kernel and draw records held (first instances, and instances in flight).
    size_t records() const { return kernels_.records.size() + draws_.records.size(); }
    // Blocks started and not finished that the trace is timing (0 without a trace).
    size_t open_blocks() const { return block_start_.size(); }

    // What kernels and draws share: their packet, their launch, when the CP took the packet and
    // when the completion signal was written (or the work failed).
    struct Launch {
        uint32_t queue = 0;
        uint64_t packet = 0;
        LaunchRef ref;
        sc_core::sc_time accepted;  // the CP took the packet
        std::optional<sc_core::sc_time> completed;
        KernelError error = KernelError::none;
    };
    struct Kernel : Launch {
        sc_core::sc_time doorbell_seen;
        std::array<std::optional<sc_core::sc_time>, size_t(Stage::count)> stages;
    };
    // M4: a draw, keyed like a kernel.
    struct Draw : Launch {
        std::array<std::optional<sc_core::sc_time>, size_t(DrawStage::count)> stages;
    };
    struct Rejection {
        uint32_t queue;
        uint64_t packet;
        PacketCheck why;
        sc_core::sc_time at;
    };
    // M2: the lock watchdog's report on a kernel's stuck warps.
    struct LockStall {
        std::pair<uint32_t, uint64_t> kernel;  // (queue, packet)
        LaunchRef ref;
        std::string state;
        sc_core::sc_time at;
    };
    const Kernel* kernel(uint32_t queue, uint64_t packet) const;
    const Draw* draw(uint32_t queue, uint64_t packet) const;
    const std::vector<Rejection>& rejections() const { return rejections_; }
    const std::vector<LockStall>& lock_stalls() const { return lock_stalls_; }
    uint64_t warps_finished() const { return warps_; }
    const Occupancy& occupancy() const { return occupancy_; }
    uint64_t table_updates() const { return table_updates_; }

    // The trace, handed over (the recorder keeps no events after): every event recorded, with
    // what names the rows. `launches` are the kernels, then the draws, as the host's launches()
    // has them (the events' launch ids index it).
    TraceRecord take_trace(std::vector<TraceLaunch> launches, std::vector<std::string> queue_names, uint32_t sms,
                           uint32_t warp_slots, uint32_t usa_cores);
    // A kernel's launch stages (name, start and end in ns) on its own row of the launch stages.
    void add_launch_stages(const std::string& kernel, const std::vector<std::pair<std::string, std::pair<double, double>>>& stages,
                           uint32_t lane);

    // Observer
    void doorbell(uint32_t queue, uint64_t value, const sc_core::sc_time& t) override;
    void kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_core::sc_time& doorbell,
                         const sc_core::sc_time& t) override;
    void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) override;
    void kernel_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) override;
    void barrier_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start,
                      const sc_core::sc_time& end) override;
    void copy_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start,
                   const sc_core::sc_time& end) override;
    void packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_core::sc_time& t) override;
    void block_started(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) override;
    void block_finished(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) override;
    void warp_finished(const WarpRecord& w) override;
    // A warp still resident when the run stopped (its host-time limit, max_sim_ns, a hang), as
    // StreamingMultiprocessor::resident_warps gives it: its trace event ends at the stop, with
    // the argument in_flight; it counts in the occupancy, not in the warps run.
    void warp_in_flight(const WarpRecord& w);
    bool wants_table_updates() const override { return trace_; }
    // (register-table writes are the last level: a full trace only counts them)
    bool wants_table_values() const override { return trace_ && detail_ == trace::Detail::all && kept() < limit_; }
    void table_update(const TableSource& source, const char* table, uint64_t row, const std::string& values,
                      const sc_core::sc_time& t) override;
    void irq(bool level, const sc_core::sc_time& t) override;
    void lock_event(const LockEvent& e) override;
    void scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_core::sc_time& t) override;
    void lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_core::sc_time& t) override;
    void draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_core::sc_time& doorbell,
                       const sc_core::sc_time& t) override;
    void draw_stage(uint32_t slot, DrawStage s, const sc_core::sc_time& t) override;
    void draw_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) override;
    void shading_task(const ShadingTask& task) override;
    void shading_state(const ShadingState& s, const sc_core::sc_time& t) override;
    void shading_reassigned(uint32_t core, CoreType to, const LoadFlags& decided_on, const sc_core::sc_time& t) override;


private:
    // Kernels' (or draws') records by (queue, packet), and the one each CP slot holds while it is live.
    template <class T>
    struct Slots {
        std::map<std::pair<uint32_t, uint64_t>, T> records;
        std::vector<std::pair<uint32_t, uint64_t>> keys;  // live slot -> key ({~0u, 0}: none)
        std::vector<LaunchRef> refs;                       // live slot -> its launch
        // The CP gave `slot` the packet at (queue, packet) of launch `ref` at `t`: its record, new.
        T& accept(uint32_t slot, uint32_t queue, uint64_t packet, const LaunchRef& ref, const sc_core::sc_time& t);
        T* live(uint32_t slot);
        const T* find(uint32_t queue, uint64_t packet) const;
        std::pair<uint32_t, uint64_t> key(uint32_t slot) const { return slot < keys.size() ? keys[slot] : std::make_pair(~0u, uint64_t(0)); }
        LaunchRef ref(uint32_t slot) const { return slot < refs.size() ? refs[slot] : LaunchRef{}; }
    };
    // `slot`'s record `r` completed at `t` with `e`: the slot is free, the instance's figures are
    // folded into its launch's, and an instance other than the first is dropped.
    template <class T>
    void complete(Slots<T>& slots, uint32_t slot, T& r, KernelError e, const sc_core::sc_time& t);
    static trace::Owner owner(const LaunchRef& r) { return {r.launch, r.instance}; }
    void warp_span(const WarpRecord& w, bool in_flight);  // its occupancy and trace event
    // Into the trace, if its level is recorded and there is room (else counted).
    template <class T>
    void add(const T& e);
    bool admit(trace::Detail level);  // whether an event of `level` goes in (room made for it), or counted
    LaunchRef resolve(uint32_t queue, uint64_t packet) const;
    InstanceStats& stats(uint32_t launch);
    static bool fold_end(InstanceStats& st, const std::optional<sc_core::sc_time>& completed,
                         const std::optional<sc_core::sc_time>& end, KernelError error);
    void fold(const Kernel& k);
    void fold(const Draw& d);
    uint32_t lane(std::vector<double>& lanes, double start_us, double end_us);

    bool trace_;
    uint64_t limit_, dropped_ = 0;
    trace::Detail detail_;
    Slots<Kernel> kernels_;  // by the CP's kernel slots
    Slots<Draw> draws_;      // by its draw slots
    std::function<bool(uint32_t, uint64_t, LaunchRef&)> lookup_;
    std::vector<InstanceStats> stats_;  // per launch
    std::vector<double> draw_lanes_;
    bool usa_seen_ = false;
    std::optional<ShadingState> last_usa_;  // the counters' last values
    // The VCD and its signals (empty without enable_vcd).
    Vcd vcd_;
    bool vcd_on_ = false;
    uint32_t vcd_irq_ = 0;
    std::vector<uint32_t> vcd_doorbell_, vcd_sm_busy_, vcd_sm_blocks_, sm_blocks_;
    std::array<uint32_t, 5> vcd_usa_{};  // idle_vertex, idle_pixel, vertex_cores, busy_vertex, busy_pixel
    std::vector<Rejection> rejections_;
    std::vector<LockStall> lock_stalls_;
    std::unordered_map<uint64_t, sc_core::sc_time> block_start_;
    std::vector<std::vector<double>> block_lanes_;  // per SM: when each lane frees
    std::vector<double> kernel_lanes_;
    // The trace's events in the order they were recorded; an event that gave way is a hole
    // (kHole) until the holes are squeezed out (compact). Each rank's events' places, in order.
    static constexpr uint8_t kHole = 0xff;
    void compact();
    std::vector<trace::Event> events_;
    std::vector<uint8_t> event_rank_;  // per place in events_: its event's rank, or kHole
    std::array<std::vector<size_t>, trace::kRanks> held_;
    uint64_t holes_ = 0;
    uint64_t kept() const { return events_.size() - holes_; }  // events in the trace now
    std::array<uint64_t, trace::kDetails> left_out_{};
    std::map<uint32_t, std::string> stage_rows_;  // launch-stage row -> its kernel
    uint64_t warps_ = 0, table_updates_ = 0;
    Occupancy occupancy_;
};

}  // namespace gpuvp
