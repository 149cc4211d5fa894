#include "models/glc/placement_policy.h"
#include "models/glc/fifo_placement.h"

namespace gpuvp {

std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name) {
    if (name == "fifo") return std::make_unique<FifoPlacement>();
    return nullptr;
}

}  // namespace gpuvp
