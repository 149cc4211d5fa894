// The command line as users run it: determinism, output files, bad input. These start the
// real `gpuvp` program.
#include <catch2/catch.hpp>
#include <gpuvp/platform/gpu_config.h>
#include <gpuvp/platform/presets.h>
#include "tests/files.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <map>
#include <vector>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;

using Result = gpuvp::test::CliResult;

// Runs a program of the build (`gpuvp` by default) with `args`.
Result cli(const std::string& args, const char* program = GPUVP_BINARY) {
    return gpuvp::test::run_cli(std::string(program) + " " + args);
}

std::string write_temp(const std::string& text) {
    std::string path = temp_dir() + "/s.yaml";
    std::ofstream(path) << text;
    return path;
}

const std::string kDefault = std::string(GPUVP_SOURCE_DIR) + "/scenarios/default.yaml";

}  // namespace

namespace {
// Every bundled scenario (scenarios/*.yaml), in name order.
std::vector<std::string> bundled_scenarios() {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(std::string(GPUVP_SOURCE_DIR) + "/scenarios"))
        if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}
}  // namespace

TEST_CASE("two runs of every bundled scenario give byte-identical results but for host_seconds, and identical traces", "[cli][determinism][normal-build]") {
    static const std::vector<std::string> files = bundled_scenarios();
    REQUIRE(files.size() >= 16);
    const std::string file = GENERATE(from_range(files));
    std::string a = temp_dir(), b = temp_dir();
    const Result first = cli("run " + file + " --quiet --out " + a);
    INFO(first.output);
    REQUIRE(first.exit_code == 0);
    REQUIRE(cli("run " + file + " --quiet --out " + b).exit_code == 0);
    auto ra = nlohmann::ordered_json::parse(slurp(a + "/results.json"));
    auto rb = nlohmann::ordered_json::parse(slurp(b + "/results.json"));
    CHECK(ra["host_seconds"].get<double>() > 0);
    // host_seconds, at the top and in each variant's results (A/B scenarios), is the only
    // field that may differ.
    size_t host_fields = 0;
    for (auto* r : {&ra, &rb}) {
        r->erase("host_seconds");
        if (r->contains("variants"))
            for (auto& v : (*r)["variants"]) v["results"].erase("host_seconds");
    }
    if (ra.contains("variants")) host_fields = ra["variants"].size();
    CHECK(ra.dump(2) == rb.dump(2));
    CHECK(slurp(a + "/trace.json") == slurp(b + "/trace.json"));
    // Byte for byte: only host_seconds lines differ.
    std::istringstream la(slurp(a + "/results.json")), lb(slurp(b + "/results.json"));
    std::string x, y;
    size_t differing = 0;
    while (std::getline(la, x) && std::getline(lb, y))
        if (x != y) {
            ++differing;
            CHECK(x.find("\"host_seconds\"") != std::string::npos);
        }
    CHECK(differing <= 1 + host_fields);
}

TEST_CASE("each issue order gives byte-identical results and traces run after run", "[cli][determinism]") {
    // The bundled scenarios above run the default order (gto); this holds every value of
    // policy.issue to the same, on the default scenario (warps of two kernels sharing SMs).
    const std::string order = GENERATE(from_range(gpuvp::policy_names<gpuvp::IssuePolicy>()));
    std::string a = temp_dir(), b = temp_dir();
    const std::string args = "run " + kDefault + " --quiet --set policy.issue=" + order + " --out ";
    REQUIRE(cli(args + a).exit_code == 0);
    REQUIRE(cli(args + b).exit_code == 0);
    auto ra = nlohmann::ordered_json::parse(slurp(a + "/results.json"));
    auto rb = nlohmann::ordered_json::parse(slurp(b + "/results.json"));
    CHECK(ra["policy"]["issue"] == order);
    ra.erase("host_seconds");
    rb.erase("host_seconds");
    CHECK(ra.dump(2) == rb.dump(2));
    CHECK(slurp(a + "/trace.json") == slurp(b + "/trace.json"));
}

TEST_CASE("gpuvp run prints the launch breakdown and writes contract-complete files", "[cli]") {
    std::string d = temp_dir();
    Result r = cli("run " + kDefault + " --out " + d);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("Launch latency breakdown") != std::string::npos);
    CHECK(r.output.find("doorbell_to_fetch") != std::string::npos);
    auto res = nlohmann::json::parse(slurp(d + "/results.json"));
    for (const char* key : {"scenario", "status", "policy", "sim_end_ns", "host_seconds", "kernels", "locks", "scalar",
                            "usa", "sms", "expectations"})
        CHECK(res.contains(key));
    auto trace = nlohmann::json::parse(slurp(d + "/trace.json"));
    int warps = 0;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e.contains("args") && e["args"].contains("kernel") && e["args"].contains("block") &&
            e["args"].contains("warp") && e["args"].contains("sm"))
            ++warps;
    CHECK(warps == res["totals"]["warps"].get<int>());
    // Last on stdout: the expectations checked, and what was written where.
    const size_t expectations = res["expectations"].size();
    REQUIRE(expectations > 0);
    CHECK(r.output.find("expectations: " + std::to_string(expectations) + " of " + std::to_string(expectations) +
                        " passed\n") != std::string::npos);
    CHECK(r.output.find("wrote " + d + "/: results.json, trace.json, report.html\n") != std::string::npos);
}

