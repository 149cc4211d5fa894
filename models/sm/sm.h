// A streaming multiprocessor: the block status register table, N hardware warp slots, the
// register file and shared memory accounting, the instruction schedule unit (ISU) with its
// kernel contexts. Warps execute the abstract ISA fetched through the L1I (`to_l1i`) and load
// and store through the L1D (`to_l1d`); the caches are wired beside the SM by the GPU. One
// issue scheduler picks among ready warps, `issue_width` per cycle. The SMs' core clock runs
// the SM's cycles (core_clock.h): the SM has no SystemC process of its own.
#pragma once
#include "models/common/host_aligned.h"
#include "models/common/inbox.h"
#include "models/common/isa.h"
#include "models/common/messages.h"
#include "models/common/observer.h"
#include "models/common/policies.h"
#include "models/common/timing.h"
#include "models/common/sm_config.h"
#include "models/sm/core_clock.h"
#include "models/sm/line_store.h"
#include "models/sm/ready_queue.h"
#include "models/sm/scalar_pool.h"
#include "models/sm/shared_memory.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace gpuvp {

// The order in which the SM logic controller starts the warps of its blocks.
enum class WarpStartOrder {
    arrival,   // the oldest block first (fifo)
    priority,  // the highest-priority block first, re-chosen before every warp (M1)
};

// M1: the placement policy's order on the SM: fifo starts the oldest block first.
constexpr WarpStartOrder warp_start_order(DispatchPolicy d) {
    return d == DispatchPolicy::fifo ? WarpStartOrder::arrival : WarpStartOrder::priority;
}

// The SM's policies: the logic controller's warp start order (M1), whether the ISU prefetches
// a kernel's arguments beside its first instruction fetch (M5), what a warp does when the lock
// it tries is held (M2), and the scalar registers (M3).
struct SmPolicy {
    WarpStartOrder order = WarpStartOrder::arrival;
    LaunchPolicy launch = LaunchPolicy::serial;
    LockPolicy lock = LockPolicy::spin;
    ScalarPolicy scalar = ScalarPolicy::per_warp;
};

class StreamingMultiprocessor : public sc_core::sc_module, private CoreClock::Client {
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

