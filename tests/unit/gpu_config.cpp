// The GPU's configuration without the loader: the parameter table, set_param/get_param by
// hierarchical name, check_config and Gpu's refusal of a bad config; the loader reading the
// same table; docs/integration.md listing it.
#include <gpuvp/platform/gpu.h>
#include <gpuvp/platform/gpu_config.h>
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <set>

using namespace gpuvp;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

std::string set_error(GpuConfig& c, const std::string& name, const std::string& value) {
    try {
        set_param(c, name, value);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

std::string loader_error(const std::string& key, const std::string& value) {
    try {
        parse_scenario("name: t\nkernels:\n  - name: k\n    program: [{op: valu}]\n", "t.yaml", {{key, value}});
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}


}  // namespace

TEST_CASE("gpu config: the defaults are usable and every parameter reads back its default", "[config]") {
    const GpuConfig def;
    CHECK(check_config(def).empty());
    std::set<std::string> names;
    for (const GpuParam& p : gpu_params()) {
        INFO(p.name);
        CHECK(names.insert(p.name).second);  // one entry per name
        CHECK_FALSE(get_param(def, p.name).empty());
    }
    CHECK(names.size() == gpu_params().size());
    CHECK(get_param(def, "sm.warp_slots") == "48");
    CHECK(get_param(def, "gpu.clock_mhz") == "1500");  // the instance prefix is accepted
    CHECK(get_param(def, "policy.dispatch") == "fifo");
    CHECK(get_param(def, "sm.scalar_split") == "preset");
    CHECK(get_param(def, "sm.scalar_quota.warp") == "640");
}

TEST_CASE("gpu config: set_param sets each kind of parameter and refuses bad names and values", "[config]") {
    GpuConfig c;
    set_param(c, "gpu.sm.warp_slots", "32");
    CHECK(c.platform.sm.warp_slots == 32);
    set_param(c, "memory.l2_latency_ns", "12.5");
    CHECK(c.platform.memory.l2_latency_ns == 12.5);
    set_param(c, "sm.l1d_bytes", "32768");
    CHECK(c.platform.sm.l1d_bytes == 32768);
    set_param(c, "sm.scalar_split", "kernel");
    CHECK(c.platform.sm.scalar_split == ScalarSplit::kernel);
    set_param(c, "policy.shading", "adaptive");
    CHECK(c.policy.shading == ShadingBalance::adaptive);
    set_param(c, "sm.scalar_quota.slice", "7");
    CHECK(c.platform.sm.scalar_quota[3] == 7);
    CHECK(get_param(c, "sm.scalar_quota.slice") == "7");

    CHECK_THAT(set_error(c, "sm.warp_slotz", "8"), Equals("unknown parameter 'sm.warp_slotz' (did you mean 'sm.warp_slots'?)"));
    CHECK_THAT(set_error(c, "gpu.cpp.max_queues", "8"), Equals("unknown parameter 'cpp.max_queues' (did you mean 'cp.max_queues'?)"));
    CHECK_THAT(set_error(c, "sm.warp_slots", "200"), Equals("gpu.sm.warp_slots: 200 is out of range 1..128"));
    CHECK_THAT(set_error(c, "sm.warp_slots", "4.5"), Equals("gpu.sm.warp_slots: expected an integer, got '4.5'"));
    CHECK_THAT(set_error(c, "sm.warp_slots", "many"), Equals("gpu.sm.warp_slots: expected a number, got 'many'"));
    CHECK_THAT(set_error(c, "sm.warp_slots", "-1"), Equals("gpu.sm.warp_slots: expected an integer, got '-1'"));
    CHECK_THAT(set_error(c, "sm.warp_slots", " 32"), Equals("gpu.sm.warp_slots: expected a number, got ' 32'"));
    CHECK_THAT(set_error(c, "sm.warp_slots", "0x20"), Equals("gpu.sm.warp_slots: expected a number, got '0x20'"));
    CHECK_THAT(set_error(c, "clock_mhz", "inf"), Equals("gpu.clock_mhz: expected a number, got 'inf'"));
    CHECK_THAT(set_error(c, "memory.line_bytes", "48"), Equals("gpu.memory.line_bytes: must be a power of two in 16..1024, got 48"));
    CHECK(set_error(c, "sm.l1i_bytes", "3000").empty());  // in range; whole sets are a rule (config_rules)
    c.platform.sm.l1i_bytes = GpuConfig{}.platform.sm.l1i_bytes;
    CHECK_THAT(set_error(c, "sm.warp_size", "24"), Equals("gpu.sm.warp_size: must be one of 8, 16, 32, 64, got 24"));
    CHECK_THAT(set_error(c, "clock_mhz", "50"), Equals("gpu.clock_mhz: 50 is out of range: must be 100..5000"));
    CHECK_THAT(set_error(c, "policy.dispatch", "fifoo"), Equals("gpu.policy.dispatch: unknown value 'fifoo' (did you mean 'fifo'?)"));
    CHECK(c.platform.sm.warp_slots == 32);  // a refused value changes nothing
    CHECK(c.policy.dispatch == DispatchPolicy::fifo);
}

TEST_CASE("gpu config: check_config names every value out of range and every broken rule", "[config]") {
    GpuConfig c;
    c.platform.sm.warp_slots = 0;
    c.platform.usa.cores = 100;
    c.policy.lock = LockPolicy(7);  // a value outside the enum (a cast gone wrong)
    auto problems = check_config(c);
    REQUIRE(problems.size() == 3);
    CHECK(problems[0].param == "sm.warp_slots");
    CHECK(problems[0].message == "0 is out of range 1..128");
    CHECK(problems[1].param == "usa.cores");
    CHECK(problems[2].param == "policy.lock");
    CHECK(problems[2].message == "unknown value '#7' (expected one of: spin, priority)");

    GpuConfig r;  // each value in range, the rules broken
    r.platform.sm.slice_size = 40;
    r.platform.sm.scalar_pool = 100;
    r.platform.usa.vertex_cores = 20;
    r.platform.sm.l1_ways = 32;
    r.platform.sm.l1i_bytes = 1024;  // 8 lines of 128 bytes: not 32 ways
    problems = check_config(r);
    std::vector<std::string> params;
    for (const auto& p : problems) params.push_back(p.param);
    CHECK(params == std::vector<std::string>{"sm.slice_size", "sm.scalar_quota", "usa.vertex_cores", "sm.l1i_bytes"});
    CHECK(problems[0].message == "must be fewer than warp_size (32), got 40");
    CHECK(problems[1].message == "the quotas add up to 1024, more than scalar_pool (100)");
    r.platform.sm.scalar_split = ScalarSplit::kernel;  // the kernel split sets its own quotas
    CHECK(check_config(r).size() == 3);
}

TEST_CASE("gpu config: the scenario loader reads the same table with the same ranges", "[config][scenario]") {
    for (const GpuParam& p : gpu_params()) {
        INFO(p.name);
        const std::string key = p.name.rfind("policy.", 0) == 0 ? p.name : "platform." + p.name;
        const GpuConfig def;
        // Its default is accepted under its scenario key...
        CHECK(loader_error(key, get_param(def, p.name)).empty());
        // ...and a value just outside its range is refused, by the loader and by set_param.
        std::string bad;
        switch (p.kind) {
        case GpuParam::Kind::integer: bad = std::to_string(p.hi + 1); break;
        case GpuParam::Kind::power_of_two: bad = std::to_string(p.hi * 2); break;
        case GpuParam::Kind::one_of: bad = std::to_string(p.allowed.back() + 1); break;
        case GpuParam::Kind::real: bad = std::to_string(p.real_hi * 2); break;
        case GpuParam::Kind::choice: bad = "no-such-policy"; break;
        }
        CHECK_THAT(loader_error(key, bad), Contains("--set: " + key + ": "));
        GpuConfig c;
        CHECK_FALSE(set_error(c, p.name, bad).empty());
    }
    // A rule across keys, at the key it names.
    CHECK_THAT(loader_error("platform.sm.slice_size", "40"), Contains("platform.sm.slice_size: must be fewer than warp_size (32), got 40"));
}

TEST_CASE("gpu config: docs/integration.md lists every parameter with its default and range", "[config][docs]") {
    const std::string doc = test::slurp(std::string(GPUVP_SOURCE_DIR) + "/docs/integration.md");
    CHECK_THAT(doc, Contains(gpu_params_markdown()));
}

TEST_CASE("gpu config: Gpu refuses a bad config naming each parameter under its instance name", "[config]") {
    GpuConfig c;
    c.platform.sm.warp_slots = 500;
    c.policy.dispatch = DispatchPolicy(9);
    try {
        Gpu gpu("soc_gpu", c);
        FAIL("a Gpu was built");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Contains("soc_gpu: the configuration is not usable:"));
        CHECK_THAT(what, Contains("soc_gpu.sm.warp_slots: 500 is out of range 1..128"));
        CHECK_THAT(what, Contains("soc_gpu.policy.dispatch: unknown value '#9'"));
    }
}

TEST_CASE("gpu config: an SM instance sets its own capacities by hierarchical name", "[config]") {
    GpuConfig c;
    c.platform.sms = 4;
    set_param(c, "gpu.sm[3].warp_slots", "16");
    set_param(c, "sm[1].registers", "131072");
    CHECK(get_param(c, "sm[3].warp_slots") == "16");
    CHECK(get_param(c, "sm[2].warp_slots") == "48");  // not set: the class's
    CHECK(c.platform.sm_of(3).warp_slots == 16);
    CHECK(c.platform.sm_of(3).registers == 65536);
    CHECK(c.platform.sm_of(1).registers == 131072);
    CHECK(c.platform.sm.warp_slots == 48);  // the class is unchanged
    const SmConfig big = c.platform.largest_sm();
    CHECK(big.warp_slots == 48);
    CHECK(big.registers == 131072);
    CHECK(check_config(c).empty());

    CHECK_THAT(set_error(c, "sm[3].warp_slots", "129"), Equals("gpu.sm[3].warp_slots: 129 is out of range 1..128"));
    CHECK_THAT(set_error(c, "gpu.sm[3].warp_slots", "x"), Equals("gpu.sm[3].warp_slots: expected a number, got 'x'"));
    CHECK_THAT(set_error(c, "sm[03].warp_slots", "8"), Contains("unknown parameter 'sm[03].warp_slots'"));  // no leading zero
    CHECK_THAT(set_error(c, "sm[3].l1_ways", "2"),
               Equals("gpu.sm[3].l1_ways: an SM instance sets only warp_slots, registers, shared_memory, issue_width; "
                      "sm.l1_ways sets every SM"));
    set_param(c, "sm[7].issue_width", "2");  // SM 7 of a 4-SM GPU: check_config refuses it
    auto problems = check_config(c);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].param == "sm[7]");
    CHECK(problems[0].message == "no such SM: sms is 4");
    c.platform.sm_instance.erase(7);
    c.platform.sm_instance[0].shared_memory = 2u << 20;  // set directly, out of range
    problems = check_config(c);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].param == "sm[0].shared_memory");

    // Every SM smaller than the class: the largest SM is the largest instance.
    GpuConfig all;
    all.platform.sms = 2;
    all.platform.sm_instance[0].warp_slots = 8;
    all.platform.sm_instance[1].warp_slots = 16;
    CHECK(all.platform.largest_sm().warp_slots == 16);
}