TEST_CASE("gpuvp run says how many expectations passed, and --no-expect checks none of them", "[cli]") {
    const std::string d = temp_dir();
    const std::string path = write_temp(
        "name: t\nkernels:\n  - {name: k, program: [{op: kernarg_load}]}\nexpect:\n"
        "  - {kernel: k, metric: response_ns, max: 1}\n  - {kernel: k, metric: response_ns, min: 1}\n");
    Result r = cli("run " + path);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("expectations: 1 of 2 passed\n") != std::string::npos);
    CHECK(r.output.find("wrote") == std::string::npos);  // (no --out)
    r = cli("run " + path + " --no-expect --no-trace --out " + d);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("expectations: not checked (--no-expect)\n") != std::string::npos);
    CHECK(r.output.find("wrote " + d + "/: results.json, report.html\n") != std::string::npos);
    CHECK(nlohmann::json::parse(slurp(d + "/results.json"))["expectations"].empty());
    // A sweep's points, each without the file's expectations.
    r = cli("sweep " + path + " --set platform.sms=1,2 --quiet");
    CHECK(r.exit_code == 1);
    r = cli("sweep " + path + " --set platform.sms=1,2 --no-expect --quiet");
    CHECK(r.exit_code == 0);
}

TEST_CASE("gpuvp_bench prints its usage for --help and refuses an unknown option", "[cli][errors]") {
    auto bench = [](const std::string& args) { return cli(args, GPUVP_BENCH); };
    const Result help = bench("--help");
    CHECK(help.exit_code == 0);
    CHECK(help.output.find("usage: gpuvp_bench [SCENARIO_DIR]") != std::string::npos);
    CHECK(help.output.find("--quick") != std::string::npos);
    // An option it does not know is not taken for a folder of scenarios.
    const Result bad = bench("--fast");
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("usage: gpuvp_bench") != std::string::npos);
    CHECK(bad.output.find("compute:") == std::string::npos);
    CHECK(bench("--quick a b").exit_code == 2);
}

TEST_CASE("a typo in a scenario is exit code 2 with file, line and key", "[cli][errors]") {
    std::string path = write_temp("name: t\nplatform:\n  sms: 4\n  sm: {warp_slotz: 8}\nkernels:\n  - {name: k, program: [{op: end}]}\n");
    Result r = cli("run " + path);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + ":4:") != std::string::npos);
    CHECK(r.output.find("platform.sm.warp_slotz") != std::string::npos);
    CHECK(r.output.find("did you mean 'warp_slots'") != std::string::npos);
}

TEST_CASE("gpuvp validate checks a file without running it", "[cli]") {
    CHECK(cli("validate " + kDefault).exit_code == 0);
    std::string bad = write_temp("name: t\nkernels:\n  - {name: k, vregs: 1000, program: [{op: end}]}\n");
    Result r = cli("validate " + bad);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(":3:") != std::string::npos);
    CHECK(r.output.find("vregs") != std::string::npos);
}

TEST_CASE("the set option overrides a key and a bad one is bad input", "[cli]") {
    std::string d = temp_dir();
    REQUIRE(cli("run " + kDefault + " --quiet --no-trace --out " + d + " --set platform.memory.host_latency_ns=1000").exit_code == 0);
    auto res = nlohmann::json::parse(slurp(d + "/results.json"));
    CHECK(res["memory"]["latency_ns"]["host"].get<double>() == 1000);
    CHECK(cli("run " + kDefault + " --set platform.sms=zero").exit_code == 2);
    CHECK(cli("run " + kDefault + " --set nonsense").exit_code == 2);
    CHECK(cli("run /nonexistent.yaml").exit_code == 2);
    CHECK(cli("frobnicate").exit_code == 2);
}

TEST_CASE("a failed expectation is exit code 1 and is marked in the results", "[cli]") {
    std::string d = temp_dir();
    std::string path = write_temp(
        "name: t\nkernels:\n  - {name: k, program: [{op: kernarg_load}]}\nexpect:\n  - {kernel: k, metric: response_ns, max: 1}\n");
    Result r = cli("run " + path + " --quiet --out " + d);
    CHECK(r.exit_code == 1);
    auto res = nlohmann::json::parse(slurp(d + "/results.json"));
    CHECK(res["expectations"][0]["passed"] == false);
    CHECK(res["expectations"][0]["value"].get<double>() > 1);
}

TEST_CASE("the trace keeps at most trace-limit events and says how many it dropped", "[cli][trace]") {
    std::string d = temp_dir();
    REQUIRE(cli("run " + kDefault + " --quiet --trace-limit 100 --out " + d).exit_code == 0);
    auto res = nlohmann::json::parse(slurp(d + "/results.json"));
    CHECK(res["trace"]["events"].get<int>() == 100);
    CHECK(res["trace"]["dropped"].get<int>() > 0);
    auto trace = nlohmann::json::parse(slurp(d + "/trace.json"));
    CHECK(trace["otherData"]["note"].get<std::string>().find("events dropped") != std::string::npos);
    CHECK(cli("run " + kDefault + " --trace-limit lots").exit_code == 2);
}

TEST_CASE("gpuvp sweep runs every point of the product of its axes and writes a CSV", "[cli][sweep]") {
    std::string d = temp_dir();
    Result r = cli("sweep " + kDefault +
                     " --set policy.launch=serial,prefetch --set platform.memory.host_latency_ns=200,1000 -j 2 --out " + d);
    REQUIRE(r.exit_code == 0);
    const std::string csv = slurp(d + "/sweep.csv");
    std::istringstream lines(csv);
    std::string header, line;
    std::getline(lines, header);
    CHECK(header.rfind("policy.launch,platform.memory.host_latency_ns,kernel,status,dispatch_latency_ns", 0) == 0);
    int rows = 0, prefetch_rows = 0;
    while (std::getline(lines, line)) {
        ++rows;
        if (line.rfind("prefetch,", 0) == 0) ++prefetch_rows;
    }
    CHECK(rows == 2 * 2 * 3);  // 4 points x 3 kernels of the default scenario
    CHECK(prefetch_rows == 6);
    // Each point is a full run with its own results.
    auto p3 = nlohmann::json::parse(slurp(d + "/point-3/results.json"));
    CHECK(p3["policy"]["launch"] == "prefetch");
    CHECK(p3["memory"]["latency_ns"]["host"].get<double>() == 1000);
    // A bad value in any point is bad input before anything runs.
    CHECK(cli("sweep " + kDefault + " --set platform.sms=4,zero").exit_code == 2);
    CHECK(cli("sweep " + kDefault + " --set platform.sms=4").exit_code == 2);  // no axis
}

