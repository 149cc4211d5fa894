#include <gpuvp/models/sm/prefetch_launch.h>

#include <algorithm>

namespace gpuvp {

using sc_core::sc_time;

sc_time PrefetchLaunch::first_fetch(uint32_t kernel_slot, const IsuContext& ctx, const sc_time& now,
                                    const sc_time& line_ready) {
    Kernel& k = kernels_[kernel_slot];
    if (!k.prefetched) {
        k.prefetched = true;
        k.done = prefetch(kernel_slot, ctx, now);
    }
    return std::max(line_ready, k.done);
}

sc_time PrefetchLaunch::prefetch(uint32_t kernel_slot, const IsuContext& ctx, const sc_time& now) {
    sc_time done = now;
    if (ctx.kernarg_size == 0) return done;
    port_.report_stage(kernel_slot, Stage::kernarg_prefetch_issued, now);
    const uint64_t first = ctx.kernarg_ptr - ctx.kernarg_ptr % line_bytes_;
    for (uint64_t line = first; line < ctx.kernarg_ptr + ctx.kernarg_size; line += line_bytes_) {
        sc_time acknowledged;
        if (port_.read_l1d(line, acknowledged)) done = std::max(done, acknowledged);
    }
    port_.report_stage(kernel_slot, Stage::kernarg_prefetch_returned, done);
    return done;
}

}  // namespace gpuvp
