// The `packets` fuzz target's input: what a buggy host firmware does to two of the GPU's
// hardware queues, as bytes; the harness's memory layout, which the seeds' packets name; and
// the seed corpus (docs/fuzzing.md describes the format).
//
//   byte 0   ring sizes: bits 0-2 queue 0, bits 4-6 queue 1; 4 << (n % 5) packets (4..64)
//   byte 1   priorities: bits 0-3 queue 0, bits 4-7 queue 1
//   then steps, at most kMaxSteps; a step is an op byte (bits 0-3 the op, bit 4 the queue)
//   and its operands, little-endian. A step whose operands are cut short ends the input;
//   an op byte of no op is skipped.
#pragma once
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/memory_map.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp::fuzz {

enum class Op : uint8_t {
    packet = 0,         // 64 bytes: written at the write index (body, then header), index + 1
    doorbell = 1,       // 8 bytes: rung with this value
    doorbell_next = 2,  // rung with write index - 1 (what a correct firmware rings)
    wait = 3,           // 1 byte: waits n x 64 ns
    set_index = 4,      // 2 bytes: the write index becomes this
    restart = 5,        // the queue disabled and enabled again at once (its ring kept), index 0
    mmio = 6,           // 2 bytes offset (bits 0-14), 1 byte width (1 << (n & 3)), 8 bytes value:
                        // a posted write of the CP's registers (the firmware goes on at once)
    signal = 7,         // 1 byte signal (n % kSignals), 8 bytes value: a host store to it
    body = 8,           // 64 bytes: written with an INVALID header at the write index, index + 1
    header = 9,         // 2 bytes: written as the header of the packet before the write index
};
constexpr unsigned kOps = 10;
constexpr size_t kMaxSteps = 256;
constexpr unsigned kQueues = 2;

struct Step {
    Op op = Op::packet;
    uint8_t queue = 0;
    std::array<uint8_t, kPacketBytes> packet{};  // packet, body
    uint64_t value = 0;                           // doorbell, wait, set_index, mmio, signal, header
    uint16_t offset = 0;                          // mmio
    uint8_t width = 8;                            // mmio: 1, 2, 4 or 8
    uint8_t index = 0;                            // signal
};

struct Input {
    std::array<uint32_t, kQueues> ring_packets{64, 64};  // a power of two, 4..64
    std::array<uint32_t, kQueues> priority{0, 0};
    std::vector<Step> steps;
};

Input decode(const uint8_t* data, size_t size);
std::vector<uint8_t> encode(const Input& input);

// The harness's system: host memory at 0, the GPU's mmio at kMmioBase (as gpuvp's host model
// maps it), device memory from map::kDeviceBase. The harness writes all of it afresh for
// every input (rings INVALID, signals 1, kernel arguments, both code objects).
namespace layout {
constexpr uint64_t kHostBytes = 1ull << 20;
constexpr uint64_t kDeviceBytes = 4ull << 20;
constexpr uint64_t kMmioBase = 0x4000'0000'0000ull;
constexpr uint64_t kRing[kQueues] = {0x10000, 0x11000};       // 64 packets of room each
constexpr uint64_t kReadIndex[kQueues] = {0x12000, 0x12040};  // where the CP posts its read index
constexpr uint64_t kSignals = 0x13000;                         // signal i at kSignals + 64 i, each 1
constexpr unsigned kSignalCount = 8;
constexpr uint64_t kKernarg = 0x14000;  // 64 bytes: the global buffer's address and size
constexpr uint64_t kBuffer = map::kDeviceBase + 0x10'0000, kBufferBytes = 0x1'0000;
// Kernel A in device memory: kernarg_load, vector work, a global load and store.
constexpr uint64_t kKernelA = map::kDeviceBase + 0x1'0000;
// Kernel B in system memory (fetched over the link): M2 locks, M3 scalar levels, a barrier.
constexpr uint64_t kKernelB = 0x2'0000;
constexpr uint32_t kKernelBShared = 64;  // its group segment (the lock word)
}  // namespace layout

uint64_t signal_address(unsigned i);
// The two code objects the harness loads, for warps of `warp_size` (multi-level scalars).
std::vector<unsigned char> kernel_a(uint32_t warp_size);
std::vector<unsigned char> kernel_b(uint32_t warp_size);

// Valid packets at the layout's addresses (`signal` an index, or -1 for none).
std::array<uint8_t, kPacketBytes> dispatch(uint64_t kernel_object, std::array<uint32_t, 3> grid,
                                           std::array<uint16_t, 3> workgroup, int signal, bool barrier = false);
std::array<uint8_t, kPacketBytes> barrier_packet(hsa_packet_type_t and_or, std::vector<int> deps, int signal);
std::array<uint8_t, kPacketBytes> draw(uint32_t vertex_tasks, uint32_t pixel_tasks_per_vertex_task, int signal);

// The seed corpus: (file name, input). Each runs clean (docs/fuzzing.md).
std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds();

}  // namespace gpuvp::fuzz
