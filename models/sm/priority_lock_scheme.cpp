#include <gpuvp/models/sm/priority_lock_scheme.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/sm/lock_unit.h>
#include <gpuvp/models/sm/sm.h>

#include <algorithm>

namespace gpuvp {

using sc_core::sc_time;

// The atomic returns the holder's id; the warp pushes the pair to its block's arbiter.
void PriorityLockScheme::held(LockUnit& u, uint32_t slot, uint16_t id, uint16_t holder, const sc_time&,
                         const sc_time& done) {
    StreamingMultiprocessor& sm = u.sm_;
    auto& w = sm.warps_[slot];
    LockUnit::WarpLocks& l = u.warps_[slot];
    w.lock_wait = LockWait::arbiter;
    ++l.request_seq;
    ++u.stats_.arbiter_requests;
    u.lock_event(LockEventKind::requested, slot, id, done, holder);
    sc_time d = done - stamp();  // (the SM's time may be ahead of it: core_clock.h)
    write_msg(sm.to_arbiter, sm.gp_, map::kArbiterRequest,
              LockRequest{w.block, uint16_t(w.index), holder, id, l.request_seq, sm.blocks_[w.block].arrival}, d);
    // decided() goes on
}

void PriorityLockScheme::decided(LockUnit& u, const LockDecision& d, const sc_time& now) {
    StreamingMultiprocessor& sm = u.sm_;
    const LockRequest& r = d.request;
    if (r.row >= sm.blocks_.size() || !sm.block_used_[r.row] || sm.blocks_[r.row].arrival != r.epoch) {
        ++u.stats_.stale_decisions;
        return;
    }
    LockUnit::RowLocks& row = u.rows_[r.row];
    const int32_t slot = r.requester < row.slot_of.size() ? row.slot_of[r.requester] : -1;
    if (slot < 0 || sm.warps_[slot].lock_wait != LockWait::arbiter || u.warps_[slot].request_seq != r.seq) {
        ++u.stats_.stale_decisions;  // the requester has moved on (it was made to release)
        return;
    }
    auto& w = sm.warps_[slot];
    LockUnit::WarpLocks& l = u.warps_[slot];
    w.lock_wait = LockWait::none;
    const uint16_t id = uint16_t(r.lock);
    const bool resume = !l.retake.empty();
    const uint32_t word = u.word(r.row, id);
    const sc_time done = now + u.cycles(u.cfg_.atomic_latency_cycles);
    if (d.verdict == LockVerdict::preempt) {
        const bool still_held = word == (kLockBit | r.holder);
        const int32_t hslot = r.holder < row.slot_of.size() ? row.slot_of[r.holder] : -1;
        if (still_held && hslot >= 0) {
            // The arbiter signals the holder: it releases all its locks and abandons its
            // critical section; this lock goes to the requester.
            auto& h = sm.warps_[hslot];
            u.count_lock(uint32_t(hslot), &LockCounts::forced_releases);
            u.drop_locks(uint32_t(hslot), LockEventKind::forced_release, now, w.index, id);
            u.rewind(uint32_t(hslot), now);
            if (h.lock_wait == LockWait::parked) {  // an older equal warp waiting with its locks: it stops waiting
                row.parked.erase(std::remove(row.parked.begin(), row.parked.end(), uint32_t(hslot)), row.parked.end());
                u.lock_event(LockEventKind::woken, uint32_t(hslot), u.warps_[hslot].wait_lock, now);
            }
            if (h.lock_wait != LockWait::none) h.lock_wait = LockWait::none;  // its own wait is dropped
            u.set_trying(uint32_t(hslot), false, now);
            u.make_ready(uint32_t(hslot), std::max(done, h.ready_at));  // an access in flight completes first
        }
        if (still_held || !(word & kLockBit)) return u.take(uint32_t(slot), id, resume, now, done);
        return u.make_ready(uint32_t(slot), now + u.cycles(1));  // another warp has it by now: try again
    }
    // Wait. The verdict was on (requester, holder): if the lock has been released meanwhile
    // the wait is over at once; if a warp the requester outranks holds it now, it asks again.
    if (!(word & kLockBit)) return u.take(uint32_t(slot), id, resume, now, done);
    const uint16_t holder = uint16_t(word & ~kLockBit);
    const int32_t hslot = holder < row.slot_of.size() ? row.slot_of[holder] : -1;
    const uint8_t theirs = holder < row.cpr.size() ? row.cpr[holder] : 0xff;
    if (l.cpr < theirs) return u.make_ready(uint32_t(slot), now + u.cycles(1));
    // Under wait-die, equal priority, and the requester's critical section is the older: it
    // waits with its locks (the holder will finish, or fail with it in the same way and
    // release). Otherwise (always under the seed's `wait`) a synchronization failure: the
    // requester releases what it holds and waits for the lock.
    const bool older = u.cfg_.lock_equal_priority == LockEqualPriority::wait_die && l.cpr == theirs && hslot >= 0 &&
                       l.cs_born &&
                       (!u.warps_[hslot].cs_born || l.cs_birth < u.warps_[hslot].cs_birth ||
                        (l.cs_birth == u.warps_[hslot].cs_birth && w.index < holder));
    if (!older) u.lock_failed(uint32_t(slot), id, holder, now);
    w.lock_wait = LockWait::parked;
    l.wait_lock = id;
    row.parked.push_back(uint32_t(slot));
    u.lock_event(LockEventKind::parked, uint32_t(slot), id, now, holder);
}

}  // namespace gpuvp
