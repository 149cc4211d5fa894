// The whole platform of a scenario: host memory, the system bus, the GPU and the host model.
// This is what an SoC team replaces with its own (see docs/integration.md).
#pragma once
#include "firmware/host_driver.h"
#include "models/memory/memory.h"
#include "models/memory/router.h"
#include "platform/gpu.h"
#include "platform/scenario.h"

#include <systemc>

namespace gpuvp {

class System : public sc_core::sc_module {
public:
    System(sc_core::sc_module_name name, const Scenario& scenario, Observer* observer = nullptr);

    Memory host_memory;
    Router bus;
    Gpu gpu;
    HostDriver host;
    sc_core::sc_signal<bool> irq;

    static HostLayout layout(const PlatformConfig& p);
};

}  // namespace gpuvp