// --- gpuvp regress and merge ---------------------------------------------------------------

namespace {

const char* kPassing = "name: passing\nkernels: [{name: k, program: [{op: valu}]}]\n"
                       "expect:\n  - {kernel: k, metric: blocks, min: 1, max: 1}\n  - {metric: kernels_ok, min: 1}\n";
const char* kFailing = "name: failing\nkernels: [{name: k, program: [{op: valu}]}]\n"
                       "expect:\n  - {kernel: k, metric: blocks, min: 1}\n  - {kernel: k, metric: response_ns, max: 1}\n";

// A well-formed XML document: every element closed in order (attributes and text not parsed).
bool well_formed(const std::string& x) {
    std::vector<std::string> open;
    for (size_t at = x.find('<'); at != std::string::npos; at = x.find('<', at + 1)) {
        const size_t end = x.find('>', at);
        if (end == std::string::npos) return false;
        const std::string tag = x.substr(at + 1, end - at - 1);
        if (tag.empty() || tag[0] == '?') continue;
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return false;
            open.pop_back();
        } else if (tag.back() != '/') {
            open.push_back(tag.substr(0, tag.find(' ')));
        }
    }
    return open.empty();
}

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

// The summary row that starts with `file`, its spaces squeezed to one.
std::string row(const std::string& output, const std::string& file) {
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(file + " ", 0) == 0) {
            std::string squeezed;
            for (char c : line)
                if (c != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += c;
            return squeezed;
        }
    return "";
}

// Drops the host times (time="..." in JUnit, the host_seconds column in CSV).
std::string without_times(std::string s) {
    for (size_t at = s.find(" time=\""); at != std::string::npos; at = s.find(" time=\"", at + 1))
        s.erase(at + 7, s.find('"', at + 7) - (at + 7));
    std::istringstream in(s);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.find(",pass,") != std::string::npos || line.find(",fail,") != std::string::npos ||
            line.find(",error,") != std::string::npos) {
            const size_t last = line.rfind(','), prev = line.rfind(',', last - 1);
            line.erase(prev + 1, last - prev - 1);
        }
        out += line + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("gpuvp regress over a folder with a passing and a failing scenario", "[cli][regress]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/a-passing.yaml") << kPassing;
    std::ofstream(d + "/b-failing.yaml") << kFailing;
    std::ofstream(d + "/notes.txt") << "not a scenario";
    const std::string out = temp_dir();
    Result r = cli("regress " + d + " -j 2 --junit " + out + "/j.xml --csv " + out + "/r.csv --out " + out + "/runs");
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(row(r.output, d + "/a-passing.yaml").rfind(d + "/a-passing.yaml pass 2/2 ", 0) == 0);
    CHECK(row(r.output, d + "/b-failing.yaml").rfind(d + "/b-failing.yaml fail 1/2 ", 0) == 0);
    CHECK(r.output.find("kernel k response_ns") != std::string::npos);
    CHECK(r.output.find("2 scenarios: 1 passed, 1 failed, 0 errors") != std::string::npos);
    const std::string junit = slurp(out + "/j.xml");
    CHECK(well_formed(junit));
    CHECK(junit.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0) == 0);
    CHECK(junit.find("tests=\"2\" failures=\"1\" errors=\"0\"") != std::string::npos);
    CHECK(count(junit, "<testcase ") == 2);
    CHECK(count(junit, "<failure ") == 1);
    CHECK(junit.find("name=\"b-failing\"") != std::string::npos);
    CHECK(junit.find("message=\"1 of 2 expectations failed\"") != std::string::npos);
    const std::string csv = slurp(out + "/r.csv");
    CHECK(csv.rfind("file,name,status,expectations_passed,expectations_failed,sim_end_ns,host_seconds,exit_code\n", 0) == 0);
    CHECK(csv.find(",passing,pass,2,0,") != std::string::npos);
    CHECK(csv.find(",failing,fail,1,1,") != std::string::npos);
    // Each run's results are kept under --out, by file name.
    auto res = nlohmann::json::parse(slurp(out + "/runs/b-failing/results.json"));
    CHECK(res["scenario"] == "failing");
    // And its trace, as `gpuvp run --out` writes it.
    auto trace = nlohmann::json::parse(slurp(out + "/runs/b-failing/trace.json"));
    CHECK(trace["traceEvents"].size() > 10);
    // What failed, on stderr too, --quiet or not; nothing for a pass.
    Result quiet = cli("regress " + d + " --quiet");
    CHECK(quiet.exit_code == 1);
    // (Under the sanitizers a child's stderr may hold their warnings too: the lines are looked for.)
    CHECK(quiet.output.find("gpuvp: " + d + "/b-failing.yaml: fail: expectation (line 5): kernel k response_ns = ") !=
          std::string::npos);
    CHECK(quiet.output.find("a-passing") == std::string::npos);
    // Only the passing file: exit 0, nothing said.
    Result pass = cli("regress " + d + "/a-passing.yaml --quiet");
    CHECK(pass.exit_code == 0);
    CHECK(pass.output.find("gpuvp") == std::string::npos);
}

