// `policy.issue: lrr`, loose round robin: the next ready slot after the one that issued last,
// wrapping around. The issue scheduler's due set is indexed by slot.
#pragma once
#include <gpuvp/models/sm/slot_mask.h>

#include <cstdint>

namespace gpuvp {

struct LrrIssue {
    uint32_t last = SlotMask::kBits - 1;  // the slot that issued last (none yet: slot 0 comes first)

    // The first due slot after `last`, wrapping; taken out of `due`. kNone: none due.
    uint32_t pick(SlotMask& due) const {
        uint32_t s = due.first_after(last);
        if (s == SlotMask::kNone) s = due.first();
        if (s != SlotMask::kNone) due.clear(s);
        return s;
    }
};

}  // namespace gpuvp
