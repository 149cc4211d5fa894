// M5's baseline (policy.launch serial): the first fetch alone. The host copied the kernel
// arguments to device memory before the doorbell; the kernarg_load fetches them when it runs.
#pragma once
#include <gpuvp/models/sm/launch_path.h>

namespace gpuvp {

class SerialLaunch : public LaunchPath {
public:
    sc_core::sc_time first_fetch(uint32_t, const IsuContext&, const sc_core::sc_time&,
                                 const sc_core::sc_time& line_ready) override {
        return line_ready;
    }
};

}  // namespace gpuvp
