// How the unified shading array balances vertex and pixel cores (M4). A policy looks at the
// cores and names at most one reassignment; the array carries it out. One file per strategy;
// make_shading_policy picks one by the scenario's `policy.shading`.
#pragma once
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/usa/load_flags.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

struct CoreView {
    bool idle = true;
    CoreType type = CoreType::vertex;
};

struct Reassignment {
    uint32_t core;
    CoreType to;
    Plan plan;
    LoadFlags flags;  // the flags the decision was taken on
};

LoadFlags load_flags(const std::vector<CoreView>& cores);

class ShadingPolicy {
public:
    virtual ~ShadingPolicy() = default;
    virtual const char* name() const = 0;
    // At most one reassignment for the array as it is now.
    virtual std::optional<Reassignment> rebalance(const std::vector<CoreView>& cores) const = 0;
};

std::unique_ptr<ShadingPolicy> make_shading_policy(ShadingBalance policy, uint32_t cores);

}  // namespace gpuvp