TEST_CASE("gpu config: the loader reads sm[i] maps and --set of sm[i] keys", "[config][scenario]") {
    const std::string base = "name: t\nplatform:\n  sms: 2\n  sm[1]: {warp_slots: 8, issue_width: 2}\nkernels:\n  - name: k\n    program: [{op: valu}]\n";
    const Scenario s = parse_scenario(base, "t.yaml");
    CHECK(s.platform.sm_of(1).warp_slots == 8);
    CHECK(s.platform.sm_of(1).issue_width == 2);
    CHECK(s.platform.sm_of(0).warp_slots == 48);
    CHECK(parse_scenario(base, "t.yaml", {{"platform.sm[0].registers", "1024"}}).platform.sm_of(0).registers == 1024);

    auto error = [&](const std::string& yaml, const Overrides& o = {}) {
        try {
            parse_scenario(yaml, "t.yaml", o);
        } catch (const ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK_THAT(error("name: t\nplatform:\n  sms: 2\n  sm[2]: {warp_slots: 8}\n"),
               Equals("t.yaml:4: platform.sm[2]: no such SM: platform.sms is 2 (sm[0] .. sm[1])"));
    CHECK_THAT(error("name: t\nplatform:\n  sm[1]: {l1_ways: 8}\n"),
               Contains("t.yaml:3: platform.sm[1].l1_ways: unknown key 'l1_ways'"));
    CHECK_THAT(error("name: t\nplatform:\n  sm[1]: {warp_slots: 200}\n"),
               Equals("t.yaml:3: platform.sm[1].warp_slots: 200 is out of range 1..128"));
    CHECK_THAT(error("name: t\nplatform:\n  sm[a]: {warp_slots: 2}\n"),
               Contains("platform.sm[a]: an SM of its own is sm[i]"));
    CHECK_THAT(error(base, {{"platform.sm[1].warp_slots", "0"}}),
               Equals("--set: platform.sm[1].warp_slots: 0 is out of range 1..128"));
    // A block must fit the largest SM.
    CHECK(error("name: t\nplatform:\n  sms: 2\n  sm: {warp_slots: 8}\n  sm[1]: {warp_slots: 16}\n"
                "kernels:\n  - {name: k, grid: [512], block: [512], program: [{op: valu}]}\n")
              .empty());
    CHECK_THAT(error("name: t\nplatform:\n  sms: 2\n  sm: {warp_slots: 8}\n"
                     "kernels:\n  - {name: k, block: [512], program: [{op: valu}]}\n"),
               Contains("needs 16 warps; an SM has 8 warp slots"));
}

TEST_CASE("gpu config: blocks go only to the SMs they fit and no SM exceeds its own warp slots", "[config][placement]") {
    // SM 1 has 8 warp slots, SM 0 the class's 48: 16-warp blocks all run on SM 0, and a
    // second kernel of 4-warp blocks fills SM 1 up to its 8 slots.
    const test::Run r = test::run_yaml(R"(name: mixed
platform:
  sms: 2
  sm[1]: {warp_slots: 8}
kernels:
  - {name: wide, grid: [2048], block: [512], program: [{op: valu, repeat: 50}]}
  - {name: narrow, grid: [4096], block: [128], program: [{op: valu, repeat: 50}]}
)");
    REQUIRE(r.results["status"] == "ok");
    const auto& sms = r.results["sms"];
    CHECK(sms[0]["warp_slots"] == 48);
    CHECK(sms[1]["warp_slots"] == 8);
    CHECK(sms[1]["resident_warps_max"].get<uint32_t>() <= 8);
    CHECK(sms[1]["resident_warps_max"].get<uint32_t>() > 0);
    CHECK(sms[0]["resident_warps_max"].get<uint32_t>() > 8);
    CHECK(sms[0]["blocks_run"].get<uint64_t>() + sms[1]["blocks_run"].get<uint64_t>() == 4 + 32);
    CHECK(sms[1]["blocks_run"].get<uint64_t>() <= 32);  // only narrow blocks fit SM 1
}

TEST_CASE("gpu config: bad sm[i] keys and --set paths are bad input blamed on where they come from", "[config][scenario]") {
    auto error = [](const std::string& yaml, const Overrides& o = {}) -> ScenarioError {
        try {
            parse_scenario(yaml, "t.yaml", o);
        } catch (const ScenarioError& e) {
            return e;
        }
        FAIL("no ScenarioError");
        throw std::logic_error("unreachable");
    };
    for (const char* key : {"sm[1.5]", "sm[.]", "sm[01]", "sm[]", "sm[1]x", "sm[-1]", "sm[9999999]"}) {
        INFO(key);
        const ScenarioError e = error(std::string("name: t\nplatform:\n  sms: 2\n  ") + key + ": {warp_slots: 8}\n");
        CHECK(e.file() == "t.yaml");
        CHECK(e.line() == 4);
        CHECK_THAT(e.what(), Contains("an SM of its own is sm[i]"));
    }
    // The flattened --set spelling written in a file is not an SM map.
    CHECK_THAT(error("name: t\nplatform:\n  sm[0].warp_slots: 8\n").what(), Contains("an SM of its own is sm[i]"));
    // A --set that makes a key the file does not have is blamed on --set.
    ScenarioError e = error("name: t\nplatform:\n  sms: 2\n", {{"platform.sm[5].warp_slots", "8"}});
    CHECK(e.file() == "--set");
    CHECK_THAT(e.what(), Contains("no such SM: platform.sms is 2"));
    e = error("name: t\n", {{"queues[0].priority", "1"}});
    CHECK(e.file() == "--set");
    // A log key with a leading zero names no block.
    GpuConfig c;
    c.log["sm[01]"] = 100;
    REQUIRE(check_config(c).size() == 1);
    CHECK(check_config(c)[0].param == "log");
}

TEST_CASE("gpu config: a block that fits each SM's capacities only one at a time is refused", "[config][scenario]") {
    // SM 0 has the slots but not the registers, SM 1 the registers but not the slots: each
    // need alone fits the most any SM has, the block as a whole fits no SM.
    const std::string yaml = R"(name: t
platform:
  sms: 2
  sm[0]: {warp_slots: 64, registers: 16384}
  sm[1]: {warp_slots: 16}
kernels:
  - {name: k, block: [1024], vregs: 32, program: [{op: valu}]}
)";
    try {
        parse_scenario(yaml, "t.yaml");
        FAIL("accepted");
    } catch (const ScenarioError& e) {
        CHECK_THAT(e.what(), Contains("t.yaml:7: kernels[0].block: a block needs 32 warp slots, 32768 registers and 0 bytes "
                                      "of shared memory at once, and no one SM has them all"));
    }
    // Built around the loader, the GPU's WLM refuses the kernel (no hang): resources.
    Scenario s = parse_scenario("name: t\nplatform: {sms: 2}\nkernels:\n  - {name: k, grid: [2048], block: [1024], vregs: 32, program: [{op: valu}]}\n",
                                "t.yaml");
    s.platform.sm_instance[0].registers = 16384;
    s.platform.sm_instance[0].warp_slots = 64;
    s.platform.sm_instance[1].warp_slots = 16;
    s.max_sim_ns = 1e6;
    const RunOutput out = run_scenario(s, RunOptions{false});
    const auto r = nlohmann::json::parse(out.results);
    CHECK(r["kernels"][0]["status"] != "ok");
    CHECK_THAT(r["kernels"][0]["status"].get<std::string>(), Contains("a block can never fit on an SM"));
    CHECK(r["sim_end_ns"].get<double>() < 1e6);  // ended, not cut by max_sim_ns
}
