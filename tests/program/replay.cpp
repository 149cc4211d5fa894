// Profiler traces as users replay them: `gpuvp import`, `gpuvp run TRACE`, `gpuvp calibrate`,
// on the bundled real traces (examples/traces/). These start the real `gpuvp` program.
#include <catch2/catch.hpp>
#include "sc_main/profiler/database.h"
#include "sc_main/record/short_names.h"
#include "tests/files.h"
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <sys/wait.h>

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;
using Catch::Matchers::Contains;

using Result = gpuvp::test::CliResult;

Result gpuvp_cli(const std::string& args) { return gpuvp::test::run_cli(std::string(GPUVP_BINARY) + " " + args); }

std::string trace(const char* name) { return std::string(GPUVP_SOURCE_DIR) + "/examples/traces/" + name; }

nlohmann::json results_without_host_time(const std::string& dir) {
    nlohmann::json r = nlohmann::json::parse(slurp(dir + "/results.json"));
    r.erase("host_seconds");
    r.erase("scenario");  // the file's name differs
    return r;
}

}  // namespace

TEST_CASE("replay: run TRACE gives the results of import then run of the file it wrote", "[replay][cli]") {
    const std::string dir = temp_dir();
    const Result imported = gpuvp_cli("import " + trace("a100-event-sync-3-streams.json.gz") + " -o " + dir + "/s.yaml");
    INFO(imported.output);
    REQUIRE(imported.exit_code == 0);
    CHECK_THAT(imported.output, Contains("3 kernels and 3 copies on 3 streams of device 0 (NVIDIA A100-PG509-200)"));
    const Result direct = gpuvp_cli("run " + trace("a100-event-sync-3-streams.json.gz") + " --no-trace --out " + dir + "/direct");
    INFO(direct.output);
    REQUIRE(direct.exit_code == 0);
    CHECK_THAT(direct.output, Contains("Replay: the model against the hardware, 3 kernels"));
    const Result file = gpuvp_cli("run " + dir + "/s.yaml --quiet --no-trace --out " + dir + "/file");
    REQUIRE(file.exit_code == 0);
    CHECK(results_without_host_time(dir + "/direct") == results_without_host_time(dir + "/file"));
    const nlohmann::json r = nlohmann::json::parse(slurp(dir + "/direct/results.json"));
    CHECK(r["platform"]["preset"] == "a100");
    CHECK(r["replay"]["kernels"] == 3);
    CHECK(r["replay"]["idle_launch_latency_ns"]["measured"]["count"] == 2);
    CHECK(r["kernels"][0]["measured"]["start_ns"].is_number());
}

TEST_CASE("replay: run TRACE takes --set and --platform, and validate TRACE counts it", "[replay][cli]") {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/p.yaml") << "preset: h100-sxm\n";
    const Result r = gpuvp_cli("run " + trace("a100-triton-one-kernel.json.gz") + " --quiet --no-trace --out " + dir +
                               " --platform " + dir + "/p.yaml --set policy.dispatch=priority-warp");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(slurp(dir + "/results.json"));
    CHECK(j["platform"]["preset"] == "h100-sxm");
    CHECK(j["policy"]["dispatch"] == "priority-warp");
    CHECK(j["sms"].size() == 132);
    const Result v = gpuvp_cli("validate " + trace("mi250-rocm6.2-minitoy-train.json.gz"));
    INFO(v.output);
    CHECK(v.exit_code == 0);
    CHECK_THAT(v.output, Contains("14 kernels and 2 copies on 1 stream of device 2"));
    CHECK_THAT(v.output, Contains("host calls on 2 threads"));
}