    // M2: what is counted both for the whole SM and per warp priority.
    struct LockCounts {
        uint64_t acquisitions = 0, retakes = 0, sync_failures = 0, forced_releases = 0, hold_limit_releases = 0,
                 redone_instructions = 0;
        LockCounts& operator+=(const LockCounts& o) {
            acquisitions += o.acquisitions;
            retakes += o.retakes;
            sync_failures += o.sync_failures;
            forced_releases += o.forced_releases;
            hold_limit_releases += o.hold_limit_releases;
            redone_instructions += o.redone_instructions;
            return *this;
        }
    };
    // M2, per warp priority (CPR value), over the warps that executed a lock instruction.
    struct PriorityLockStats : LockCounts {
        uint64_t warps = 0;
        sc_core::sc_time wait_sum, wait_max;  // per acquisition: first try -> holding the lock
        sc_core::sc_time end_sum, end_max;    // when its warps ended
        PriorityLockStats& operator+=(const PriorityLockStats& o) {
            LockCounts::operator+=(o);
            warps += o.warps;
            wait_sum += o.wait_sum;
            wait_max = std::max(wait_max, o.wait_max);
            end_sum += o.end_sum;
            end_max = std::max(end_max, o.end_max);
            return *this;
        }
    };
    struct LockStats : LockCounts {
        uint64_t releases = 0, arbiter_requests = 0, stale_decisions = 0, deadlocks = 0;
        std::map<uint32_t, PriorityLockStats> by_priority;
        LockStats& operator+=(const LockStats& o) {  // several SMs' together
            LockCounts::operator+=(o);
            releases += o.releases;
            arbiter_requests += o.arbiter_requests;
            stale_decisions += o.stale_decisions;
            deadlocks += o.deadlocks;
            for (const auto& [cpr, p] : o.by_priority) by_priority[cpr] += p;
            return *this;
        }
    };
    struct Stats {
        uint64_t instructions = 0, warps_run = 0, blocks_run = 0, fetches = 0, kernarg_prefetches = 0;
        uint32_t resident_warps_max = 0;
        sc_core::sc_time busy;  // time with at least one warp resident
        LockStats locks;
        uint64_t scalar_stalls = 0;   // M3: slice allocations refused (the warp waited)
        uint64_t pool_waits = 0;      // M3: blocks that waited to start for want of pool room
        uint64_t scalar_updates = 0;  // M3: kernel- and workgroup-level writes carried out after their sync
    };
    const ScalarPool& scalar_pool() const { return pool_; }
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

private:
    struct Block {
        BlockRow row;
        BlockDescriptor desc;
        uint32_t next_warp = 0;      // index of the next warp to start
        uint32_t done_warps = 0;
        uint32_t at_barrier = 0;
        std::vector<uint32_t> barrier_waiters;  // warp slots
        bool holds_shared = false;
        uint64_t arrival = 0;        // order of arrival
        KernelError error = KernelError::none;
        uint32_t shared_base = 0;    // its range of shared memory, once it holds it
        std::vector<uint8_t> cpr;             // M2: the CPR of each of its warps
        std::vector<int32_t> slot_of;         // M2: warp index -> slot, -1 when not running
        std::vector<uint32_t> parked;         // M2: slots of warps waiting for a lock's release
        bool scalars_reserved = false;        // M3: its kernel-, workgroup- and warp-level registers are reserved
        bool pool_waited = false;             // M3: it waited to start for want of pool room
        uint32_t warp_sets = 0;               // M3: warp-level sets still reserved for its warps
        bool wg_scalars = false;              // M3: its workgroup-level scalars are allocated
        std::vector<uint32_t> wg_sync;        // M3: slots of warps waiting to update a workgroup scalar
    };
    struct IbufLine {
        uint64_t address = ~0ull;
        sc_core::sc_time ready_at;
        uint32_t image = LineStore::kNone;  // its bytes, in lines_
    };
    struct LoopFrame {
        uint64_t body_pc;
        uint32_t remaining;
    };
    // M2: where a warp's critical section began (its outermost lock instruction), to go back
    // to when it must give its locks up.
    struct Checkpoint {
        uint64_t pc = 0;
        std::array<LoopFrame, kMaxLoopDepth> loops{};
        unsigned loop_depth = 0;
        uint64_t accesses = 0;
        uint64_t instructions = 0;  // executed before the lock instruction
    };
    enum class LockWait : uint8_t {
        none,
        arbiter,  // its request is with the arbiter
        parked,   // told to wait: until the lock is released
        backoff,  // spin: backing off before the next try
    };
    // Laid out for the host's caches: what the issue scheduler and an ALU instruction read
    // comes first, in the first two cache lines of the slot.
    struct alignas(64) Warp {
        bool active = false;
        bool at_barrier = false;
        bool pool_stall = false;           // M3: waits for scalar registers
        bool sync_wait = false;            // M3: waits for its sharers before a kernel/workgroup scalar update
        LockWait lock_wait = LockWait::none;  // M2
        bool started = false;              // the ISU has sent its first fetch (and any kernarg prefetch)
        bool slice_scalars = false;        // M3: its slice-level scalars are allocated
        bool warp_scalars = false;         // M3: its warp-level scalars are allocated
        uint32_t block = 0;                // index into blocks_
        uint32_t index = 0;                // warp index within its block
        uint64_t pc = 0;
        sc_core::sc_time ready_at;
        std::array<IbufLine, 2> ibuf;      // the line being executed and the one prefetched after it
        uint64_t instructions = 0;
        std::vector<uint16_t> held;        // M2: locks held, in the order taken
        std::vector<uint16_t> retake;      // M2: released at the hold limit: to take back before going on
        unsigned loop_depth = 0;
        std::array<LoopFrame, kMaxLoopDepth> loops{};
        uint64_t accesses = 0;
        uint64_t global_base = 0, global_size = 0;
        sc_core::sc_time start;
        // M2
        uint8_t cpr = 0;                   // competitive priority register
        std::vector<uint64_t> held_at;     // the counter thread's count when each was taken
        uint64_t hold_count = 0;           // the counter thread: instructions executed holding locks
        Checkpoint checkpoint;
        uint16_t wait_lock = 0;
        uint32_t request_seq = 0;
        bool trying = false;               // between the first try of a lock instruction and taking the lock
        sc_core::sc_time trying_since;
        uint32_t failures = 0;             // spin: tries failed, for the back-off
        bool took_locks = false;
        bool cs_born = false;              // the age of its critical section (kept across rewinds), for
        sc_core::sc_time cs_birth;         // the equal-priority tie-break
        bool lock_active = false;          // holds, takes back or tries locks (the watchdog's concern)
        // M3
        uint16_t sync_cycles = 0;
        ScalarLevel sync_level = ScalarLevel::warp;
        bool waiting() const {
            return at_barrier || pool_stall || sync_wait || lock_wait == LockWait::arbiter || lock_wait == LockWait::parked;
        }
    };
    struct KernelContext {
        IsuContext regs{};
        std::array<uint8_t, 256> cpr{};  // M2: the CPR of warp i of each of its blocks
        uint32_t reported = 0;    // stages already reported by this SM (bit per Stage)
        bool prefetched = false;  // M5: this SM has prefetched the kernel's arguments
        sc_core::sc_time prefetch_done;  // M5: when the last line of that prefetch is acknowledged
        // M3: the kernel-level scalars on this SM, shared by its blocks here
        bool kernel_reserved = false, kernel_scalars = false;
        uint32_t block_warps = 0;  // warps in a block of it (the kernel split's demand)
        uint32_t resident_blocks = 0, active_warps = 0;
        std::vector<uint32_t> kernel_sync;  // slots of warps waiting to update a kernel scalar
    };

    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    // One cycle of the logic controller and the issue scheduler at `now`; returns when the SM
    // next has work (a warp ready, a block or decision arriving, the lock watchdog's look).
    sc_core::sc_time cycle(const sc_core::sc_time& now) override;
    // The logic controller starts what warps it can (nothing to do without a free slot and a
    // warp waiting to start).
    void admit(const sc_core::sc_time& now) {
        if (free_slots_ > 0 && unstarted_warps_ > 0) start_warps(now);
    }
    void start_warps(const sc_core::sc_time& now);
    Block* pick_block(bool started_only = false);
    void start_warp(uint32_t block_index, const sc_core::sc_time& now);
    // One step of a warp: fetch or execute one instruction. Returns true if it issued.
    bool step(uint32_t slot, const sc_core::sc_time& now);
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
    void drop_line(IbufLine& l) {  // empties an instruction-buffer line, giving its image back
        lines_.release(l.image);
        l = IbufLine{};
    }
    sc_core::sc_time prefetch_kernargs(const Warp& w, const sc_core::sc_time& now);
    void execute(uint32_t slot, Warp& w, const Instruction& in, const sc_core::sc_time& now);
    void memory_access(Warp& w, Block& b, const Instruction& in, const sc_core::sc_time& now);
    void finish_warp(uint32_t slot, const sc_core::sc_time& now);
    void fail(uint32_t slot, KernelError e, const sc_core::sc_time& now, uint64_t address = 0);
    void release_barrier(Block& b, const sc_core::sc_time& now);
    void make_ready(uint32_t slot, const sc_core::sc_time& at);
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

