// How the global logic controller places blocks on SMs. A policy looks at the tables and
// names the next placement; the GLC carries it out and updates the tables. One file per
// strategy; make_placement_policy picks one by the scenario's `policy.dispatch` name.
#pragma once
#include "models/glc/tables.h"

#include <memory>
#include <optional>
#include <string>

namespace gpuvp {

struct Placement {
    uint32_t kernel_slot;
    uint32_t sm;
    uint64_t blocks;  // >= 1
};

class PlacementPolicy {
public:
    virtual ~PlacementPolicy() = default;
    virtual const char* name() const = 0;
    // The next placement, or nothing while no block can be placed.
    virtual std::optional<Placement> next(const GlcTables& t) = 0;
};

// nullptr for an unknown name.
std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name);

}  // namespace gpuvp