TEST_CASE("replay: event waits and syncs joined by the importer are counted, those it cannot join are a warning",
          "[replay][cli][trace-import]") {
    const std::string dir = temp_dir();
    // (--no-solve: the joins do not depend on the kernels' bodies, and solving them simulates.)
    const Result joined = gpuvp_cli("import " + trace("h200-two-streams.json.gz") + " --no-solve -o " + dir + "/two.yaml");
    INFO(joined.output);
    REQUIRE(joined.exit_code == 0);
    CHECK_THAT(joined.output, Contains("8 event waits and syncs joined to their record calls"));
    CHECK_THAT(slurp(dir + "/two.yaml"), Contains("after: [vectorized_elementwise_kernel_5#0]"));
    CHECK(joined.output.find("warning") == std::string::npos);
    // A sync on an event recorded by no call before it: nothing to join it to.
    const std::string file = dir + "/lost.json";
    std::ofstream(file) << R"({"traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1, "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3, "dur": 5,
       "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [64, 1, 1]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "pid": 9, "tid": 9, "ts": 4, "dur": 4, "args": {"correlation": 2}},
      {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 1, "ts": 4, "dur": 4,
       "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": -1, "wait_on_cuda_event_record_corr_id": -1,
                "wait_on_cuda_event_id": 3, "stream": -1, "correlation": 2, "device": 0}}]})";
    const std::string warning = "warning: " + file + ": 1 event wait or sync unresolved (Stream Wait Event, Event Sync records)";
    for (const std::string& command : {"import " + file + " -o " + dir + "/lost.yaml", "validate " + file,
                                       "run " + file + " --quiet --no-trace --out " + dir + "/lost"}) {
        const Result r = gpuvp_cli(command);
        INFO(command << "\n" << r.output);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.output, Contains(warning));
        if (command.rfind("run", 0) != 0) CHECK_THAT(r.output, Contains("; 1 event wait or sync unresolved"));
    }
}

TEST_CASE("replay: a broken trace is exit 2 naming the file and where", "[replay][cli]") {
    const std::string dir = temp_dir();
    const std::string whole = slurp(trace("a100-event-sync-3-streams.json.gz"));
    std::ofstream(dir + "/cut.json.gz", std::ios::binary) << whole.substr(0, whole.size() / 2);
    const Result cut = gpuvp_cli("run " + dir + "/cut.json.gz");
    INFO(cut.output);
    CHECK(cut.exit_code == 2);
    CHECK_THAT(cut.output, Contains(dir + "/cut.json.gz: byte "));
    std::ofstream(dir + "/none.json") << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "ts": 1, "dur": 2}]})";
    const Result none = gpuvp_cli("import " + dir + "/none.json -o " + dir + "/o.yaml");
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.output, Contains("no kernels"));
    const Result device = gpuvp_cli("run " + trace("a100-triton-one-kernel.json.gz") + " --device 5");
    CHECK(device.exit_code == 2);
    CHECK_THAT(device.output, Contains("no kernels on device 5"));
}

TEST_CASE("replay: calibrate writes a platform file that run TRACE takes", "[replay][cli][calibrate]") {
    const std::string dir = temp_dir();
    const Result c = gpuvp_cli("calibrate " + trace("a100-event-sync-3-streams.json.gz") + " " +
                               trace("a100-triton-one-kernel.json.gz") + " --evaluations 6 -j 2 -o " + dir + "/cal.yaml");
    INFO(c.output);
    REQUIRE(c.exit_code == 0);
    CHECK_THAT(c.output, Contains("fitted values:"));
    CHECK_THAT(c.output, Contains("held out"));
    CHECK_THAT(c.output, Contains("6 evaluations"));
    // The objective and the table compare the same launches on both sides (paired errors).
    CHECK_THAT(c.output, Contains("objective (ns, median |simulated - measured| per launch"));
    CHECK_THAT(c.output, Contains("idle |error|, paired"));
    // The GLC's cost: the durations bound it far above the default (123 µs kernels of 160 placements).
    CHECK_THAT(c.output, Contains("glc.decision_cycles = 12 (the default; the traces bound it at "));
    CHECK_THAT(c.output, Contains("(dispatch-bound): 0 of 4"));
    const std::string yaml = slurp(dir + "/cal.yaml");
    CHECK_THAT(yaml, Contains("platform:"));
    CHECK_THAT(yaml, Contains("api_overhead_ns"));
    const Result r = gpuvp_cli("run " + trace("a100-event-sync-3-streams.json.gz") + " --quiet --platform " + dir + "/cal.yaml");
    INFO(r.output);
    CHECK(r.exit_code == 0);
}

