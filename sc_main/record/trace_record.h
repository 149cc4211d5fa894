// What trace.json holds, typed: the recorder fills a TraceRecord as the blocks report, trace.json
// is written from it (trace_text), and the page draws from it. Each event is a span or an instant
// of one kind (a warp, a block, a kernel, a shading task, a launch stage, a lock event, a counter,
// a register-table write, ...) with its own fields; an event of a kernel or a draw names it by its
// launch id (an index into `launches`), never by its name or its position. Only trace_record.cpp
// knows how Chrome's trace-event format spells them (names, categories, process and row ids,
// arguments: docs/results.md); `gpuvp report DIR` reads a trace.json back with read_trace.
#pragma once
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace gpuvp {

// A kernel or draw of the run as the trace names it.
struct TraceLaunch {
    std::string name;
    bool instanced = false;  // its events name the instance too
};

namespace trace {

constexpr uint32_t kNone = ~0u;

// Whose an event is: a launch (an index into TraceRecord::launches; kNone: no kernel or draw)
// and which of its instances.
struct Owner {
    uint32_t launch = kNone;
    uint64_t instance = 0;
};

// Times are in µs to whole picoseconds (as trace.json has them): `ts` when it starts (an
// instant: when it happened), `dur` how long a span lasts.
struct Kernel {  // a kernel or a draw, from its doorbell (a draw: its arrival) to its completion
    double ts = 0, dur = 0;
    Owner owner;
    bool draw = false;
    uint32_t queue = 0;
    uint64_t packet = 0;
    KernelError status = KernelError::none;
    uint32_t lane = 0;  // its row among the kernels' (or draws') rows
};
struct Packet {  // a barrier or copy packet, on its queue's row
    double ts = 0, dur = 0;
    bool copy = false;
    uint32_t queue = 0;
    uint64_t packet = 0;
};
struct Rejected {  // a packet the command processor refused
    double ts = 0;
    uint32_t queue = 0;
    uint64_t packet = 0;
    PacketCheck why;
};
struct Block {  // a block on its SM
    double ts = 0, dur = 0;
    Owner owner;
    uint32_t sm = 0, lane = 0;  // lane: its row among the SM's block rows
    uint64_t block = 0;
};
struct Warp {  // a warp on its SM's warp slot
    double ts = 0, dur = 0;
    Owner owner;
    uint32_t sm = 0, slot = 0, warp = 0;
    uint64_t block = 0, instructions = 0;
    bool in_flight = false;  // still resident when the run stopped: it ends at the stop
};
struct Task {  // a shading task on its core
    double ts = 0, dur = 0;  // from the core taking it to the core idle again
    Owner owner;             // its draw
    uint32_t core = 0;
    CoreType type = CoreType::vertex;
    uint64_t task = 0;
    double start_ns = 0;  // its inputs in and shader state loaded
    bool switched = false;
};
struct Stage {  // one launch stage of a kernel, on the kernel's row of the launch stages
    double ts = 0, dur = 0;
    uint32_t lane = 0;  // TraceRecord::stage_rows
    std::string name;
};
struct Lock {  // M2: a lock event, on its warp's slot row (the arbiter's on the SM's arbiter row)
    double ts = 0;
    Owner owner;  // none for the arbiter's
    LockEvent event;
};
struct TableWrite {  // a register-table row written
    double ts = 0;
    uint32_t sm = kNone;  // its SM's block status table; kNone: the GLC's
    const char* table = "";
    uint64_t row = 0;
    std::string values;
};
struct Scalar {  // M3: an SM's scalar registers in use per level (kernel, workgroup, warp, slice)
    double ts = 0;
    uint32_t sm = 0;
    std::array<uint32_t, 4> used{};
};
struct Shading {  // M4: a pair of the shading array's counters after a change
    enum Which : uint8_t { load_flags, cores_by_type, busy_cores, ready_tasks };
    double ts = 0;
    Which which = load_flags;
    uint64_t vertex = 0, pixel = 0;  // (load_flags: the idle-vertex and idle-pixel flags)
};
struct Reassigned {  // M4: a core given to the other type
    double ts = 0;
    uint32_t core = 0;
    CoreType to = CoreType::vertex;
    LoadFlags decided_on;
};
struct Irq {  // the interrupt line's level
    double ts = 0;
    bool level = false;
};

// Whether an event is a span (it has a duration).
template <class T, class = void>
constexpr bool is_span = false;
template <class T>
constexpr bool is_span<T, std::void_t<decltype(T::dur)>> = true;

using Event = std::variant<Kernel, Packet, Rejected, Block, Warp, Task, Stage, Lock, TableWrite, Scalar, Shading,
                           Reassigned, Irq>;

// How much of a run the trace holds (`--trace-detail`), each level with the one before it:
// `launches`: kernels, draws, barrier and copy packets, rejected packets, launch stages and the irq
// line; `blocks`: blocks and the shading array's tasks, counters and reassignments; `warps`: warps,
// lock events and the scalar pool; `all`: the register-table writes.
enum class Detail : uint8_t { launches, blocks, warps, all };
constexpr size_t kDetails = 4;
// The first level whose trace holds an event of kind T (or the event).
template <class T>
constexpr Detail level_of = std::is_same_v<T, TableWrite>                                ? Detail::all
                            : std::is_same_v<T, Warp> || std::is_same_v<T, Lock> ||
                                      std::is_same_v<T, Scalar>                          ? Detail::warps
                            : std::is_same_v<T, Block> || std::is_same_v<T, Task> ||
                                      std::is_same_v<T, Shading> || std::is_same_v<T, Reassigned> ? Detail::blocks
                                                                                                  : Detail::launches;
inline Detail detail_of(const Event& e) {
    return std::visit([](const auto& x) { return level_of<std::decay_t<decltype(x)>>; }, e);
}
// What a full trace keeps first (the limit): the launches' events, then the blocks' and warps'
// together (in the order they were recorded: the trace is whole up to a time), then the
// register-table writes. An event takes the place of the latest of a later rank's.
constexpr size_t kRanks = 3;
constexpr size_t rank_of(Detail d) { return d == Detail::launches ? 0 : d == Detail::all ? 2 : 1; }
// "launches", "blocks", "warps", "all" (the option's words).
const char* detail_name(Detail d);
bool detail_from(std::string_view word, Detail& out);
// What the level adds, as the trace's metadata counts it: "launches", "blocks", "warps", "tables".
const char* detail_events(Detail d);

}  // namespace trace

struct TraceRecord {
    // What names the rows: the run's launches (kernels, then draws), queues, SMs (each one's
    // warp-slot rows), whether the shading array is in the trace (its cores and draw rows), and
    // each kernel's row of launch stages (row -> kernel name).
    std::vector<TraceLaunch> launches;
    std::vector<std::string> queues;
    std::vector<uint32_t> sm_slots;
    bool usa = false;
    uint32_t usa_cores = 0, draw_rows = 0;
    std::map<uint32_t, std::string> stage_rows;
    std::vector<trace::Event> events;  // in the order they were recorded
    trace::Detail detail = trace::Detail::all;  // the level the run recorded
    uint64_t limit = 0;                         // the most events kept (0: not known)
    std::array<uint64_t, trace::kDetails> left_out{};  // events of each level's kind not kept (detail or limit)
    double end_ns = 0;                 // when the last event ends (ns)

    const TraceLaunch* launch(const trace::Owner& o) const { return o.launch < launches.size() ? &launches[o.launch] : nullptr; }
};

// What the trace left out and why, in words (otherData.note; "" when it holds every event):
// "--trace-detail launches: 40 block-level and 7 warp-level events not recorded", "trace full:
// 1352938 events dropped (the limit is 250000; see --trace-limit and --trace-detail): 1000000
// warp-level and 352938 register-table events".
std::string trace_note(const TraceRecord& t);

// A shading core's name: "SSC2 core3" (its cluster and its place in it, from 1).
std::string shading_core_name(uint32_t core);

// trace.json's text (compact, a final newline).
std::string trace_text(const TraceRecord& t);
// A TraceRecord from trace.json's text: the rows' names, the blocks, the warps, the shading tasks and the
// scalar-pool and cores-by-type counters (what the page draws; every other event counts only
// in end_ns). False, with `error` naming the byte offset or the event, if the text is not a
// trace (a `traceEvents` array of objects; `out` is then empty); an event that is not one of
// gpuvp's is skipped. (otherData's note is not read: trace_note gives it from the counts.)
bool read_trace(const std::string& text, TraceRecord& out, std::string* error);

}  // namespace gpuvp
