#include <gpuvp/models/sm/spin_lock_scheme.h>
#include <gpuvp/models/sm/lock_unit.h>
#include <gpuvp/models/sm/sm.h>

namespace gpuvp {

namespace {

// splitmix64: a deterministic pseudo-random spread for the back-off.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace

void SpinLockScheme::held(LockUnit& u, uint32_t slot, uint16_t id, uint16_t holder, const sc_core::sc_time& now,
                     const sc_core::sc_time& done) {
    u.lock_failed(slot, id, holder, now);
    auto& w = u.sm_.warps_[slot];
    w.lock_wait = LockWait::backoff;
    const uint32_t base = u.cfg_.lock_backoff_cycles;
    const uint64_t r = mix(mix(uint64_t(u.sm_.id_) << 32 | w.index) ^ u.sm_.blocks_[w.block].desc.block_id ^
                           uint64_t(++u.warps_[slot].failures) << 48);
    u.make_ready(slot, done + u.cycles(base + (base ? uint32_t(r % base) : 0)));
}

// Spin asks no arbiter: a decision is not one of its requests.
void SpinLockScheme::decided(LockUnit& u, const LockDecision&, const sc_core::sc_time&) {
    ++u.stats_.stale_decisions;
}

}  // namespace gpuvp
