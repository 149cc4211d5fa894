// M3 (policy.scalar multilevel): the SM's scalar unit, its scalar register pool (scalar_pool.h)
// shared by four levels:
//   kernel     one set per kernel on this SM, shared by its blocks here, those still to come
//              included; freed once the GLC has said no more will come (KernelDrained) and
//              the last of them has ended
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
// A block starts only when all its warps can start at once (beside the warps the blocks
// already started still have to start), so that every warp of a started block is sure to run.
// Sync before update: a salu that writes a workgroup-level scalar waits until every warp of
// its block has come to such a write (warps that ended excepted); a kernel-level write until
// every warp of every block of the kernel started on this SM has, started or not. Then the
// value is overwritten in place and they all go on.
//
// The SM calls the unit only under policy.scalar multilevel (one test of a flag it keeps; the
// per-warp baseline has no scalar logic in the SM: a salu costs its cycles, and the written
// uniform values cost vector registers, which the code object's vregs count). The pool exists
// under both, so that the results report it.
#pragma once
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/sm/scalar_pool.h>

#include <systemc>

#include <cstdint>
#include <vector>

namespace gpuvp {

class StreamingMultiprocessor;

class ScalarUnit {
public:
    ScalarUnit(StreamingMultiprocessor& sm, const SmConfig& config);

    const ScalarPool& pool() const { return pool_; }
    bool stalled() const { return !stalled_.empty(); }  // warps wait for scalar registers
    size_t stalled_warps() const { return stalled_.size(); }

    // The logic controller: a block arrives in block-table row `row`.
    void block_arrived(uint32_t row);
    // Before the block's first warp starts: its kernel-, workgroup- and warp-level registers,
    // reserved all or none. False: no room yet (the block waits).
    bool reserve(uint32_t row);
    void warp_started(uint32_t slot) { warps_[slot] = WarpState{}; }
    // Before a salu: its level's registers, allocated on first need. False: the warp stalls.
    bool ready(uint32_t slot, const Instruction& in, const sc_core::sc_time& now);
    // A kernel- or workgroup-level write waits for its sharers. False: it goes on at once.
    bool sync_before_update(uint32_t slot, const Instruction& in, const sc_core::sc_time& now);
    // The warp's slices end with the instruction that used them (its next issue, or its end).
    void slices_done(uint32_t slot, const sc_core::sc_time& now);
    // A warp ends (or fails): its registers go back and the syncs it was missing may complete.
    void warp_left(uint32_t slot, const sc_core::sc_time& now);
    // After a warp of block `row` ended: the syncs that waited only for it complete.
    void sharers_left(uint32_t row, const sc_core::sc_time& now);
    void block_left(uint32_t row, const sc_core::sc_time& now);
    // The GLC will send no more blocks of the kernel: its kernel-level registers go back once
    // its blocks here have ended (at once if none is here).
    void kernel_drained(uint32_t kernel_slot, const sc_core::sc_time& now);
    // Warps wait for scalar registers and nothing else on the SM can run: they fail.
    void check_deadlock(const sc_core::sc_time& now);

private:
    struct WarpState {
        bool warp_scalars = false;  // its warp-level scalars are allocated
        uint16_t sync_cycles = 0;   // the salu's cycles, once its sync completes
    };
    struct BlockState {
        bool reserved = false;     // its kernel-, workgroup- and warp-level registers are reserved
        bool pool_waited = false;  // it waited to start for want of pool room
        bool wg_scalars = false;   // its workgroup-level scalars are allocated
        uint32_t warp_sets = 0;    // warp-level sets still reserved for its warps
        std::vector<uint32_t> wg_sync;  // slots of warps waiting to update a workgroup scalar
    };
    struct KernelState {  // the kernel-level scalars on this SM, shared by its blocks here
        bool reserved = false, allocated = false;
        bool drained = false;      // the GLC will send no more of its blocks
        uint32_t block_warps = 0;  // warps in a block of it (the kernel split's demand)
        uint32_t resident_blocks = 0;
        std::vector<uint32_t> kernel_sync;  // slots of warps waiting to update a kernel scalar
    };

    uint32_t need(uint32_t kernel_slot, ScalarLevel level) const;
    bool room_for_whole(uint32_t row) const;
    void release_kernel(uint32_t kernel_slot);
    void split_for_kernels();
    void check_workgroup_sync(uint32_t row, const sc_core::sc_time& now);
    void check_kernel_sync(uint32_t kernel_slot, const sc_core::sc_time& now);
    void freed(const sc_core::sc_time& now);  // registers came back: every stalled warp tries again
    void changed(const sc_core::sc_time& now);

    StreamingMultiprocessor& sm_;
    SmConfig cfg_;
    ScalarPool pool_;
    std::vector<WarpState> warps_;      // per warp slot
    std::vector<BlockState> blocks_;    // per block-table row
    std::vector<KernelState> kernels_;  // per ISU context
    std::vector<uint32_t> stalled_;     // slots of warps waiting for scalar registers
};

}  // namespace gpuvp