TEST_CASE("replay: a trace that does not name its GPU: a warning naming the fix, --preset or --set platform.preset "
          "names it, in every command that reads a trace", "[replay][cli]") {
    const std::string dir = temp_dir();
    const std::string file = dir + "/old.json";  // an older profiler's trace: no deviceProperties
    auto write = [&](uint32_t shared) {
        std::ofstream(file) << R"({"traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1, "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3, "dur": 5,
       "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [64, 1, 1],
                "shared memory": )" << shared
                            << R"(}}]})";
    };
    const std::string unnamed = "warning: " + file + ": the trace does not name its GPU, so it was imported on the default "
                                "platform (docs/presets.md): name it with --preset NAME (gpuvp presets) or --platform FILE";
    write(1024);
    for (const std::string& command : {"import " + file + " --no-solve -o " + dir + "/a.yaml", "validate " + file,
                                       "run " + file + " --no-solve --quiet --no-trace --out " + dir + "/a"}) {
        const Result r = gpuvp_cli(command);
        INFO(command << "\n" << r.output);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.output, Contains(unnamed));
    }
    // 160 KiB of shared memory a block: an A100's SM holds it, the default platform's does not.
    write(163840);
    const Result fails = gpuvp_cli("import " + file + " --no-solve -o " + dir + "/b.yaml");
    INFO(fails.output);
    CHECK(fails.exit_code == 2);
    CHECK_THAT(fails.output, Contains("163840 bytes of shared memory per block (an SM has 65536)"));
    CHECK_THAT(fails.output, Contains("the trace does not name its GPU, so it was imported on the default platform"));
    for (const std::string& command :
         {"import " + file + " --no-solve -o " + dir + "/b.yaml --preset a100", "validate " + file + " --preset a100",
          "run " + file + " --no-solve --quiet --no-trace --out " + dir + "/b --preset a100",
          "run " + file + " --no-solve --quiet --no-trace --out " + dir + "/c --set platform.preset=a100"}) {
        const Result r = gpuvp_cli(command);
        INFO(command << "\n" << r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output.find("warning") == std::string::npos);
    }
    CHECK_THAT(slurp(dir + "/b.yaml"), Contains("preset: a100"));
    CHECK(nlohmann::json::parse(slurp(dir + "/b/results.json"))["platform"]["preset"] == "a100");
    CHECK(nlohmann::json::parse(slurp(dir + "/c/results.json"))["platform"]["preset"] == "a100");
    // calibrate: the fitted values over the GPU --preset names, in the file it writes.
    const Result cal = gpuvp_cli("calibrate " + trace("a100-event-sync-3-streams.json.gz") + " --preset a100 --evaluations 2 -o " +
                                 dir + "/cal.yaml");
    INFO(cal.output);
    CHECK(cal.exit_code == 0);
    const std::string fitted = slurp(dir + "/cal.yaml");
    CHECK_THAT(fitted, Contains("preset: a100"));
    CHECK_THAT(fitted, Contains("api_overhead_ns"));
    // --preset is checked, and names the GPU as --platform does: not both.
    const Result typo = gpuvp_cli("import " + file + " -o " + dir + "/d.yaml --preset a10");
    CHECK(typo.exit_code == 2);
    CHECK_THAT(typo.output, Contains("unknown preset 'a10' (one of a100,"));
    std::ofstream(dir + "/p.yaml") << "preset: a100\n";
    const Result both = gpuvp_cli("validate " + file + " --preset a100 --platform " + dir + "/p.yaml");
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.output, Contains("excludes"));
}

