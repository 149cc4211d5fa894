// The whole platform: host memory, the system bus, the GPU and the host model.
// This is what an SoC team replaces with its own (see docs/integration.md).
#pragma once
#include <gpuvp/firmware/host_driver.h>
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>
#include <gpuvp/platform/gpu.h>
#include <gpuvp/platform/system_config.h>

#include <systemc>

namespace gpuvp {

class System : public sc_core::sc_module {
    CheckedBindings connect_;  // the checkers between the parts (declared first: destroyed last)

public:
    // `protocol`: a TLM-2.0 base-protocol checker on every connection, the GPU's internal ones
    // included, reporting there; null: none.
    // `log`: the GPU's sc_report verbosity per block (GpuConfig::log); by default none.
    System(sc_core::sc_module_name name, const SystemConfig& config, Observer* observer = nullptr,
           ProtocolLog* protocol = nullptr, const std::map<std::string, int>& log = {{"*", sc_core::SC_NONE}});

    Memory host_memory;
    Router bus;
    Gpu gpu;
    HostDriver host;
    sc_core::sc_signal<bool> irq;

    static HostLayout layout(const PlatformConfig& p);
};

}  // namespace gpuvp
