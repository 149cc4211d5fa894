#include <gpuvp/models/common/messages.h>

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

#include <gpuvp/models/common/observer.h>

namespace gpuvp {

const char* lock_event_name(LockEventKind k) {
    static const char* names[] = {"acquired", "released", "requested", "arbiter_push", "arbiter_decision",
                                  "forced_release", "hold_limit_release", "sync_failure", "failure_release",
                                  "parked", "woken", "exit_release", "rewound"};
    static_assert(sizeof names / sizeof *names == size_t(LockEventKind::count));
    return k < LockEventKind::count ? names[size_t(k)] : "?";
}

namespace {
struct StageInfo {
    const char* name;
    const char* meaning;
};
// The launch's milestones, in Stage order.
constexpr StageInfo kStageInfo[] = {
    {"packet_fetched", "the CP has read the packet from the queue"},
    {"packet_decoded", "the CP has checked it and honoured the acquire fence"},
    {"launched", "the CP hands it to the WLM (after any barrier-bit or kernel-slot wait)"},
    {"descriptor_fetched", "the WLM has read the kernel descriptor"},
    {"isu_written", "the WLM has written every ISU's kernel context"},
    {"kernel_registered", "the kernel's row is in the GLC's kernel status table"},
    {"first_block_dispatched", "the GLC wrote the first block descriptor to an SM"},
    {"first_warp_started", "the first warp occupies a warp slot"},
    {"first_fetch_issued", "the ISU sent the first instruction fetch to the L1I"},
    {"first_fetch_returned", "the L1I returned it"},
    {"kernarg_prefetch_issued", "M5: the ISU sent the kernel-argument prefetch to the L1D"},
    {"kernarg_prefetch_returned", "M5: the L1D acknowledged the last line of it"},
    {"first_instruction_issued", "the first instruction issued"},
    {"kernarg_load_done", "the kernel arguments are in the warp's hands"},
    {"last_block_done", "every block has finished"},
};
static_assert(sizeof kStageInfo / sizeof *kStageInfo == size_t(Stage::count));
}  // namespace

const char* stage_name(Stage s) { return s < Stage::count ? kStageInfo[size_t(s)].name : "?"; }
const char* stage_meaning(Stage s) { return s < Stage::count ? kStageInfo[size_t(s)].meaning : "?"; }

}  // namespace gpuvp
