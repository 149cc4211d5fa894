#include <gpuvp/models/wlm/workload_manager.h>
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace gpuvp {

using sc_core::sc_time;

WorkloadManager::WorkloadManager(sc_core::sc_module_name name, const std::vector<SmConfig>& sms, const WlmConfig& config,
                                 const Clock& clock, sc_time bus, Observer* observer)
    : sc_module(name), regs("regs"), mem("mem"), to_isu("to_isu"), to_glc("to_glc"), to_cp("to_cp"), sm_(sms.at(0)), sms_(sms),
      cfg_(config), clock_(clock), bus_(bus), observer_(observer) {
    regs.register_b_transport(this, &WorkloadManager::b_transport);
    regs.register_transport_dbg(this, &WorkloadManager::transport_dbg);
    SC_HAS_PROCESS(WorkloadManager);
    SC_THREAD(run);
}

void WorkloadManager::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    if (reject_unsupported(gp)) return;
    if (!gp.is_write() || gp.get_address() != map::kWlmLaunch || gp.get_data_length() != sizeof(LaunchDescriptor)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    delay += bus_;
    last_launch_ = from_bytes<LaunchDescriptor>(gp.get_data_ptr());
    inbox_.post_in(last_launch_, delay);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned WorkloadManager::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address(), n = gp.get_data_length();
    if (!gp.is_read() || a < map::kWlmLaunch || a - map::kWlmLaunch > sizeof last_launch_ ||
        n > sizeof last_launch_ - (a - map::kWlmLaunch))
        return 0;
    std::memcpy(gp.get_data_ptr(), reinterpret_cast<const unsigned char*>(&last_launch_) + (a - map::kWlmLaunch), n);
    return unsigned(n);
}

void WorkloadManager::run() {
    for (;;) {
        while (!inbox_.due(sc_core::sc_time_stamp())) inbox_.wait_for_next();
        launch(inbox_.pop());
    }
}

void WorkloadManager::reject(const LaunchDescriptor& l, KernelError e) {
    sc_time d = sc_core::SC_ZERO_TIME;
    write_msg(to_cp, payloads_, map::kCpKernelDone, KernelDone{l.kernel_slot, uint32_t(e), l.kernel_object}, d);
}

void WorkloadManager::launch(const LaunchDescriptor& l) {
    // 1. The kernel descriptor: ROCm's amd_kernel_code_t and gpuvp's extension after it.
    unsigned char image[sizeof(amd_kernel_code_t) + sizeof(DescriptorExtension)];
    sc_time d = sc_core::SC_ZERO_TIME;
    auto status = transport(mem, payloads_, tlm::TLM_READ_COMMAND, l.kernel_object, image, sizeof image, d);
    wait(d);
    if (status != tlm::TLM_OK_RESPONSE) return reject(l, KernelError::descriptor_fault);
    if (observer_) observer_->kernel_stage(l.kernel_slot, Stage::descriptor_fetched, sc_core::sc_time_stamp());
    const auto code = from_bytes<amd_kernel_code_t>(image);
    hsa_kernel_dispatch_packet_t p{};
    p.group_segment_size = l.group_segment_size;
    p.kernarg_address = reinterpret_cast<void*>(l.kernarg_address);
    p.kernel_object = l.kernel_object;
    KernelResources res;
    uint32_t most_registers = 0;
    for (const SmConfig& sm : sms_) most_registers = std::max(most_registers, sm.registers);
    if (!check_descriptor(code, p, sm_.warp_size, most_registers, res)) return reject(l, KernelError::descriptor_fault);

    // 2. Resources per block.
    const uint64_t blocks = grid_blocks(l.grid_size, l.workgroup_size);  // at most the CP's max_blocks
    uint32_t threads = 1;
    for (int i = 0; i < 3; ++i) threads *= l.workgroup_size[i];
    KernelRegistration r{};
    r.kernel_slot = l.kernel_slot;
    r.priority = l.priority;
    r.regs_per_warp = res.vgprs * sm_.warp_size;
    r.warps_per_block = (threads + sm_.warp_size - 1) / sm_.warp_size;
    r.threads_per_block = threads;
    r.shared_per_block = l.group_segment_size;
    r.blocks = blocks;
    for (int i = 0; i < 3; ++i) {
        r.grid_size[i] = l.grid_size[i];
        r.workgroup_size[i] = l.workgroup_size[i];
    }
    const bool fits = std::any_of(sms_.begin(), sms_.end(), [&](const SmConfig& sm) {  // one SM holds a whole block
        return r.warps_per_block <= sm.warp_slots && uint64_t(r.regs_per_warp) * r.warps_per_block <= sm.registers &&
               r.shared_per_block <= sm.shared_memory;
    });
    if (!fits) return reject(l, KernelError::resources);
    wait(clock_.cycles(cfg_.setup_cycles));

    // 3. Every ISU's kernel context, then the GLC's kernel row.
    // With them, the scalar registers per level (M3) and the warps' competitive priorities
    // (M2) from the descriptor's extension: warp
    // i of every block gets entry i, warps past the list the last entry. No extension, or an
    // empty list: every warp equal (the SM clears the table with the context).
    IsuContext ctx{res.code_entry, l.kernarg_address, uint32_t(res.kernarg_size), 1, 0, {0, 0, 0, 0}};
    const auto ext = from_bytes<DescriptorExtension>(image + kExtensionOffset);
    if (ext.magic == kExtensionMagic) {
        ctx.syncs = ext.syncs;  // what its blocks' warps may wait for each other at (M1, M3)
        for (int i = 0; i < 4; ++i) ctx.scalars[i] = ext.scalars[i];  // M3: scalar registers per level
    }
    const bool has_cprs = ext.magic == kExtensionMagic && ext.warp_priority_count > 0;
    std::array<uint8_t, map::kCprBytes> cprs{};
    if (has_cprs) {
        const unsigned count = std::min<unsigned>(ext.warp_priority_count, kMaxWarpPriorities);
        for (unsigned i = 0; i < cprs.size(); ++i) cprs[i] = ext.warp_priorities[std::min(i, count - 1)];
    }
    sc_time slowest = sc_core::SC_ZERO_TIME;  // a broadcast: every SM's copy is written at once
    for (unsigned sm = 0; sm < to_isu.size(); ++sm) {
        d = sc_core::SC_ZERO_TIME;
        write_msg(to_isu[sm], payloads_, map::kSmIsuContext + uint64_t(l.kernel_slot) * sizeof(IsuContext), ctx, d);
        if (has_cprs) write_msg(to_isu[sm], payloads_, map::kSmCprTable + uint64_t(l.kernel_slot) * map::kCprBytes, cprs, d);
        slowest = std::max(slowest, d);
    }
    wait(slowest);
    if (observer_) observer_->kernel_stage(l.kernel_slot, Stage::isu_written, sc_core::sc_time_stamp());
    d = sc_core::SC_ZERO_TIME;
    write_msg(to_glc, payloads_, map::kGlcRegisterKernel, r, d);
    wait(d);
    if (observer_) observer_->kernel_stage(l.kernel_slot, Stage::kernel_registered, sc_core::sc_time_stamp());
}

}  // namespace gpuvp
