// What the host firmware launches: plain data, filled by the scenario loader in platform/
// (or by hand in an SoC's own code). No YAML here.
#pragma once
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/stats.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

// One step of a kernel's program as the scenario writes it: an instruction repeated
// `repeat` times, a loop over `body` run `repeat` times, or (insn.op == if_warp) a body only
// the warps selected by insn.b run.
struct ProgramStep {
    Instruction insn;
    uint32_t repeat = 1;
    std::vector<ProgramStep> body;  // non-empty: a loop, or an if_warp's body
    int line = 0;                   // scenario line, for error messages
};

struct QueueSpec {
    std::string name;
    uint32_t priority = 0;  // 0 is the highest
    uint32_t size = 256;    // packets, a power of two
    // HSA's queue type (hsa_queue_type_t): multi (several producers, doorbells in any order) or
    // single (one producer: a doorbell below the last is an error).
    enum class Type { multi, single } type = Type::multi;
};
template <>
struct PolicyNameTable<QueueSpec::Type> {
    static constexpr std::array<const char*, 2> names{"multi", "single"};
};

// A signal the host owns and sets (HSA's hsa_signal_store): kernels may wait for it by name
// (`after`, `after_any`). It holds `initial` from before time 0; at `set_ns` the host stores
// `value` into it.
struct HostSignalSpec {
    std::string name;
    int64_t initial = 1;
    double set_ns = 0;
    int64_t value = 0;
    int line = 0;
};

// What the hardware measured for a kernel or a copy of a replayed profiler trace, in ns on the
// replay's time base (0 is the start of the first replayed launch call).
struct MeasuredTimes {
    STATS_RECORD;
    int64_t launch_ns = 0;      // its launch call started
    int64_t launch_end_ns = 0;  // its launch call returned
    int64_t start_ns = 0;       // it began to run on the GPU
    int64_t end_ns = 0;         // it ended
    // A kernel's floor: its duration alone on the imported platform with a body of one cycle.
    // Measured shorter than that, it is dispatch-bound. Unset: a copy, or a scenario without it.
    std::optional<int64_t> floor_ns;
    // Set by the import: of `after`, the waits inferred from the timeline (a wait call the
    // trace records no target for), and the wait calls before its launch neither recorded nor
    // inferred.
    std::vector<std::string> inferred_after;
    uint32_t unmatched_waits = 0;
    template <class S, class V>
    static void fields(S& s, V& v) {
        v("launch_ns", s.launch_ns, {"ns", "its launch call started"});
        v("launch_end_ns", s.launch_end_ns, {"ns", "its launch call returned"});
        v("start_ns", s.start_ns, {"ns", "it began to run on the GPU"});
        v("end_ns", s.end_ns, {"ns", "it ended"});
        v("floor_ns", s.floor_ns, {"ns", "set by the import, from the model: the kernel alone with a one-cycle body (measured shorter: dispatch-bound)"});
        v("inferred_after", s.inferred_after, {"", "set by the import: of after, the waits inferred from the timeline"});
        v("unmatched_waits", s.unmatched_waits,
          {"count", "set by the import: wait calls before its launch the trace gives no target for and none was inferred"});
    }
};

struct KernelSpec {
    std::string name;
    std::string queue;
    double submit_ns = 0;
    std::array<uint32_t, 3> grid{64, 1, 1};   // work-items
    std::array<uint32_t, 3> block{64, 1, 1};  // work-items per block
    uint32_t vregs = 32;                      // vector registers per thread
    uint32_t sregs = 16;                      // scalar registers per warp (descriptor)
    uint32_t shared_bytes = 0;                // group segment per block
    uint32_t kernarg_bytes = 64;
    uint64_t global_bytes = 1 << 20;          // the kernel's global buffer in device memory
    std::array<uint16_t, 4> scalars{0, 0, 0, 0};  // scalar registers per level (M3)
    std::vector<uint8_t> warp_priorities;          // CPR per warp index in a block (M2)
    std::vector<std::string> after;                // kernels or host signals it waits for, all (barrier-AND)
    std::vector<std::string> after_any;            // kernels or host signals it waits for, any one (barrier-OR)
    bool barrier = false;                          // the packet's barrier bit
    uint8_t acquire_fence = 2;                     // 0 none, 1 agent, 2 system
    uint8_t release_fence = 2;
    std::vector<ProgramStep> program;
    // Raw field overrides written into the AQL packet after it is built (to reproduce a
    // firmware bug or a malformed packet): field name -> value. See docs/scenario.md.
    std::map<std::string, uint64_t> packet;
    // The value the host writes to the doorbell for this packet instead of its index (a
    // firmware bug: a doorbell that goes back, jumps ahead or overflows the ring).
    std::optional<uint64_t> doorbell;
    // A second producer's late packet (first instance only): the host reserves the packet's
    // slot at submit and writes the packet (body, then header) `publish_delay_ns` later, from a
    // producer of its own, while the queue's later packets go on. Its doorbell is rung after
    // the header (`after`, HSA's order) or when the slot is reserved (`before`: the header
    // arrives after its doorbell).
    double publish_delay_ns = 0;
    enum class PublishDoorbell { after, before } publish_doorbell = PublishDoorbell::after;
    // `instances`: the same kernel launched this many times, each its own AQL packet, the
    // i-th submitted at submit_ns + i * interval_ns. `instances_key`: the scenario wrote the
    // key (the results then summarize the instances).
    uint32_t instances = 1;
    double interval_ns = 0;
    bool instances_key = false;
    std::optional<MeasuredTimes> measured;  // a replayed trace's kernel: what the hardware measured
    // A name for people beside `name` ("" none): a replayed kernel's NVTX range around its launch.
    std::string label;
    int line = 0;
};

