// M2: the SM's lock unit. Lock words live in the block's shared memory (lock id n at offset
// 4n: bit 31 locked, bits 0-30 the owner's warp index); a lock instruction is an atomic on its
// word (atomic_latency_cycles). When the word is held, the lock scheme decides (lock_scheme.h,
// one file per policy: spin_lock_scheme.cpp, priority_lock_scheme.cpp). A warp that gives its locks up on
// a synchronization failure or a pre-emption goes back to its checkpoint (the outermost lock
// instruction of its critical section) and does the section again: the instructions it
// executed since are counted as redone.
//
// The unit keeps each warp's lock state (locks held, the checkpoint, the counter thread, the
// wait) apart from the warp's issue state; the SM's issue path sees only the warp's
// `holds_locks` and `retaking` flags, which the unit keeps. The SM calls it per lock or unlock
// instruction, per instruction of a warp holding locks (the counter thread), per decision and
// per warp start and end.
#pragma once
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/common/stats.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/sm/loop_stack.h>

#include <systemc>

#include <algorithm>
#include <array>
#include <map>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace gpuvp {

class StreamingMultiprocessor;
class LockScheme;

// Why a warp waits on a lock; the warp keeps it beside its issue state (a waiting warp does not issue).
enum class LockWait : uint8_t {
    none,
    arbiter,  // its request is with the arbiter
    parked,   // told to wait: until the lock is released
    backoff,  // spin: backing off before the next try
};

// What is counted both for the whole SM and per warp priority.
struct LockCounts {
    STATS_RECORD;
    uint64_t acquisitions = 0, retakes = 0, sync_failures = 0, forced_releases = 0, hold_limit_releases = 0,
             redone_instructions = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("acquisitions", s.acquisitions, Doc{"count", "locks acquired"});
        v("retakes", s.retakes, Doc{"count", "locks taken again after a forced release"});
        v("sync_failures", s.sync_failures, Doc{"count", "lock tries that failed"});
        v("forced_releases", s.forced_releases, Doc{"count", "locks taken from a lower-priority holder"});
        v("hold_limit_releases", s.hold_limit_releases, Doc{"count", "locks released at the hold limit"});
        v("redone_instructions", s.redone_instructions, Doc{"count", "instructions run again after a forced release"});
    }
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
// Per warp priority (CPR value), over the warps that executed a lock instruction.
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
// An SM's lock unit's statistics (results.json's locks section sums them over the SMs).
struct LockStats : LockCounts {
    uint64_t releases = 0, arbiter_requests = 0, stale_decisions = 0, deadlocks = 0;
    std::map<uint32_t, PriorityLockStats> by_priority;
    template <class S, class V>
    static void fields(S& s, V& v) {  // (by_priority: the results' own per-priority figures)
        LockCounts::fields(s, v);
        v("releases", s.releases, Doc{"count", "locks released"});
        v("arbiter_requests", s.arbiter_requests, Doc{"count", "requests the arbiters received"});
        v("stale_decisions", s.stale_decisions, Doc{"count", "arbiter decisions overtaken by events"});
        v("deadlocks", s.deadlocks, Doc{"count", "lock deadlocks the watchdog reported"});
    }
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

class LockUnit {
public:
    // `clock` and `stats` are the SM's (its clock, its Stats::locks).
    LockUnit(StreamingMultiprocessor& sm, const SmConfig& config, LockPolicy policy, const Clock& clock, LockStats& stats);
    ~LockUnit();

    // A block arrives in block-table row `row`: its warps' CPRs from the kernel's CPR table.
    void block_arrived(uint32_t row, const std::array<uint8_t, 256>& cprs, uint32_t warps);
    // The CPR of warp `warp` of the block in `row` (what the arbiter reads); 0 past its warps.
    uint8_t cpr(uint32_t row, uint32_t warp) const {
        return row < rows_.size() && warp < rows_[row].cpr.size() ? rows_[row].cpr[warp] : 0;
    }
    void warp_started(uint32_t slot, uint32_t row, uint32_t index);
    void execute_lock(uint32_t slot, uint16_t id, const sc_core::sc_time& now);
    void execute_unlock(uint32_t slot, uint16_t id, const sc_core::sc_time& now);
    // The counter thread before an instruction of a warp holding locks (lock and unlock aside):
    // false if the warp had to release them instead of executing it.
    bool count_held_instruction(uint32_t slot, const sc_core::sc_time& now) {
        return hold_limit_ == 0 || count_held(slot, now);
    }
    // The warp takes back the next lock it released at the hold limit (before anything else).
    void retake(uint32_t slot, const sc_core::sc_time& now);
    // The arbiter's decision on (requester, holder), carried out when it arrives.
    void decision(const LockDecision& d, const sc_core::sc_time& now);
    // A warp ends (or fails): it gives up every lock and every wait.
    void warp_left(uint32_t slot, const sc_core::sc_time& now);

    // The watchdog: while warps try locks (trying()), no lock progress by watchdog_at() means
    // a deadlock or a livelock; check_watchdog then fails the warps concerned.
    bool trying() const { return trying_ > 0; }
    uint32_t trying_warps() const { return trying_; }
    sc_core::sc_time watchdog_at() const { return last_progress_ + cycles(cfg_.lock_watchdog_cycles); }
    void check_watchdog(const sc_core::sc_time& now);