TEST_CASE("replay: an Nsight Systems SQLite export imports and runs, its NVTX ranges the kernels' labels, and a report is "
          "refused with the command that exports it",
          "[replay][cli][nsys]") {
    const std::string dir = temp_dir();
    const std::string nsys = std::string(GPUVP_SOURCE_DIR) + "/tests/data/nsys/";
    const std::string db = dir + "/two-streams.sqlite";
    std::ofstream(db, std::ios::binary) << gpuvp::Database::from_sql(slurp(nsys + "schema.sql") + slurp(nsys + "two-streams.sql"), db)
                                               .image();
    const Result imported = gpuvp_cli("import " + db + " --no-solve -o " + dir + "/s.yaml");
    INFO(imported.output);
    REQUIRE(imported.exit_code == 0);
    CHECK_THAT(imported.output, Contains("2 kernels and 2 copies and 1 CUDA graph traced whole (each replayed as one piece of work) "
                                         "on 2 streams of device 0 (NVIDIA A100-SXM4-80GB)"));
    CHECK_THAT(slurp(dir + "/s.yaml"), Contains("label: forward"));
    const Result run = gpuvp_cli("run " + db + " --no-solve --no-trace --out " + dir + "/r");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const nlohmann::json r = nlohmann::json::parse(slurp(dir + "/r/results.json"));
    CHECK(r["platform"]["preset"] == "a100");
    CHECK(r["replay"]["kernels"] == 2);
    REQUIRE(r["kernels"].size() == 2);
    CHECK(r["kernels"][0]["label"] == "forward");
    CHECK(r["kernels"][1]["label"] == "relu");
    CHECK(r["kernels"][1]["measured"]["start_ns"] == 20600 - 1000);  // from the first launch call's start
    CHECK_THAT(slurp(dir + "/r/report.html"), Contains("[relu]"));
    std::ofstream(dir + "/two-streams.nsys-rep") << "NSYS";
    const Result rep = gpuvp_cli("run " + dir + "/two-streams.nsys-rep");
    CHECK(rep.exit_code == 2);
    CHECK_THAT(rep.output, Contains("an Nsight Systems report: gpuvp reads its SQLite export; write it with `nsys export --type "
                                    "sqlite --output " + dir + "/two-streams.sqlite " + dir + "/two-streams.nsys-rep`"));
}

namespace {

// A trace.json read as Chrome's trace event format defines it (an object whose traceEvents are
// the events; `ph` M: metadata naming the rows), not by gpuvp's reader: each stream's kernels
// (the `kernels` process's complete events by their args.queue, the queue named by its row of
// the command processor, "queue <name>"), each kernel's launch stages (the `launch stages`
// process's complete events by args.kernel), the categories of the other events, their count,
// and otherData.
struct TraceCounts {
    std::map<std::string, int> kernels;            // stream -> kernels
    std::map<std::string, size_t> stages;          // kernel -> launch stages
    std::set<std::string> categories;              // of every event but the metadata
    size_t events = 0;                             // every event but the metadata
    nlohmann::json other;
};

TraceCounts read_counts(const std::string& path) {
    const nlohmann::json t = nlohmann::json::parse(slurp(path));
    std::map<uint64_t, std::string> queues;  // the command processor's row -> its stream
    for (const nlohmann::json& e : t.at("traceEvents"))
        if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("pid") == 2)
            queues[e.at("tid").get<uint64_t>()] = e.at("args").at("name").get<std::string>().substr(6);
    TraceCounts c;
    for (const nlohmann::json& e : t.at("traceEvents")) {
        if (e.at("ph") == "M") continue;
        ++c.events;
        c.categories.insert(e.value("cat", ""));
        if (e.at("ph") == "X" && e.at("pid") == 5) ++c.kernels[queues[100 + e.at("args").at("queue").get<uint64_t>()]];
        if (e.at("ph") == "X" && e.at("pid") == 4) ++c.stages[e.at("args").at("kernel").get<std::string>()];
    }
    c.other = t.value("otherData", nlohmann::json::object());
    return c;
}

}  // namespace

