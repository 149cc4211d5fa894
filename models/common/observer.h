// What the blocks tell whoever records a run (results, trace). Passed to each block by
// pointer at construction; a block with no observer records nothing. No globals.
#pragma once
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/messages.h>

#include <systemc>
#include <array>
#include <cstdint>
#include <string>

namespace gpuvp {

// The launch path of one kernel, in order: its milestones (each one's meaning: stage_meaning).
enum class Stage : uint8_t {
    packet_fetched,
    packet_decoded,
    launched,
    descriptor_fetched,
    isu_written,
    kernel_registered,
    first_block_dispatched,
    first_warp_started,
    first_fetch_issued,
    first_fetch_returned,
    kernarg_prefetch_issued,
    kernarg_prefetch_returned,
    first_instruction_issued,
    kernarg_load_done,
    last_block_done,
    count
};
const char* stage_name(Stage s);
const char* stage_meaning(Stage s);  // a milestone in words

struct WarpRecord {
    uint32_t sm, slot, kernel_slot;
    uint64_t block;
    uint32_t warp;  // index within its block
    sc_core::sc_time start, end;
    uint64_t instructions;
    uint32_t cpr = 0;         // its competitive priority register (M2)
    bool took_locks = false;  // it executed a lock instruction (M2)
};

// M2: what happens to warp mutexes, in the order it happens.
enum class LockEventKind : uint8_t {
    acquired,            // the warp holds the lock: `word` is the lock word written, `wait` its wait
    released,            // the warp's own unlock
    requested,           // the lock was held by `other`: the warp pushes (warp, other) to the arbiter
    arbiter_push,        // the arbiter's FIFO took (warp, other)   [from the arbiter; block = row]
    arbiter_decision,    // the arbiter decided on (warp, other)    [from the arbiter; block = row]
    forced_release,      // the arbiter signalled the warp: it releases the lock for `other`
    hold_limit_release,  // the warp's counter reached the limit: it releases the lock
    sync_failure,        // the warp could not take the lock held by `other`: it releases what it holds
                         // and waits (priority) or backs off (spin)
    failure_release,     // a lock the warp releases because of its synchronization failure
    parked,              // the warp waits for the lock to be released (with its locks only if it
                         // is of equal priority and its critical section is the older)
    woken,               // the lock it waited for was released: it tries again
    exit_release,        // a lock released because its warp ended or failed
    rewound,             // the warp abandons its critical section: `redone` instructions to do again
    count
};
const char* lock_event_name(LockEventKind k);

struct LockEvent {
    LockEventKind kind;
    uint32_t sm;
    uint32_t kernel_slot;  // ~0u from the arbiter
    uint64_t block;        // block id (from the arbiter: the block-table row)
    uint32_t warp;         // warp index within the block (the requester, for arbiter events)
    uint32_t other;        // the holder or the requester where there is one, else ~0u
    uint32_t lock;
    uint32_t slot;         // the warp's slot, ~0u from the arbiter
    uint32_t cpr;          // the warp's priority (~0u where not known)
    sc_core::sc_time t;
    uint32_t other_cpr = ~0u;                 // arbiter_decision: the holder's priority
    uint32_t word = 0;                        // acquired: the lock word written; parked: 1 if it keeps its locks
    LockVerdict verdict = LockVerdict::wait;  // arbiter_decision
    sc_core::sc_time wait;                    // acquired: since the first try of this lock instruction
    uint64_t redone = 0;                      // a release that abandons the critical section: instructions to redo
};

// Whose register table a table_update writes: the GLC's, or SM `sm`'s block status table.
struct TableSource {
    static constexpr uint32_t kGlc = ~0u;
    uint32_t sm = kGlc;
    bool glc() const { return sm == kGlc; }
};

// M4: a draw's progress in the unified shading array.
enum class DrawStage : uint8_t {
    arrived,      // the array took the draw descriptor
    first_task,   // its first vertex task went to a core
    vertex_done,  // its last vertex task ended
    tasks_done,   // its last task ended: the array tells the CP
    count
};

// M4: one task that ran on a unified shading core.
struct ShadingTask {
    uint32_t core;
    CoreType type;
    uint32_t draw_slot;
    uint64_t task;                // index within the draw and type
    sc_core::sc_time assigned;    // the core took it (and became busy)
    sc_core::sc_time start;       // inputs in and shader state loaded: it computes
    sc_core::sc_time end;         // the core is idle again
    bool switched = false;        // its core loaded the other type's shader state first
};

// M4: the array after a change: flags, split, busy cores, ready tasks.
struct ShadingState {
    LoadFlags flags;
    uint32_t vertex_cores = 0, pixel_cores = 0;
    uint32_t busy_vertex = 0, busy_pixel = 0;
    uint64_t ready_vertex = 0, ready_pixel = 0;
    bool operator==(const ShadingState& o) const {
        return flags == o.flags && vertex_cores == o.vertex_cores && pixel_cores == o.pixel_cores &&
               busy_vertex == o.busy_vertex && busy_pixel == o.busy_pixel && ready_vertex == o.ready_vertex &&
               ready_pixel == o.ready_pixel;
    }
    bool operator!=(const ShadingState& o) const { return !(*this == o); }
};

// Every event a block reports, each a virtual function that passes the event on to the
// observer this one was built with (`next`; none: the event ends here). An observer overrides
// only the events it uses, and calls Observer's own to pass one on (GpuLog logs, then passes
// each event to the Recorder). A new event is one function here.
class Observer {
public:
    explicit Observer(Observer* next = nullptr) : next_(next) {}
    virtual ~Observer() = default;
    virtual void doorbell(uint32_t queue, uint64_t value, const sc_core::sc_time& t) {
        if (next_) next_->doorbell(queue, value, t);
    }
    // The CP took the packet at `packet` of `queue` and gave it `slot`; `doorbell` is when
    // the doorbell that made it visible arrived.
    virtual void kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet,
                                 const sc_core::sc_time& doorbell, const sc_core::sc_time& t) {
        if (next_) next_->kernel_accepted(slot, queue, packet, doorbell, t);
    }
    virtual void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) {
        if (next_) next_->kernel_stage(slot, s, t);
    }
    // The completion signal has been written (or the kernel failed); the slot is free after.
    virtual void kernel_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) {
        if (next_) next_->kernel_completed(slot, e, t);
    }
    virtual void barrier_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start,
                              const sc_core::sc_time& end) {
        if (next_) next_->barrier_done(queue, packet, start, end);
    }
    virtual void packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why,
                                 const sc_core::sc_time& t) {
        if (next_) next_->packet_rejected(queue, packet, why, t);
    }
    virtual void block_started(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) {
        if (next_) next_->block_started(slot, block, sm, t);
    }
    virtual void block_finished(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) {
        if (next_) next_->block_finished(slot, block, sm, t);
    }
    virtual void warp_finished(const WarpRecord& w) {
        if (next_) next_->warp_finished(w);
    }
    // Whether table_update is wanted (formatting the values costs time): by the next observer.
    virtual bool wants_table_updates() const { return next_ && next_->wants_table_updates(); }
    // Whether a table_update made now would use its values' text; when not (a trace that is
    // full: the update is only counted), the update is made with no values. By the next
    // observer; without one, whenever updates are wanted.
    virtual bool wants_table_values() const { return next_ ? next_->wants_table_values() : wants_table_updates(); }
    // A row of a register table changed (whose table; table: its name).
    virtual void table_update(const TableSource& source, const char* table, uint64_t row, const std::string& values,
                              const sc_core::sc_time& t) {
        if (next_ && next_->wants_table_updates()) next_->table_update(source, table, row, values, t);
    }
    virtual void irq(bool level, const sc_core::sc_time& t) {
        if (next_) next_->irq(level, t);
    }
    virtual void lock_event(const LockEvent& e) {
        if (next_) next_->lock_event(e);
    }
    // M3: an SM's scalar pool changed: registers in use per level (kernel, workgroup, warp, slice).
    virtual void scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_core::sc_time& t) {
        if (next_) next_->scalar_pool(sm, used, t);
    }
    // M2: the lock watchdog stopped the kernel's stuck warps; `state` names warps, locks, holders.
    virtual void lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_core::sc_time& t) {
        if (next_) next_->lock_stalled(kernel_slot, state, t);
    }
    // M4: draws, from the CP (accepted: it took the packet and gave it draw slot `slot`;
    // completed: the completion signal is written or the draw failed) and from the array.
    virtual void draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_core::sc_time& doorbell,
                               const sc_core::sc_time& t) {
        if (next_) next_->draw_accepted(slot, queue, packet, doorbell, t);
    }
    virtual void draw_stage(uint32_t slot, DrawStage s, const sc_core::sc_time& t) {
        if (next_) next_->draw_stage(slot, s, t);
    }
    virtual void draw_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) {
        if (next_) next_->draw_completed(slot, e, t);
    }
    // M4: the shading array: a task ended; the state changed; the balancer moved a core.
    virtual void shading_task(const ShadingTask& task) {
        if (next_) next_->shading_task(task);
    }
    virtual void shading_state(const ShadingState& s, const sc_core::sc_time& t) {
        if (next_) next_->shading_state(s, t);
    }
    virtual void shading_reassigned(uint32_t core, CoreType to, const LoadFlags& decided_on,
                                    const sc_core::sc_time& t) {
        if (next_) next_->shading_reassigned(core, to, decided_on, t);
    }
    // A replayed trace's copy or fill: the CP's copy engine took it (start), and its completion
    // signal is written (end).
    virtual void copy_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start,
                           const sc_core::sc_time& end) {
        if (next_) next_->copy_done(queue, packet, start, end);
    }

private:
    Observer* next_;
};

}  // namespace gpuvp
