// What the trace keeps (`--trace-detail`, `--trace-limit`): the recorder's choice of events, fed
// through its observer calls without a simulation.
#include "sc_main/run/recorder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using gpuvp::Recorder;
using gpuvp::TraceRecord;
using gpuvp::trace::Detail;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// Each kept event's kind and time, in the trace's order: "irq@3" (an irq at 3 ns), "table@1",
// "scalar@2", "reassigned@4".
std::vector<std::string> kinds(const TraceRecord& t) {
    std::vector<std::string> out;
    for (const gpuvp::trace::Event& e : t.events) {
        const char* kind = std::holds_alternative<gpuvp::trace::Irq>(e)          ? "irq"
                           : std::holds_alternative<gpuvp::trace::TableWrite>(e) ? "table"
                           : std::holds_alternative<gpuvp::trace::Scalar>(e)     ? "scalar"
                           : std::holds_alternative<gpuvp::trace::Reassigned>(e) ? "reassigned"
                                                                                  : "other";
        const double ts = std::visit([](const auto& x) { return x.ts; }, e);
        out.push_back(std::string(kind) + "@" + std::to_string(int(ts * 1000)));
    }
    return out;
}

TraceRecord take(Recorder& r) { return r.take_trace({}, {"q"}, 1, 4, 0); }

void table(Recorder& r, double ns) { r.table_update({0}, "block_status", 0, "x", sc_time(ns, SC_NS)); }
void scalar(Recorder& r, double ns) { r.scalar_pool(0, {1, 0, 0, 0}, sc_time(ns, SC_NS)); }
void irq(Recorder& r, double ns) { r.irq(true, sc_time(ns, SC_NS)); }
void reassigned(Recorder& r, double ns) { r.shading_reassigned(0, gpuvp::CoreType::pixel, {}, sc_time(ns, SC_NS)); }

}  // namespace

TEST_CASE("trace detail: under the limit every event is kept in the order it was recorded", "[trace]") {
    Recorder r(true, 10);
    table(r, 1);
    scalar(r, 2);
    irq(r, 3);
    reassigned(r, 4);
    table(r, 5);
    const TraceRecord t = take(r);
    CHECK(kinds(t) == std::vector<std::string>{"table@1", "scalar@2", "irq@3", "reassigned@4", "table@5"});
    CHECK(t.left_out == std::array<uint64_t, 4>{0, 0, 0, 0});
    CHECK(t.detail == Detail::all);
    CHECK(t.limit == 10);
    CHECK(gpuvp::trace_note(t).empty());
}

TEST_CASE("trace detail: at the limit an event takes the place of the latest of a later rank's, blocks and warps one rank",
          "[trace]") {
    Recorder r(true, 5);
    table(r, 1);
    scalar(r, 2);
    table(r, 3);
    reassigned(r, 4);
    irq(r, 5);
    CHECK(r.trace_events() == 5);
    CHECK(r.wants_table_values() == false);  // full: a table write could only be counted
    irq(r, 6);          // the table write at 3 gives way (the latest of the last rank)
    scalar(r, 7);       // the table write at 1
    table(r, 8);        // the last rank: nothing after it gives way, so it is dropped
    reassigned(r, 9);   // blocks and warps are one rank: nothing after it, dropped
    irq(r, 10);         // the scalar pool at 7, the latest of the blocks' and warps' rank
    irq(r, 11);         // the reassignment at 4
    CHECK(r.trace_events() == 5);
    CHECK(r.trace_dropped() == 6);
    const TraceRecord t = take(r);
    CHECK(kinds(t) == std::vector<std::string>{"scalar@2", "irq@5", "irq@6", "irq@10", "irq@11"});
    CHECK(t.left_out == std::array<uint64_t, 4>{0, 2, 1, 3});
    CHECK(gpuvp::trace_note(t) == "trace full: 6 events dropped (the limit is 5; see --trace-limit and --trace-detail): "
                                  "2 block-level, 1 warp-level and 3 register-table events");
}

TEST_CASE("trace detail: a launch-level event is dropped only when the trace holds nothing else", "[trace]") {
    Recorder r(true, 2);
    irq(r, 1);
    irq(r, 2);
    irq(r, 3);
    scalar(r, 4);
    const TraceRecord t = take(r);
    CHECK(kinds(t) == std::vector<std::string>{"irq@1", "irq@2"});
    CHECK(t.left_out == std::array<uint64_t, 4>{1, 0, 1, 0});
}

TEST_CASE("trace detail: the levels past --trace-detail are counted, not recorded, and never fill the trace", "[trace]") {
    Recorder r(true, 3, Detail::blocks);
    CHECK_FALSE(r.wants_table_values());
    table(r, 1);
    scalar(r, 2);
    reassigned(r, 3);
    irq(r, 4);
    scalar(r, 5);
    CHECK(r.trace_dropped() == 0);  // (results.json's trace.dropped: the limit's only)
    const TraceRecord t = take(r);
    CHECK(kinds(t) == std::vector<std::string>{"reassigned@3", "irq@4"});
    CHECK(t.left_out == std::array<uint64_t, 4>{0, 0, 2, 1});
    CHECK(t.detail == Detail::blocks);
    CHECK(gpuvp::trace_note(t) == "--trace-detail blocks: 2 warp-level and 1 register-table events not recorded");
}

TEST_CASE("trace detail: the option's words", "[trace]") {
    for (Detail d : {Detail::launches, Detail::blocks, Detail::warps, Detail::all}) {
        Detail back = Detail::all;
        REQUIRE(gpuvp::trace::detail_from(gpuvp::trace::detail_name(d), back));
        CHECK(back == d);
    }
    Detail d = Detail::warps;
    CHECK_FALSE(gpuvp::trace::detail_from("warp", d));
    CHECK(d == Detail::warps);
}
