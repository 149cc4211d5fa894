#include <gpuvp/models/sm/scalar_unit.h>
#include <gpuvp/models/sm/sm.h>

#include <algorithm>

namespace gpuvp {

using sc_core::sc_time;

ScalarUnit::ScalarUnit(StreamingMultiprocessor& sm, const SmConfig& config)
    : sm_(sm), cfg_(config), pool_(config.scalar_pool, config.scalar_split, config.scalar_quota, config.slice_threshold),
      warps_(config.warp_slots), kernels_(config.max_kernels) {}

uint32_t ScalarUnit::need(uint32_t kernel_slot, ScalarLevel level) const {
    const uint32_t n = sm_.contexts_[kernel_slot].regs.scalars[size_t(level)];
    if (level != ScalarLevel::slice) return n;
    return n * ((cfg_.warp_size + cfg_.slice_size - 1) / cfg_.slice_size);  // every slice of the warp
}

void ScalarUnit::block_arrived(uint32_t row) {
    if (row >= blocks_.size()) blocks_.resize(row + 1);
    blocks_[row] = BlockState{};
    const BlockDescriptor& d = sm_.blocks_[row].desc;
    KernelState& k = kernels_[d.kernel_slot];
    k.block_warps = d.warps;
    if (k.resident_blocks++ == 0) split_for_kernels();
}

// Split `kernel`: the quotas follow what the kernels on this SM would hold at once per level
// (each with as many of its blocks as the warp slots allow; slices live for one instruction,
// so the threshold bounds them), every level getting at least one block's worth of each
// kernel. Recomputed when a kernel's first block arrives, when a block leaves and when a
// kernel's kernel-level registers go back.
void ScalarUnit::split_for_kernels() {
    if (cfg_.scalar_split != ScalarSplit::kernel) return;
    std::array<uint64_t, 4> least{}, demand{};
    for (uint32_t ks = 0; ks < kernels_.size(); ++ks) {
        const KernelState& k = kernels_[ks];
        if (k.resident_blocks == 0 && !k.reserved) continue;  // (a kernel whose next blocks are still to come counts)
        const uint64_t blocks = std::max<uint64_t>(1, cfg_.warp_slots / std::max<uint32_t>(1, k.block_warps));
        const uint64_t warps = blocks * k.block_warps;
        const uint64_t slice = need(ks, ScalarLevel::slice);
        const std::array<uint64_t, 4> one{need(ks, ScalarLevel::kernel), need(ks, ScalarLevel::workgroup),
                                          k.block_warps * need(ks, ScalarLevel::warp), slice};
        const std::array<uint64_t, 4> all{one[0], blocks * one[1], warps * need(ks, ScalarLevel::warp),
                                          std::min<uint64_t>(warps * slice, cfg_.slice_threshold)};
        for (size_t l = 0; l < 4; ++l) {
            least[l] = std::max(least[l], one[l]);
            demand[l] += all[l];
        }
    }
    pool_.set_quotas(least, demand);
}

// Whether every warp of the block in `row` can start now, beside the warps that the blocks
// already started still have to start. A kernel-level update waits for every warp of the
// kernel's started blocks, and the warps waiting for it hold their slots and registers: a
// block whose warps could be left without a slot behind them could wait for ever.
bool ScalarUnit::room_for_whole(uint32_t row) const {
    uint64_t slots = 0, regs = 0;
    for (size_t i = 0; i < sm_.blocks_.size(); ++i) {
        if (!sm_.block_used_[i] || (i != row && (i >= blocks_.size() || !blocks_[i].reserved))) continue;
        const StreamingMultiprocessor::Block& b = sm_.blocks_[i];
        slots += b.desc.warps - b.next_warp;
        regs += uint64_t(b.desc.warps - b.next_warp) * b.desc.regs_per_warp;
    }
    return slots <= sm_.free_slots_ && regs <= sm_.free_regs_;
}

// The block's kernel- (if the kernel has none here yet), workgroup- and warp-level registers,
// once all its warps can start.
bool ScalarUnit::reserve(uint32_t row) {
    BlockState& b = blocks_[row];
    if (b.reserved) return true;
    if (sm_.blocks_[row].whole_start && !room_for_whole(row)) return false;
    const BlockDescriptor& d = sm_.blocks_[row].desc;
    KernelState& k = kernels_[d.kernel_slot];
    const uint32_t kernel = k.reserved ? 0 : need(d.kernel_slot, ScalarLevel::kernel);
    uint32_t slices = 0;  // dynamic: one warp's slices of any kernel here stay free
    for (uint32_t ks = 0; ks < kernels_.size(); ++ks)
        if (kernels_[ks].resident_blocks > 0) slices = std::max(slices, need(ks, ScalarLevel::slice));
    if (!pool_.reserve({kernel, need(d.kernel_slot, ScalarLevel::workgroup), d.warps * need(d.kernel_slot, ScalarLevel::warp), 0},
                       slices)) {
        if (!b.pool_waited) ++sm_.stats_.pool_waits;
        b.pool_waited = true;
        return false;
    }
    k.reserved = true;
    b.reserved = true;
    b.warp_sets = d.warps;
    return true;
}

bool ScalarUnit::ready(uint32_t slot, const Instruction& in, const sc_time& now) {
    StreamingMultiprocessor::Warp& w = sm_.warps_[slot];
    const uint32_t row = w.block;
    const uint32_t ks = sm_.blocks_[row].desc.kernel_slot;
    const ScalarLevel level = ScalarLevel(in.mod & 3);
    const uint32_t n = need(ks, level);
    if (n == 0) return true;
    if (level == ScalarLevel::slice) {
        if (!pool_.allocate_slice(n)) {
            ++sm_.stats_.scalar_stalls;
            w.pool_stall = true;
            stalled_.push_back(slot);
            return false;  // tried again when slices end
        }
        w.slice_scalars = true;
        changed(now);
        return true;
    }
    bool& allocated = level == ScalarLevel::kernel      ? kernels_[ks].allocated
                      : level == ScalarLevel::workgroup ? blocks_[row].wg_scalars
                                                        : warps_[slot].warp_scalars;
    if (!allocated) {  // its first need: out of the block's reservation
        pool_.allocate_reserved(level, n);
        allocated = true;
        changed(now);
    }
    return true;
}

bool ScalarUnit::sync_before_update(uint32_t slot, const Instruction& in, const sc_time& now) {
    const ScalarLevel level = ScalarLevel(in.mod & 3);
    if (!(in.mod & kScalarWriteFlag) || (level != ScalarLevel::kernel && level != ScalarLevel::workgroup)) return false;
    StreamingMultiprocessor::Warp& w = sm_.warps_[slot];
    const uint32_t ks = sm_.blocks_[w.block].desc.kernel_slot;
    w.pc += kInstructionBytes;
    w.sync_wait = true;
    warps_[slot].sync_cycles = std::max<uint16_t>(1, in.a);
    if (level == ScalarLevel::workgroup) {
        blocks_[w.block].wg_sync.push_back(slot);
        check_workgroup_sync(w.block, now);
    } else {
        kernels_[ks].kernel_sync.push_back(slot);
        check_kernel_sync(ks, now);
    }
    return true;
}

void ScalarUnit::check_workgroup_sync(uint32_t row, const sc_time& now) {
    BlockState& b = blocks_[row];
    const StreamingMultiprocessor::Block& sb = sm_.blocks_[row];
    if (b.wg_sync.empty() || b.wg_sync.size() < sb.desc.warps - sb.done_warps) return;
    ++sm_.stats_.scalar_updates;  // every warp of the block is here: the value is overwritten
    for (uint32_t s : b.wg_sync) {
        sm_.warps_[s].sync_wait = false;
        sm_.make_ready(s, now + sm_.clock_.cycles(warps_[s].sync_cycles));
    }
    b.wg_sync.clear();
}

// The sharers: every warp that has not ended of every block of the kernel started on this SM
// (holding its reservation), its unstarted warps included. A block of a kernel that writes
// kernel-level scalars starts whole (room_for_whole), so those warps are sure to start and
// come here.
void ScalarUnit::check_kernel_sync(uint32_t kernel_slot, const sc_time& now) {
    KernelState& k = kernels_[kernel_slot];
    if (k.kernel_sync.empty()) return;
    uint64_t sharers = 0;
    for (size_t i = 0; i < blocks_.size(); ++i) {
        const StreamingMultiprocessor::Block& b = sm_.blocks_[i];
        if (sm_.block_used_[i] && blocks_[i].reserved && b.desc.kernel_slot == kernel_slot) sharers += b.desc.warps - b.done_warps;
    }
    if (k.kernel_sync.size() < sharers) return;
    ++sm_.stats_.scalar_updates;  // every warp of the kernel's started blocks on this SM is here
    for (uint32_t s : k.kernel_sync) {
        sm_.warps_[s].sync_wait = false;
        sm_.make_ready(s, now + sm_.clock_.cycles(warps_[s].sync_cycles));
    }
    k.kernel_sync.clear();
}

void ScalarUnit::slices_done(uint32_t slot, const sc_time& now) {
    StreamingMultiprocessor::Warp& w = sm_.warps_[slot];
    if (!w.slice_scalars) return;
    w.slice_scalars = false;
    pool_.free_slice(need(sm_.blocks_[w.block].desc.kernel_slot, ScalarLevel::slice));
    freed(now);
}

void ScalarUnit::warp_left(uint32_t slot, const sc_time& now) {
    StreamingMultiprocessor::Warp& w = sm_.warps_[slot];
    const uint32_t row = w.block;
    const uint32_t ks = sm_.blocks_[row].desc.kernel_slot;
    KernelState& k = kernels_[ks];
    BlockState& b = blocks_[row];
    if (w.pool_stall) stalled_.erase(std::remove(stalled_.begin(), stalled_.end(), slot), stalled_.end());
    if (w.sync_wait) {  // a warp that failed while waiting
        b.wg_sync.erase(std::remove(b.wg_sync.begin(), b.wg_sync.end(), slot), b.wg_sync.end());
        k.kernel_sync.erase(std::remove(k.kernel_sync.begin(), k.kernel_sync.end(), slot), k.kernel_sync.end());
    }
    w.pool_stall = w.sync_wait = false;
    slices_done(slot, now);
    if (b.warp_sets > 0) {  // its warp-level set, allocated or only reserved
        --b.warp_sets;
        pool_.release(ScalarLevel::warp, need(ks, ScalarLevel::warp), warps_[slot].warp_scalars);
        freed(now);
    }
    warps_[slot].warp_scalars = false;
}

void ScalarUnit::sharers_left(uint32_t row, const sc_time& now) {
    check_workgroup_sync(row, now);
    check_kernel_sync(sm_.blocks_[row].desc.kernel_slot, now);
}

void ScalarUnit::block_left(uint32_t row, const sc_time& now) {
    BlockState& b = blocks_[row];
    const uint32_t ks = sm_.blocks_[row].desc.kernel_slot;
    KernelState& k = kernels_[ks];
    if (b.reserved) {
        pool_.release(ScalarLevel::workgroup, need(ks, ScalarLevel::workgroup), b.wg_scalars);
        // Warps that never ran (their block failed) give their sets back now.
        pool_.release(ScalarLevel::warp, b.warp_sets * need(ks, ScalarLevel::warp), false);
        b.warp_sets = 0;
        b.reserved = b.wg_scalars = false;
    }
    // The kernel's last block here, and no more will come: its kernel-level set goes back.
    if (--k.resident_blocks == 0 && k.drained) release_kernel(ks);
    split_for_kernels();  // what is held changed: quotas held up for it can go back
    freed(now);
}

void ScalarUnit::kernel_drained(uint32_t kernel_slot, const sc_time& now) {
    KernelState& k = kernels_[kernel_slot];
    if (k.resident_blocks > 0) {  // freed when the last of them ends
        k.drained = true;
        return;
    }
    const bool held = k.reserved;
    release_kernel(kernel_slot);
    if (!held) return;
    split_for_kernels();
    freed(now);
}

// The kernel's kernel-level set (if reserved) goes back, and the slot is ready for the next kernel.
void ScalarUnit::release_kernel(uint32_t kernel_slot) {
    KernelState& k = kernels_[kernel_slot];
    if (k.reserved) pool_.release(ScalarLevel::kernel, need(kernel_slot, ScalarLevel::kernel), k.allocated);
    k = KernelState{};
}

void ScalarUnit::freed(const sc_time& now) {
    changed(now);
    for (uint32_t s : stalled_) {
        sm_.warps_[s].pool_stall = false;
        sm_.make_ready(s, now + sm_.clock_.cycles(1));
    }
    stalled_.clear();
}

void ScalarUnit::changed(const sc_time& now) {
    if (sm_.observer_) sm_.observer_->scalar_pool(sm_.id_, pool_.used_by_level(), now);
}

void ScalarUnit::check_deadlock(const sc_time& now) {
    for (const StreamingMultiprocessor::Warp& w : sm_.warps_)
        if (w.active && !w.waiting()) return;  // something may still run
    const std::vector<uint32_t> stuck = stalled_;
    for (uint32_t s : stuck)
        if (sm_.warps_[s].active) sm_.fail(s, KernelError::scalar_pool, now);
}

}  // namespace gpuvp
