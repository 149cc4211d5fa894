// `policy.issue: gto`, greedy then oldest (GPGPU-Sim's `gto`): the warp that issued first in
// the last cycle it issued (the greedy warp) issues again while it is ready; otherwise, and for
// the other picks of a cycle with `issue_width` > 1, the oldest ready warp: the first placed in
// its slot, ties (warps placed in one cycle) by slot index.
//
// It keeps the warps in age order: rank 0 is the oldest. The issue scheduler's due set is
// indexed by rank, so the oldest ready warp is its first member.
#pragma once
#include <gpuvp/models/sm/slot_mask.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvp {

struct GtoIssue {
    uint32_t greedy = SlotMask::kNone;

    explicit GtoIssue(uint32_t slots) : at_(slots, kGone), placed_(slots, 0) {
        order_.reserve(slots);
    }

    uint32_t rank(uint32_t slot) const { return uint32_t(at_[slot] - base_); }
    bool resident(uint32_t slot) const { return at_[slot] != kGone; }
    // A warp placed in `slot` at `cycle` (not before any placed so far): returns its rank.
    uint32_t placed(uint32_t slot, uint64_t cycle) {
        size_t r = order_.size();
        while (r > 0 && placed_[order_[r - 1]] == cycle && order_[r - 1] > slot) --r;
        order_.insert(order_.begin() + std::ptrdiff_t(r), slot);
        for (size_t i = r + 1; i < order_.size(); ++i) ++at_[order_[i]];  // (none, usually: it is the youngest)
        at_[slot] = base_ + r;
        placed_[slot] = cycle;
        return uint32_t(r);
    }
    // The warp in `slot` left: returns the rank it had. The warps after it move up one rank:
    // either they are renumbered, or (fewer) the warps before it are and the base moves.
    uint32_t left(uint32_t slot) {
        const uint32_t r = rank(slot);
        order_.erase(order_.begin() + std::ptrdiff_t(r));
        if (2 * size_t(r) < order_.size()) {  // (the oldest, usually: no warp renumbered)
            for (size_t i = 0; i < r; ++i) ++at_[order_[i]];
            ++base_;
        } else {
            for (size_t i = r; i < order_.size(); ++i) --at_[order_[i]];
        }
        at_[slot] = kGone;
        if (greedy == slot) greedy = SlotMask::kNone;
        return r;
    }
    // The greedy warp if it is due, else the oldest due; taken out of `due`. kNone: none due.
    uint32_t pick(SlotMask& due) const {
        uint32_t r = SlotMask::kNone;
        if (greedy != SlotMask::kNone && due.test(rank(greedy))) r = rank(greedy);
        if (r == SlotMask::kNone) r = due.first();
        if (r == SlotMask::kNone) return r;
        due.clear(r);
        return order_[r];
    }

private:
    std::vector<uint32_t> order_;   // the slots of the resident warps, oldest first
    // Per slot: its rank plus base_ (a warp's rank is at_[slot] - base_), so that the oldest
    // warp's leaving renumbers no other.
    std::vector<uint64_t> at_;  // kGone: no warp in the slot
    uint64_t base_ = 0;
    static constexpr uint64_t kGone = ~0ull;
    std::vector<uint64_t> placed_;  // per slot: the cycle its warp was placed
};

}  // namespace gpuvp
