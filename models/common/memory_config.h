#pragma once
#include <cstdint>

namespace gpuvp {

// Latencies of the memory system, in simulated nanoseconds (see docs/timing.md for sources).
struct MemoryConfig {
    double host_latency_ns = 200;    // host DRAM access, seen at the host memory controller
    double link_latency_ns = 600;    // device<->host link (PCIe-like), request + response
    double device_latency_ns = 300;  // device DRAM access behind the L2
    double l2_latency_ns = 120;      // L2 hit
    double l1_latency_ns = 20;       // L1I / L1D hit
    uint64_t host_bytes = 256ull << 20;    // size of host memory
    uint64_t device_bytes = 256ull << 20;  // size of device memory
    uint32_t line_bytes = 64;              // cache line of every cache
    uint32_t l2_bytes = 2u << 20;          // L2 capacity
    uint32_t l2_ways = 16;
};

// One set-associative cache (L1I, L1D, L2).
struct CacheConfig {
    uint32_t bytes = 16384;
    uint32_t line_bytes = 64;
    uint32_t ways = 4;
    double hit_latency_ns = 20;
};

}  // namespace gpuvp
