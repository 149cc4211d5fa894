// The kernel descriptor at a dispatch packet's kernel_object: ROCm's amd_kernel_code_t
// (hsa/amd_hsa_kernel_code.h, 256 bytes), followed by gpuvp's documented extension for what
// the real descriptor does not hold (scalar registers per level, warp priorities), then code.
//
//   kernel_object + 0    amd_kernel_code_t
//   kernel_object + 256  DescriptorExtension ("GPVX")
//   kernel_object + 512  code entry (kernel_code_entry_byte_offset = 512)
#pragma once
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/messages.h>

#include <hsa/amd_hsa_kernel_code.h>

#include <cstdint>

namespace gpuvp {

static_assert(sizeof(amd_kernel_code_t) == 256);

constexpr uint32_t kExtensionMagic = 0x58565047;  // "GPVX"
constexpr uint64_t kExtensionOffset = 256;
constexpr uint64_t kCodeEntryOffset = 512;
constexpr unsigned kMaxWarpPriorities = 232;

struct DescriptorExtension {
    uint32_t magic;
    uint8_t version;                  // 1
    uint8_t syncs;                    // kSync* bits (messages.h): barrier, workgroup- and kernel-level scalar writes
    uint16_t warp_priority_count;     // CPR values given (M2); warps past the list get the last
    uint16_t scalars[4];              // scalar registers per level: kernel, workgroup, warp, slice (M3)
    uint64_t global_bytes;            // size of the kernel's global buffer
    uint8_t warp_priorities[kMaxWarpPriorities];
};
static_assert(sizeof(DescriptorExtension) == 256);

// What the workload manager takes from the descriptor.
struct KernelResources {
    uint64_t code_entry = 0;      // absolute address of the first instruction
    uint32_t vgprs = 0;           // vector registers per work-item
    uint32_t sgprs = 0;           // scalar registers per warp
    uint32_t group_segment = 0;   // static group segment bytes per block
    uint64_t kernarg_size = 0;
    uint32_t wavefront_size = 0;  // threads per warp the code was built for
};

// Checks a descriptor against the packet that names it and the SMs it must run on.
PacketCheck check_descriptor(const amd_kernel_code_t& d, const hsa_kernel_dispatch_packet_t& p,
                             uint32_t warp_size, uint32_t sm_registers, KernelResources& out);

}  // namespace gpuvp
