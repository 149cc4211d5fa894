// M5 (policy.launch prefetch): the kernel's first fetch on this SM sends the kernel-argument
// prefetch to the L1D at the same time, and the kernel's warps start when both are
// acknowledged (later warps find the arguments in the L1D).
#pragma once
#include <gpuvp/models/sm/launch_path.h>

#include <vector>

namespace gpuvp {

class PrefetchLaunch : public LaunchPath {
public:
    PrefetchLaunch(Port& port, uint32_t line_bytes, uint32_t kernels)
        : port_(port), line_bytes_(line_bytes), kernels_(kernels) {}
    void kernel_loaded(uint32_t kernel_slot) override { kernels_[kernel_slot].prefetched = false; }
    sc_core::sc_time first_fetch(uint32_t kernel_slot, const IsuContext& ctx, const sc_core::sc_time& now,
                                 const sc_core::sc_time& line_ready) override;

private:
    // The arguments into the L1D, one request per line, all sent at once: when the last is
    // acknowledged. No request for a kernel without arguments.
    sc_core::sc_time prefetch(uint32_t kernel_slot, const IsuContext& ctx, const sc_core::sc_time& now);

    struct Kernel {
        bool prefetched = false;  // this SM has prefetched the kernel's arguments
        sc_core::sc_time done;    // when the last line of that prefetch is acknowledged
    };
    Port& port_;
    uint32_t line_bytes_;
    std::vector<Kernel> kernels_;  // per ISU context
};

}  // namespace gpuvp
