#pragma once
#include <gpuvp/models/common/policies.h>

#include <array>
#include <cstdint>

namespace gpuvp {

// M3: how the SM's scalar register pool is split between the four levels.
enum class ScalarSplit : uint8_t {
    preset,   // fixed quotas (scalar_quota)
    dynamic,  // quotas start preset; the controller moves unused capacity to a level that needs it
    kernel,   // quotas set from the kernel's needs per level when its first block arrives
};
template <>
struct PolicyNameTable<ScalarSplit> {
    static constexpr std::array<const char*, 3> names{"preset", "dynamic", "kernel"};
};

// M2, `policy.lock: priority`: what a requester told to wait does when the holder has its
// priority (CPR).
enum class LockEqualPriority : uint8_t {
    wait,      // seed 001: it waits, releasing every lock it holds (a synchronization failure)
    wait_die,  // the older critical section waits keeping its locks; only the younger releases
};
template <>
struct PolicyNameTable<LockEqualPriority> {
    static constexpr std::array<const char*, 2> names{"wait", "wait-die"};
};

// M2, `policy.lock: priority`: what the counter thread's limit does to a warp holding locks.
enum class LockHoldLimitAction : uint8_t {
    release,  // seed 001: it releases all its locks and takes them again like any other requester
              // (its critical section's age starts again at its next try)
    yield,    // it releases them and takes them back keeping its critical section's age
};
template <>
struct PolicyNameTable<LockHoldLimitAction> {
    static constexpr std::array<const char*, 2> names{"release", "yield"};
};

// One streaming multiprocessor: the class every SM of a platform takes; an SM instance may set
// its own capacities and issue width (PlatformConfig::sm_instance, platform/gpu_config.h).
struct SmConfig {
    uint32_t warp_slots = 48;        // hardware warp slots
    uint32_t warp_size = 32;         // threads per warp
    uint32_t registers = 65536;      // 32-bit vector registers in the register file
    uint32_t shared_memory = 65536;  // bytes of shared (group segment) memory
    uint32_t scalar_pool = 1024;     // scalar registers in the pool (M3)
    uint32_t slice_size = 8;         // threads per slice (M3), fewer than warp_size
    ScalarSplit scalar_split = ScalarSplit::preset;                // M3
    std::array<uint32_t, 4> scalar_quota{64, 192, 640, 128};       // M3: kernel, workgroup, warp, slice
    uint32_t slice_threshold = 128;  // M3: slice-level registers allocated at once, at most
    uint32_t l1i_bytes = 16384;
    uint32_t l1d_bytes = 16384;
    uint32_t l1_ways = 4;
    uint32_t issue_width = 1;            // warp-instructions issued per cycle
    uint32_t shared_latency_cycles = 24; // shared memory access
    uint32_t warp_launch_cycles = 4;     // start a warp in a slot
    uint32_t max_kernels = 16;           // kernel contexts in the ISU (concurrent kernels)
    // M2: warp mutexes.
    uint32_t atomic_latency_cycles = 48;      // an atomic on a shared-memory lock word, issue to result
    uint32_t lock_hold_limit = 256;           // counter limit: instructions a warp runs holding locks (0: none)
    LockEqualPriority lock_equal_priority = LockEqualPriority::wait;
    LockHoldLimitAction lock_hold_limit_action = LockHoldLimitAction::release;
    uint32_t lock_backoff_cycles = 100;       // spin baseline: back-off after a failed try (plus up to as much again)
    uint32_t arbiter_cycles = 2;              // the arbiter takes one FIFO entry and decides
    uint32_t lock_watchdog_cycles = 2000000;  // no critical section completes while warps wait: a deadlock
};

}  // namespace gpuvp
