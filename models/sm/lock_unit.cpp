#include <gpuvp/models/sm/lock_unit.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/sm/lock_scheme.h>
#include <gpuvp/models/sm/sm.h>

#include <algorithm>
#include <sstream>

namespace gpuvp {

using sc_core::sc_time;

LockUnit::LockUnit(StreamingMultiprocessor& sm, const SmConfig& config, LockPolicy policy, const Clock& clock,
                   LockStats& stats)
    : sm_(sm), cfg_(config), clock_(clock), stats_(stats), scheme_(make_lock_scheme(policy)),
      hold_limit_(scheme_->hold_limit(config)), warps_(config.warp_slots) {}

LockUnit::~LockUnit() = default;

void LockUnit::make_ready(uint32_t slot, const sc_time& at) { sm_.make_ready(slot, at); }

uint32_t LockUnit::word(uint32_t row, uint16_t id) const {
    return sm_.shared_.read32(sm_.blocks_[row].shared_base + id * kLockWordBytes);
}

void LockUnit::set_word(uint32_t row, uint16_t id, uint32_t value) {
    sm_.shared_.write32(sm_.blocks_[row].shared_base + id * kLockWordBytes, value);
}

void LockUnit::flags(uint32_t slot) {
    auto& w = sm_.warps_[slot];
    w.holds_locks = !warps_[slot].held.empty();
    w.retaking = !warps_[slot].retake.empty();
}

void LockUnit::block_arrived(uint32_t row, const std::array<uint8_t, 256>& cprs, uint32_t warps) {
    if (row >= rows_.size()) rows_.resize(row + 1);
    RowLocks& r = rows_[row];
    r.cpr.resize(warps);
    for (uint32_t w = 0; w < warps; ++w) r.cpr[w] = cprs[std::min<size_t>(w, cprs.size() - 1)];
    r.slot_of.assign(warps, -1);
    r.parked.clear();
}

void LockUnit::warp_started(uint32_t slot, uint32_t row, uint32_t index) {
    WarpLocks& l = warps_[slot];
    if (l.touched) {
        l.held.clear();
        l.held_at.clear();
        l.retake.clear();
        l.hold_count = 0;
        l.trying = l.took_locks = false;
        l.failures = 0;
        l.cs_born = false;
        l.touched = false;
    }
    l.cpr = rows_[row].cpr[index];
    rows_[row].slot_of[index] = int32_t(slot);
    auto& w = sm_.warps_[slot];
    w.lock_wait = LockWait::none;
    w.holds_locks = w.retaking = false;
}

void LockUnit::lock_event(LockEventKind k, uint32_t slot, uint32_t lock, const sc_time& t, uint32_t other,
                          uint64_t redone) {
    if (!sm_.observer_) return;
    const auto& w = sm_.warps_[slot];
    const auto& b = sm_.blocks_[w.block];
    const WarpLocks& l = warps_[slot];
    LockEvent e{};
    e.kind = k;
    e.sm = sm_.id_;
    e.kernel_slot = b.desc.kernel_slot;
    e.block = b.desc.block_id;
    e.warp = w.index;
    e.other = other;
    e.lock = lock;
    e.slot = slot;
    e.cpr = l.cpr;
    e.t = t;
    e.redone = redone;
    if (k == LockEventKind::acquired) {
        e.word = word(w.block, uint16_t(lock));
        e.wait = t - l.trying_since;
    }
    if (k == LockEventKind::parked) e.word = l.held.empty() ? 0 : 1;  // 1: an older equal warp waits with its locks
    sm_.observer_->lock_event(e);
}

void LockUnit::set_trying(uint32_t slot, bool trying, const sc_time& now) {
    WarpLocks& l = warps_[slot];
    if (l.trying != trying) {
        l.trying = trying;
        if (trying) l.trying_since = now;
        trying ? ++trying_ : --trying_;
    }
    note_activity(slot, now);
}

// The watchdog's window opens when the first warp of the SM starts to hold or try locks, and
// again at every completed critical section.
void LockUnit::note_activity(uint32_t slot, const sc_time& now) {
    WarpLocks& l = warps_[slot];
    const bool active = l.trying || !l.held.empty() || !l.retake.empty();
    if (active == l.lock_active) return;
    l.lock_active = active;
    if (!active) --lock_active_;
    else if (lock_active_++ == 0) last_progress_ = now;
}

void LockUnit::execute_lock(uint32_t slot, uint16_t id, const sc_time& now) {
    const auto& w = sm_.warps_[slot];
    warps_[slot].touched = true;
    if (uint64_t(id + 1) * kLockWordBytes > sm_.blocks_[w.block].desc.shared_bytes)  // not in the block's shared memory
        return sm_.fail(slot, KernelError::memory_fault, now, uint64_t(id) * kLockWordBytes);
    const WarpLocks& l = warps_[slot];
    if (std::find(l.held.begin(), l.held.end(), id) != l.held.end())
        return sm_.fail(slot, KernelError::lock_misuse, now, w.pc);
    try_lock(slot, id, false, now);
}

void LockUnit::retake(uint32_t slot, const sc_time& now) { try_lock(slot, warps_[slot].retake.front(), true, now); }

void LockUnit::try_lock(uint32_t slot, uint16_t id, bool resume, const sc_time& now) {
    auto& w = sm_.warps_[slot];
    WarpLocks& l = warps_[slot];
    l.took_locks = true;
    if (!l.cs_born) {  // a critical section begins: its age counts until it completes
        l.cs_born = true;
        l.cs_birth = now;
    }
    l.wait_lock = id;
    set_trying(slot, true, now);
    w.lock_wait = LockWait::none;
    const sc_time done = now + cycles(cfg_.atomic_latency_cycles);
    const uint32_t held_word = word(w.block, id);
    if (!(held_word & kLockBit)) return take(slot, id, resume, now, done);  // free: take it
    scheme_->held(*this, slot, id, uint16_t(held_word & ~kLockBit), now, done);
}

void LockUnit::take(uint32_t slot, uint16_t id, bool resume, const sc_time& now, const sc_time& done) {
    acquire(slot, id, resume, now, done);
    if (!resume) sm_.warps_[slot].pc += kInstructionBytes;
    make_ready(slot, done);
}

// A synchronization failure: the warp releases all it holds. In the middle of a critical
// section that means starting it again; a warp taking back its locks after the hold limit
// puts them back on its list instead.
void LockUnit::lock_failed(uint32_t slot, uint16_t id, uint16_t holder, const sc_time& now) {
    WarpLocks& l = warps_[slot];
    count_lock(slot, &LockCounts::sync_failures);
    lock_event(LockEventKind::sync_failure, slot, id, now, holder);
    if (l.held.empty()) return;
    if (!l.retake.empty()) {
        std::vector<uint16_t> back = drop_locks(slot, LockEventKind::failure_release, now, holder);
        l.retake.insert(l.retake.begin(), back.begin(), back.end());
        flags(slot);
        return note_activity(slot, now);
    }
    drop_locks(slot, LockEventKind::failure_release, now, holder);
    rewind(slot, now);
}

void LockUnit::acquire(uint32_t slot, uint16_t id, bool resume, const sc_time& now, const sc_time& ready) {
    const auto& w = sm_.warps_[slot];
    WarpLocks& l = warps_[slot];
    if (l.held.empty() && !resume)  // the critical section begins at this lock instruction
        l.checkpoint = Checkpoint{w.pc, w.loops, w.loop_depth, w.accesses, w.instructions - 1};
    set_word(w.block, id, kLockBit | w.index);
    l.held.push_back(id);
    l.held_at.push_back(l.hold_count);  // this lock's count starts at 0
    l.failures = 0;
    if (resume) {  // a lock taken back after the hold limit
        l.retake.erase(l.retake.begin());
        count_lock(slot, &LockCounts::retakes);
    } else {
        const sc_time wait = ready - l.trying_since;
        count_lock(slot, &LockCounts::acquisitions);
        PriorityLockStats& p = by_priority(slot);
        p.wait_sum += wait;
        p.wait_max = std::max(p.wait_max, wait);
    }
    flags(slot);
    lock_event(LockEventKind::acquired, slot, id, ready);
    set_trying(slot, !l.retake.empty(), now);
}

void LockUnit::execute_unlock(uint32_t slot, uint16_t id, const sc_time& now) {
    auto& w = sm_.warps_[slot];
    WarpLocks& l = warps_[slot];
    l.touched = true;
    auto it = std::find(l.held.begin(), l.held.end(), id);
    if (it == l.held.end()) return sm_.fail(slot, KernelError::lock_misuse, now, w.pc);
    set_word(w.block, id, 0);
    l.held_at.erase(l.held_at.begin() + (it - l.held.begin()));
    l.held.erase(it);
    flags(slot);
    ++stats_.releases;
    lock_event(LockEventKind::released, slot, id, now);
    wake_parked(w.block, id, now);
    if (l.held.empty() && l.retake.empty()) {  // a critical section completed
        last_progress_ = now;
        ++sm_.progress_;
        l.cs_born = false;
    }
    note_activity(slot, now);
    w.pc += kInstructionBytes;
    make_ready(slot, now + cycles(cfg_.atomic_latency_cycles));
}

// The counter thread, before each instruction of a warp holding locks (lock and unlock aside).
// Each held lock counts from 0 when taken (and a released one stops counting); when the one
// held longest has counted hold_limit_ instructions, the warp releases all its locks instead
// of executing the instruction. It will take them back, in the order it took them, and then
// execute it; nothing is redone. Under `release` (the seed) it takes them back like any other
// requester: its critical section's age starts again at its next try; under `yield` it keeps
// that age (first to be woken among equals, and under wait-die it waits keeping what it has
// taken back).
bool LockUnit::count_held(uint32_t slot, const sc_time& now) {
    WarpLocks& l = warps_[slot];
    if (l.hold_count - l.held_at.front() < hold_limit_) {
        ++l.hold_count;
        return true;
    }
    count_lock(slot, &LockCounts::hold_limit_releases);
    last_progress_ = now;  // the work done so far stays done: progress, for the watchdog
    ++sm_.progress_;
    l.retake = drop_locks(slot, LockEventKind::hold_limit_release, now);
    if (cfg_.lock_hold_limit_action == LockHoldLimitAction::release) l.cs_born = false;
    flags(slot);
    note_activity(slot, now);
    make_ready(slot, now + cycles(cfg_.atomic_latency_cycles));
    return false;
}

std::vector<uint16_t> LockUnit::drop_locks(uint32_t slot, LockEventKind kind, const sc_time& now, uint32_t other,
                                           int keep) {
    WarpLocks& l = warps_[slot];
    const uint32_t row = sm_.warps_[slot].block;
    std::vector<uint16_t> freed;
    freed.swap(l.held);
    l.held_at.clear();
    flags(slot);
    for (uint16_t id : freed) {
        if (int(id) != keep) set_word(row, id, 0);
        lock_event(kind, slot, id, now, other);
    }
    for (uint16_t id : freed)
        if (int(id) != keep) wake_parked(row, id, now);
    return freed;
}

void LockUnit::rewind(uint32_t slot, const sc_time& now) {
    auto& w = sm_.warps_[slot];
    WarpLocks& l = warps_[slot];
    const uint64_t redone = w.instructions - l.checkpoint.instructions;
    w.pc = l.checkpoint.pc;
    w.loops = l.checkpoint.loops;
    w.loop_depth = l.checkpoint.loop_depth;
    w.accesses = l.checkpoint.accesses;
    l.retake.clear();
    flags(slot);
    note_activity(slot, now);
    count_lock(slot, &LockCounts::redone_instructions, redone);
    lock_event(LockEventKind::rewound, slot, ~0u, now, ~0u, redone);
}

// The lock is free: its waiters try again, the oldest critical section first: each a cycle
// after the one before it, so that the oldest tries first (and takes the lock) whatever the
// issue order, and no waiter can lose the race for ever.
void LockUnit::wake_parked(uint32_t row, uint16_t id, const sc_time& now) {
    std::vector<uint32_t>& parked = rows_[row].parked;
    std::vector<uint32_t> woken;
    for (auto it = parked.begin(); it != parked.end();) {
        if (warps_[*it].wait_lock != id) {
            ++it;
            continue;
        }
        woken.push_back(*it);
        it = parked.erase(it);
    }
    std::stable_sort(woken.begin(), woken.end(), [&](uint32_t x, uint32_t y) {
        const WarpLocks& a = warps_[x];
        const WarpLocks& c = warps_[y];
        if (a.cs_born != c.cs_born) return a.cs_born;
        return a.cs_born && a.cs_birth != c.cs_birth ? a.cs_birth < c.cs_birth : sm_.warps_[x].index < sm_.warps_[y].index;
    });
    uint32_t after = 1;
    for (uint32_t s : woken) {
        sm_.warps_[s].lock_wait = LockWait::none;
        lock_event(LockEventKind::woken, s, id, now);
        make_ready(s, now + cycles(after++));
    }
}

void LockUnit::decision(const LockDecision& d, const sc_time& now) { scheme_->decided(*this, d, now); }

void LockUnit::warp_left(uint32_t slot, const sc_time& now) {
    auto& w = sm_.warps_[slot];
    WarpLocks& l = warps_[slot];
    RowLocks& r = rows_[w.block];
    // A warp that never took a lock (nearly every warp) has nothing to give back.
    const bool touched_locks = l.touched && (!l.held.empty() || !l.retake.empty() || l.trying || l.took_locks ||
                                             l.lock_active || w.lock_wait != LockWait::none);
    if (touched_locks) {
        drop_locks(slot, LockEventKind::exit_release, now);
        l.retake.clear();
        flags(slot);
        if (w.lock_wait == LockWait::parked)
            r.parked.erase(std::remove(r.parked.begin(), r.parked.end(), slot), r.parked.end());
        w.lock_wait = LockWait::none;
        set_trying(slot, false, now);  // and no activity left
        if (l.took_locks) {
            PriorityLockStats& p = by_priority(slot);
            ++p.warps;
            p.end_sum += now;
            p.end_max = std::max(p.end_max, now);
            last_progress_ = now;
        }
    }
    l.cs_born = false;
    if (w.index < r.slot_of.size()) r.slot_of[w.index] = -1;
}

// No critical section has completed for lock_watchdog_cycles while warps try to take locks:
// the warps are deadlocked or livelocked. Every block with such warps is reported with its
// lock state, and its warps that hold or try locks are stopped (the kernel fails).
void LockUnit::check_watchdog(const sc_time& now) {
    if (cfg_.lock_watchdog_cycles == 0 || now < watchdog_at()) return;
    ++stats_.deadlocks;
    std::vector<uint32_t> stuck;
    for (size_t i = 0; i < sm_.blocks_.size(); ++i) {
        if (!sm_.block_used_[i]) continue;
        const RowLocks& r = rows_[i];
        bool any = false;
        for (int32_t s : r.slot_of) any |= s >= 0 && warps_[s].trying;
        if (!any) continue;
        if (sm_.observer_) sm_.observer_->lock_stalled(sm_.blocks_[i].desc.kernel_slot, lock_state(uint32_t(i)), now);
        for (int32_t s : r.slot_of)
            if (s >= 0 && (warps_[s].trying || !warps_[s].held.empty())) stuck.push_back(uint32_t(s));
    }
    for (uint32_t s : stuck)
        if (sm_.warps_[s].active) sm_.fail(s, KernelError::lock_deadlock, now);
    last_progress_ = now;
}

std::string LockUnit::lock_state(uint32_t row) const {
    const auto& b = sm_.blocks_[row];
    const RowLocks& r = rows_[row];
    std::ostringstream o;
    o << sm_.tag_ << " block " << b.desc.block_id << ": no critical section completed (nor a hold-limit hand-over) in "
      << cfg_.lock_watchdog_cycles << " cycles";
    for (size_t i = 0; i < r.slot_of.size(); ++i) {
        if (r.slot_of[i] < 0) continue;
        const uint32_t slot = uint32_t(r.slot_of[i]);
        const WarpLocks& l = warps_[slot];
        if (l.held.empty() && !l.trying) continue;
        o << "; warp " << i << " (CPR " << unsigned(l.cpr) << ")";
        if (!l.held.empty()) {
            o << " holds lock";
            for (size_t k = 0; k < l.held.size(); ++k) o << (k ? ", " : " ") << l.held[k];
        }
        if (l.trying) {
            const uint32_t w = uint64_t(l.wait_lock + 1) * kLockWordBytes <= b.desc.shared_bytes ? word(row, l.wait_lock) : 0;
            o << (l.held.empty() ? "" : " and") << " waits for lock " << l.wait_lock;
            if (w & kLockBit) o << " held by warp " << (w & ~kLockBit);
            else o << " (free now)";
            switch (sm_.warps_[slot].lock_wait) {
            case LockWait::arbiter: o << ", its request with the arbiter"; break;
            case LockWait::parked: o << ", parked until it is released"; break;
            case LockWait::backoff: o << ", backing off"; break;
            case LockWait::none: o << ", about to try again"; break;
            }
            if (!l.retake.empty()) o << " (taking back its locks after the hold limit)";
        }
    }
    return o.str();
}

void LockUnit::describe(uint32_t slot, std::ostream& o) const {
    const WarpLocks& l = warps_[slot];
    const auto& w = sm_.warps_[slot];
    if (!l.held.empty()) {
        o << ", holds lock";
        for (size_t k = 0; k < l.held.size(); ++k) o << (k ? ", " : " ") << l.held[k];
    }
    if (!l.retake.empty()) o << ", takes back " << l.retake.size() << " lock(s) after the hold limit";
    if (l.trying) {
        const bool in_range = uint64_t(l.wait_lock + 1) * kLockWordBytes <= sm_.blocks_[w.block].desc.shared_bytes;
        const uint32_t v = in_range ? word(w.block, l.wait_lock) : 0;
        o << ", tries lock " << l.wait_lock;
        if (v & kLockBit) o << " held by warp " << (v & ~kLockBit);
        else o << " (free now)";
    }
}

}  // namespace gpuvp
