// Fixed-layout control messages blocks write into each other's registers over TLM, and the
// rows of the register tables (read with transport_dbg). Little-endian, packed by design.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpuvp {

// CP -> WLM: a decoded kernel dispatch packet, ready to set up.
struct LaunchDescriptor {
    uint32_t kernel_slot;      // the kernel's row in the GLC and context in every ISU
    uint32_t queue;
    uint64_t packet_index;
    uint32_t priority;         // the queue's priority (0 highest)
    uint16_t dimensions;
    uint16_t workgroup_size[3];
    uint32_t grid_size[3];
    uint32_t group_segment_size;
    uint32_t private_segment_size;
    uint64_t kernel_object;
    uint64_t kernarg_address;
};
static_assert(sizeof(LaunchDescriptor) == 64);

// WLM -> GLC: a row of the kernel status register table.
struct KernelRegistration {
    uint32_t kernel_slot;
    uint32_t priority;
    uint32_t regs_per_warp;
    uint32_t warps_per_block;    // of a whole block
    uint32_t threads_per_block;  // of a whole block
    uint32_t shared_per_block;
    uint64_t blocks;
    uint32_t grid_size[3];       // work-items: the last block of a dimension may be partial
    uint16_t workgroup_size[3];
    uint16_t reserved0;
    uint32_t reserved1;
    uint64_t reserved2;
};
static_assert(sizeof(KernelRegistration) == 64);

// The work-items of block `block` (linear index, x fastest) of a grid: whole blocks, and the
// partial ones at the grid's far edges.
inline uint32_t block_threads(const uint32_t grid[3], const uint16_t wg[3], uint64_t block) {
    uint64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
        const uint64_t n = (uint64_t(grid[d]) + wg[d] - 1) / wg[d];
        const uint64_t c = block % n;
        block /= n;
        threads *= std::min<uint64_t>(wg[d], grid[d] - c * wg[d]);
    }
    return uint32_t(threads);
}

// What a kernel's program waits on with other warps (DescriptorExtension::syncs,
// IsuContext::syncs), bit by bit. The SM decides what each means under its policies.
constexpr uint8_t kSyncBarrier = 1;         // a block barrier
constexpr uint8_t kSyncWorkgroupWrite = 2;  // M3: a workgroup-level scalar write (multilevel: waits for the block's warps)
constexpr uint8_t kSyncKernelWrite = 4;     // M3: a kernel-level scalar write (multilevel: waits for the kernel's warps on the SM)

// WLM -> each SM's ISU: the kernel context (M5 uses the kernarg registers).
struct IsuContext {
    uint64_t pc;              // code entry address
    uint64_t kernarg_ptr;
    uint32_t kernarg_size;
    uint16_t valid;
    uint16_t syncs;           // kSync* bits of the kernel's program (M1's deadlock avoidance, M3's whole-block starts)
    uint16_t scalars[4];      // M3: scalar registers per instance of each level (kernel, workgroup, warp, slice)
};
static_assert(sizeof(IsuContext) == 32);

// GLC -> SM: one block to run.
struct BlockDescriptor {
    uint32_t kernel_slot;
    uint32_t priority;
    uint64_t block_id;        // linear block index within the kernel
    uint32_t warps;
    uint32_t threads;
    uint32_t regs_per_warp;
    uint32_t shared_bytes;
};
static_assert(sizeof(BlockDescriptor) == 32);

// GLC -> every SM (M3, under policy.scalar multilevel): no more blocks of the kernel will
// come, its last block placed or, after an error, no more placed. An SM frees the kernel's
// kernel-level scalar registers once its blocks of it have all ended.
struct KernelDrained {
    uint32_t kernel_slot;
    uint32_t reserved;
};
static_assert(sizeof(KernelDrained) == 8);

enum class NoticeKind : uint32_t {
    status = 1,      // the SM's resources and highest block priority, after its logic controller acted
    block_done = 2,  // a block has no warps left: for the kernel's count of finished blocks
    error = 3,       // a warp of the kernel failed
};

