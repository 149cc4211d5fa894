// M1: the SM logic controller's choice of the block whose next warp starts. The order is the
// policy (one file each: arrival_order.h for fifo, priority_order.h for the priority
// placements); choose_block applies it, with the deadlock avoidance every order shares. The
// choice is made again before every warp, so a higher-priority block that has just arrived
// goes first. A pure function of the blocks: tests/module/sm_warp_start_order.cpp runs it
// without a simulation.
#pragma once
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/sm/arrival_order.h>
#include <gpuvp/models/sm/priority_order.h>

#include <cstddef>
#include <cstdint>

namespace gpuvp {

enum class WarpStartOrder : uint8_t {
    arrival,   // the oldest block first (fifo)
    priority,  // the highest-priority block first, re-chosen before every warp (M1)
};

// The placement policy's order on the SM: fifo starts the oldest block first.
constexpr WarpStartOrder warp_start_order(DispatchPolicy d) {
    return d == DispatchPolicy::fifo ? WarpStartOrder::arrival : WarpStartOrder::priority;
}
constexpr const char* warp_start_order_name(WarpStartOrder o) { return o == WarpStartOrder::arrival ? "arrival" : "priority"; }

// The block whose next warp starts, among the `n` blocks at `blocks` for which `open(i)` holds
// (present, warps still to start, not failed); nullptr if none. With `started_only`, only
// among blocks already partly started (some warps started, some not).
//
// Deadlock avoidance (not in the seed, which starts a block's warps one by one without regard
// to block barriers): a block that has not started yet may start only if it and every block
// already partly started fit in the SM together, in `warp_slots` and `registers`. Partly
// started blocks wait at barriers for their unstarted warps; if they could not all be resident
// at once, they could wait for each other for ever. When the chosen block may not start yet,
// the partly started blocks go on, first in the order, and no other block starts.
//
// `Block` has `desc.priority`, `desc.warps`, `desc.regs_per_warp`, `arrival` (its order of
// arrival) and `next_warp` (warps started); `Order::before(a, b)` says whether a goes first.
template <class Order, class Block, class Open>
Block* choose_block(Block* blocks, size_t n, Open open, bool started_only, uint64_t warp_slots, uint64_t registers) {
    Block* best = nullptr;          // any block with warps to start
    Block* best_partial = nullptr;  // a block already partly started
    uint64_t partial_warps = 0, partial_regs = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!open(i)) continue;
        Block& b = blocks[i];
        if (!best || Order::before(b, *best)) best = &b;
        if (b.next_warp > 0) {
            partial_warps += b.desc.warps;
            partial_regs += uint64_t(b.desc.warps) * b.desc.regs_per_warp;
            if (!best_partial || Order::before(b, *best_partial)) best_partial = &b;
        }
    }
    if (started_only) return best_partial;
    if (!best || best->next_warp > 0) return best;
    const bool fits_with_partials = partial_warps + best->desc.warps <= warp_slots &&
                                    partial_regs + uint64_t(best->desc.warps) * best->desc.regs_per_warp <= registers;
    return fits_with_partials ? best : best_partial;
}

// The same with the order chosen at run time: one switch per choice, none per block.
template <class Block, class Open>
Block* choose_block(WarpStartOrder order, Block* blocks, size_t n, Open open, bool started_only, uint64_t warp_slots,
                    uint64_t registers) {
    switch (order) {
    case WarpStartOrder::priority:
        return choose_block<PriorityOrder>(blocks, n, open, started_only, warp_slots, registers);
    case WarpStartOrder::arrival:
        break;
    }
    return choose_block<ArrivalOrder>(blocks, n, open, started_only, warp_slots, registers);
}

}  // namespace gpuvp