    // M3: the scalar pool and sync-before-update (sm_scalars.cpp).
    // Before a salu: its level's registers, allocated on first need. False: the warp stalls.
    bool scalars_ready(uint32_t slot, Warp& w, Block& b, const Instruction& in, const sc_core::sc_time& now);
    // A kernel- or workgroup-level write waits for its sharers. False: it goes on at once.
    bool sync_before_update(uint32_t slot, Warp& w, Block& b, const Instruction& in, const sc_core::sc_time& now);
    void check_workgroup_sync(Block& b, const sc_core::sc_time& now);
    void check_kernel_sync(uint32_t kernel_slot, const sc_core::sc_time& now);
    void scalars_block_arrived(const Block& b);
    void split_for_kernels();
    bool reserve_scalars(Block& b);
    void scalars_warp_left(Warp& w, Block& b, const sc_core::sc_time& now);
    void slices_done(Warp& w, const sc_core::sc_time& now);
    void scalars_block_left(Block& b, const sc_core::sc_time& now);
    void scalars_freed(const sc_core::sc_time& now);
    void pool_changed(const sc_core::sc_time& now);
    void check_pool_deadlock(const sc_core::sc_time& now);
    uint32_t scalar_need(const KernelContext& c, ScalarLevel level) const;

    // M2: the lock unit (sm_locks.cpp).
    void execute_lock(uint32_t slot, Warp& w, Block& b, uint16_t id, const sc_core::sc_time& now);
    // One try at lock `id`: for a lock instruction, or (`resume`) to take back a lock the warp
    // released at the hold limit.
    void try_lock(uint32_t slot, Warp& w, Block& b, uint16_t id, bool resume, const sc_core::sc_time& now);
    void lock_failed(uint32_t slot, Warp& w, Block& b, uint16_t id, uint16_t holder, const sc_core::sc_time& now);
    void execute_unlock(uint32_t slot, Warp& w, Block& b, uint16_t id, const sc_core::sc_time& now);
    // The hold-limit counter before an instruction of a warp holding locks: false if the warp
    // had to release them instead of executing it.
    bool count_held_instruction(uint32_t slot, Warp& w, Block& b, const sc_core::sc_time& now);
    void lock_decision(const LockDecision& d, const sc_core::sc_time& now);
    void acquire(Warp& w, Block& b, uint16_t id, bool resume, const sc_core::sc_time& now, const sc_core::sc_time& ready);
    // Clears the words of every lock the warp holds (but `keep`, handed over by the caller),
    // reports each as `kind` and wakes their waiters. Returns them, in the order taken.
    std::vector<uint16_t> drop_locks(Warp& w, Block& b, LockEventKind kind, const sc_core::sc_time& now,
                                     uint32_t other = ~0u, int keep = -1);
    // The warp abandons its critical section: back to its checkpoint, the instructions since
    // counted as redone.
    void rewind(Warp& w, const sc_core::sc_time& now);
    void wake_parked(Block& b, uint16_t id, const sc_core::sc_time& now);
    void set_trying(Warp& w, bool trying, const sc_core::sc_time& now);
    void note_activity(Warp& w, const sc_core::sc_time& now);
    void lock_left(Warp& w, Block& b, const sc_core::sc_time& now);  // the warp ends: give up lock state
    void check_lock_watchdog(const sc_core::sc_time& now);
    std::string lock_state(const Block& b) const;
    void lock_event(LockEventKind k, const Warp& w, const Block& b, uint32_t lock, const sc_core::sc_time& t,
                    uint32_t other = ~0u, uint64_t redone = 0);
    PriorityLockStats& by_priority(const Warp& w) { return stats_.locks.by_priority[w.cpr]; }
    // Counts for the SM and for the warp's priority at once.
    void count_lock(const Warp& w, uint64_t LockCounts::*what, uint64_t n = 1) {
        stats_.locks.*what += n;
        by_priority(w).*what += n;
    }
    uint32_t lock_address(const Block& b, uint16_t id) const { return b.shared_base + id * kLockWordBytes; }

