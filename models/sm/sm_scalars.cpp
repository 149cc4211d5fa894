// M3: the SM's scalar pool (scalar_pool.h), shared by four levels:
//   kernel     one set per kernel on this SM, shared by its blocks here; freed when the last
//              of them ends
//   workgroup  one set per block, freed when the block ends
//   warp       one set per warp, freed when the warp ends
//   slice      one set per slice of a warp (warp_size / slice_size of them) for the slice-level
//              work of one instruction: a slice lives while that work runs, so its registers
//              are freed when the instruction is done (the warp's next issue, or its end);
//              slice space in use is bounded by the slice threshold
// A salu instruction names its level; the level's registers (the kernel's `scalars` count per
// instance) are allocated when the first instruction needs them. So that no warp can wait for
// registers held by warps that wait for it (at a sync before an update), a block starts only
// once its kernel-, workgroup- and warp-level registers can be reserved (the logic controller
// holds it back meanwhile, as it does for warp slots and registers); allocations come out of
// that reservation. A slice allocation the pool cannot serve stalls the warp until slices end.
// The pool never overflows.
// Sync before update: a salu that writes a workgroup-level scalar waits until every warp of
// its block has come to such a write (warps that ended excepted); a kernel-level write until
// every running warp of the kernel on this SM has. Then the value is overwritten in place and
// they all go on. Without `multilevel_scalars` none of this exists (per-warp scalars only).
#include "models/sm/sm.h"

#include <algorithm>