// SM -> GLC. A status notice reports what the SM can still give new work: its free registers,
// warp slots and shared memory less what the not-yet-started warps of its blocks still need
// (never below 0), the highest priority among its blocks, and how many block descriptors it
// has accepted, so the GLC knows which of its dispatches the report already counts.
struct SmNotice {
    uint32_t sm;
    NoticeKind kind;
    uint32_t kernel_slot;       // block_done, error
    uint32_t error;             // error: a KernelError
    uint64_t block_id;          // block_done, error
    uint32_t free_regs;         // status
    uint32_t free_slots;
    uint32_t free_shared;
    uint32_t highest_priority;  // status: kNoPriority when no block is on the SM
    uint64_t blocks_seen;       // status
    uint64_t fault_address;     // error: the address that faulted, if any
};
static_assert(sizeof(SmNotice) == 56);

// GLC -> CP: every block of the kernel has finished (or it failed).
struct KernelDone {
    uint32_t kernel_slot;
    uint32_t error;          // 0 ok, else a KernelError
    uint64_t fault_address;  // the address that faulted, if any
};
static_assert(sizeof(KernelDone) == 16);

constexpr uint32_t kNoPriority = 0xffffffffu;

// M2. A lock word in a block's shared memory: the most significant bit is the lock bit, the
// other bits the owner's warp index within the block.
constexpr uint32_t kLockBit = 0x8000'0000u;
constexpr uint32_t kLockWordBytes = 4;  // lock id n's word is at shared offset 4n

// SM -> its lock arbiter: a warp found a lock held and pushes the pair (requester, holder)
// into the FIFO of its block's arbiter.
struct LockRequest {
    uint32_t row;        // the block's row in the block status table: one arbiter per row
    uint16_t requester;  // warp indices within the block
    uint16_t holder;
    uint32_t lock;
    uint32_t seq;        // the requester's request number: a decision on an older one is dropped
    uint64_t epoch;      // which block holds the row (the SM's count of block arrivals)
};
static_assert(sizeof(LockRequest) == 24);

enum class LockVerdict : uint32_t {
    preempt = 1,  // the requester outranks the holder: the holder releases all, the requester takes the lock
    wait = 2,     // equal or lower priority: the requester releases what it holds and waits
};

// Lock arbiter -> SM: the decision on one FIFO entry.
struct LockDecision {
    LockRequest request;
    LockVerdict verdict;
    uint32_t reserved;
};
static_assert(sizeof(LockDecision) == 32);

// M4. CP -> unified shading array: one draw of a vendor-specific draw packet.
struct DrawDescriptor {
    uint32_t draw_slot;
    uint32_t vertex_tasks;
    uint32_t vertex_cycles;
    uint32_t pixel_tasks_per_vertex_task;
    uint32_t pixel_cycles;
    uint32_t queue;
    uint64_t packet_index;
};
static_assert(sizeof(DrawDescriptor) == 32);

// Unified shading array -> CP: every task of the draw has finished (or the draw failed).
struct DrawDone {
    uint32_t draw_slot;
    uint32_t error;  // 0 ok, else a KernelError
};
static_assert(sizeof(DrawDone) == 8);

// M4. A unified shading core's task type, and the array's two 2-bit load flags (the count of
// idle cores of each type: 00 none, 01 one, 10 two or more).
enum class CoreType : uint8_t { vertex = 0, pixel = 1 };
struct LoadFlags {
    uint8_t idle_vertex = 0;
    uint8_t idle_pixel = 0;
    bool operator==(const LoadFlags& o) const { return idle_vertex == o.idle_vertex && idle_pixel == o.idle_pixel; }
    bool operator!=(const LoadFlags& o) const { return !(*this == o); }
};

// Errors a running kernel can end with (reported through its completion signal and results).
enum class KernelError : uint32_t {
    none = 0,
    illegal_instruction = 1,
    fetch_fault = 2,       // instruction fetch answered with a TLM error
    memory_fault = 3,      // load/store answered with a TLM error
    descriptor_fault = 4,  // kernel descriptor unreadable or invalid
    no_global_buffer = 5,  // global access before the kernarg load gave the buffer pointer
    loop_overflow = 6,     // loops nested deeper than the hardware stack
    resources = 7,         // a block can never fit on an SM
    lock_misuse = 8,       // M2: a lock already held, an unlock of a lock not held, or a barrier
                           // or the end reached with locks held
    lock_deadlock = 9,     // M2: warps waited on locks with no critical section completing
    scalar_pool = 10,      // M3: warps wait for scalar registers that no running warp will free
    invalid_draw = 11,     // M4: a draw descriptor the shading array cannot run
};
const char* kernel_error_text(KernelError e);

template <class T>
T from_bytes(const unsigned char* p) {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

}  // namespace gpuvp
