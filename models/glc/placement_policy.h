// How the global logic controller places blocks on SMs. A policy looks at the tables and
// names the next placement; the GLC carries it out and updates the tables. One file per
// strategy; make_placement_policy picks one by the scenario's `policy.dispatch`.
#pragma once
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/glc/glc_config.h>
#include <gpuvp/models/glc/tables.h>

#include <memory>
#include <optional>
#include <string>

namespace gpuvp {

// How a placement was found (M1's steps).
enum class PlacementKind : uint8_t {
    whole_blocks,  // an SM with room for whole blocks now
    first_sm,      // an SM with room for at least one warp: the block starts warp by warp
    second_sm,     // an SM running only lower-priority work: the block takes its next free slots
};
const char* placement_kind_name(PlacementKind k);

struct Placement {
    uint32_t kernel_slot;
    uint32_t sm;
    uint64_t blocks;  // >= 1
    PlacementKind kind = PlacementKind::whole_blocks;
};

class PlacementPolicy {
public:
    virtual ~PlacementPolicy() = default;
    virtual const char* name() const = 0;
    // The next placement, or nothing while no block can be placed.
    virtual std::optional<Placement> next(const GlcTables& t) = 0;
};

// `second_sm`: priority-warp's choice among second SMs (the other policies have no second SM).
std::unique_ptr<PlacementPolicy> make_placement_policy(DispatchPolicy policy,
                                                       SecondSmChoice second_sm = SecondSmChoice::lowest_priority);

// Shared steps. The highest-priority kernel with blocks left (ties: the earliest), or -1.
int highest_priority_kernel(const GlcTables& t);
// The next SM after `last_sm`, round-robin, with room for a whole block of `k` (and moves
// `last_sm` there), or -1.
int next_sm_with_whole_block(const GlcTables& t, const KernelRow& k, uint32_t& last_sm);

}  // namespace gpuvp
