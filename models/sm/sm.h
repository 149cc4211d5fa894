// A streaming multiprocessor: the block status register table, N hardware warp slots, the
// register file and shared memory accounting, the instruction schedule unit (ISU) with its
// kernel contexts. Warps execute the abstract ISA fetched through the L1I (`to_l1i`) and load
// and store through the L1D (`to_l1d`); the caches are wired beside the SM by the GPU. One
// issue scheduler picks among ready warps, `issue_width` per cycle, by the rule `policy.issue`
// names (issue_scheduler.h). The SMs' core clock runs the SM's cycles (core_clock.h), on its
// clock's edges: the SM has no SystemC process of its own.
//
// The mechanisms are units of the SM, each with its policy (docs/models/sm.md):
//   warp_start_order.h  M1: the logic controller's order (arrival_order.h, priority_order.h)
//   launch_path.h       M5: what a warp's first fetch sends (serial_launch.h, prefetch_launch.h)
//   lock_unit.h         M2: lock words, critical sections, the watchdog (lock_scheme.h:
//                       spin_lock_scheme.h, priority_lock_scheme.h)
//   scalar_unit.h       M3: the scalar register pool (policy.scalar multilevel only)
// The issue path calls none of them per instruction through a virtual call: it tests the
// warp's flags (holds_locks, retaking, slice_scalars) and the SM's `multilevel_` first.
#pragma once
#include <gpuvp/models/common/host_aligned.h>
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/common/stats.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/sm/core_clock.h>
#include <gpuvp/models/sm/launch_path.h>
#include <gpuvp/models/sm/line_store.h>
#include <gpuvp/models/sm/lock_unit.h>
#include <gpuvp/models/sm/loop_stack.h>
#include <gpuvp/models/sm/issue_scheduler.h>
#include <gpuvp/models/sm/scalar_unit.h>
#include <gpuvp/models/sm/shared_memory.h>
#include <gpuvp/models/sm/warp_start_order.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

// The SM's policies: the logic controller's warp start order (M1), whether the ISU prefetches
// a kernel's arguments beside its first instruction fetch (M5), what a warp does when the lock
// it tries is held (M2), the scalar registers (M3), and the issue order.
struct SmPolicy {
    WarpStartOrder order = WarpStartOrder::arrival;
    LaunchPolicy launch = LaunchPolicy::serial;
    LockPolicy lock = LockPolicy::spin;
    ScalarPolicy scalar = ScalarPolicy::per_warp;
    IssuePolicy issue = IssuePolicy::gto;
};

class StreamingMultiprocessor : public sc_core::sc_module, private CoreClock::Client, private LaunchPath::Port {
public:
    tlm_utils::multi_passthrough_target_socket<StreamingMultiprocessor> regs;  // GLC, WLM
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_glc;        // release notices
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_l1i;        // instruction fetch
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_l1d;        // loads and stores
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_arbiter;    // lock requests (M2)

    StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t id, const SmConfig& config,
                            uint32_t line_bytes, const Clock& clock, sc_core::sc_time bus, CoreClock& core_clock,
                            SmPolicy policy = {}, Observer* observer = nullptr);

    // One row of the block status register table (also its transport_dbg image).
    struct BlockRow {
        uint32_t kernel_slot;
        uint32_t priority;
        uint64_t block_id;
        uint32_t regs_needed;        // registers still needed by its not-yet-started warps
        uint32_t shared_needed;      // shared memory not yet allocated (0 once the block holds it)
        uint32_t undispatched_warps;
        uint32_t running_warps;
    };
    static_assert(sizeof(BlockRow) == 32);

    // M2's counters (lock_unit.h).
    using LockCounts = gpuvp::LockCounts;
    using PriorityLockStats = gpuvp::PriorityLockStats;
    using LockStats = gpuvp::LockStats;
    struct Stats {
        STATS_RECORD;
        uint64_t instructions = 0, warps_run = 0, blocks_run = 0, fetches = 0, kernarg_prefetches = 0;
        uint32_t resident_warps_max = 0;
        sc_core::sc_time busy;  // time with at least one warp resident
        LockStats locks;
        uint64_t scalar_stalls = 0;   // M3: slice allocations refused (the warp waited)
        uint64_t pool_waits = 0;      // M3: blocks that waited to start for want of pool room
        uint64_t scalar_updates = 0;  // M3: kernel- and workgroup-level writes carried out after their sync
        // The SM's own counters, as results.json's sms[] lists them (the locks and the scalar
        // pool's are summed over the SMs into its locks and scalar sections).
        template <class S, class V>
        static void fields(S& s, V& v) {
            v("warps_run", s.warps_run, Doc{"count", "warps run"});
            v("blocks_run", s.blocks_run, Doc{"count", "blocks run"});
            v("instructions", s.instructions, Doc{"count", "warp-instructions issued"});
            v("fetches", s.fetches, Doc{"count", "instruction-line fetches"});
            v("kernarg_prefetches", s.kernarg_prefetches, Doc{"count", "M5: kernel-argument prefetches"});
            v("resident_warps_max", s.resident_warps_max, Doc{"warps", "the most warps resident at once"});
        }
    };
    const ScalarPool& scalar_pool() const { return scalars_.pool(); }
    const Stats& stats() const { return stats_; }
    // Rows of the block status table ever used (a finished block's row is reused): the most
    // blocks resident at once; the SM holds nothing for a block before its descriptor arrives.
    size_t block_rows() const { return blocks_.size(); }
    sc_core::sc_time busy_time() const;  // including the current busy stretch
    uint32_t id() const { return id_; }
    uint32_t free_registers() const { return free_regs_; }
    uint32_t free_slots() const { return free_slots_; }
    // Forward progress, for the GPU's watchdog: instructions executed outside critical
    // sections, critical sections completed (or handed over at the hold limit), warps ended.
    // Work a warp may have to redo (inside a critical section) and lock tries do not count.
    uint64_t progress() const { return progress_; }
    // The SM's state in lines of text: its block table, every active warp (where it is and
    // what it waits for) and which warp holds which lock. For the watchdog's state dump.
    void describe(std::vector<std::string>& out) const;
    // The warps resident now, each as the record it would end with at `now` (for a run stopped
    // with warps in flight: its trace and occupancy cover them up to the stop).
    std::vector<WarpRecord> resident_warps(const sc_core::sc_time& now) const;

