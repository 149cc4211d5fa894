// A sweep's CSV files and table from its points' records (sc_main/sweep/tables.h), without a
// run: each column once, in the CSV and in the table, a failing point's kernels saying why, a
// point that did not run one row.
#include "sc_main/sweep/tables.h"

#include <catch2/catch.hpp>

using gpuvp::LaunchStatus;
using gpuvp::RunRecord;
using gpuvp::SweepAxis;

namespace {

RunRecord two_kernels() {
    RunRecord r;
    gpuvp::KernelRecord a, b;
    a.name = "a";
    a.dispatch_latency_ns = 1234.5;
    a.launch_latency_ns = 2000;
    a.response_ns = 2500.25;
    a.turnaround_ns = 9000;
    b.name = "b, the second";  // a comma: quoted in the CSV, as it is in the table
    b.status = LaunchStatus(LaunchStatus::State::unfinished, " by max_sim_ns");
    r.kernels = {a, b};
    return r;
}

}  // namespace

TEST_CASE("sweep tables: a row per point and kernel, each column once in the CSV and the table", "[sweep]") {
    gpuvp::SweepTables t({SweepAxis{"policy.dispatch", {"fifo", "priority-warp"}}});
    const RunRecord r = two_kernels();
    t.add({"fifo"}, &r, 0, {});
    t.add({"priority-warp"}, &r, 1, {"expectation (line 9): kernel a turnaround_ns = 9000.0, wanted <= 100.0"});
    t.add({"x,y"}, nullptr, 2, {"cannot load"});
    CHECK(t.kernels_csv() ==
          "policy.dispatch,kernel,status,dispatch_latency_ns,launch_latency_ns,response_ns,turnaround_ns,exit_code\n"
          "fifo,a,ok,1234.500,2000.000,2500.250,9000.000,0\n"
          "fifo,\"b, the second\",did not complete by max_sim_ns,,,,,0\n"
          "priority-warp,a,ok,1234.500,2000.000,2500.250,9000.000,1\n"
          "priority-warp,\"b, the second\",did not complete by max_sim_ns,,,,,1\n"
          "\"x,y\",,did not run,,,,,2\n");
    // Aligned: each column as wide as its widest cell, numbers to the right, no space at a line's end.
    CHECK(t.table() ==
          "policy.dispatch  | kernel        | dispatch ns | launch ns | response ns | turnaround ns | status\n"
          "fifo             | a             |    1234.500 |  2000.000 |    2500.250 |      9000.000 | ok\n"
          "fifo             | b, the second |             |           |             |               | did not complete by max_sim_ns\n"
          "priority-warp    | a             |    1234.500 |  2000.000 |    2500.250 |      9000.000 | FAIL: expectation (line 9): kernel a "
          "turnaround_ns = 9000.0, wanted <= 100.0\n"
          "priority-warp    | b, the second |             |           |             |               | FAIL: did not complete by max_sim_ns\n"
          "x,y              | -             |             |           |             |               | did not run (exit 2)\n");
    CHECK(t.locks_csv().empty());  // no warp took a lock
    CHECK(t.draws_csv().empty());
}

TEST_CASE("sweep tables: a name of several bytes a character is as wide as its characters", "[sweep]") {
    gpuvp::SweepTables t({SweepAxis{"k", {"1"}}});
    RunRecord r = two_kernels();
    r.kernels[1].name = "café";  // 5 bytes, 4 characters
    r.kernels[0].name = "abcde";
    t.add({"1"}, &r, 0, {});
    const std::string table = t.table();
    CHECK(table.find("| abcde  |") != std::string::npos);
    CHECK(table.find("| café   |") != std::string::npos);
}

TEST_CASE("sweep tables: locks per warp priority and draws with the array's totals", "[sweep]") {
    gpuvp::SweepTables t({SweepAxis{"platform.sm.lock_hold_limit", {"32"}}});
    RunRecord r;
    gpuvp::PriorityLocks p;
    p.warps = 4;
    p.acquisitions = 40;
    p.wait_ns = {12.5, 100};
    p.task_end_ns = {5000, 6000};
    p.sync_failures = 3;
    p.forced_releases = 2;
    p.hold_limit_releases = 1;
    p.retakes = 2;
    p.redone_instructions = 17;
    r.locks.by_priority = {{"0", p}};
    gpuvp::DrawRecord d;
    d.name = "tri";
    d.end_ns = 800;
    d.turnaround_ns = 900;
    r.usa.draws = {d};
    r.usa.counts.reassignments = 5;
    r.usa.utilization = 0.75;
    r.usa.cores.vertex = 6;
    r.usa.cores.pixel = 10;
    t.add({"32"}, &r, 0, {});
    CHECK(t.locks_csv() ==
          "platform.sm.lock_hold_limit,priority,warps,acquisitions,wait_mean_ns,wait_max_ns,task_end_mean_ns,"
          "task_end_max_ns,sync_failures,forced_releases,hold_limit_releases,retakes,redone_instructions\n"
          "32,0,4,40,12.500,100.000,5000.000,6000.000,3,2,1,2,17\n");
    CHECK(t.draws_csv() ==
          "platform.sm.lock_hold_limit,draw,status,arrived_ns,first_task_ns,vertex_done_ns,end_ns,complete_ns,"
          "turnaround_ns,usa_reassignments,usa_utilization,usa_vertex_cores,usa_pixel_cores,exit_code\n"
          "32,tri,ok,,,,800.000,,900.000,5,0.750,6,10,0\n");
    // No kernel ran: the table is the locks' and the draws'.
    CHECK(t.table() ==
          "\nLocks (M2), per warp priority:\n"
          "platform.sm.lock_hold_limit  | warp priority | lock wait mean / max ns | task end mean / max ns | "
          "sync failures | forced releases | hold-limit releases | redone instructions\n"
          "32                           |             0 |        12.500 / 100.000 |    5000.000 / 6000.000 | "
          "            3 |               2 |                   1 |                  17\n"
          "\nDraws (M4), with the shading array's totals:\n"
          "platform.sm.lock_hold_limit  | draw |  end ns | turnaround ns | array: reassignments | utilization | "
          "final split V/P\n"
          "32                           | tri  | 800.000 |       900.000 |                    5 |       0.750 |            6/10\n");
}
