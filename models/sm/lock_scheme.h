// M2: what a warp does when the lock it tries is held. One file per policy:
//   spin_lock_scheme.cpp      the baseline: the try failed (a synchronization failure); release all
//                       held locks, back off, try again. No priorities, no arbiter, no hold limit.
//   priority_lock_scheme.cpp  the seed: push (requester, holder) to the block's arbiter
//                       (lock_arbiter.h) and do what it decides; the counter thread's hold limit
// Asked per lock instruction that finds its lock held and per arbiter decision, never per
// instruction (the hold limit is a number the lock unit keeps).
#pragma once
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/sm_config.h>

#include <systemc>

#include <cstdint>
#include <memory>

namespace gpuvp {

class LockUnit;

class LockScheme {
public:
    virtual ~LockScheme() = default;
    // Instructions a warp may execute holding a lock before it yields its locks; 0: no limit.
    virtual uint32_t hold_limit(const SmConfig& config) const = 0;
    // The warp in `slot` tried lock `id` and found it held by warp `holder`; the atomic
    // returns at `done`.
    virtual void held(LockUnit& unit, uint32_t slot, uint16_t id, uint16_t holder, const sc_core::sc_time& now,
                      const sc_core::sc_time& done) = 0;
    // The arbiter's decision on one of the scheme's requests, at its arrival.
    virtual void decided(LockUnit& unit, const LockDecision& d, const sc_core::sc_time& now) = 0;
};

std::unique_ptr<LockScheme> make_lock_scheme(LockPolicy policy);

}  // namespace gpuvp
