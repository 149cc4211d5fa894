#include <gpuvp/models/glc/global_logic_controller.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cstring>

namespace gpuvp {

using sc_core::sc_time;

GlobalLogicController::GlobalLogicController(sc_core::sc_module_name name, const std::vector<SmConfig>& sms,
                                             uint32_t max_kernels, const GlcConfig& config, const Clock& clock,
                                             sc_time bus, std::unique_ptr<PlacementPolicy> policy,
                                             Observer* observer, ScalarPolicy scalar)
    : sc_module(name), regs("regs"), to_sm("to_sm"), to_cp("to_cp"), cfg_(config), clock_(clock), bus_(bus),
      policy_(std::move(policy)), observer_(observer), drain_notices_(scalar == ScalarPolicy::multilevel),
      warp_size_(sms.at(0).warp_size) {
    tables_.kernels.resize(max_kernels);
    for (const SmConfig& sm : sms) tables_.sms.push_back(SmRow{sm.registers, sm.warp_slots, sm.shared_memory, kNoPriority});
    views_.resize(sms.size());
    for (size_t i = 0; i < sms.size(); ++i) views_[i].reported = tables_.sms[i];
    regs.register_b_transport(this, &GlobalLogicController::b_transport);
    regs.register_transport_dbg(this, &GlobalLogicController::transport_dbg);
    SC_HAS_PROCESS(GlobalLogicController);
    SC_THREAD(run);
}

void GlobalLogicController::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    if (reject_unsupported(gp)) return;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    delay += bus_;
    if (gp.is_write() && a == map::kGlcRegisterKernel && n == sizeof(KernelRegistration)) {
        inbox_.post_in(Message{true, from_bytes<KernelRegistration>(gp.get_data_ptr()), {}}, delay);
    } else if (gp.is_write() && a == map::kGlcSmNotice && n == sizeof(SmNotice)) {
        inbox_.post_in(Message{false, {}, from_bytes<SmNotice>(gp.get_data_ptr())}, delay);
    } else {
        if (gp.is_read() && transport_dbg(0, gp) == n) gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// Table images: kernel rows at kGlcKernelTable (the first 32 bytes of KernelRow), SM rows at
// kGlcSmTable (SmRow, padded to 32 bytes).
unsigned GlobalLogicController::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    if (!gp.is_read()) return 0;
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    unsigned char* p = gp.get_data_ptr();
    auto image = [&](uint64_t base, size_t rows, auto row_bytes) -> unsigned {
        if (a < base || a + n > base + rows * map::kTableRowBytes) return 0;
        for (unsigned i = 0; i < n; ++i) {
            uint64_t off = a - base + i;
            unsigned char row[map::kTableRowBytes] = {};
            row_bytes(off / map::kTableRowBytes, row);
            p[i] = row[off % map::kTableRowBytes];
        }
        return n;
    };
    if (unsigned r = image(map::kGlcKernelTable, tables_.kernels.size(), [&](size_t i, unsigned char* row) {
            std::memcpy(row, &tables_.kernels[i], 32);
        }))
        return r;
    return image(map::kGlcSmTable, tables_.sms.size(),
                 [&](size_t i, unsigned char* row) { std::memcpy(row, &tables_.sms[i], sizeof(SmRow)); });
}

void GlobalLogicController::run() {
    for (;;) {
        const sc_time now = sc_core::sc_time_stamp();
        while (inbox_.due(now)) {
            const Message m = inbox_.pop();
            if (m.is_registration) apply(m.reg, now);
            else apply(m.notice, now);
        }
        for (uint32_t slot : done_) {
            KernelDone d{slot, uint32_t(tables_.kernels[slot].error), tables_.kernels[slot].fault_address};
            if (observer_) observer_->kernel_stage(slot, Stage::last_block_done, now);
            tables_.kernels[slot] = KernelRow{};
            kernel_row_changed(slot, now);
            sc_time delay = sc_core::SC_ZERO_TIME;
            write_msg(to_cp, payloads_, map::kCpKernelDone, d, delay);
        }
        done_.clear();
        if (auto p = policy_->next(tables_)) {
            wait(clock_.cycles(cfg_.decision_cycles));
            if (const uint64_t written = place(*p); written && cfg_.descriptor_cycles)
                wait(clock_.cycles(written * cfg_.descriptor_cycles));  // the next decision after the last write
            continue;
        }
        inbox_.wait_for_next();
    }
}

void GlobalLogicController::apply(const KernelRegistration& r, const sc_time& now) {
    if (r.kernel_slot >= tables_.kernels.size()) return;
    KernelRow& k = tables_.kernels[r.kernel_slot];
    k = KernelRow{};
    k.valid = 1;
    k.priority = r.priority;
    k.regs_per_warp = r.regs_per_warp;
    k.warps_per_block = r.warps_per_block;
    k.regs_per_block = r.regs_per_warp * r.warps_per_block;
    k.shared_per_block = r.shared_per_block;
    k.threads_per_block = r.threads_per_block;
    k.blocks = k.undispatched = r.blocks;
    for (int i = 0; i < 3; ++i) {
        k.grid_size[i] = r.grid_size[i];
        k.workgroup_size[i] = r.workgroup_size[i];
    }
    k.arrival = arrivals_++;
    kernel_row_changed(r.kernel_slot, now);
    if (k.blocks == 0) done_.push_back(r.kernel_slot);
}

void GlobalLogicController::apply(const SmNotice& n, const sc_time& now) {
    if (n.sm >= tables_.sms.size()) return;
    if (n.kind == NoticeKind::status) {
        SmView& v = views_[n.sm];
        v.reported = SmRow{n.free_regs, n.free_slots, n.free_shared, n.highest_priority};
        while (!v.in_flight.empty() && v.in_flight.front().seq <= n.blocks_seen) v.in_flight.pop_front();
        sm_row_from_view(n.sm);
        sm_row_changed(n.sm, now);
        return;
    }
    if (n.kernel_slot >= tables_.kernels.size()) return;
    KernelRow& k = tables_.kernels[n.kernel_slot];
    if (n.kind == NoticeKind::error && k.error == KernelError::none) {
        k.error = KernelError(n.error);
        k.fault_address = n.fault_address;
        const bool more = k.undispatched > 0;
        k.undispatched = 0;  // a failed kernel places no more blocks
        kernel_row_changed(n.kernel_slot, now);
        if (more && k.dispatched > 0) drained(n.kernel_slot);
    }
    if (n.kind == NoticeKind::block_done) ++k.finished;
    if (k.valid && k.undispatched == 0 && k.finished == k.dispatched &&
        std::find(done_.begin(), done_.end(), n.kernel_slot) == done_.end())
        done_.push_back(n.kernel_slot);
}

// The SM status row: what the SM last reported, less the blocks sent to it since.
void GlobalLogicController::sm_row_from_view(uint32_t sm) {
    const SmView& v = views_[sm];
    SmRow r = v.reported;
    for (const InFlight& f : v.in_flight) {
        r.free_regs -= std::min(r.free_regs, f.regs);
        r.free_slots -= std::min(r.free_slots, f.slots);
        r.free_shared -= std::min(r.free_shared, f.shared);
        r.highest_priority = std::min(r.highest_priority, f.priority);
    }
    tables_.sms[sm] = r;
}

uint64_t GlobalLogicController::place(const Placement& p) {
    const sc_time now = sc_core::sc_time_stamp();
    KernelRow& k = tables_.kernels[p.kernel_slot];
    SmView& v = views_[p.sm];
    const uint64_t count = std::min<uint64_t>(p.blocks, k.undispatched);
    const sc_time descriptor = clock_.cycles(cfg_.descriptor_cycles);
    sc_time written = sc_core::SC_ZERO_TIME;  // from now, when the current descriptor's write ends
    for (uint64_t i = 0; i < count; ++i) {
        written += descriptor;
        const uint64_t id = k.blocks - k.undispatched;
        const uint32_t threads = block_threads(k.grid_size, k.workgroup_size, id);  // partial at the edges
        const uint32_t warps = (threads + warp_size_ - 1) / warp_size_;
        BlockDescriptor d{p.kernel_slot, k.priority, id, warps, threads, k.regs_per_warp, k.shared_per_block};
        v.in_flight.push_back(InFlight{++v.sent, warps * k.regs_per_warp, warps, k.shared_per_block, k.priority});
        --k.undispatched;
        ++k.dispatched;
        ++blocks_dispatched_;
        ++(p.kind == PlacementKind::whole_blocks ? stats_.whole_blocks
           : p.kind == PlacementKind::first_sm   ? stats_.first_sm
                                                 : stats_.second_sm);
        if (k.dispatched == 1 && observer_)
            observer_->kernel_stage(p.kernel_slot, Stage::first_block_dispatched, now + written);
        sc_time delay = written;
        write_msg(to_sm[p.sm], payloads_, map::kSmDispatch, d, delay);
    }
    sm_row_from_view(p.sm);
    kernel_row_changed(p.kernel_slot, now);
    sm_row_changed(p.sm, now);
    if (count > 0 && k.undispatched == 0) drained(p.kernel_slot, written);
    return count;
}

// Written after the kernel's last block descriptor, so an SM takes it after that block's arrival.
void GlobalLogicController::drained(uint32_t slot, const sc_time& after) {
    if (!drain_notices_) return;
    const KernelDrained d{slot, 0};
    for (size_t sm = 0; sm < views_.size(); ++sm) {
        sc_time delay = after;
        write_msg(to_sm[int(sm)], payloads_, map::kSmKernelDrained, d, delay);
    }
}

void GlobalLogicController::kernel_row_changed(uint32_t slot, const sc_time& t) {
    if (!observer_ || !observer_->wants_table_updates()) return;
    std::string v;  // empty when only counted (a full trace)
    if (observer_->wants_table_values()) {
        const KernelRow& k = tables_.kernels[slot];
        v = k.valid ? "prio " + std::to_string(k.priority) + " regs/warp " + std::to_string(k.regs_per_warp) +
                          " warps/block " + std::to_string(k.warps_per_block) + " shared/block " +
                          std::to_string(k.shared_per_block) + " undispatched " + std::to_string(k.undispatched)
                    : "free";
    }
    observer_->table_update(TableSource{}, "kernel_status", slot, v, t);
}

void GlobalLogicController::sm_row_changed(uint32_t sm, const sc_time& t) {
    if (!observer_ || !observer_->wants_table_updates()) return;
    std::string v;  // empty when only counted (a full trace)
    if (observer_->wants_table_values()) {
        const SmRow& s = tables_.sms[sm];
        v = "free_regs " + std::to_string(s.free_regs) + " free_slots " + std::to_string(s.free_slots) +
            " free_shared " + std::to_string(s.free_shared) + " highest_prio " +
            (s.highest_priority == kNoPriority ? std::string("none") : std::to_string(s.highest_priority));
    }
    observer_->table_update(TableSource{}, "sm_status", sm, v, t);
}

}  // namespace gpuvp
