// M2's baseline (policy.lock spin): plain atomic spin locks. A warp that finds its lock held
// has failed (a synchronization failure): it releases all its locks, backs off for
// lock_backoff_cycles plus a pseudo-random 0 to lock_backoff_cycles - 1, and tries again.
#pragma once
#include <gpuvp/models/sm/lock_scheme.h>

namespace gpuvp {

class SpinLockScheme : public LockScheme {
public:
    uint32_t hold_limit(const SmConfig&) const override { return 0; }
    void held(LockUnit& unit, uint32_t slot, uint16_t id, uint16_t holder, const sc_core::sc_time& now,
              const sc_core::sc_time& done) override;
    void decided(LockUnit& unit, const LockDecision& d, const sc_core::sc_time& now) override;
};

}  // namespace gpuvp
