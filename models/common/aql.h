// AQL packets as the HSA specification and ROCm's headers define them (hsa/hsa.h), and the
// command processor's checks on them. The packet layouts are ROCm's own structs.
#pragma once
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>

#include <cstdint>
#include <string>

namespace gpuvp {

constexpr unsigned kPacketBytes = 64;
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == kPacketBytes);
static_assert(sizeof(hsa_barrier_and_packet_t) == kPacketBytes);
static_assert(sizeof(hsa_barrier_or_packet_t) == kPacketBytes);

// Why a queue stopped (its STATUS register, the results' error text).
enum class QueueError : uint32_t {
    none = 0,
    unknown_packet_type,   // a type that is not 0..5
    unsupported_packet,    // vendor-specific or agent dispatch this GPU does not serve
    invalid_header,        // reserved header bits or fence scope 3
    invalid_dimensions,    // setup dimensions not 1..3, or unused dimensions not 1
    invalid_workgroup,     // zero workgroup size or more work-items than a block may have
    invalid_grid,          // zero grid size, or a grid smaller than its workgroup
    invalid_reserved,      // a reserved field is not 0
    null_kernel_object,
    unaligned_address,     // kernel object, kernarg or signal not aligned
    oversized_group_segment,
    address_error,         // a TLM error response naming the address (packet, signal, descriptor)
    invalid_descriptor,    // the kernel descriptor does not describe a runnable kernel
    doorbell_regressed,    // a doorbell value below the last one
    queue_overflow,        // a doorbell past read index + ring size
    invalid_queue,         // ring base/size not usable
    kernel_fault,          // a kernel of the queue failed while it ran
    dependency_failed,     // a barrier packet's dependency signal went negative (its kernel failed)
    invalid_draw,          // M4: a draw packet's task counts or cycles are out of range
    invalid_copy,          // a copy packet's fill flag or duration is out of range
};
const char* queue_error_name(QueueError e);
// A queue's status in words: "ok", or what stopped it (results.json `queues[].status`, the
// watchdog's state dump).
inline const char* queue_status_name(QueueError e) { return e == QueueError::none ? "ok" : queue_error_name(e); }

struct PacketHeader {
    uint8_t type = 0;
    bool barrier = false;
    uint8_t acquire_scope = 0;  // hsa_fence_scope_t
    uint8_t release_scope = 0;
    uint8_t reserved = 0;       // bits 13-15
};

inline PacketHeader decode_header(uint16_t h) {
    PacketHeader p;
    p.type = uint8_t(h & 0xff);
    p.barrier = (h >> HSA_PACKET_HEADER_BARRIER) & 1;
    p.acquire_scope = (h >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) & 3;
    p.release_scope = (h >> HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) & 3;
    p.reserved = uint8_t(h >> 13);
    return p;
}

inline uint16_t make_header(hsa_packet_type_t type, bool barrier, hsa_fence_scope_t acquire,
                            hsa_fence_scope_t release) {
    return uint16_t(type << HSA_PACKET_HEADER_TYPE | (barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER |
                    acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                    release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

// The outcome of a check: the error, the field at fault and a sentence for people.
struct PacketCheck {
    QueueError error = QueueError::none;
    std::string field;
    std::string detail;
    explicit operator bool() const { return error == QueueError::none; }
};

struct DispatchLimits {
    uint32_t max_workgroup_items = 1024;
    uint32_t max_group_segment = 65536;
    // Blocks (workgroups) of one dispatch: bounds a kernel's work. At most 2^48: the GPU numbers
    // a kernel's blocks in 48 bits (block ids, the trace's block keys), while AQL's 32-bit grid
    // sizes can ask for about 2^96 (docs/limits.md).
    uint64_t max_blocks = 1ull << 48;
};

// The blocks of a grid: the workgroups along each dimension (a partial one at the far edge
// counted), multiplied; saturates at UINT64_MAX (three 32-bit dimensions can exceed 64 bits).
uint64_t grid_blocks(const uint32_t grid[3], const uint16_t workgroup[3]);

// M4: gpuvp's draw packet, an AQL vendor-specific packet (type 0) that starts with ROCm's AMD
// vendor packet header (header, format byte, reserved byte). The command processor serves the
// formats kDrawPacketFormat and kCopyPacketFormat and rejects any other as unsupported.
constexpr uint8_t kDrawPacketFormat = 0x80;
struct DrawPacket {
    hsa_amd_vendor_packet_header_t header;
    uint32_t vertex_tasks;
    uint32_t vertex_cycles;                // per vertex task, in GPU cycles
    uint32_t pixel_tasks_per_vertex_task;  // ready when their vertex task ends
    uint32_t pixel_cycles;                 // per pixel task
    uint32_t reserved0[9];
    hsa_signal_t completion_signal;
};
static_assert(sizeof(DrawPacket) == kPacketBytes);
static_assert(offsetof(DrawPacket, completion_signal) == 56);

// A replayed trace's copy or fill (CUDA runs them on copy engines): an AQL vendor-specific
// packet of format kCopyPacketFormat. The command processor hands it to its copy engine, which
// holds the queue's place for `duration_ns` without using the SMs, then writes the completion
// signal.
constexpr uint8_t kCopyPacketFormat = 0x81;
struct CopyPacket {
    hsa_amd_vendor_packet_header_t header;
    uint32_t fill;         // 1: a fill (memset), 0: a copy
    uint64_t bytes;        // what it moves (for the record; the time is duration_ns)
    uint64_t duration_ns;  // how long the copy engine works on it
    uint64_t reserved0[4];
    hsa_signal_t completion_signal;
};
static_assert(sizeof(CopyPacket) == kPacketBytes);
static_assert(offsetof(CopyPacket, completion_signal) == 56);
constexpr uint64_t kMaxCopyNs = 1'000'000'000'000ull;  // 1000 s: a copy's duration at most

struct DrawLimits {
    uint32_t max_vertex_tasks = 1u << 20;
    uint32_t max_task_cycles = 1000000;
    uint32_t max_pixel_tasks_per_vertex_task = 1024;  // the shading array's pixel queue
};

PacketCheck check_header(uint16_t header);
PacketCheck check_dispatch(const hsa_kernel_dispatch_packet_t& p, const DispatchLimits& limits);

// A dispatch's grid and workgroup sizes as HSA requires them in each of 3 dimensions: none 0,
// 1 in a dimension past `dimensions`, and a grid no smaller than its workgroup (hsa.h). The CP
// checks every packet with it (check_dispatch), and the scenario loader a kernel's `grid` and
// `block`; the field named is the packet's (grid_size_y).
PacketCheck check_grid(const uint32_t grid[3], const uint16_t workgroup[3], unsigned dimensions);
// The dimensions a dispatch of this grid and workgroup uses: the last with a size above 1.
unsigned dispatch_dimensions(const uint32_t grid[3], const uint16_t workgroup[3]);
PacketCheck check_barrier(const hsa_barrier_and_packet_t& p);  // AND and OR share the layout
PacketCheck check_draw(const DrawPacket& p, const DrawLimits& limits);
PacketCheck check_copy(const CopyPacket& p);
// A vendor-specific packet's format byte (the AMD vendor header's AmdFormat).
inline uint8_t vendor_format(const unsigned char* packet) { return packet[2]; }

}  // namespace gpuvp
