// M2: the SM's lock unit. Lock words live in the block's shared memory (lock id n at offset
// 4n: bit 31 locked, bits 0-30 the owner's warp index); a lock instruction is an atomic on its
// word (atomic_latency_cycles). When the word is held, the policy decides:
//   priority  the warp pushes (requester, holder) to its block's arbiter (lock_arbiter.h) and
//             does what it decides: on a pre-emption the holder releases all its locks and
//             abandons its critical section, and the requester takes the lock; otherwise the
//             requester releases what it holds (a synchronization failure) and waits until
//             the lock is released (if the lock is free or has changed hands by the time the
//             decision arrives, the requester takes it, or asks again if it outranks the new
//             holder). Beyond the seed: between warps of equal priority the one whose critical
//             section began first keeps its locks while it waits (wait-die), so equal warps
//             cannot knock each other back for ever. While a warp
//             holds locks its counter thread counts the instructions it executes; once a lock
//             has been held for lock_hold_limit of them the warp releases all its locks (so
//             warps waiting for them get their turn), then takes them back and goes on.
//   spin      the baseline: the try failed (a synchronization failure); release all held
//             locks, back off, try again. No priorities, no arbiter, no hold limit.
// A warp that gives its locks up on a synchronization failure or a pre-emption goes back to
// its checkpoint (the outermost lock instruction of its critical section) and does the section
// again: the instructions it executed since are counted as redone.
#include "models/common/memory_map.h"
#include "models/common/tlm_util.h"
#include "models/sm/sm.h"

#include <algorithm>
#include <sstream>

