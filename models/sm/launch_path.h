// M5: what the ISU does with a warp's first instruction fetch. One file per policy:
//   serial_launch.h      the baseline: the fetch alone; the kernel arguments come when the
//                        kernarg_load executes
//   prefetch_launch.cpp  the seed: the kernel's first fetch on this SM also sends a
//                        kernel-argument prefetch (the ISU's pointer and size registers) to
//                        the L1D, and the kernel's warps issue when both are acknowledged
// Asked once per warp (its first fetch), never per instruction.
#pragma once
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/policies.h>

#include <systemc>

#include <cstdint>
#include <memory>

namespace gpuvp {

class LaunchPath {
public:
    // What a launch path needs from its SM.
    class Port {
    public:
        virtual ~Port() = default;
        // One line read through the L1D, sent now: when it is acknowledged (now + the delay),
        // or nothing if the L1D refused it.
        virtual bool read_l1d(uint64_t line, sc_core::sc_time& acknowledged) = 0;
        // The kernel in `kernel_slot` reached stage `s` on this SM (the first time counts).
        virtual void report_stage(uint32_t kernel_slot, Stage s, const sc_core::sc_time& t) = 0;
    };

    virtual ~LaunchPath() = default;
    // A new kernel in ISU context `kernel_slot`.
    virtual void kernel_loaded(uint32_t kernel_slot) {}
    // A warp of the kernel in `kernel_slot` (ISU context `ctx`) sent its first fetch now; the
    // line is there at `line_ready`. Returns when the warp may issue.
    virtual sc_core::sc_time first_fetch(uint32_t kernel_slot, const IsuContext& ctx, const sc_core::sc_time& now,
                                         const sc_core::sc_time& line_ready) = 0;
};

// `line_bytes`: the L1D's line (one prefetch request per line); `kernels`: ISU contexts.
std::unique_ptr<LaunchPath> make_launch_path(LaunchPolicy policy, LaunchPath::Port& port, uint32_t line_bytes,
                                             uint32_t kernels);

}  // namespace gpuvp