namespace gpuvp {

using sc_core::sc_time;

uint32_t StreamingMultiprocessor::scalar_need(const KernelContext& c, ScalarLevel level) const {
    const uint32_t n = c.regs.scalars[size_t(level)];
    if (level != ScalarLevel::slice) return n;
    return n * ((cfg_.warp_size + cfg_.slice_size - 1) / cfg_.slice_size);  // every slice of the warp
}

void StreamingMultiprocessor::scalars_block_arrived(const Block& b) {
    KernelContext& c = contexts_[b.desc.kernel_slot];
    c.block_warps = b.desc.warps;
    if (c.resident_blocks++ == 0) split_for_kernels();
}

// Split `kernel`: the quotas follow what the kernels on this SM would hold at once per level
// (each with as many of its blocks as the warp slots allow; slices live for one instruction,
// so the threshold bounds them), every level getting at least one block's worth of each
// kernel. Recomputed when a kernel's first block arrives and when its last one leaves.
void StreamingMultiprocessor::split_for_kernels() {
    if (policy_.scalar != ScalarPolicy::multilevel || cfg_.scalar_split != ScalarSplit::kernel) return;
    std::array<uint64_t, 4> least{}, demand{};
    for (const KernelContext& c : contexts_) {
        if (c.resident_blocks == 0) continue;
        const uint64_t blocks = std::max<uint64_t>(1, cfg_.warp_slots / std::max<uint32_t>(1, c.block_warps));
        const uint64_t warps = blocks * c.block_warps;
        const uint64_t slice = scalar_need(c, ScalarLevel::slice);
        const std::array<uint64_t, 4> one{scalar_need(c, ScalarLevel::kernel), scalar_need(c, ScalarLevel::workgroup),
                                          c.block_warps * scalar_need(c, ScalarLevel::warp), slice};
        const std::array<uint64_t, 4> all{one[0], blocks * one[1], warps * scalar_need(c, ScalarLevel::warp),
                                          std::min<uint64_t>(warps * slice, cfg_.slice_threshold)};
        for (size_t l = 0; l < 4; ++l) {
            least[l] = std::max(least[l], one[l]);
            demand[l] += all[l];
        }
    }
    pool_.set_quotas(least, demand);
}

// The block's kernel- (if the kernel has none here yet), workgroup- and warp-level registers.
bool StreamingMultiprocessor::reserve_scalars(Block& b) {
    KernelContext& c = contexts_[b.desc.kernel_slot];
    const uint32_t kernel = c.kernel_reserved ? 0 : scalar_need(c, ScalarLevel::kernel);
    uint32_t slices = 0;  // dynamic: one warp's slices of any kernel here stay free
    for (const KernelContext& k : contexts_)
        if (k.resident_blocks > 0) slices = std::max(slices, scalar_need(k, ScalarLevel::slice));
    if (!pool_.reserve({kernel, scalar_need(c, ScalarLevel::workgroup), b.desc.warps * scalar_need(c, ScalarLevel::warp), 0},
                       slices)) {
        if (!b.pool_waited) ++stats_.pool_waits;
        b.pool_waited = true;
        return false;
    }
    c.kernel_reserved = true;
    b.scalars_reserved = true;
    b.warp_sets = b.desc.warps;
    return true;
}

bool StreamingMultiprocessor::scalars_ready(uint32_t slot, Warp& w, Block& b, const Instruction& in, const sc_time& now) {
    const ScalarLevel level = ScalarLevel(in.mod & 3);
    KernelContext& c = contexts_[b.desc.kernel_slot];
    const uint32_t n = scalar_need(c, level);
    if (n == 0) return true;
    if (level == ScalarLevel::slice) {
        if (!pool_.allocate_slice(n)) {
            ++stats_.scalar_stalls;
            w.pool_stall = true;
            pool_stalled_.push_back(slot);
            return false;  // tried again when slices end
        }
        w.slice_scalars = true;
        pool_changed(now);
        return true;
    }
    bool& allocated = level == ScalarLevel::kernel ? c.kernel_scalars : level == ScalarLevel::workgroup ? b.wg_scalars : w.warp_scalars;
    if (!allocated) {  // its first need: out of the block's reservation
        pool_.allocate_reserved(level, n);
        allocated = true;
        pool_changed(now);
    }
    return true;
}

bool StreamingMultiprocessor::sync_before_update(uint32_t slot, Warp& w, Block& b, const Instruction& in,
                                                 const sc_time& now) {
    const ScalarLevel level = ScalarLevel(in.mod & 3);
    if (!(in.mod & kScalarWriteFlag) || (level != ScalarLevel::kernel && level != ScalarLevel::workgroup)) return false;
    w.pc += kInstructionBytes;
    w.sync_wait = true;
    w.sync_cycles = std::max<uint16_t>(1, in.a);
    w.sync_level = level;
    if (level == ScalarLevel::workgroup) {
        b.wg_sync.push_back(slot);
        check_workgroup_sync(b, now);
        check_kernel_sync(b.desc.kernel_slot, now);
    } else {
        contexts_[b.desc.kernel_slot].kernel_sync.push_back(slot);
        check_kernel_sync(b.desc.kernel_slot, now);
    }
    return true;
}

void StreamingMultiprocessor::check_workgroup_sync(Block& b, const sc_time& now) {
    if (b.wg_sync.empty() || b.wg_sync.size() < b.desc.warps - b.done_warps) return;
    ++stats_.scalar_updates;  // every warp of the block is here: the value is overwritten
    for (uint32_t s : b.wg_sync) {
        warps_[s].sync_wait = false;
        make_ready(s, now + clock_.cycles(warps_[s].sync_cycles));
    }
    b.wg_sync.clear();
}

// Warps of the kernel waiting at a block-level rendezvous (a barrier, a workgroup-level write)
// are not waited for: their block may still have warps to start, in slots held by the warps
// waiting here; they join the next kernel-level update.
void StreamingMultiprocessor::check_kernel_sync(uint32_t kslot, const sc_time& now) {
    KernelContext& c = contexts_[kslot];
    if (c.kernel_sync.empty()) return;
    uint32_t elsewhere = 0;
    for (const Warp& w : warps_)
        if (w.active && blocks_[w.block].desc.kernel_slot == kslot && (w.at_barrier || (w.sync_wait && w.sync_level == ScalarLevel::workgroup)))
            ++elsewhere;
    if (c.kernel_sync.size() + elsewhere < c.active_warps) return;
    ++stats_.scalar_updates;  // every running warp of the kernel on this SM is here
    for (uint32_t s : c.kernel_sync) {
        warps_[s].sync_wait = false;
        make_ready(s, now + clock_.cycles(warps_[s].sync_cycles));
    }
    c.kernel_sync.clear();
}

// A warp's slices end with the instruction that used them.
void StreamingMultiprocessor::slices_done(Warp& w, const sc_time& now) {
    if (!w.slice_scalars) return;
    w.slice_scalars = false;
    pool_.free_slice(scalar_need(contexts_[blocks_[w.block].desc.kernel_slot], ScalarLevel::slice));
    scalars_freed(now);
}

void StreamingMultiprocessor::scalars_warp_left(Warp& w, Block& b, const sc_time& now) {
    const uint32_t slot = uint32_t(&w - warps_.data());
    KernelContext& c = contexts_[b.desc.kernel_slot];
    --c.active_warps;
    if (w.pool_stall) pool_stalled_.erase(std::remove(pool_stalled_.begin(), pool_stalled_.end(), slot), pool_stalled_.end());
    if (w.sync_wait) {  // a warp that failed while waiting
        b.wg_sync.erase(std::remove(b.wg_sync.begin(), b.wg_sync.end(), slot), b.wg_sync.end());
        c.kernel_sync.erase(std::remove(c.kernel_sync.begin(), c.kernel_sync.end(), slot), c.kernel_sync.end());
    }
    w.pool_stall = w.sync_wait = false;
    slices_done(w, now);
    if (b.warp_sets > 0) {  // its warp-level set, allocated or only reserved
        --b.warp_sets;
        pool_.release(ScalarLevel::warp, scalar_need(c, ScalarLevel::warp), w.warp_scalars);
        scalars_freed(now);
    }
    w.warp_scalars = false;
}

void StreamingMultiprocessor::scalars_block_left(Block& b, const sc_time& now) {
    KernelContext& c = contexts_[b.desc.kernel_slot];
    if (b.scalars_reserved) {
        pool_.release(ScalarLevel::workgroup, scalar_need(c, ScalarLevel::workgroup), b.wg_scalars);
        // Warps that never ran (their block failed) give their sets back now.
        pool_.release(ScalarLevel::warp, b.warp_sets * scalar_need(c, ScalarLevel::warp), false);
        b.warp_sets = 0;
        b.scalars_reserved = b.wg_scalars = false;
    }
    if (--c.resident_blocks == 0) {  // the last block of the kernel here
        if (c.kernel_reserved) pool_.release(ScalarLevel::kernel, scalar_need(c, ScalarLevel::kernel), c.kernel_scalars);
        c.kernel_reserved = c.kernel_scalars = false;
    }
    split_for_kernels();  // what is held changed: quotas held up for it can go back
    scalars_freed(now);
}

// Registers come back: every stalled warp tries again.
void StreamingMultiprocessor::scalars_freed(const sc_time& now) {
    pool_changed(now);
    for (uint32_t s : pool_stalled_) {
        warps_[s].pool_stall = false;
        make_ready(s, now + clock_.cycles(1));
    }
    pool_stalled_.clear();
}

void StreamingMultiprocessor::pool_changed(const sc_time& now) {
    if (observer_ && policy_.scalar == ScalarPolicy::multilevel) observer_->scalar_pool(id_, pool_.used_by_level(), now);
}

// Warps wait for scalar registers and nothing else on this SM can run: no warp will free any.
void StreamingMultiprocessor::check_pool_deadlock(const sc_time& now) {
    for (size_t i = 0; i < warps_.size(); ++i)
        if (warps_[i].active && !warps_[i].waiting()) return;  // something may still run
    const std::vector<uint32_t> stuck = pool_stalled_;
    for (uint32_t s : stuck)
        if (warps_[s].active) fail(s, KernelError::scalar_pool, now);
}

}  // namespace gpuvp
