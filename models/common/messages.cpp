#include "models/common/messages.h"

namespace gpuvp {

const char* kernel_error_text(KernelError e) {
    switch (e) {
    case KernelError::none: return "ok";
    case KernelError::illegal_instruction: return "illegal instruction";
    case KernelError::fetch_fault: return "instruction fetch fault";
    case KernelError::memory_fault: return "memory fault";
    case KernelError::descriptor_fault: return "kernel descriptor fault";
    case KernelError::no_global_buffer: return "global access before kernarg_load gave the buffer";
    case KernelError::loop_overflow: return "loops nested too deep";
    case KernelError::resources: return "a block can never fit on an SM";
    case KernelError::lock_misuse: return "lock misuse (a lock taken twice, an unlock of a lock not held, or a barrier or the end with locks held)";
    case KernelError::scalar_pool: return "scalar pool exhausted: warps wait for scalar registers that no running warp will free";
    case KernelError::invalid_draw: return "invalid draw: the shading array cannot run it";
    case KernelError::lock_deadlock: return "lock deadlock: warps waited on locks and no critical section completed";
    }
    return "?";
}

}  // namespace gpuvp

#include "models/common/observer.h"

namespace gpuvp {

const char* lock_event_name(LockEventKind k) {
    static const char* names[] = {"acquired", "released", "requested", "arbiter_push", "arbiter_decision",
                                  "forced_release", "hold_limit_release", "sync_failure", "failure_release",
                                  "parked", "woken", "exit_release", "rewound"};
    static_assert(sizeof names / sizeof *names == size_t(LockEventKind::count));
    return k < LockEventKind::count ? names[size_t(k)] : "?";
}

const char* stage_name(Stage s) {
    static const char* names[] = {"packet_fetched",        "packet_decoded",       "launched",             "descriptor_fetched",
                                  "isu_written",           "kernel_registered",    "first_block_dispatched",
                                  "first_warp_started",    "first_fetch_issued",   "first_fetch_returned",
                                  "kernarg_prefetch_issued", "kernarg_prefetch_returned",
                                  "first_instruction_issued", "kernarg_load_done", "last_block_done"};
    static_assert(sizeof names / sizeof *names == size_t(Stage::count));
    return s < Stage::count ? names[size_t(s)] : "?";
}

}  // namespace gpuvp