TEST_CASE("replay: a full trace keeps every kernel on its stream and its launch stages before any block, warp or table event",
          "[replay][cli][trace]") {
    const std::string dir = temp_dir();
    // 36 010 events more than the limit of 60 (blocks, warps, register tables): the kernels,
    // copies, barrier, launch stages and the irq line are kept first.
    const Result run = gpuvp_cli("run " + trace("a100-event-sync-3-streams.json.gz") + " --quiet --trace-limit 60 --out " + dir);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("gpuvp: " + dir + "/trace.json: trace full: "));
    CHECK_THAT(run.output, Contains("events dropped (the limit is 60; see --trace-limit and --trace-detail): "));
    const nlohmann::json r = nlohmann::json::parse(slurp(dir + "/results.json"));
    std::map<std::string, int> kernels;  // the run's, by stream
    for (const nlohmann::json& k : r.at("kernels")) ++kernels[k.at("queue").get<std::string>()];
    REQUIRE(kernels.size() == 3);
    const TraceCounts t = read_counts(dir + "/trace.json");
    CHECK(t.kernels == kernels);
    for (const nlohmann::json& k : r.at("kernels")) {
        INFO(k.at("name"));
        CHECK(t.stages.at(k.at("name").get<std::string>()) == k.at("stages").size());
    }
    CHECK(t.events == 60);
    CHECK(t.categories.count("copy") == 1);
    CHECK(t.categories.count("table") == 0);  // the rest went to the first blocks and warps
    CHECK(t.other.at("detail") == "all");
    CHECK(t.other.at("limit") == 60);
    CHECK(t.other.at("left_out_launches") == 0);
    CHECK(t.other.at("left_out_warps").get<uint64_t>() > 0);
    CHECK(t.other.at("left_out_tables").get<uint64_t>() > 0);
    CHECK(r.at("trace").at("events") == 60);
    CHECK(r.at("trace").at("dropped").get<uint64_t>() ==
          t.other.at("left_out_blocks").get<uint64_t>() + t.other.at("left_out_warps").get<uint64_t>() +
              t.other.at("left_out_tables").get<uint64_t>());
}

TEST_CASE("replay: --trace-detail launches records the kernels, copies and launch stages only, and the page says so",
          "[replay][cli][trace]") {
    const std::string dir = temp_dir();
    const Result run = gpuvp_cli("run " + trace("mi250-rocm6.2-minitoy-train.json.gz") + " --quiet --trace-detail launches --out " + dir);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("trace.json: --trace-detail launches: "));
    CHECK_THAT(run.output, Contains("register-table events not recorded"));
    const TraceCounts t = read_counts(dir + "/trace.json");
    CHECK(t.kernels == std::map<std::string, int>{{"stream0", 14}});
    CHECK(t.stages.size() == 14);
    CHECK(t.categories == std::set<std::string>{"copy", "irq", "kernel", "launch"});
    CHECK(t.other.at("detail") == "launches");
    CHECK(t.other.at("left_out_launches") == 0);
    CHECK(t.other.at("left_out_blocks").get<uint64_t>() > 0);
    const nlohmann::json r = nlohmann::json::parse(slurp(dir + "/results.json"));
    CHECK(r.at("trace").at("dropped") == 0);  // (nothing was lost to the limit)
    // The page's charts from the results are whole; its warp charts say what the trace holds.
    const std::string page = slurp(dir + "/report.html");
    CHECK_THAT(page, Contains("id=\"kernel-spans\""));
    CHECK_THAT(page, Contains("--trace-detail launches: "));
    const Result typo = gpuvp_cli("run " + trace("mi250-rocm6.2-minitoy-train.json.gz") + " --trace-detail warp --out " + dir);
    CHECK(typo.exit_code == 2);
    CHECK_THAT(typo.output, Contains("--trace-detail"));
}

