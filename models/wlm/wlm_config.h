#pragma once
#include <cstdint>

namespace gpuvp {

// Workload manager timing, in GPU clock cycles.
struct WlmConfig {
    uint32_t setup_cycles = 300;  // resource computation and ISU context set-up per kernel
};

}  // namespace gpuvp
