// The GPU's sc_report log: per-block verbosity (GpuConfig::log), the global verbosity for
// blocks not named, message types and texts, and that logging changes no result.
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <systemc>

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

struct Message {
    std::string type, text;
    int verbosity;
};
std::vector<Message> captured;  // this test process's reports (one run per process)

void capture(const sc_core::sc_report& r, const sc_core::sc_actions&) {
    if (r.get_severity() == sc_core::SC_INFO && std::string(r.get_msg_type()).rfind("gpuvp/", 0) == 0)
        captured.push_back({r.get_msg_type(), r.get_msg(), r.get_verbosity()});
}

const char* kTwoKernels = R"(name: log
platform: {sms: 2}
kernels:
  - {name: a, grid: [256], block: [64], program: [{op: valu, repeat: 4}]}
  - {name: b, grid: [128], block: [64], submit_ns: 2000, program: [{op: valu}]}
)";

test::Run run_logged(const std::string& yaml, const std::map<std::string, int>& log) {
    sc_core::sc_report_handler::set_handler(capture);
    RunOptions o{false};
    o.log = log;
    test::Run r;
    r.out = run_scenario(parse_scenario(yaml, "log.yaml"), o);
    r.results = nlohmann::json::parse(r.out.results);
    return r;
}

size_t count(const std::string& type, const std::string& text) {
    size_t n = 0;
    for (const Message& m : captured) n += m.type == type && m.text.find(text) != std::string::npos;
    return n;
}

}  // namespace

TEST_CASE("gpu log: a block at high reports each kernel accepted and completed and no other block speaks", "[log]") {
    const test::Run r = run_logged(kTwoKernels, {{"*", sc_core::SC_NONE}, {"cp", sc_core::SC_HIGH}});
    REQUIRE(r.results["status"] == "ok");
    CHECK(count("gpuvp/cp", "system.gpu.cp: kernel packet 0 of queue 0 in kernel slot") == 1);
    CHECK(count("gpuvp/cp", "completed") == 2);
    CHECK(count("gpuvp/cp", "doorbell") == 0);  // SC_FULL: above the block's level
    for (const Message& m : captured) CHECK(m.type == "gpuvp/cp");
    CHECK(captured.size() == 4);
    // The text starts with the simulated time; the completion is the kernel's completion time.
    const double done = r.kernel("a")["complete_ns"].get<double>();
    char want[64];
    std::snprintf(want, sizeof want, "%.1f ns system.gpu.cp: kernel slot", done);
    CHECK(count("gpuvp/cp", want) == 1);
}

TEST_CASE("gpu log: one SM instance at full reports only its own blocks", "[log]") {
    const test::Run r = run_logged(kTwoKernels, {{"*", sc_core::SC_NONE}, {"sm[1]", sc_core::SC_FULL}});
    REQUIRE(r.results["status"] == "ok");
    const uint64_t blocks = r.results["sms"][1]["blocks_run"].get<uint64_t>();
    REQUIRE(blocks > 0);
    CHECK(count("gpuvp/sm", "system.gpu.sm[1]: block") == 2 * blocks);  // placed and finished
    CHECK(count("gpuvp/sm", "placed") == blocks);
    CHECK(count("gpuvp/sm", "system.gpu.sm[0]") == 0);
    CHECK(count("gpuvp/sm", "warp") == 0);  // SC_DEBUG
    for (const Message& m : captured) CHECK(m.type == "gpuvp/sm");
}

TEST_CASE("gpu log: blocks not named follow the global sc_report verbosity", "[log]") {
    sc_core::sc_report_handler::set_verbosity_level(sc_core::SC_FULL);
    const test::Run r = run_logged(kTwoKernels, {});  // nothing configured
    REQUIRE(r.results["status"] == "ok");
    CHECK(count("gpuvp/cp", "doorbell of queue 0") == 2);
    CHECK(count("gpuvp/cp", "irq raised") >= 1);
    CHECK(count("gpuvp/sm", "placed") == 6);  // 4 + 2 blocks: SC_FULL
    CHECK(count("gpuvp/sm", "warp ") == 0);   // warps are SC_DEBUG
    for (const Message& m : captured) CHECK(m.verbosity > sc_core::SC_NONE);  // reported at their own level
}

TEST_CASE("gpu log: a refused packet is reported at low with its field", "[log]") {
    const test::Run r = run_logged(R"(name: bad
kernels:
  - {name: k, grid: [64], block: [64], program: [{op: valu}], packet: {workgroup_size_x: 0}}
)",
                             {{"*", sc_core::SC_LOW}});
    CHECK(r.results["status"] != "ok");
    REQUIRE(captured.size() == 1);
    CHECK(captured[0].type == "gpuvp/cp");
    CHECK_THAT(captured[0].text, Contains("packet 0 of queue 0 refused") && Contains("field workgroup_size_x") &&
                                     Contains("the queue stops"));
}

TEST_CASE("gpu log: logging every block at debug changes no result", "[log]") {
    std::string quiet = test::in_child([] { return run_logged(kTwoKernels, {{"*", sc_core::SC_NONE}}).out.results; });
    std::string loud = test::in_child([] {
        const test::Run r = run_logged(kTwoKernels, {{"*", sc_core::SC_DEBUG}});
        return captured.size() > 100 ? r.out.results : std::string("too few messages");
    });
    auto strip = [](std::string s) {  // host_seconds differs run to run
        auto j = nlohmann::json::parse(s);
        j.erase("host_seconds");
        return j.dump();
    };
    REQUIRE(loud != "too few messages");
    CHECK(strip(quiet) == strip(loud));
}