TEST_CASE("gpuvp regress reports bad input as an error with its file and line and exits 2", "[cli][regress]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/a-passing.yaml") << kPassing;
    std::ofstream(d + "/c-typo.yaml") << "name: typo\nkernels: [{name: k, progam: [{op: valu}]}]\n";
    Result r = cli("regress " + d + " --junit " + d + "/j.xml");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(row(r.output, d + "/c-typo.yaml") == d + "/c-typo.yaml error 0/0 - -");
    CHECK(r.output.find(d + "/c-typo.yaml:2: kernels[0].progam") != std::string::npos);
    CHECK(r.output.find("gpuvp: " + d + "/c-typo.yaml: error: " + d + "/c-typo.yaml:2: kernels[0].progam") != std::string::npos);
    CHECK(r.output.find("2 scenarios: 1 passed, 0 failed, 1 error\n") != std::string::npos);
    const std::string junit = slurp(d + "/j.xml");
    CHECK(well_formed(junit));
    CHECK(count(junit, "<error ") == 1);
    CHECK(junit.find("errors=\"1\"") != std::string::npos);
    // Bad arguments; a folder without scenarios is bad input, not a pass.
    CHECK(cli("regress " + d + "/nothing-here").exit_code == 2);
    const std::string empty = temp_dir();
    Result none = cli("regress " + empty);
    CHECK(none.exit_code == 2);
    CHECK(none.output.find("no scenario files") != std::string::npos);
    CHECK(cli("regress").exit_code == 2);
    for (const char* shard : {"0/2", "3/2", "x", "1/", "2"}) {
        Result bad = cli("regress " + d + " --shard " + shard);
        CHECK(bad.exit_code == 2);
        CHECK(bad.output.find("--shard wants K/N") != std::string::npos);
    }
}

TEST_CASE("gpuvp regress shards split the list and merge gives the whole run's files", "[cli][regress]") {
    const std::string d = temp_dir();
    for (const char* n : {"s1", "s2", "s3", "s4", "s5"}) std::ofstream(d + "/" + n + ".yaml") << kPassing;
    std::ofstream(d + "/s6.yaml") << kFailing;
    const std::string o = temp_dir();
    CHECK(cli("regress " + d + " --quiet --junit " + o + "/all.xml --csv " + o + "/all.csv").exit_code == 1);
    CHECK(cli("regress " + d + " --quiet --shard 1/2 --junit " + o + "/1.xml --csv " + o + "/1.csv").exit_code == 0);
    CHECK(cli("regress " + d + " --quiet --shard 2/2 --junit " + o + "/2.xml --csv " + o + "/2.csv").exit_code == 1);
    // Shard 1 of 2 takes the 1st, 3rd and 5th file; shard 2 the others.
    const std::string one = slurp(o + "/1.csv");
    CHECK(one.find("/s1.yaml,") != std::string::npos);
    CHECK(one.find("/s3.yaml,") != std::string::npos);
    CHECK(one.find("/s5.yaml,") != std::string::npos);
    CHECK(one.find("/s2.yaml,") == std::string::npos);
    REQUIRE(cli("merge " + o + "/m.xml " + o + "/2.xml " + o + "/1.xml").exit_code == 0);
    REQUIRE(cli("merge " + o + "/m.csv " + o + "/2.csv " + o + "/1.csv").exit_code == 0);
    CHECK(well_formed(slurp(o + "/m.xml")));
    CHECK(without_times(slurp(o + "/m.xml")) == without_times(slurp(o + "/all.xml")));
    CHECK(without_times(slurp(o + "/m.csv")) == without_times(slurp(o + "/all.csv")));
    // What merge refuses, naming the file.
    std::ofstream(o + "/other.csv") << "a,b\n1,2\n";
    Result header = cli("merge " + o + "/x.csv " + o + "/1.csv " + o + "/other.csv");
    CHECK(header.exit_code == 2);
    CHECK(header.output.find(o + "/other.csv has another header") != std::string::npos);
    CHECK(cli("merge " + o + "/x.xml " + o + "/1.csv").exit_code == 2);
    CHECK(cli("merge " + o + "/x.txt " + o + "/1.csv").exit_code == 2);
    Result twice = cli("merge " + o + "/x.xml " + o + "/1.xml " + o + "/1.xml");
    CHECK(twice.exit_code == 2);
    CHECK(twice.output.find("is in two of the files") != std::string::npos);
}

TEST_CASE("gpuvp regress keeps each file's results apart and never reports stale ones", "[cli][regress]") {
    // Two files named alike in two folders, and a third named like the second's folder.
    const std::string a = temp_dir(), b = temp_dir(), c = temp_dir(), o = temp_dir();
    std::ofstream(a + "/same.yaml") << kPassing;
    std::ofstream(b + "/same.yaml") << kFailing;
    std::ofstream(c + "/same-1.yaml") << "name: third\nkernels: [{name: k, program: [{op: valu}]}]\n";
    Result r = cli("regress " + a + " " + b + " " + c + " --quiet --out " + o);
    CHECK(r.exit_code == 1);
    CHECK(nlohmann::json::parse(slurp(o + "/same/results.json"))["scenario"] == "passing");
    CHECK(nlohmann::json::parse(slurp(o + "/same-1/results.json"))["scenario"] == "failing");
    CHECK(nlohmann::json::parse(slurp(o + "/same-1-1/results.json"))["scenario"] == "third");
    // A folder where results cannot be written: an error, not a pass.
    const std::string blocked = temp_dir();
    std::ofstream(blocked + "/same") << "a file where the folder should be";
    Result w = cli("regress " + a + " --quiet --out " + blocked);
    CHECK(w.exit_code == 2);
}

TEST_CASE("expectations compare kernels and reach any results field by its path", "[cli][scenario]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/c.yaml") << R"(name: compare
queues: [{name: lo, priority: 2}, {name: hi, priority: 0}]
kernels:
  - {name: bg, queue: lo, grid: [8192], block: [256], program: [{op: valu, cycles: 4, repeat: 50}]}
  - {name: urgent, queue: hi, submit_ns: 2000, program: [{op: valu}]}
