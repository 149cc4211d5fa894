// What a failed run says, as users run it: on stderr, --quiet or not, each failed expectation
// with its file:line, each failed kernel with its error, the results' path only when written;
// a sweep's rows say FAIL and why, and its failing points are named on stderr.
#include "tests/files.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;
using Catch::Matchers::Contains;

struct Ran {
    int exit_code = -1;
    std::string out, err;
};

Ran gpuvp_cli(const std::string& args) {
    const std::string dir = temp_dir();
    const std::string cmd = std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " " + args + " > " + dir +
                            "/stdout 2> " + dir + "/stderr";
    const int st = std::system(cmd.c_str());
    Ran r;
    r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(dir + "/stdout");
    r.err = slurp(dir + "/stderr");
    return r;
}

std::string scenario(const std::string& text) {
    const std::string path = temp_dir() + "/s.yaml";
    std::ofstream(path) << text;
    return path;
}

const char* kExpectations = R"(name: x
kernels:
  - name: k
    program: [{op: valu, cycles: 4}]
expect:
  - {kernel: k, metric: response_ns, max: 1}
  - {metric: kernels_ok, min: 1}
  - {compare: "k.turnaround_ns < 0.5 * k.response_ns"}
)";

}  // namespace

TEST_CASE("a failed expectation is named on stderr with its file:line, the value and the bound, --quiet or not", "[cli][failures]") {
    const std::string file = scenario(kExpectations);
    const Ran quiet = gpuvp_cli("run " + file + " --quiet");
    CHECK(quiet.exit_code == 1);
    CHECK(quiet.out.empty());  // --quiet: no tables
    CHECK_THAT(quiet.err, Contains("gpuvp: " + file + ":6: expectation failed: kernel k response_ns = "));
    CHECK_THAT(quiet.err, Contains(", wanted <= 1.0\n"));
    CHECK_THAT(quiet.err, Contains(file + ":8: expectation failed: compare k.turnaround_ns < 0.5 * k.response_ns: values ["));
    CHECK(quiet.err.find(":7:") == std::string::npos);  // kernels_ok held
    CHECK(quiet.err.find("results.json") == std::string::npos);  // none was written
    const std::string dir = temp_dir() + "/out";
    const Ran written = gpuvp_cli("run " + file + " --out " + dir);
    CHECK(written.exit_code == 1);
    CHECK_THAT(written.out, Contains("simulated"));  // the tables, on stdout
    CHECK_THAT(written.err, Contains(file + ":6: expectation failed"));
    CHECK_THAT(written.err, Contains("gpuvp: the results are in " + dir + "/results.json\n"));
    // A run that passes says nothing on stderr.
    const Ran passed = gpuvp_cli("run " + scenario("name: x\nkernels:\n  - {name: k, program: [{op: valu}]}\nexpect:\n"
                                                   "  - {metric: kernels_ok, min: 1}\n") + " --quiet");
    CHECK(passed.exit_code == 0);
    CHECK(passed.err.empty());
}

TEST_CASE("a failed kernel is named on stderr with its error, --quiet or not", "[cli][failures]") {
    const std::string file = scenario("name: x\nkernels:\n  - name: k\n    program: [{op: load, space: global, bytes: 64}]\n");
    const Ran r = gpuvp_cli("run " + file + " --quiet");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Contains("gpuvp: " + file + ": kernel k: kernel fault: kernel: global access before kernarg_load"));
    CHECK_THAT(r.err, Contains("gpuvp: " + file + ": queue q0 packet 0: kernel fault (kernel)"));
    // A scenario that expects the failure passes, silently.
    const Ran expected = gpuvp_cli("run " + scenario("name: x\nkernels:\n  - name: k\n    program: [{op: load, space: global, bytes: 64}]\n"
                                                     "expect:\n  - {metric: kernels_failed, min: 1, max: 1}\n") + " --quiet");
    CHECK(expected.exit_code == 0);
    CHECK(expected.err.empty());
}

TEST_CASE("a sweep's rows say FAIL and why, and its failing points are named on stderr", "[cli][failures][sweep]") {
    const std::string file = scenario("name: x\nkernels:\n  - name: k\n    program: [{op: valu, cycles: 4}]\nexpect:\n"
                                      "  - {metric: sim_end_ns, max: 15000}\n");
    const Ran r = gpuvp_cli("sweep " + file + " --set platform.memory.host_latency_ns=1,5000");
    CHECK(r.exit_code == 1);
    // The first point passes, the second (the host's accesses 5 us each) fails its bound.
    CHECK_THAT(r.out, Contains("\n1                                | k      |"));  // aligned under the axis's key
    CHECK_THAT(r.out, Contains("| ok\n"));
    CHECK_THAT(r.out, Contains("\n5000                             | k      |"));
    CHECK_THAT(r.out, Contains("| FAIL: expectation (line 6): sim_end_ns = "));
    CHECK_THAT(r.out, Contains("2 points: 1 passed, 1 failed\n"));
    CHECK_THAT(r.err, Contains("gpuvp: " + file + ": 1 of 2 points failed\n"));
    CHECK_THAT(r.err, Contains("gpuvp: " + file + ": platform.memory.host_latency_ns=5000: expectation (line 6): sim_end_ns = "));
    CHECK(r.err.find("host_latency_ns=1:") == std::string::npos);
    // --quiet: no table, the failures still.
    const Ran quiet = gpuvp_cli("sweep " + file + " --set platform.memory.host_latency_ns=1,5000 --quiet");
    CHECK(quiet.out.empty());
    CHECK_THAT(quiet.err, Contains("1 of 2 points failed"));
}