// The progress line on a terminal (`script` gives the run one), through a replay's steps: the
// reading of the trace as its parser goes, the import and its solve, the simulation, the
// outputs as they are written; each rewritten in place (\r) and wiped before what is printed next.
TEST_CASE("on a terminal, run says how reading, simulating and writing go, and wipes its line", "[cli][replay]") {
    const std::string dir = gpuvp::test::temp_dir(), file = trace("mi250-rocm6.2-minitoy-train.json.gz");
    // A terminal COLUMNS wide: the run's output, and each state of its line (what follows a \r
    // up to the next \r or newline).
    auto on_terminal = [&](int columns, const std::string& out, std::vector<std::string>& states) {
        const Result r = gpuvp::test::run_cli("script -qec 'stty cols " + std::to_string(columns) + "; " +
                                              std::string(GPUVP_BINARY) + " run " + file + " --out " + dir + "/" + out +
                                              "' /dev/null");
        for (size_t at = r.output.find('\r'); at != std::string::npos; at = r.output.find('\r', at + 1)) {
            const size_t end = r.output.find_first_of("\r\n", at + 1);
            std::string s = r.output.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
            // (under ASan a forked child's "==PID==WARNING: ASan is ignoring requested
            // __asan_handle_no_return" can follow the line on the terminal: not the line's)
            if (const size_t asan = s.find("==WARNING: ASan"); asan != std::string::npos) {
                const size_t pid = asan > 0 ? s.rfind("==", asan - 1) : std::string::npos;  // "==PID" before it
                s.erase(pid == std::string::npos ? asan : pid);
            }
            while (!s.empty() && s.back() == ' ') s.pop_back();
            if (!s.empty()) states.push_back(s);
        }
        return r;
    };
    std::vector<std::string> states;
    const Result r = on_terminal(200, "out", states);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto first = [&](const std::string& prefix) {
        for (size_t i = 0; i < states.size(); ++i)
            if (states[i].rfind(prefix, 0) == 0) return i;
        return states.size();
    };
    // The reading, its percentages going up, then the import, the simulation, the outputs, in order.
    const std::string name = "mi250-rocm6.2-minitoy-train.json.gz";  // (the file's name: the line stays short)
    const std::string reading = "  reading " + name + ": ";
    int last = -1;
    size_t percents = 0;
    for (const std::string& s : states)
        if (s.rfind(reading, 0) == 0) {
            const int p = std::stoi(s.substr(reading.size()));
            CHECK(p >= last);
            CHECK(s.substr(s.find(" % of ")) == " % of 0.1 MB");
            last = p;
            ++percents;
        }
    CHECK(percents >= 20);
    CHECK(last >= 90);
    const size_t import = first("  importing " + name + ": 16 kernels and copies into a scenario"),
                 simulated = first("  simulated 9229.0 us, kernels 14/14 done"), building = first("  simulated; building the trace"),
                 trace_json = first("  writing " + dir + "/out/trace.json ("), page = first("  writing " + dir + "/out/report.html");
    const size_t solving = first("  importing " + name + ": solving the bodies of 14 kernels, each alone on the model");
    CHECK(first(reading) < import);
    CHECK(import < solving);
    CHECK(solving < simulated);
    CHECK(simulated < building);
    CHECK(building < trace_json);
    CHECK(trace_json < page);
    CHECK(page < states.size());
    // Wiped: what is printed after it starts at the line's start.
    CHECK(r.output.find("\rwrote " + dir + "/out/: results.json, trace.json, report.html") != std::string::npos);
    // A narrow terminal: every state within its width, its start and its end kept.
    std::vector<std::string> narrow;
    CHECK(on_terminal(50, "narrow", narrow).exit_code == 0);
    size_t cut = 0;
    for (const std::string& s : narrow) {
        if (s.rfind("wrote ", 0) == 0 || s.find("  ") != 0) continue;  // (the tables' lines, not the status)
        CHECK(gpuvp::text_chars(s) <= 49);
        cut += s.find("…") != std::string::npos;
    }
    CHECK(cut > 0);
    // Not a terminal: none of it.
    const Result piped = gpuvp_cli("run " + file + " --out " + dir + "/piped");
    CHECK(piped.exit_code == 0);
    CHECK(piped.output.find("reading ") == std::string::npos);
    CHECK(piped.output.find('\r') == std::string::npos);
}