expect:
  - {compare: "urgent.response_ns < bg.turnaround_ns"}
  - {compare: "urgent.turnaround_ns < 0.001 * bg.turnaround_ns"}
  - {compare: "totals.warps >= kernels.bg.warps"}
  - {metric: sms.0.warps_run, min: 1}
  - {metric: kernels.urgent.blocks, min: 1, max: 1}
  - {metric: usa.no_such_field, min: 0}
)";
    Result r = cli("run " + d + "/c.yaml --quiet --no-trace --out " + d);
    CHECK(r.exit_code == 1);
    auto e = nlohmann::json::parse(slurp(d + "/results.json"))["expectations"];
    REQUIRE(e.size() == 6);
    CHECK(e[0]["compare"] == "urgent.response_ns < bg.turnaround_ns");
    CHECK(e[0]["passed"] == true);
    CHECK(e[0]["value"][0].get<double>() < e[0]["value"][1].get<double>());
    CHECK(e[1]["passed"] == false);  // not a thousand times sooner
    CHECK(e[2]["passed"] == true);
    CHECK(e[2]["value"][1] == 256);  // 32 blocks of 8 warps
    CHECK(e[3]["passed"] == true);
    CHECK(e[4]["value"] == 1);
    CHECK(e[5]["value"].is_null());  // a path to nothing fails
    CHECK(e[5]["passed"] == false);
    // The loader's checks, each naming the line and key.
    auto bad = [&](const std::string& expect) {
        std::ofstream(d + "/b.yaml") << "name: x\nkernels: [{name: k, program: [{op: valu}]}]\nexpect:\n  - " << expect << "\n";
        return cli("validate " + d + "/b.yaml").output;
    };
    CHECK(bad("{compare: \"k.respons_ns < k.end_ns\"}").find("b.yaml:4: expect[0].compare: 'k.respons_ns': unknown kernel metric 'respons_ns' (did you mean 'response_ns'?)") != std::string::npos);
    CHECK(bad("{compare: \"k.response_ns << k.end_ns\"}").find("wants \"A OP B\" or \"A OP F * B\"") != std::string::npos);
    CHECK(bad("{compare: \"k.response_ns < x * k.end_ns\"}").find("'x' is not a number") != std::string::npos);
    CHECK(bad("{compare: \"j.response_ns < k.end_ns\"}").find("neither NAME.METRIC") != std::string::npos);
    CHECK(bad("{metric: usaa.utilization, min: 1}").find("unknown section of results.json 'usaa' (did you mean 'usa'?)") != std::string::npos);
    CHECK(bad("{compare: \"k.response_ns < k.end_ns\", max: 3}").find("'compare' stands alone") != std::string::npos);
    CHECK(bad("{kernel: k, metric: usa.utilization, min: 1}").find("is a path into results.json") != std::string::npos);
}

TEST_CASE("gpuvp run --vcd writes the key signals as a value change dump", "[cli][vcd]") {
    const std::string d = temp_dir();
    REQUIRE(cli("run " + kDefault + " --quiet --vcd " + d + "/s.vcd").exit_code == 0);
    const std::string v = slurp(d + "/s.vcd");
    CHECK(v.rfind("$version gpuvp $end\n$timescale 1ps $end\n", 0) == 0);
    // Declarations: the irq, a doorbell per queue, busy and blocks per SM, the shading array.
    std::map<std::string, std::string> id;  // name in its scope -> identifier
    std::istringstream in(v);
    std::string line, scope;
    while (std::getline(in, line) && line != "$enddefinitions $end") {
        std::istringstream w(line);
        std::string kw, kind, width, ident, name;
        w >> kw;
        if (kw == "$scope") w >> kind >> scope;
        if (kw == "$var") {
            w >> kind >> width >> ident >> name;
            id[scope + "." + name] = ident;
        }
    }
    REQUIRE(id.count("gpu.irq"));
    REQUIRE(id.count("cp.doorbell_low"));
    REQUIRE(id.count("cp.doorbell_high"));
    REQUIRE(id.count("sm0.busy"));
    REQUIRE(id.count("sm7.blocks"));
    REQUIRE(id.count("usa.idle_vertex_flag"));
    // Changes: times strictly increasing; the irq rises and falls; SM 0 is busy and then idle;
    // the high queue's doorbell carries its packet indices.
    uint64_t last = 0;
    bool first_time = true, increasing = true;
    std::vector<std::string> irq, busy0, doorbell_high;
    while (std::getline(in, line)) {
        if (line[0] == '#') {
            const uint64_t t = std::stoull(line.substr(1));
            if (!first_time && t <= last) increasing = false;
            first_time = false;
            last = t;
        } else if (line.size() > 1 && (line[0] == '0' || line[0] == '1') && line.substr(1) == id["gpu.irq"]) {
            irq.push_back(line.substr(0, 1));
        } else if (line.substr(1) == id["sm0.busy"]) {
            busy0.push_back(line.substr(0, 1));
        } else if (line[0] == 'b' && line.substr(line.find(' ') + 1) == id["cp.doorbell_high"]) {
            doorbell_high.push_back(line.substr(1, line.find(' ') - 1));
        }
    }
    CHECK(increasing);
    REQUIRE(irq.size() >= 3);  // 0 at time 0, then up and down
    CHECK(irq[1] == "1");
    CHECK(irq[2] == "0");
    REQUIRE(busy0.size() >= 3);
    CHECK(busy0[1] == "1");
    CHECK(busy0.back() == "0");
    REQUIRE_FALSE(doorbell_high.empty());
    CHECK(doorbell_high.front() == "x");  // unknown until the first doorbell
    CHECK(doorbell_high.size() >= 2);
    CHECK(cli("validate " + kDefault + " --vcd " + d + "/x.vcd").exit_code == 2);  // an option of run
}

