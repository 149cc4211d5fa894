#include <gpuvp/models/sm/launch_path.h>
#include <gpuvp/models/sm/prefetch_launch.h>
#include <gpuvp/models/sm/serial_launch.h>

namespace gpuvp {

std::unique_ptr<LaunchPath> make_launch_path(LaunchPolicy policy, LaunchPath::Port& port, uint32_t line_bytes,
                                             uint32_t kernels) {
    switch (policy) {
    case LaunchPolicy::serial: return std::make_unique<SerialLaunch>();
    case LaunchPolicy::prefetch: return std::make_unique<PrefetchLaunch>(port, line_bytes, kernels);
    }
    return nullptr;
}

}  // namespace gpuvp
