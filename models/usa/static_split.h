// `static` (prior art): the initial split never changes.
#pragma once
#include <gpuvp/models/usa/shading_policy.h>

namespace gpuvp {

class StaticSplit : public ShadingPolicy {
public:
    const char* name() const override { return policy_name(ShadingBalance::static_split); }
    std::optional<Reassignment> rebalance(const std::vector<CoreView>&) const override { return std::nullopt; }
};

}  // namespace gpuvp
