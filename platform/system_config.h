// What a System (platform/system.h) is built from, without the modules: the scenario loader
// fills one and needs no SystemC module to do it.
#pragma once
#include <gpuvp/firmware/workload.h>
#include <gpuvp/platform/gpu_config.h>

namespace gpuvp {

// The platform, the policies and the host's work. A scenario (sc_main/scenario/scenario.h) is
// one, read from YAML.
struct SystemConfig {
    PlatformConfig platform;
    Policies policy;
    Workload workload;
};

}  // namespace gpuvp