// A copy or a fill of a replayed trace: it occupies its queue (a stream) for `duration_ns`
// without using the SMs, as a copy engine's work does. Posted as a vendor-specific copy packet.
struct CopySpec {
    std::string name;
    std::string queue;
    double submit_ns = 0;
    double duration_ns = 0;
    uint64_t bytes = 0;
    bool fill = false;                   // a memset, not a memcpy
    std::vector<std::string> after;      // kernels or copies it waits for (barrier-AND)
    std::optional<MeasuredTimes> measured;
    int line = 0;
};

// One call of the host's runtime in a replayed trace (`host.calls`, closed loop): each host
// thread makes its calls in order; a call starts `gap_ns` of CPU time after its thread's previous
// call returned.
struct HostCall {
    enum class Kind : uint8_t {
        launch,       // the runtime's work until `host.launch_tail_ns` before its measured end, then
                      // `work` submitted (kernels or copies; a graph launch, several); returns when
                      // `duration_ns` has passed since it started, or when the packets are written if later
        cpu,          // any other runtime call: `duration_ns` of CPU time
        sync_device,  // waits for everything submitted so far to end
        sync_queue,   // waits for everything submitted so far to `queue` to end
        sync_work,    // waits for `work` to end (an event's synchronize: the work the event recorded)
    };
    Kind kind = Kind::cpu;
    uint32_t thread = 0;
    double gap_ns = 0;
    double duration_ns = 0;
    std::vector<std::string> work;
    std::string queue;
    int line = 0;
};
template <>
struct PolicyNameTable<HostCall::Kind> {
    static constexpr std::array<const char*, 5> names{"launch", "cpu", "sync-device", "sync-queue", "sync-work"};
};

// How the host replays a trace's work: `closed`, its calls (`host.calls`) in order, each waiting
// for what it waits for, so the GPU's speed moves the calls after a sync; `open`, each kernel and
// copy at its `submit_ns` (the measured launch time), whatever the GPU does.
enum class ReplayMode : uint8_t { closed, open };
template <>
struct PolicyNameTable<ReplayMode> {
    static constexpr std::array<const char*, 2> names{"closed", "open"};
};

// M4: graphics work for the unified shading array, sent as a vendor-specific draw packet.
struct DrawSpec {
    std::string name;
    std::string queue;  // empty: the first queue
    double submit_ns = 0;
    uint32_t vertex_tasks = 1;
    uint32_t vertex_cycles = 100;               // per vertex task
    uint32_t pixel_tasks_per_vertex_task = 0;   // ready when their vertex task ends
    uint32_t pixel_cycles = 100;                // per pixel task
    std::map<std::string, uint64_t> packet;     // raw draw packet field overrides, as for kernels
    std::optional<uint64_t> doorbell;           // as for kernels
    uint32_t instances = 1;                     // as for kernels
    double interval_ns = 0;
    bool instances_key = false;
    int line = 0;
};

// How the code object reaches device memory (`host.code`, M5). Either way both launch
// policies treat the code alike: M5 moves only the kernel arguments.
enum class CodeLoad : uint8_t {
    per_launch,  // the host copies it through the BAR at every launch, before the doorbell (seed 004's cold start)
    once,        // loaded before time 0, never copied at a launch (warm launches)
};
template <>
struct PolicyNameTable<CodeLoad> {
    static constexpr std::array<const char*, 2> names{"per-launch", "once"};
};

// Where the prior art of M5 (`launch: serial`) has a kernel read its arguments
// (`host.serial_args`): seed 004's background 4 (the driver's copy in device memory) or its
// background 3 (host memory, no copy). Under `launch: prefetch` they are read in host memory.
enum class SerialArgs : uint8_t {
    device_copy,  // the host copies them through the BAR before the doorbell; the packet points at the copy
    host_memory,  // no copy: the packet points at them in host memory
};
template <>
struct PolicyNameTable<SerialArgs> {
    static constexpr std::array<const char*, 2> names{"device-copy", "host-memory"};
};

struct Workload {
    std::vector<QueueSpec> queues;
    std::vector<KernelSpec> kernels;
    std::vector<DrawSpec> draws;  // M4
    std::vector<HostSignalSpec> signals;  // signals the host sets
    std::vector<CopySpec> copies;         // a replayed trace's copies and fills
    // A replayed trace's host calls; empty: every kernel, draw and copy is submitted at its
    // submit_ns by its queue's thread.
    std::vector<HostCall> calls;
    ReplayMode replay = ReplayMode::closed;  // with calls
    double api_overhead_ns = 0;  // host runtime work per launch before the packet is written
    // A replayed launch call's tail: the part of its measured duration from the start of its
    // packets' writes to its return (the runtime rings the doorbell before the call returns).
    double launch_tail_ns = 0;
    double store_ns = 200;       // one store of the host CPU into host memory (kernargs, packet, signal)
    // Temporal decoupling of the host model (`host.quantum_ns`): how far each host thread may
    // run ahead of SystemC time on its stores before it waits; 0: every access waits at once.
    // It always waits before what the GPU can see (docs/integration.md).
    double quantum_ns = 0;
    CodeLoad code = CodeLoad::per_launch;
    SerialArgs serial_args = SerialArgs::device_copy;
    // The prior art of M5 (`launch: serial` with `serial_args: device-copy`): before ringing
    // the doorbell the host copies the kernel arguments into device memory itself (a write
    // through the BAR, waited for), and the packet points at that copy; without it the packet
    // points at the arguments in host memory.
    bool copy_args = false;
    // M3: kernels are built for the multi-level scalar pool (`scalar: multilevel`); without it,
    // written uniform values take vector registers (see vector_registers).
    bool multilevel_scalars = false;
};

}  // namespace gpuvp