namespace {
const std::string kSource = GPUVP_SOURCE_DIR;
// Hours of host time on any host: what a limit always stops.
const char* kEndless = "name: endless\nkernels:\n  - name: spin\n    grid: [4096]\n    block: [256]\n"
                       "    program:\n      - op: loop\n        count: 2000000000\n        body: [{op: valu, cycles: 4}]\n";

std::string without_host_seconds(std::string results) {
    const size_t at = results.find("\"host_seconds\": ");
    if (at != std::string::npos) results.erase(at, results.find(',', at) - at);
    return results;
}
}  // namespace

TEST_CASE("a run past its --timeout stops cleanly: status partial, what it reached written, exit code 3", "[cli][failures][timeout]") {
    const std::string dir = temp_dir() + "/out";
    const std::string endless = scenario(kEndless);
    const Ran r = gpuvp_cli("run " + endless + " --timeout 0.2 --no-trace --quiet --out " + dir);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("gpuvp: " + endless + ": stopped after 0.2 s of host time (--timeout), at "));
    CHECK_THAT(r.err, Contains("kernel spin: did not complete: the run was stopped at its host-time limit (--timeout 0.2 s)"));
    CHECK_THAT(r.err, Contains("the results are in " + dir + "/results.json"));
    const std::string results = slurp(dir + "/results.json");
    CHECK_THAT(results, Contains("\"status\": \"partial\""));
    CHECK_THAT(results, Contains("\"sim_end_ns\": "));
    CHECK(results.find("\"sim_end_ns\": 0.0,") == std::string::npos);  // it got somewhere
    // A limit the run does not reach changes nothing: the same results, byte for byte.
    const std::string fast = kSource + "/scenarios/default.yaml";
    const std::string a = temp_dir() + "/a", b = temp_dir() + "/b";
    CHECK(gpuvp_cli("run " + fast + " --quiet --no-trace --out " + a).exit_code == 0);
    CHECK(gpuvp_cli("run " + fast + " --quiet --no-trace --timeout 600 --out " + b).exit_code == 0);
    CHECK(without_host_seconds(slurp(a + "/results.json")) == without_host_seconds(slurp(b + "/results.json")));
    // Bad limits are bad input.
    CHECK(gpuvp_cli("run " + fast + " --timeout 0").exit_code == 2);
    CHECK(gpuvp_cli("run " + fast + " --timeout -1").exit_code == 2);
    CHECK_THAT(gpuvp_cli("run " + fast + " --timeout soon").err, Contains("wants a number of seconds greater than 0"));
}

TEST_CASE("a sweep point or a regress case past its --timeout is reported as timed out", "[cli][failures][timeout]") {
    const Ran sweep = gpuvp_cli("sweep " + scenario(kEndless) + " --set platform.sms=2,4 --timeout 0.2 --quiet");
    CHECK(sweep.exit_code == 3);
    CHECK_THAT(sweep.err, Contains("2 of 2 points failed"));
    CHECK_THAT(sweep.err, Contains("platform.sms=2: timed out (--timeout 0.2 s)"));
    // A case that never ends and one that takes milliseconds (seconds under a sanitizer at most).
    const std::string dir = temp_dir() + "/cases";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/long.yaml") << kEndless;
    std::ofstream(dir + "/quick.yaml") << "name: quick\nkernels:\n  - {name: k, program: [{op: valu}]}\n";
    const Ran regress = gpuvp_cli("regress " + dir + " --timeout 3 -j 1");
    CHECK(regress.exit_code == 1);
    CHECK_THAT(regress.out, Contains("long.yaml   timeout"));
    CHECK_THAT(regress.out, Contains("    timed out: stopped after 3 s of host time (--timeout)"));
    CHECK_THAT(regress.out, Contains("quick.yaml  pass"));
    CHECK_THAT(regress.out, Contains("2 scenarios: 1 passed, 0 failed, 1 timed out, 0 errors"));
}

TEST_CASE("a kernel's instances have p50, p90 and p99, in results, in the table and as expectation metrics", "[cli][instances]") {
    const std::string file = scenario("name: x\nkernels:\n  - name: tiny\n    instances: 200\n    interval_ns: 100\n"
                                      "    program: [{op: valu}]\nexpect:\n"
                                      "  - {kernel: tiny, metric: instance_turnaround_p99_ns, min: 1}\n"
                                      "  - {kernel: tiny, metric: instance_response_p50_ns, max: 1}\n");
    const std::string dir = temp_dir() + "/out";
    const Ran r = gpuvp_cli("run " + file + " --no-trace --out " + dir);
    CHECK(r.exit_code == 1);  // the p50 bound fails, the p99 one holds
    CHECK_THAT(r.out, Contains("per instance, min / mean / max (p50 / p90 / p99) ns: launch "));
    CHECK_THAT(r.err, Contains(":9: expectation failed: kernel tiny instance_response_p50_ns = "));
    CHECK(r.err.find(":8:") == std::string::npos);
    const std::string results = slurp(dir + "/results.json");
    CHECK_THAT(results, Contains("\"p50\": "));
    CHECK_THAT(results, Contains("\"p99\": "));
}