TEST_CASE("gpuvp run and regress take a scenario with variants as one A/B case", "[cli][variants]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/ab.yaml") << R"(name: ab
platform: {sms: 2, sm: {warp_slots: 16}}
queues: [{name: bg, priority: 3}, {name: rt, priority: 0}]
kernels:
  - {name: bg, queue: bg, grid: [8192], block: [256], program: [{op: valu, cycles: 8, repeat: 200}]}
  - {name: hi, queue: rt, submit_ns: 3000, grid: [256], block: [256], program: [{op: valu, cycles: 4, repeat: 10}]}
variants:
  - {name: prio, set: {policy.dispatch: priority-warp}}
  - {name: fifo, set: {policy.dispatch: fifo}}
expect:
  - {metric: kernels_ok, min: 2}
  - {compare: "prio:hi.response_ns < 0.5 * fifo:hi.response_ns"}
)";
    const std::string o = temp_dir();
    Result r = cli("run " + d + "/ab.yaml -j 2 --out " + o + "/run");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("== variant prio: policy.dispatch=priority-warp") != std::string::npos);
    CHECK(r.output.find("  pass  prio:hi.response_ns < 0.5 * fifo:hi.response_ns") != std::string::npos);
    for (const char* f : {"results.json", "trace.json", "report.html", "variants/prio/results.json",
                          "variants/fifo/results.json", "variants/fifo/trace.json"}) {
        INFO(f);
        CHECK(std::ifstream(o + "/run/" + f).good());
    }
    CHECK(nlohmann::json::parse(slurp(o + "/run/variants/fifo/results.json"))["policy"]["dispatch"] == "fifo");
    CHECK(cli("validate " + d + "/ab.yaml").output.find("2 variants") != std::string::npos);
    CHECK(cli("run " + d + "/ab.yaml --vcd " + o + "/x.vcd").exit_code == 2);
    // A comparison that fails fails the run, and regress counts every variant's expectations
    // and the comparison: 2 + 2 + 1.
    Result bad = cli("run " + d + "/ab.yaml --quiet --set variants[1].set.policy.dispatch=priority-warp");
    CHECK(bad.exit_code == 1);
    Result g = cli("regress " + d + " --out " + o + "/reg --junit " + o + "/j.xml");
    CHECK(g.exit_code == 0);
    CHECK(row(g.output, d + "/ab.yaml").rfind(d + "/ab.yaml pass 3/3 ", 0) == 0);
    CHECK(std::ifstream(o + "/reg/ab/variants/fifo/trace.json").good());
    CHECK(std::ifstream(o + "/reg/ab/report.html").good());
}

TEST_CASE("run with --check-protocol puts a checker on every connection and changes nothing else", "[cli][protocol]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/s.yaml") << "name: checked\nplatform: {sms: 2}\n"
                                    "kernels: [{name: k, grid: [1024], program: [{op: kernarg_load}, {op: load, bytes: 64}, {op: valu}]}]\n";
    Result checked = cli("run " + d + "/s.yaml --check-protocol --out " + d + "/a");
    INFO(checked.output);
    CHECK(checked.exit_code == 0);
    CHECK(checked.output.find("TLM-2.0 base protocol: 45 connections checked") != std::string::npos);
    REQUIRE(cli("run " + d + "/s.yaml --quiet --out " + d + "/b").exit_code == 0);
    auto a = nlohmann::json::parse(slurp(d + "/a/results.json"));
    auto b = nlohmann::json::parse(slurp(d + "/b/results.json"));
    // Per SM 11 connections (GLC, WLM, arbiter and debug paths, L1I, L1D and their fabric
    // ports), 18 of the GPU's own, 5 of the system (host memory's write notices the fifth):
    // 11 * 2 + 18 + 5.
    CHECK(a["protocol"]["checkers"] == 45);
    CHECK(a["protocol"]["transactions"].get<uint64_t>() > 100);
    CHECK(a["protocol"]["violation_count"] == 0);
    CHECK(a["protocol"]["violations"].empty());
    CHECK_FALSE(b.contains("protocol"));
    a.erase("protocol");
    a.erase("host_seconds");
    b.erase("host_seconds");
    CHECK(a == b);
    CHECK(slurp(d + "/a/trace.json") == slurp(d + "/b/trace.json"));
    CHECK(cli("sweep " + d + "/s.yaml --set platform.sms=1,2 --check-protocol").exit_code == 2);
}

using Catch::Matchers::Contains;

TEST_CASE("gpuvp run log option prints the named blocks and refuses unknown levels and blocks", "[cli][log]") {
    Result r = cli("run " + kDefault + " --quiet --log cp=high");
    CHECK(r.exit_code == 0);
    // On stderr, apart from the tables on stdout.
    const std::string out = gpuvp::test::temp_dir() + "/stdout";
    cli("run " + kDefault + " --log cp=high 2>/dev/null >" + out + "; true");
    CHECK_THAT(slurp(out), Contains("simulated"));  // the table
    CHECK(slurp(out).find("Info:") == std::string::npos);
    CHECK_THAT(r.output, Contains("Info: gpuvp/cp: ") && Contains("system.gpu.cp: kernel slot 0 completed"));
    CHECK(r.output.find("gpuvp/sm") == std::string::npos);
    CHECK(cli("run " + kDefault + " --quiet").output.find("Info:") == std::string::npos);  // quiet unless asked

    r = cli("run " + kDefault + " --log cp=loud");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("--log wants [BLOCK=]LEVEL,...") && Contains("'cp=loud'"));
    r = cli("run " + kDefault + " --log smm=low");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("system.gpu.log: no block 'smm'"));
    CHECK(cli("validate " + kDefault + " --log low").exit_code == 2);
}

TEST_CASE("gpuvp params prints every parameter with its default and range", "[cli][config]") {
    const Result r = cli("params");
    CHECK(r.exit_code == 0);
    CHECK(r.output == gpuvp::gpu_params_markdown());
    CHECK_THAT(r.output, Contains("| `gpu.sm.warp_slots` | integer | 48 | 1..128 |"));
    CHECK(cli("params extra").exit_code == 2);
}

