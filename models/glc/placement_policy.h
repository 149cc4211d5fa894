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
// The next SM after `last_sm`, round-robin, for which `ok(row)` holds (and moves `last_sm`
// there), or -1.
template <class Ok>
int next_sm_where(const GlcTables& t, uint32_t& last_sm, Ok ok) {
    const uint32_t n = uint32_t(t.sms.size());
    for (uint32_t step = 1; step <= n; ++step)
        if (const uint32_t sm = (last_sm + step) % n; ok(t.sms[sm])) return int(last_sm = sm);
    return -1;
}
// The whole-block step every policy shares: kernel `slot`'s blocks on the next SM, round-robin
// from `last_sm`, with room for a whole block, as many as fit there (the seed's "first
// number", at most what is left); nothing while no SM has room.
std::optional<Placement> whole_block_placement(const GlcTables& t, uint32_t slot, uint32_t& last_sm);

}  // namespace gpuvp
