#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/tlm_util.h>

namespace gpuvp {

PacketCheck check_descriptor(const amd_kernel_code_t& d, const hsa_kernel_dispatch_packet_t& p,
                             uint32_t warp_size, uint32_t sm_registers, KernelResources& out) {
    auto fail = [](std::string field, std::string detail) {
        return PacketCheck{QueueError::invalid_descriptor, "kernel_descriptor." + field, std::move(detail)};
    };
    if (d.amd_kernel_code_version_major != AMD_KERNEL_CODE_VERSION_MAJOR)
        return fail("amd_kernel_code_version_major", "version " + std::to_string(d.amd_kernel_code_version_major) +
                                                         ", expected " + std::to_string(AMD_KERNEL_CODE_VERSION_MAJOR));
    if (d.kernel_code_entry_byte_offset < 256 || d.kernel_code_entry_byte_offset % 8)
        return fail("kernel_code_entry_byte_offset", std::to_string(d.kernel_code_entry_byte_offset) +
                                                         " is inside the descriptor or not 8-byte aligned");
    if (d.wavefront_size > 10 || (1u << d.wavefront_size) != warp_size)
        return fail("wavefront_size", "code built for " + std::to_string(1u << (d.wavefront_size & 15)) +
                                          "-wide warps, the SMs run " + std::to_string(warp_size));
    if (d.workitem_vgpr_count == 0)
        return fail("workitem_vgpr_count", "a kernel needs at least one vector register");
    if (uint64_t(d.workitem_vgpr_count) * warp_size > sm_registers)
        return fail("workitem_vgpr_count", "one warp needs more registers than an SM has");
    if (p.group_segment_size < d.workgroup_group_segment_byte_size)
        return fail("workgroup_group_segment_byte_size",
                    "the packet's group_segment_size " + std::to_string(p.group_segment_size) +
                        " is below the kernel's static " + std::to_string(d.workgroup_group_segment_byte_size));
    if (d.kernarg_segment_byte_size && p.kernarg_address == nullptr)
        return fail("kernarg_segment_byte_size", "the kernel takes " + std::to_string(d.kernarg_segment_byte_size) +
                                                     " bytes of arguments but the packet's kernarg_address is null");
    out.code_entry = p.kernel_object + uint64_t(d.kernel_code_entry_byte_offset);
    out.vgprs = d.workitem_vgpr_count;
    out.sgprs = d.wavefront_sgpr_count;
    out.group_segment = d.workgroup_group_segment_byte_size;
    out.kernarg_size = d.kernarg_segment_byte_size;
    out.wavefront_size = 1u << d.wavefront_size;
    return {};
}


}  // namespace gpuvp