TEST_CASE("gpuvp presets prints every preset with its values and sources", "[cli][presets]") {
    const Result r = cli("presets");
    CHECK(r.exit_code == 0);
    CHECK(r.output == gpuvp::presets_markdown());
    CHECK_THAT(r.output, Contains("| `sms` | 304 |"));
    CHECK(cli("presets extra").exit_code == 2);
}

TEST_CASE("gpuvp run --platform FILE runs the scenario on that platform, --set over it, its errors name it",
          "[cli][presets][platform-file]") {
    const std::string dir = gpuvp::test::temp_dir();
    const std::string gpu = dir + "/gpu.yaml", out = dir + "/out";
    std::ofstream(gpu) << "platform:\n  preset: v100\n";
    Result r = cli("run " + kDefault + " --platform " + gpu + " --set platform.sms=12 --quiet --no-trace --out " + out);
    CHECK(r.exit_code == 0);
    const auto results = nlohmann::json::parse(gpuvp::test::slurp(out + "/results.json"));
    CHECK(results["platform"]["preset"] == "v100");
    CHECK(results["sms"].size() == 12);                    // --set over the platform file
    CHECK(results["sms"][0]["shared_memory"] == 98304);    // the preset's
    CHECK(results["sms"][0]["warp_slots"] == 64);
    // Without a preset, results.json has no platform member.
    r = cli("run " + kDefault + " --quiet --no-trace --out " + out);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(nlohmann::json::parse(gpuvp::test::slurp(out + "/results.json")).contains("platform"));

    CHECK(cli("validate " + kDefault + " --platform " + gpu).exit_code == 0);
    std::ofstream(gpu) << "preset: v100\nsms: 1000\n";
    r = cli("validate " + kDefault + " --platform " + gpu);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains(gpu + ":2: platform.sms: 1000 is out of range 1..512"));
    r = cli("run " + kDefault + " --platform " + dir + "/none.yaml");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("no such file"));
}

// --- help, version, parse errors and gpuvp report ------------------------------------------

namespace {

// Every command and the options its --help must describe.
const std::vector<std::pair<std::string, std::vector<std::string>>> kCommandOptions = {
    {"run", {"SCENARIO", "--out", "--platform", "--set", "--no-trace", "--trace-limit", "--vcd", "-j", "--check-protocol", "--log",
             "--quiet", "-h,--help"}},
    {"validate", {"SCENARIO", "--platform", "--set", "-h,--help"}},
    {"sweep", {"SCENARIO", "--platform", "--set", "--out", "-j", "--trace", "--quiet", "-h,--help"}},
    {"regress", {"PATH", "--junit", "--csv", "--out", "-j", "--shard", "--check-protocol", "--quiet", "-h,--help"}},
    {"merge", {"OUT", "FILE", "-h,--help"}},
    {"params", {"-h,--help"}},
    {"presets", {"-h,--help"}},
    {"report", {"DIR", "-h,--help"}},
    {"help", {"CMD", "-h,--help"}},
};

}  // namespace

TEST_CASE("gpuvp help lists every command and each command's help lists every option", "[cli][help]") {
    const Result all = cli("help");
    INFO(all.output);
    CHECK(all.exit_code == 0);
    CHECK(all.output.find("Usage: gpuvp") != std::string::npos);
    CHECK(all.output.find("--version") != std::string::npos);
    CHECK(all.output.find("Exit codes: 0 ok, 1 an expectation or a kernel failed, 2 bad input") != std::string::npos);
    for (const auto& [command, options] : kCommandOptions)
        CHECK(all.output.find("\n  " + command + " ") != std::string::npos);
    CHECK(cli("--help").output == all.output);
    for (const auto& [command, options] : kCommandOptions) {
        const Result help = cli(command + " --help");
        INFO(help.output);
        CHECK(help.exit_code == 0);
        CHECK(help.output.find("Usage: gpuvp " + command) != std::string::npos);
        for (const std::string& option : options) {
            INFO(command << " " << option);
            // The option at the start of its line, described after it.
            const size_t at = help.output.find("\n  " + option + " ");
            CHECK(at != std::string::npos);
        }
        CHECK(cli(command + " -h").output == help.output);
        CHECK(cli("help " + command).output == help.output);
    }
    // Defaults are said.
    CHECK(cli("run --help").output.find("Default: 250000") != std::string::npos);
    CHECK(cli("regress --help").output.find("Default: the number of online cores") != std::string::npos);
    const Result unknown = cli("help rnu");
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.output.find("'rnu'") != std::string::npos);
}

TEST_CASE("gpuvp --version prints the project's version", "[cli][help]") {
    const Result r = cli("--version");
    CHECK(r.exit_code == 0);
    CHECK(r.output == std::string("gpuvp ") + GPUVP_VERSION + "\n");
}

