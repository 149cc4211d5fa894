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

// The block whose next warp starts, among the blocks `blocks[rows[0]]` ... `blocks[rows[n - 1]]`:
// the open ones (present, warps still to start, not failed), in ascending row order; nullptr if
// none. With `started_only`, only among blocks already partly started (some warps started, some
// not). Ties in the order go to the first row.
//
// Deadlock avoidance (not in the seed, which starts a block's warps one by one without regard
// to block barriers): a partly started block whose program has a barrier can hold its warp
// slots while its started warps wait there for its unstarted ones. If such blocks could not all
// be resident at once, they could wait for each other for ever. So a block with a barrier that
// has not started yet may start only if it and every partly started block with a barrier fit
// in the SM together, in `warp_slots` and `registers`; when it may not, the partly started
// blocks go on, first in the order, and no other block starts. A block without a barrier is
// never held back by this rule: its warps end without waiting for slots, so it starts as soon
// as it comes first in the order, ahead of lower-priority blocks partly started (M1: a waiting
// higher-priority block takes the next free slot).
//
// `Block` has `desc.priority`, `desc.warps`, `desc.regs_per_warp`, `arrival` (its order of
// arrival), `next_warp` (warps started) and `has_barrier`; `Order::before(a, b)` says whether a
// goes first.
template <class Order, class Block>
Block* choose_block(Block* blocks, const uint32_t* rows, size_t n, bool started_only, uint64_t warp_slots,
                    uint64_t registers) {
    Block* best = nullptr;          // any block with warps to start
    Block* best_partial = nullptr;  // a block already partly started
    uint64_t waiting_warps = 0, waiting_regs = 0;  // of the partly started blocks with a barrier
    for (size_t i = 0; i < n; ++i) {
        Block& b = blocks[rows[i]];
        if (!best || Order::before(b, *best)) best = &b;
        if (b.next_warp > 0) {
            if (b.has_barrier) {
                waiting_warps += b.desc.warps;
                waiting_regs += uint64_t(b.desc.warps) * b.desc.regs_per_warp;
            }
            if (!best_partial || Order::before(b, *best_partial)) best_partial = &b;
        }
    }
    if (started_only) return best_partial;
    if (!best || best->next_warp > 0 || !best->has_barrier) return best;
    const bool fits_with_waiting = waiting_warps + best->desc.warps <= warp_slots &&
                                   waiting_regs + uint64_t(best->desc.warps) * best->desc.regs_per_warp <= registers;
    return fits_with_waiting ? best : best_partial;
}

// The same with the order chosen at run time: one switch per choice, none per block.
template <class Block>
Block* choose_block(WarpStartOrder order, Block* blocks, const uint32_t* rows, size_t n, bool started_only,
                    uint64_t warp_slots, uint64_t registers) {
    switch (order) {
    case WarpStartOrder::priority:
        return choose_block<PriorityOrder>(blocks, rows, n, started_only, warp_slots, registers);
    case WarpStartOrder::arrival:
        break;
    }
    return choose_block<ArrivalOrder>(blocks, rows, n, started_only, warp_slots, registers);
}

}  // namespace gpuvp