private:
    // The units reach into the SM's warps, blocks and ports (they are parts of it).
    friend class LockUnit;
    friend class SpinLockScheme;
    friend class PriorityLockScheme;
    friend class ScalarUnit;

    struct Block {
        BlockRow row;
        BlockDescriptor desc;
        uint32_t next_warp = 0;      // index of the next warp to start
        uint32_t done_warps = 0;
        uint32_t at_barrier = 0;
        std::vector<uint32_t> barrier_waiters;  // warp slots
        bool holds_shared = false;
        uint64_t arrival = 0;        // order of arrival
        // M1's deadlock avoidance holds it back: its warps may wait for its unstarted ones (a
        // block barrier; under M3's multilevel also a workgroup-level write).
        bool has_barrier = false;
        bool whole_start = false;    // M3, multilevel: its kernel writes kernel-level scalars, so it starts whole
        KernelError error = KernelError::none;
        uint32_t shared_base = 0;    // its range of shared memory, once it holds it
    };
    struct IbufLine {
        uint64_t address = ~0ull;
        sc_core::sc_time ready_at;
        uint32_t image = LineStore::kNone;  // its bytes, in lines_
    };
    // Laid out for the host's caches: what the issue scheduler and an ALU instruction read
    // comes first, in the first two cache lines of the slot. The mechanisms' state is in their
    // units; a warp keeps only the flags its issue tests (why it waits, whether a unit must
    // see its next instruction), which the units set.
    struct alignas(64) Warp {
        bool active = false;
        bool at_barrier = false;
        bool pool_stall = false;           // M3: waits for scalar registers
        bool sync_wait = false;            // M3: waits for its sharers before a kernel/workgroup scalar update
        LockWait lock_wait = LockWait::none;  // M2
        bool started = false;              // the ISU has sent its first fetch (and any kernarg prefetch)
        bool slice_scalars = false;        // M3: its slice-level scalars are allocated (freed at its next issue)
        bool holds_locks = false;          // M2: holds locks (the counter thread counts its instructions)
        bool retaking = false;             // M2: takes back the locks it yielded at the hold limit first
        uint32_t block = 0;                // index into blocks_
        uint32_t index = 0;                // warp index within its block
        uint64_t pc = 0;
        sc_core::sc_time ready_at;
        std::array<IbufLine, 2> ibuf;      // the line being executed and the one prefetched after it
        uint64_t instructions = 0;
        unsigned loop_depth = 0;
        LoopStack loops{};
        uint64_t accesses = 0;
        uint64_t global_base = 0, global_size = 0;
        sc_core::sc_time start;
        bool waiting() const {
            return at_barrier || pool_stall || sync_wait || lock_wait == LockWait::arbiter || lock_wait == LockWait::parked;
        }
    };
    struct KernelContext {
        IsuContext regs{};
        std::array<uint8_t, 256> cpr{};  // M2: the CPR of warp i of each of its blocks
        uint32_t reported = 0;    // stages already reported by this SM (bit per Stage)
    };

    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    // One cycle of the logic controller and the issue scheduler at `now`, a clock edge; returns
    // the edge at which the SM next has work (a warp ready, a block or decision arriving, the
    // lock watchdog's look).
    sc_core::sc_time cycle(const sc_core::sc_time& now) override;
    // The logic controller starts what warps it can (nothing to do without a free slot and a
    // warp waiting to start).
    void admit(const sc_core::sc_time& now) {
        if (free_slots_ > 0 && unstarted_warps_ > 0) start_warps(now);
    }
    void start_warps(const sc_core::sc_time& now);
    // The block whose next warp starts (warp_start_order.h).
    Block* pick_block(bool started_only = false) {
        return choose_block(order_, blocks_.data(), open_rows_.data(), open_rows_.size(), started_only, cfg_.warp_slots,
                            cfg_.registers);
    }
    // The row no longer has warps to start (all started, or its kernel failed).
    void close_row(uint32_t row) {
        open_rows_.erase(std::find(open_rows_.begin(), open_rows_.end(), row));
    }
    void start_warp(uint32_t block_index, const sc_core::sc_time& now);
    // One step of a warp: fetch or execute one instruction. Returns true if it issued.
    [[gnu::always_inline]] inline bool step(uint32_t slot, const sc_core::sc_time& now);
    // The instruction-buffer line holding the warp's pc, fetched and usable now; nullptr when
    // the warp waits for it (made ready again for then) or its fetch failed. The usual case, the
    // line there and the next one fetched ahead, is a look at the buffer.
    const IbufLine* fetched_line(Warp& w, const sc_core::sc_time& now) {
        const uint64_t line = w.pc & ~line_mask_;
        const unsigned i = w.ibuf[0].address == line ? 0 : w.ibuf[1].address == line ? 1 : 2;
        if (i < 2 && w.ibuf[1 - i].address == line + line_bytes_ && w.ibuf[i].ready_at <= now) return &w.ibuf[i];
        return ensure_fetched(w, now);
    }
    // The same, fetching what the buffer lacks: the line on a miss (and the next), the next
    // line ahead on a hit.
    IbufLine* ensure_fetched(Warp& w, const sc_core::sc_time& now);
    // Whether the warp's buffer holds its pc's line and the line after it (fetched or on the way).
    bool buffered(const Warp& w) const {
        const uint64_t line = w.pc & ~line_mask_;
        const unsigned i = w.ibuf[0].address == line ? 0 : w.ibuf[1].address == line ? 1 : 2;
        return i < 2 && w.ibuf[1 - i].address == line + line_bytes_;
    }
    // The fetch unit's turn for a warp made ready without its line: the fetch goes out; the warp
    // may issue once the line is there.
    void fetch(uint32_t slot, const sc_core::sc_time& now);
    void drop_line(IbufLine& l) {  // empties an instruction-buffer line, giving its image back
        lines_.release(l.image);
        l = IbufLine{};
    }
    // LaunchPath::Port: the launch path's kernel-argument reads and stage reports.
    bool read_l1d(uint64_t line, sc_core::sc_time& acknowledged) override;
    void report_stage(uint32_t kernel_slot, Stage s, const sc_core::sc_time& t) override { report(kernel_slot, s, t); }
    void execute(uint32_t slot, Warp& w, const Instruction& in, const sc_core::sc_time& now);
    void memory_access(Warp& w, Block& b, const Instruction& in, const sc_core::sc_time& now);
    void finish_warp(uint32_t slot, const sc_core::sc_time& now);
    void fail(uint32_t slot, KernelError e, const sc_core::sc_time& now, uint64_t address = 0);
    void release_barrier(Block& b, const sc_core::sc_time& now);
    void make_ready(uint32_t slot, const sc_core::sc_time& at);
    // The same, `cycles` after `now` (the cycle running): an ALU instruction's result, a warp's
    // launch; no time-to-cycle division on the issue path.
    [[gnu::always_inline]] inline void make_ready_after(uint32_t slot, const sc_core::sc_time& now, uint32_t cycles);
    void send_notice(SmNotice n);
    void send_status();
    // The first time this SM reaches stage `s` of the kernel in `kernel_slot` (a bit test:
    // this runs for every instruction).
    void report(uint32_t kernel_slot, Stage s, const sc_core::sc_time& t) {
        if (!(contexts_[kernel_slot].reported & (1u << unsigned(s)))) first_report(kernel_slot, s, t);
    }
    void first_report(uint32_t kernel_slot, Stage s, const sc_core::sc_time& t);
    uint32_t highest_priority() const;
    void table_changed(const Block& b, const sc_core::sc_time& t);

    uint32_t id_;
    SmConfig cfg_;
    WarpStartOrder order_;  // M1
    bool multilevel_;       // M3: policy.scalar multilevel (the scalar unit is used)
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    std::string tag_;  // "sm[3]"
    uint32_t line_bytes_;
    uint64_t line_mask_;  // line_bytes_ - 1 (a power of two)

    std::vector<KernelContext> contexts_;
    std::vector<Block> blocks_;          // rows; a finished row is reused
    std::vector<bool> block_used_;
    // The rows whose blocks have warps to start and have not failed, ascending: what the logic
    // controller chooses among (one or two, usually, of up to max_blocks rows).
    std::vector<uint32_t> open_rows_;
    std::vector<Warp> warps_;            // one per hardware warp slot
    std::vector<uint32_t> idle_slots_;   // a stack, lowest slot on top
    IssueScheduler issue_;
    uint64_t cycle_ = 0;  // the edge the SM's cycle runs at (clock_.edge(cycle_) is its now)
    CoreClock& core_clock_;
    uint32_t clock_index_;  // the SM's place in the core clock
    // What arrives is looked at on the next clock edge.
    void wake_at(const sc_core::sc_time& at) { core_clock_.wake(clock_index_, clock_.edge_at_or_after(at)); }
    Inbox<BlockDescriptor> arrivals_{[this](const sc_core::sc_time& at) { wake_at(at); }};
    Inbox<LockDecision> decisions_{[this](const sc_core::sc_time& at) { wake_at(at); }};  // M2, from the lock arbiter
    Inbox<uint32_t> drained_{[this](const sc_core::sc_time& at) { wake_at(at); }};  // M3, from the GLC: kernel slots
    SharedMemory shared_;
    std::unique_ptr<LaunchPath> launch_;  // M5
    LockUnit locks_;                      // M2
    ScalarUnit scalars_;                  // M3
    uint64_t progress_ = 0;               // see progress()
    uint64_t arrivals_seen_ = 0;
    uint64_t unstarted_warps_ = 0;  // of the blocks here, not started yet (nothing to admit at 0)
    uint64_t needed_regs_ = 0;      // the registers those warps need
    uint64_t needed_shared_ = 0;    // the shared memory of the blocks here that hold none yet
    uint32_t highest_priority_ = kNoPriority;  // of the blocks here (highest_priority())
    uint32_t free_regs_, free_slots_, free_shared_;
    uint32_t resident_warps_ = 0;
    bool status_dirty_ = false;  // a status notice is owed to the GLC
    SmNotice last_status_{0, NoticeKind::error, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // the last status notice sent (none yet: not a status)
    sc_core::sc_time busy_since_;
    std::vector<unsigned char, HostLineAllocator<unsigned char>> scratch_;
    std::vector<unsigned char, HostLineAllocator<unsigned char>> fetched_;  // a line just fetched, before it goes into lines_
    LineStore lines_;                     // the instruction buffers' bytes
    tlm::tlm_generic_payload gp_;  // for all the SM's transactions (nothing re-enters the SM meanwhile)
    Stats stats_;
};

}  // namespace gpuvp