    uint8_t cpr_of(uint32_t slot) const { return warps_[slot].cpr; }
    bool took_locks(uint32_t slot) const { return warps_[slot].took_locks; }
    // The warp's lock state for the SM's state dump (", holds lock 0, tries lock 1 ...").
    void describe(uint32_t slot, std::ostream& o) const;

private:
    friend class SpinLockScheme;
    friend class PriorityLockScheme;

    // Where a warp's critical section began (its outermost lock instruction), to go back to
    // when it must give its locks up.
    struct Checkpoint {
        uint64_t pc = 0;
        LoopStack loops{};
        unsigned loop_depth = 0;
        uint64_t accesses = 0;
        uint64_t instructions = 0;  // executed before the lock instruction
    };
    struct WarpLocks {
        uint8_t cpr = 0;                  // competitive priority register
        // It executed a lock or unlock instruction since it last started: the rest may differ from
        // a new warp's (a warp that never did, nearly every warp, costs its start and end nothing more).
        bool touched = false;
        std::vector<uint16_t> held;       // locks held, in the order taken
        std::vector<uint16_t> retake;     // released at the hold limit: to take back before going on
        std::vector<uint64_t> held_at;    // the counter thread's count when each was taken
        uint64_t hold_count = 0;          // the counter thread: instructions executed holding locks
        Checkpoint checkpoint;
        uint16_t wait_lock = 0;
        uint32_t request_seq = 0;         // priority: its requests to the arbiter
        bool trying = false;              // between the first try of a lock instruction and taking the lock
        sc_core::sc_time trying_since;
        uint32_t failures = 0;            // spin: tries failed, for the back-off
        bool took_locks = false;
        bool cs_born = false;             // the age of its critical section (kept across rewinds), for
        sc_core::sc_time cs_birth;        // the equal-priority tie-break
        bool lock_active = false;         // holds, takes back or tries locks (the watchdog's concern)
    };
    struct RowLocks {  // per block-table row
        std::vector<uint8_t> cpr;      // the CPR of each of its warps
        std::vector<int32_t> slot_of;  // warp index -> slot, -1 when not running
        std::vector<uint32_t> parked;  // slots of warps waiting for a lock's release
    };

    bool count_held(uint32_t slot, const sc_core::sc_time& now);
    // One try at lock `id`: for a lock instruction, or (`resume`) to take back a lock the warp
    // released at the hold limit.
    void try_lock(uint32_t slot, uint16_t id, bool resume, const sc_core::sc_time& now);
    // A synchronization failure: the warp could not take `id` from `holder`.
    void lock_failed(uint32_t slot, uint16_t id, uint16_t holder, const sc_core::sc_time& now);
    // The warp takes `id` (the atomic wrote its word); it holds it from `ready`.
    void acquire(uint32_t slot, uint16_t id, bool resume, const sc_core::sc_time& now, const sc_core::sc_time& ready);
    // Takes `id` for a try that found it free: acquires, moves past a lock instruction, ready at `done`.
    void take(uint32_t slot, uint16_t id, bool resume, const sc_core::sc_time& now, const sc_core::sc_time& done);
    // Clears the words of every lock the warp holds (but `keep`, handed over by the caller),
    // reports each as `kind` and wakes their waiters. Returns them, in the order taken.
    std::vector<uint16_t> drop_locks(uint32_t slot, LockEventKind kind, const sc_core::sc_time& now,
                                     uint32_t other = ~0u, int keep = -1);
    // The warp abandons its critical section: back to its checkpoint, the instructions since
    // counted as redone.
    void rewind(uint32_t slot, const sc_core::sc_time& now);
    void wake_parked(uint32_t row, uint16_t id, const sc_core::sc_time& now);
    void set_trying(uint32_t slot, bool trying, const sc_core::sc_time& now);
    void note_activity(uint32_t slot, const sc_core::sc_time& now);
    void flags(uint32_t slot);  // the warp's issue flags from its lock state
    std::string lock_state(uint32_t row) const;
    uint32_t word(uint32_t row, uint16_t id) const;  // the lock word of `id` in the block's shared memory
    void set_word(uint32_t row, uint16_t id, uint32_t value);
    void lock_event(LockEventKind k, uint32_t slot, uint32_t lock, const sc_core::sc_time& t, uint32_t other = ~0u,
                    uint64_t redone = 0);
    void make_ready(uint32_t slot, const sc_core::sc_time& at);
    // Counts for the SM and for the warp's priority at once.
    void count_lock(uint32_t slot, uint64_t LockCounts::*what, uint64_t n = 1) {
        stats_.*what += n;
        by_priority(slot).*what += n;
    }
    PriorityLockStats& by_priority(uint32_t slot) { return stats_.by_priority[warps_[slot].cpr]; }
    sc_core::sc_time cycles(uint64_t n) const { return clock_.cycles(n); }

    StreamingMultiprocessor& sm_;
    SmConfig cfg_;
    const Clock& clock_;
    LockStats& stats_;
    std::unique_ptr<LockScheme> scheme_;
    uint32_t hold_limit_;               // the counter thread's limit; 0: none (spin)
    std::vector<WarpLocks> warps_;      // per warp slot
    std::vector<RowLocks> rows_;        // per block-table row
    uint32_t trying_ = 0;               // warps trying to take a lock
    uint32_t lock_active_ = 0;          // warps holding, taking back or trying locks
    sc_core::sc_time last_progress_;    // the last completed critical section (watchdog)
};

}  // namespace gpuvp
