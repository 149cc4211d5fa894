// A set of warp slots (or of their ranks) as a bitmap: up to 128, the most `sm.warp_slots`
// allows. The issue scheduler's due set and wheel (issue_scheduler.h).
#pragma once
#include <cstdint>

namespace gpuvp {

struct SlotMask {
    static constexpr unsigned kWords = 2;
    static constexpr unsigned kBits = 64 * kWords;
    static constexpr uint32_t kNone = ~0u;
    uint64_t word[kWords] = {};

    void set(unsigned i) { word[i / 64] |= 1ull << (i % 64); }
    void clear(unsigned i) { word[i / 64] &= ~(1ull << (i % 64)); }
    bool test(unsigned i) const { return word[i / 64] >> (i % 64) & 1; }
    bool any() const { return (word[0] | word[1]) != 0; }
    // The lowest member; kNone when empty.
    uint32_t first() const {
        if (word[0]) return uint32_t(__builtin_ctzll(word[0]));
        if (word[1]) return 64 + uint32_t(__builtin_ctzll(word[1]));
        return kNone;
    }
    // The lowest member above `i` (i < kBits); kNone when none.
    uint32_t first_after(unsigned i) const {
        ++i;
        if (i < 64) {
            const uint64_t above = word[0] & (~0ull << i);
            if (above) return uint32_t(__builtin_ctzll(above));
            return word[1] ? 64 + uint32_t(__builtin_ctzll(word[1])) : kNone;
        }
        if (i >= kBits) return kNone;
        const uint64_t above = word[1] & (~0ull << (i - 64));
        return above ? 64 + uint32_t(__builtin_ctzll(above)) : kNone;
    }
    // Makes room at `i`: members at i and above move up by one (the top one falls off); i is
    // not a member then.
    void insert_at(unsigned i) {
        const uint64_t carry = word[0] >> 63;
        if (i < 64) {
            const uint64_t low = (1ull << i) - 1;
            word[1] = (word[1] << 1) | carry;
            word[0] = (word[0] & low) | ((word[0] & ~low) << 1);
        } else {
            const uint64_t low = (1ull << (i - 64)) - 1;
            word[1] = (word[1] & low) | ((word[1] & ~low) << 1);
        }
    }
    // Takes `i` out: members above it move down by one.
    void remove_at(unsigned i) {
        if (i < 64) {
            const uint64_t low = (1ull << i) - 1;
            word[0] = (word[0] & low) | ((word[0] >> 1) & ~low) | (word[1] << 63);
            word[1] >>= 1;
        } else {
            const uint64_t low = (1ull << (i - 64)) - 1;
            word[1] = (word[1] & low) | ((word[1] >> 1) & ~low);
        }
    }
};

}  // namespace gpuvp