namespace gpuvp {

using sc_core::sc_time;

namespace {

// splitmix64: a deterministic pseudo-random spread for the spin back-off.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace

void StreamingMultiprocessor::lock_event(LockEventKind k, const Warp& w, const Block& b, uint32_t lock,
                                         const sc_time& t, uint32_t other, uint64_t redone) {
    if (!observer_) return;
    LockEvent e{};
    e.kind = k;
    e.sm = id_;
    e.kernel_slot = b.desc.kernel_slot;
    e.block = b.desc.block_id;
    e.warp = w.index;
    e.other = other;
    e.lock = lock;
    e.slot = uint32_t(&w - warps_.data());
    e.cpr = w.cpr;
    e.t = t;
    e.redone = redone;
    if (k == LockEventKind::acquired) {
        e.word = shared_.read32(lock_address(b, lock));
        e.wait = t - w.trying_since;
    }
    if (k == LockEventKind::parked) e.word = w.held.empty() ? 0 : 1;  // 1: an older equal warp waits with its locks
    observer_->lock_event(e);
}

void StreamingMultiprocessor::set_trying(Warp& w, bool trying, const sc_time& now) {
    if (w.trying != trying) {
        w.trying = trying;
        if (trying) w.trying_since = now;
        trying ? ++trying_ : --trying_;
    }
    note_activity(w, now);
}

// The watchdog's window opens when the first warp of the SM starts to hold or try locks, and
// again at every completed critical section.
void StreamingMultiprocessor::note_activity(Warp& w, const sc_time& now) {
    const bool active = w.trying || !w.held.empty() || !w.retake.empty();
    if (active == w.lock_active) return;
    w.lock_active = active;
    if (!active) --lock_active_;
    else if (lock_active_++ == 0) last_progress_ = now;
}

void StreamingMultiprocessor::execute_lock(uint32_t slot, Warp& w, Block& b, uint16_t id, const sc_time& now) {
    if (uint64_t(id + 1) * kLockWordBytes > b.desc.shared_bytes)  // the word is not in the block's shared memory
        return fail(slot, KernelError::memory_fault, now, uint64_t(id) * kLockWordBytes);
    if (std::find(w.held.begin(), w.held.end(), id) != w.held.end())
        return fail(slot, KernelError::lock_misuse, now, w.pc);
    try_lock(slot, w, b, id, false, now);
}

void StreamingMultiprocessor::try_lock(uint32_t slot, Warp& w, Block& b, uint16_t id, bool resume, const sc_time& now) {
    w.took_locks = true;
    if (!w.cs_born) {  // a critical section begins: its age counts until it completes
        w.cs_born = true;
        w.cs_birth = now;
    }
    w.wait_lock = id;
    set_trying(w, true, now);
    w.lock_wait = LockWait::none;
    const sc_time done = now + clock_.cycles(cfg_.atomic_latency_cycles);
    const uint32_t word = shared_.read32(lock_address(b, id));
    if (!(word & kLockBit)) {  // free: take it
        acquire(w, b, id, resume, now, done);
        if (!resume) w.pc += kInstructionBytes;
        return make_ready(slot, done);
    }
    const uint16_t holder = uint16_t(word & ~kLockBit);
    if (policy_.lock == LockPolicy::priority) {
        // The atomic returns the holder's id; the warp pushes the pair to its block's arbiter.
        w.lock_wait = LockWait::arbiter;
        ++w.request_seq;
        ++stats_.locks.arbiter_requests;
        lock_event(LockEventKind::requested, w, b, id, done, holder);
        sc_time d = done - now;
        write_msg(to_arbiter, gp_, map::kArbiterRequest,
                  LockRequest{w.block, uint16_t(w.index), holder, id, w.request_seq, b.arrival}, d);
        return;  // lock_decision() goes on
    }
    // Spin: the try failed. Release everything held, back off, try again.
    lock_failed(slot, w, b, id, holder, now);
    w.lock_wait = LockWait::backoff;
    const uint32_t base = cfg_.lock_backoff_cycles;
    const uint64_t r = mix(mix(uint64_t(id_) << 32 | w.index) ^ b.desc.block_id ^ uint64_t(++w.failures) << 48);
    make_ready(slot, done + clock_.cycles(base + (base ? uint32_t(r % base) : 0)));
}

// A synchronization failure: the warp could not take `id` from `holder` and releases all it
// holds. In the middle of a critical section that means starting it again; a warp taking
// back its locks after the hold limit puts them back on its list instead.
void StreamingMultiprocessor::lock_failed(uint32_t slot, Warp& w, Block& b, uint16_t id, uint16_t holder,
                                          const sc_time& now) {
    count_lock(w, &LockCounts::sync_failures);
    lock_event(LockEventKind::sync_failure, w, b, id, now, holder);
    if (w.held.empty()) return;
    if (!w.retake.empty()) {
        std::vector<uint16_t> back = drop_locks(w, b, LockEventKind::failure_release, now, holder);
        w.retake.insert(w.retake.begin(), back.begin(), back.end());
        return note_activity(w, now);
    }
    drop_locks(w, b, LockEventKind::failure_release, now, holder);
    rewind(w, now);
}

void StreamingMultiprocessor::acquire(Warp& w, Block& b, uint16_t id, bool resume, const sc_time& now,
                                      const sc_time& ready) {
    if (w.held.empty() && !resume)  // the critical section begins at this lock instruction
        w.checkpoint = Checkpoint{w.pc, w.loops, w.loop_depth, w.accesses, w.instructions - 1};
    shared_.write32(lock_address(b, id), kLockBit | w.index);
    w.held.push_back(id);
    w.held_at.push_back(w.hold_count);  // this lock's count starts at 0
    w.failures = 0;
    if (resume) {  // a lock taken back after the hold limit
        w.retake.erase(w.retake.begin());
        count_lock(w, &LockCounts::retakes);
    } else {
        const sc_time wait = ready - w.trying_since;
        count_lock(w, &LockCounts::acquisitions);
        PriorityLockStats& p = by_priority(w);
        p.wait_sum += wait;
        p.wait_max = std::max(p.wait_max, wait);
    }
    lock_event(LockEventKind::acquired, w, b, id, ready);
    set_trying(w, !w.retake.empty(), now);
}

void StreamingMultiprocessor::execute_unlock(uint32_t slot, Warp& w, Block& b, uint16_t id, const sc_time& now) {
    auto it = std::find(w.held.begin(), w.held.end(), id);
    if (it == w.held.end()) return fail(slot, KernelError::lock_misuse, now, w.pc);
    shared_.write32(lock_address(b, id), 0);
    w.held_at.erase(w.held_at.begin() + (it - w.held.begin()));
    w.held.erase(it);
    ++stats_.locks.releases;
    lock_event(LockEventKind::released, w, b, id, now);
    wake_parked(b, id, now);
    if (w.held.empty() && w.retake.empty()) {  // a critical section completed
        last_progress_ = now;
        ++progress_;
        w.cs_born = false;
    }
    note_activity(w, now);
    w.pc += kInstructionBytes;
    make_ready(slot, now + clock_.cycles(cfg_.atomic_latency_cycles));
}

// The counter thread, before each instruction of a warp holding locks (lock and unlock aside).
// Each held lock counts from 0 when taken (and a released one stops counting); when the one
// held longest has counted lock_hold_limit instructions, the warp releases all its locks
// instead of executing the instruction. It will take them back, in the order it took them,
// and then execute it; nothing is redone.
bool StreamingMultiprocessor::count_held_instruction(uint32_t slot, Warp& w, Block& b, const sc_time& now) {
    if (policy_.lock != LockPolicy::priority || cfg_.lock_hold_limit == 0) return true;
    if (w.hold_count - w.held_at.front() < cfg_.lock_hold_limit) {
        ++w.hold_count;
        return true;
    }
    count_lock(w, &LockCounts::hold_limit_releases);
    last_progress_ = now;  // the work done so far stays done: progress, for the watchdog
    ++progress_;
    w.retake = drop_locks(w, b, LockEventKind::hold_limit_release, now);
    note_activity(w, now);
    make_ready(slot, now + clock_.cycles(cfg_.atomic_latency_cycles));
    return false;
}

std::vector<uint16_t> StreamingMultiprocessor::drop_locks(Warp& w, Block& b, LockEventKind kind, const sc_time& now,
                                                          uint32_t other, int keep) {
    std::vector<uint16_t> freed;
    freed.swap(w.held);
    w.held_at.clear();
    for (uint16_t id : freed) {
        if (int(id) != keep) shared_.write32(lock_address(b, id), 0);
        lock_event(kind, w, b, id, now, other);
    }
    for (uint16_t id : freed)
        if (int(id) != keep) wake_parked(b, id, now);
    return freed;
}

void StreamingMultiprocessor::rewind(Warp& w, const sc_time& now) {
    const uint64_t redone = w.instructions - w.checkpoint.instructions;
    w.pc = w.checkpoint.pc;
    w.loops = w.checkpoint.loops;
    w.loop_depth = w.checkpoint.loop_depth;
    w.accesses = w.checkpoint.accesses;
    w.retake.clear();
    note_activity(w, now);
    count_lock(w, &LockCounts::redone_instructions, redone);
    lock_event(LockEventKind::rewound, w, blocks_[w.block], ~0u, now, ~0u, redone);
}

// The lock is free: its waiters try again, the oldest critical section first (it issues first
// and so takes the lock), so no waiter can lose the race for ever.
void StreamingMultiprocessor::wake_parked(Block& b, uint16_t id, const sc_time& now) {
    std::vector<uint32_t> woken;
    for (auto it = b.parked.begin(); it != b.parked.end();) {
        if (warps_[*it].wait_lock != id) {
            ++it;
            continue;
        }
        woken.push_back(*it);
        it = b.parked.erase(it);
    }
    std::stable_sort(woken.begin(), woken.end(), [&](uint32_t x, uint32_t y) {
        const Warp& a = warps_[x];
        const Warp& c = warps_[y];
        if (a.cs_born != c.cs_born) return a.cs_born;
        return a.cs_born && a.cs_birth != c.cs_birth ? a.cs_birth < c.cs_birth : a.index < c.index;
    });
    for (uint32_t s : woken) {
        Warp& p = warps_[s];
        p.lock_wait = LockWait::none;
        lock_event(LockEventKind::woken, p, b, id, now);
        make_ready(s, now + clock_.cycles(1));
    }
}

// The arbiter's decision on (requester, holder), carried out when it arrives.
void StreamingMultiprocessor::lock_decision(const LockDecision& d, const sc_time& now) {
    const LockRequest& r = d.request;
    if (r.row >= blocks_.size() || !block_used_[r.row] || blocks_[r.row].arrival != r.epoch) {
        ++stats_.locks.stale_decisions;
        return;
    }
    Block& b = blocks_[r.row];
    const int32_t slot = r.requester < b.slot_of.size() ? b.slot_of[r.requester] : -1;
    if (slot < 0 || warps_[slot].lock_wait != LockWait::arbiter || warps_[slot].request_seq != r.seq) {
        ++stats_.locks.stale_decisions;  // the requester has moved on (it was made to release)
        return;
    }
    Warp& w = warps_[slot];
    w.lock_wait = LockWait::none;
    const uint16_t id = uint16_t(r.lock);
    const bool resume = !w.retake.empty();
    const uint32_t word = shared_.read32(lock_address(b, id));
    const sc_time done = now + clock_.cycles(cfg_.atomic_latency_cycles);
    if (d.verdict == LockVerdict::preempt) {
        const bool still_held = word == (kLockBit | r.holder);
        const int32_t hslot = r.holder < b.slot_of.size() ? b.slot_of[r.holder] : -1;
        if (still_held && hslot >= 0) {
            // The arbiter signals the holder: it releases all its locks and abandons its
            // critical section; this lock goes to the requester.
            Warp& h = warps_[hslot];
            count_lock(h, &LockCounts::forced_releases);
            drop_locks(h, b, LockEventKind::forced_release, now, w.index, id);
            rewind(h, now);
            if (h.lock_wait == LockWait::parked) {  // an older equal warp waiting with its locks: it stops waiting
                b.parked.erase(std::remove(b.parked.begin(), b.parked.end(), uint32_t(hslot)), b.parked.end());
                lock_event(LockEventKind::woken, h, b, h.wait_lock, now);
            }
            if (h.lock_wait != LockWait::none) h.lock_wait = LockWait::none;  // its own wait is dropped
            set_trying(h, false, now);
            make_ready(uint32_t(hslot), std::max(done, h.ready_at));  // an access in flight completes first
        }
        if (still_held || !(word & kLockBit)) {
            acquire(w, b, id, resume, now, done);
            if (!resume) w.pc += kInstructionBytes;
            return make_ready(uint32_t(slot), done);
        }
        return make_ready(uint32_t(slot), now + clock_.cycles(1));  // another warp has it by now: try again
    }
    // Wait. The verdict was on (requester, holder): if the lock has been released meanwhile
    // the wait is over at once; if a warp the requester outranks holds it now, it asks again.
    if (!(word & kLockBit)) {
        acquire(w, b, id, resume, now, done);
        if (!resume) w.pc += kInstructionBytes;
        return make_ready(uint32_t(slot), done);
    }
    const uint16_t holder = uint16_t(word & ~kLockBit);
    const int32_t hslot = holder < b.slot_of.size() ? b.slot_of[holder] : -1;
    const uint8_t theirs = holder < b.cpr.size() ? b.cpr[holder] : 0xff;
    if (w.cpr < theirs) return make_ready(uint32_t(slot), now + clock_.cycles(1));
    // Equal priority, and the requester's critical section is the older: it waits with its
    // locks (the holder will finish, or fail with it in the same way and release). Otherwise a
    // synchronization failure: the requester releases what it holds and waits for the lock.
    const bool older = w.cpr == theirs && hslot >= 0 && w.cs_born &&
                       (!warps_[hslot].cs_born || w.cs_birth < warps_[hslot].cs_birth ||
                        (w.cs_birth == warps_[hslot].cs_birth && w.index < holder));
    if (!older) lock_failed(uint32_t(slot), w, b, id, holder, now);
    w.lock_wait = LockWait::parked;
    w.wait_lock = id;
    b.parked.push_back(uint32_t(slot));
    lock_event(LockEventKind::parked, w, b, id, now, holder);
}

// A warp ends (or fails): it gives up every lock and every wait.
void StreamingMultiprocessor::lock_left(Warp& w, Block& b, const sc_time& now) {
    drop_locks(w, b, LockEventKind::exit_release, now);
    w.retake.clear();
    if (w.lock_wait == LockWait::parked) {
        const uint32_t slot = uint32_t(&w - warps_.data());
        b.parked.erase(std::remove(b.parked.begin(), b.parked.end(), slot), b.parked.end());
    }
    w.lock_wait = LockWait::none;
    w.cs_born = false;
    set_trying(w, false, now);  // and no activity left
    if (w.took_locks) {
        PriorityLockStats& p = by_priority(w);
        ++p.warps;
        p.end_sum += now;
        p.end_max = std::max(p.end_max, now);
        last_progress_ = now;
    }
    if (w.index < b.slot_of.size()) b.slot_of[w.index] = -1;
}

// No critical section has completed for lock_watchdog_cycles while warps try to take locks:
// the warps are deadlocked or livelocked. Every block with such warps is reported with its
// lock state, and its warps that hold or try locks are stopped (the kernel fails).
void StreamingMultiprocessor::check_lock_watchdog(const sc_time& now) {
    if (cfg_.lock_watchdog_cycles == 0 || now < last_progress_ + clock_.cycles(cfg_.lock_watchdog_cycles)) return;
    ++stats_.locks.deadlocks;
    std::vector<uint32_t> stuck;
    for (size_t i = 0; i < blocks_.size(); ++i) {
        if (!block_used_[i]) continue;
        const Block& b = blocks_[i];
        bool any = false;
        for (int32_t s : b.slot_of) any |= s >= 0 && warps_[s].trying;
        if (!any) continue;
        if (observer_) observer_->lock_stalled(b.desc.kernel_slot, lock_state(b), now);
        for (int32_t s : b.slot_of)
            if (s >= 0 && (warps_[s].trying || !warps_[s].held.empty())) stuck.push_back(uint32_t(s));
    }
    for (uint32_t s : stuck)
        if (warps_[s].active) fail(s, KernelError::lock_deadlock, now);
    last_progress_ = now;
}

std::string StreamingMultiprocessor::lock_state(const Block& b) const {
    std::ostringstream o;
    o << tag_ << " block " << b.desc.block_id << ": no critical section completed (nor a hold-limit hand-over) in "
      << cfg_.lock_watchdog_cycles << " cycles";
    for (size_t i = 0; i < b.slot_of.size(); ++i) {
        if (b.slot_of[i] < 0) continue;
        const Warp& w = warps_[b.slot_of[i]];
        if (w.held.empty() && !w.trying) continue;
        o << "; warp " << i << " (CPR " << unsigned(w.cpr) << ")";
        if (!w.held.empty()) {
            o << " holds lock";
            for (size_t k = 0; k < w.held.size(); ++k) o << (k ? ", " : " ") << w.held[k];
        }
        if (w.trying) {
            const uint32_t word = uint64_t(w.wait_lock + 1) * kLockWordBytes <= b.desc.shared_bytes
                                      ? shared_.read32(lock_address(b, w.wait_lock))
                                      : 0;
            o << (w.held.empty() ? "" : " and") << " waits for lock " << w.wait_lock;
            if (word & kLockBit) o << " held by warp " << (word & ~kLockBit);
            else o << " (free now)";
            switch (w.lock_wait) {
            case LockWait::arbiter: o << ", its request with the arbiter"; break;
            case LockWait::parked: o << ", parked until it is released"; break;
            case LockWait::backoff: o << ", backing off"; break;
            case LockWait::none: o << ", about to try again"; break;
            }
            if (!w.retake.empty()) o << " (taking back its locks after the hold limit)";
        }
    }
    return o.str();
}

}  // namespace gpuvp