    uint32_t id_;
    SmConfig cfg_;
    SmPolicy policy_;
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    std::string tag_;  // "sm[3]"
    uint32_t line_bytes_;
    uint64_t line_mask_;  // line_bytes_ - 1 (a power of two)

    std::vector<KernelContext> contexts_;
    std::vector<Block> blocks_;          // rows; a finished row is reused
    std::vector<bool> block_used_;
    std::vector<Warp> warps_;            // one per hardware warp slot
    std::vector<uint32_t> idle_slots_;   // a stack, lowest slot on top
    ReadyQueue ready_;
    CoreClock& core_clock_;
    uint32_t clock_index_;  // the SM's place in the core clock
    Inbox<BlockDescriptor> arrivals_{[this](const sc_core::sc_time& at) { core_clock_.wake(clock_index_, at); }};
    Inbox<LockDecision> decisions_{[this](const sc_core::sc_time& at) { core_clock_.wake(clock_index_, at); }};  // M2, from the lock arbiter
    SharedMemory shared_;
    ScalarPool pool_;                     // M3
    std::vector<uint32_t> pool_stalled_;  // M3: slots of warps waiting for scalar registers
    uint32_t trying_ = 0;                 // M2: warps trying to take a lock
    uint32_t lock_active_ = 0;            // M2: warps holding, taking back or trying locks
    sc_core::sc_time last_progress_;      // M2: the last completed critical section (watchdog)
    uint64_t progress_ = 0;               // see progress()
    uint64_t arrivals_seen_ = 0;
    uint64_t unstarted_warps_ = 0;  // of the blocks here, not started yet (nothing to admit at 0)
    uint32_t free_regs_, free_slots_, free_shared_;
    uint32_t resident_warps_ = 0;
    bool status_dirty_ = false;  // a status notice is owed to the GLC
    sc_core::sc_time busy_since_;
    std::vector<unsigned char, HostLineAllocator<unsigned char>> scratch_;
    std::vector<unsigned char, HostLineAllocator<unsigned char>> fetched_;  // a line just fetched, before it goes into lines_
    LineStore lines_;                     // the instruction buffers' bytes
    tlm::tlm_generic_payload gp_;  // for all the SM's transactions (nothing re-enters the SM meanwhile)
    Stats stats_;
};

}  // namespace gpuvp
