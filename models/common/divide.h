// x / d and x % d (d > 0) where the divisor is usually a power of two (line sizes, set counts,
// buffer and access sizes): a shift and a mask then, where a 64-bit division takes tens of
// cycles. For the hot paths of the caches and the SMs.
#pragma once
#include <cstdint>

namespace gpuvp {

inline uint64_t quotient(uint64_t x, uint64_t d) { return (d & (d - 1)) == 0 ? x >> __builtin_ctzll(d) : x / d; }
inline uint64_t remainder(uint64_t x, uint64_t d) { return (d & (d - 1)) == 0 ? x & (d - 1) : x % d; }

}  // namespace gpuvp