TEST_CASE("a bad command line is exit code 2 naming the word not understood and where the help is", "[cli][errors]") {
    struct Case {
        std::string args, names, help;
    };
    const std::string d = temp_dir();
    for (const Case& c : std::vector<Case>{
             {"frobnicate", "unknown command 'frobnicate'", "gpuvp help"},
             {"rnu " + kDefault, "unknown command 'rnu'", "gpuvp help"},
             {"--frobnicate", "--frobnicate", "gpuvp help"},
             {"run " + kDefault + " --fast", "--fast", "gpuvp run --help"},
             {"regress " + d + " --junit", "--junit", "gpuvp regress --help"},  // a missing value
             {"run " + kDefault + " --out", "--out", "gpuvp run --help"},
             {"sweep " + kDefault + " --set policy.launch=serial,prefetch -j x", "-j: wants a number of processes, got 'x'",
              "gpuvp sweep --help"},
             {"regress " + d + " -j 0", "-j: wants a number of processes, got '0'", "gpuvp regress --help"},
             {"run " + kDefault + " --trace-limit lots", "--trace-limit: wants a count of events, got 'lots'",
              "gpuvp run --help"},
             {"run " + kDefault + " --set nonsense", "--set: wants KEY=VALUE, got 'nonsense'", "gpuvp run --help"},
             {"run " + kDefault + " " + kDefault, kDefault, "gpuvp run --help"},  // an extra argument
             {"run", "SCENARIO", "gpuvp run --help"},
             {"params extra", "extra", "gpuvp params --help"},
             {"validate " + kDefault + " --quiet", "--quiet", "gpuvp validate --help"},
             {"merge " + d + "/m.xml", "FILE", "gpuvp merge --help"},
             {"run " + d + "/typo.yaml", "SCENARIO: no such file '" + d + "/typo.yaml'", "gpuvp run --help"},
             {"validate " + d, "SCENARIO: '" + d + "' is a folder, not a file", "gpuvp validate --help"},
             {"regress " + d + "/typo", "PATH: no such file or folder '" + d + "/typo'", "gpuvp regress --help"},
             {"merge " + d + "/m.csv " + d + "/typo.csv", "FILE: no such file '" + d + "/typo.csv'", "gpuvp merge --help"},
             {"", "no command given", "gpuvp help"},
         }) {
        const Result r = cli(c.args);
        INFO(c.args << "\n" << r.output);
        CHECK(r.exit_code == 2);
        CHECK(r.output.find(c.names) != std::string::npos);
        CHECK(r.output.find("Run '" + c.help) != std::string::npos);
    }
}

TEST_CASE("gpuvp report writes the page again from a run's output folder", "[cli][report]") {
    const std::string d = temp_dir();
    std::ofstream(d + "/ab.yaml") << R"(name: ab
platform: {sms: 2}
kernels: [{name: k, grid: [1024], program: [{op: valu, cycles: 4, repeat: 10}]}]
variants:
  - {name: prio, set: {policy.dispatch: priority-warp}}
  - {name: fifo, set: {policy.dispatch: fifo}}
)";
    for (const std::string& scenario : {kDefault, d + "/ab.yaml"}) {
        INFO(scenario);
        const std::string out = temp_dir();
        REQUIRE(cli("run " + scenario + " --quiet --out " + out).exit_code == 0);
        const std::string page = slurp(out + "/report.html");
        REQUIRE(page.size() > 1000);
        REQUIRE(std::remove((out + "/report.html").c_str()) == 0);
        const Result r = cli("report " + out);
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output == "wrote " + out + "/report.html\n");
        CHECK(slurp(out + "/report.html") == page);
    }
    // A folder without results, or none at all: bad input.
    const std::string empty = temp_dir();
    Result r = cli("report " + empty);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(empty + " holds no results.json") != std::string::npos);
    CHECK_FALSE(std::ifstream(empty + "/report.html").good());
    r = cli("report " + empty + "/nothing");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(empty + "/nothing: no such folder") != std::string::npos);
    CHECK(cli("report").exit_code == 2);
}

TEST_CASE("an input's kind is told from its content, and what is neither a scenario nor a trace says so", "[cli][errors]") {
    const std::string d = temp_dir();
    // Each file, and the one line gpuvp run says of it (exit 2).
    const std::vector<std::pair<std::string, std::string>> files = {
        {"", "gpuvp: " + d + "/f.json: the file is empty: a scenario or a profiler trace expected\n"},
        {" \n\t\n", "gpuvp: " + d + "/f.json: the file is empty: a scenario or a profiler trace expected\n"},
        {"# a comment\n", "gpuvp: " + d + "/f.json: the file holds nothing but comments: a scenario or a profiler trace expected\n"},
        {"hello\n", "gpuvp: " + d + "/f.json:1: not a profiler trace or a scenario: a scenario is a YAML map of keys (name, "
                    "kernels, ...), got 'hello'\n"},
        {R"({"foo": 1, "bar": [2]})", "gpuvp: " + d + "/f.json: not a profiler trace or a scenario: a JSON object with bar, foo "
                                      "(a PyTorch-profiler trace has traceEvents, rocprofv3's JSON rocprofiler-sdk-tool, a "
                                      "scenario name and kernels)\n"},
        {"[1, 2]", "gpuvp: " + d + "/f.json: not a profiler trace or a scenario: a JSON array (a PyTorch-profiler trace has "
                   "traceEvents, rocprofv3's JSON rocprofiler-sdk-tool, a scenario name and kernels)\n"},
        {R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "na)",
         "gpuvp: " + d + "/f.json: the JSON text ends at byte 55, before it is complete (the file is cut short?): a profiler "
                         "trace or a scenario expected\n"},
    };
    for (const auto& [text, said] : files) {
        INFO(text);
        std::ofstream(d + "/f.json", std::ios::binary) << text;
        const Result r = cli("run " + d + "/f.json");
        CHECK(r.exit_code == 2);
        CHECK(r.output == said);
    }
    // A Kineto trace cut short (its traceEvents begun): where the text ends.
    std::ofstream(d + "/f.json", std::ios::binary) << R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1)";
    Result r = cli("run " + d + "/f.json");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("gpuvp: " + d + "/f.json: the JSON text ends at byte 66, before the trace is complete (the file is cut "
                        "short?)") == 0);
    // A scenario written as JSON is a scenario.
    std::ofstream(d + "/f.json", std::ios::binary) << R"({"name": "j", "kernels": [{"name": "k", "program": [{"op": "end"}]}]})";
    r = cli("validate " + d + "/f.json");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    // gpuvp report on a sweep's folder: how its page is written again.
    std::ofstream(d + "/sweep.csv") << "point\n";
    r = cli("report " + d);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("gpuvp report: " + d + " is a sweep's folder (sweep.csv): 'gpuvp sweep SCENARIO --set ... --out " + d +
                        " --resume'") == 0);
}
