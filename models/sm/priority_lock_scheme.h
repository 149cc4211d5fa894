// M2 (policy.lock priority), the seed's mechanism: a warp that finds its lock held pushes
// (requester, holder) to its block's arbiter (lock_arbiter.h) and does what it decides: on a
// pre-emption the holder releases all its locks and abandons its critical section, and the
// requester takes the lock; otherwise the requester releases what it holds (a synchronization
// failure) and waits until the lock is released (if the lock is free or has changed hands by
// the time the decision arrives, the requester takes it, or asks again if it outranks the new
// holder). SmConfig::lock_equal_priority: `wait` (the seed) applies that to an equal-priority
// requester too; `wait-die` (beyond the seed) lets the one of two equal warps whose critical
// section began first keep its locks while it waits, so equal warps cannot knock each other
// back for ever. While a warp holds locks its counter thread counts the instructions it
// executes; once a lock has been held for lock_hold_limit of them the warp releases all its
// locks (so warps waiting for them get their turn), then takes them back and goes on
// (SmConfig::lock_hold_limit_action, LockUnit::count_held).
#pragma once
#include <gpuvp/models/sm/lock_scheme.h>

namespace gpuvp {

class PriorityLockScheme : public LockScheme {
public:
    uint32_t hold_limit(const SmConfig& config) const override { return config.lock_hold_limit; }
    void held(LockUnit& unit, uint32_t slot, uint16_t id, uint16_t holder, const sc_core::sc_time& now,
              const sc_core::sc_time& done) override;
    void decided(LockUnit& unit, const LockDecision& d, const sc_core::sc_time& now) override;
};

}  // namespace gpuvp
