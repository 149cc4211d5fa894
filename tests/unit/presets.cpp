// Platform presets of real GPUs (platform/presets.h) and the loader's `platform.preset` and
// `--platform FILE`: every preset is a usable GPU, its values land in the platform, what is
// written beside it, in a platform file or with --set overrides it in that order, and bad
// input names the file, the line and the key.
#include <gpuvp/platform/presets.h>
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::test::error_of;

namespace {

std::string with_platform_error(const std::string& yaml, const std::string& platform, const Overrides& o = {}) {
    try {
        parse_scenario(yaml, "s.yaml", o, PlatformSource{"p.yaml", platform});
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "no error";
}

const char* kNames = "a100, h100-sxm, h200, v100, mi250, mi250x, mi300x";

}  // namespace

TEST_CASE("presets: every preset is a GPU check_config accepts, with the SM count of its GPU", "[presets]") {
    const std::map<std::string, uint32_t> sms{{"a100", 108}, {"h100-sxm", 132}, {"h200", 132}, {"v100", 80},
                                              {"mi250", 104}, {"mi250x", 110}, {"mi300x", 304}};
    CHECK(join_words(preset_names()) == kNames);
    for (const PlatformPreset& p : platform_presets()) {
        INFO(p.name);
        GpuConfig g;
        p.apply(g);
        const auto problems = check_config(g);
        for (const ConfigProblem& x : problems) INFO(x.param << ": " << x.message);
        CHECK(problems.empty());
        CHECK(g.platform.sms == sms.at(p.name));
        CHECK(find_preset(p.name) == &p);
        CHECK_FALSE(p.description.empty());
        CHECK_FALSE(p.source.empty());
        for (const PresetValue& v : p.values) {
            INFO(v.param);
            CHECK(find_gpu_param(v.param) != nullptr);
            CHECK(get_param(g, v.param) == v.value);  // as written: nothing rounded
            CHECK_FALSE(v.source.empty());
        }
        // The 32-bit registers and threads a real SM has: warp slots x warp size threads.
        CHECK(g.platform.sm.warp_slots * g.platform.sm.warp_size == 2048);
    }
    CHECK(find_preset("a10") == nullptr);
}

TEST_CASE("presets: docs/presets.md lists every preset's values with their sources", "[presets][docs]") {
    const std::string doc = test::slurp(std::string(GPUVP_SOURCE_DIR) + "/docs/presets.md");
    CHECK_THAT(doc, Contains(presets_markdown()));
    for (const char* page : {"/docs/README.md", "/docs/scenario.md"})
        CHECK_THAT(test::slurp(std::string(GPUVP_SOURCE_DIR) + page), Contains("presets.md"));
}

TEST_CASE("presets: platform.preset sets the preset's values and the scenario records its name", "[presets][scenario]") {
    const Scenario s = parse_scenario("name: t\nplatform: {preset: a100}\n", "t.yaml");
    CHECK(s.preset == "a100");
    CHECK(s.platform.sms == 108);
    CHECK(s.platform.clock_mhz == 1410);
    CHECK(s.platform.sm.warp_slots == 64);
    CHECK(s.platform.sm.warp_size == 32);
    CHECK(s.platform.sm.registers == 65536);
    CHECK(s.platform.sm.shared_memory == 167936);
    CHECK(s.platform.sm.l1d_bytes == 28672);
    CHECK(s.platform.memory.l2_bytes == 40u << 20);
    // What the preset does not set keeps its default (the model's latencies).
    CHECK(s.platform.memory.l2_latency_ns == MemoryConfig{}.l2_latency_ns);
    CHECK(s.platform.cp.decode_cycles == CpConfig{}.decode_cycles);
    CHECK(parse_scenario("name: t\n", "t.yaml").preset.empty());

    const Scenario amd = parse_scenario("name: t\nplatform:\n  preset: mi300x\n", "t.yaml");
    CHECK(amd.platform.sms == 304);
    CHECK(amd.platform.sm.warp_size == 64);
    CHECK(amd.platform.sm.warp_slots == 32);
    CHECK(amd.platform.sm.registers == 131072);
    CHECK(amd.platform.sm.shared_memory == 65536);
    CHECK(amd.platform.memory.l2_bytes == 32u << 20);
    CHECK(amd.platform.clock_mhz == 2100);
}

TEST_CASE("presets: a key written beside the preset overrides it, wherever it stands in the map", "[presets][scenario]") {
    for (const char* yaml : {"name: t\nplatform: {preset: a100, sms: 16, sm: {warp_slots: 32}}\n",
                             "name: t\nplatform: {sms: 16, sm: {warp_slots: 32}, preset: a100}\n"}) {
        INFO(yaml);
        const Scenario s = parse_scenario(yaml, "t.yaml");
        CHECK(s.platform.sms == 16);
        CHECK(s.platform.sm.warp_slots == 32);
        CHECK(s.platform.sm.shared_memory == 167936);  // the preset's
        CHECK(s.preset == "a100");
    }
    // An SM of its own is checked against the preset's SM count.
    CHECK(parse_scenario("name: t\nplatform:\n  preset: v100\n  sm[79]: {warp_slots: 32}\n", "t.yaml").platform.sm_of(79).warp_slots == 32);
    CHECK(error_of("name: t\nplatform:\n  preset: v100\n  sm[80]: {warp_slots: 32}\n").line() == 4);
}

TEST_CASE("presets: --set overrides the preset and the keys beside it", "[presets][scenario][set]") {
    const std::string yaml = "name: t\nplatform: {preset: a100, sms: 16}\n";
    Scenario s = parse_scenario(yaml, "t.yaml", {{"platform.sms", "20"}, {"platform.sm.warp_slots", "40"}});
    CHECK(s.platform.sms == 20);
    CHECK(s.platform.sm.warp_slots == 40);
    CHECK(s.platform.clock_mhz == 1410);
    // --set platform.preset changes the name the map holds: its other keys still override it.
    s = parse_scenario(yaml, "t.yaml", {{"platform.preset", "v100"}});
    CHECK(s.preset == "v100");
    CHECK(s.platform.sms == 16);
    CHECK(s.platform.clock_mhz == 1530);
    // On a file without a platform section.
    CHECK(parse_scenario("name: t\n", "t.yaml", {{"platform.preset", "h200"}}).platform.sms == 132);
}

TEST_CASE("presets: an unknown preset names the line and the key, suggests a name and lists them", "[presets][errors]") {
    CHECK(std::string(error_of("name: t\nplatform:\n  preset: a10\n").what()) ==
          std::string("t.yaml:3: platform.preset: unknown preset 'a10' (did you mean 'a100'?); the presets: ") + kNames);
    // A GPU's name without its form factor: the preset that begins with it.
    CHECK(std::string(error_of("name: t\nplatform: {preset: h100}\n").what()) ==
          std::string("t.yaml:2: platform.preset: unknown preset 'h100' (did you mean 'h100-sxm'?); the presets: ") + kNames);
    CHECK(std::string(error_of("name: t\nplatform: {preset: rtx4090}\n").what()) ==
          std::string("t.yaml:2: platform.preset: unknown preset 'rtx4090' (expected one of: ") + kNames + ")");
    CHECK(std::string(error_of("name: t\n", {{"platform.preset", "a10"}}).what()) ==
          std::string("--set: platform.preset: unknown preset 'a10' (did you mean 'a100'?); the presets: ") + kNames);
    CHECK_THAT(error_of("name: t\nplatform: {preset: [a100]}\n").what(), Contains("t.yaml:2: platform.preset: expected a string"));
}

TEST_CASE("presets: a platform file's preset and keys override the scenario's platform, --set overrides the file",
          "[presets][platform-file]") {
    const std::string yaml = "name: t\nplatform:\n  sms: 4\n  clock_mhz: 1000\n  sm: {registers: 32768, issue_width: 2}\n"
                             "  memory: {l2_ways: 8}\n";
    // A preset in the file: its values replace the scenario's keys of the same parameters
    // (sms, registers, clock), the scenario's other keys stay (issue_width, l2_ways), the
    // file's own keys override the preset.
    Scenario s = parse_scenario(yaml, "s.yaml", {}, PlatformSource{"p.yaml", "preset: h100-sxm\nsm: {warp_slots: 32}\n"});
    CHECK(s.preset == "h100-sxm");
    CHECK(s.platform.sms == 132);
    CHECK(s.platform.clock_mhz == 1980);
    CHECK(s.platform.sm.registers == 65536);
    CHECK(s.platform.sm.warp_slots == 32);
    CHECK(s.platform.sm.issue_width == 2);
    CHECK(s.platform.memory.l2_ways == 8);
    // --set last.
    s = parse_scenario(yaml, "s.yaml", {{"platform.sms", "20"}}, PlatformSource{"p.yaml", "preset: h100-sxm\n"});
    CHECK(s.platform.sms == 20);
    CHECK(s.platform.sm.warp_size == 32);
    // Without a preset, only the keys it writes; `platform: {...}` as the whole file too.
    for (const char* file : {"sms: 12\nsm: {warp_slots: 24}\n", "platform:\n  sms: 12\n  sm: {warp_slots: 24}\n"}) {
        INFO(file);
        s = parse_scenario(yaml, "s.yaml", {}, PlatformSource{"p.yaml", file});
        CHECK(s.preset.empty());
        CHECK(s.platform.sms == 12);
        CHECK(s.platform.sm.warp_slots == 24);
        CHECK(s.platform.sm.registers == 32768);
        CHECK(s.platform.clock_mhz == 1000);
    }
    // The scenario's preset is replaced by the file's; with no preset in the file it stays,
    // and the file's keys override it.
    const std::string preset_yaml = "name: t\nplatform: {preset: a100, sms: 100}\n";
    s = parse_scenario(preset_yaml, "s.yaml", {}, PlatformSource{"p.yaml", "preset: v100\n"});
    CHECK(s.preset == "v100");
    CHECK(s.platform.sms == 80);
    s = parse_scenario(preset_yaml, "s.yaml", {}, PlatformSource{"p.yaml", "sms: 50\n"});
    CHECK(s.preset == "a100");
    CHECK(s.platform.sms == 50);
    CHECK(s.platform.clock_mhz == 1410);
    // An empty file changes nothing.
    CHECK(parse_scenario(yaml, "s.yaml", {}, PlatformSource{"p.yaml", ""}).platform.sms == 4);
}

TEST_CASE("presets: a platform file applies to every variant, before each variant's own set", "[presets][platform-file][variants]") {
    const std::string yaml = "name: t\nvariants:\n  - {name: a}\n  - {name: b, set: {platform.sms: 7}}\n";
    const Scenario s = parse_scenario(yaml, "s.yaml", {}, PlatformSource{"p.yaml", "preset: mi250\n"});
    REQUIRE(s.variants.size() == 2);
    CHECK(s.variants[0].platform.sms == 104);
    CHECK(s.variants[0].preset == "mi250");
    CHECK(s.variants[1].platform.sms == 7);
    CHECK(s.variants[1].platform.sm.warp_size == 64);
    CHECK(s.variants[1].preset == "mi250");
}

TEST_CASE("presets: an error in a platform file names that file, its line and the key", "[presets][platform-file][errors]") {
    const std::string yaml = "name: t\nplatform: {sms: 4}\n";
    CHECK(with_platform_error(yaml, "sms: 1000\n") == "p.yaml:1: platform.sms: 1000 is out of range 1..512");
    CHECK(with_platform_error(yaml, "platform:\n  sm:\n    warp_slotz: 3\n") ==
          "p.yaml:3: platform.sm.warp_slotz: unknown key 'warp_slotz' (did you mean 'warp_slots'?)");
    CHECK(with_platform_error(yaml, "\npreset: a10\n") ==
          std::string("p.yaml:2: platform.preset: unknown preset 'a10' (did you mean 'a100'?); the presets: ") + kNames);
    CHECK(with_platform_error(yaml, "sms: [1]\n") == "p.yaml:1: platform.sms: expected an integer, got a list of 1");
    // A rule across keys, at the file's key.
    CHECK(with_platform_error(yaml, "sm: {slice_size: 40}\n") == "p.yaml:1: platform.sm.slice_size: must be fewer than warp_size (32), got 40");
    // The scenario's own errors still name the scenario; --set's name --set.
    CHECK(with_platform_error("name: t\nplatform: {sms: 0}\n", "clock_mhz: 1000\n") == "s.yaml:2: platform.sms: 0 is out of range 1..512");
    CHECK(with_platform_error(yaml, "sms: 10\n", {{"platform.sms", "0"}}) == "--set: platform.sms: 0 is out of range 1..512");
    // Not a platform map.
    CHECK(with_platform_error(yaml, "- sms: 4\n") ==
          "p.yaml:1: expected a platform map (the keys of a scenario's 'platform:', or 'platform:' holding them and 'host:' the host's), got a list of 1");
    CHECK(with_platform_error(yaml, "name: x\nplatform: {sms: 4}\n") ==
          "p.yaml:1: expected a platform map (the keys of a scenario's 'platform:', or 'platform:' holding them and 'host:' the host's), got "
          "'platform' and name: a platform file is not a scenario");
    CHECK(with_platform_error(yaml, "platform: 4\n") == "p.yaml:1: platform: expected a map, got '4'");
    CHECK(with_platform_error(yaml, "sms: [\n") .rfind("p.yaml:", 0) == 0);
    CHECK_THAT(with_platform_error(yaml, "sms: [\n"), Contains("YAML syntax error"));
}

TEST_CASE("presets: load_scenario reads the platform file by its path", "[presets][platform-file]") {
    const std::string dir = test::temp_dir();
    const std::string scenario = dir + "/s.yaml", platform = dir + "/gpu.yaml";
    std::ofstream(scenario) << "name: t\nplatform: {sms: 4}\n";
    std::ofstream(platform) << "platform:\n  preset: v100\n  sms: 81\n";
    const Scenario s = load_scenario(scenario, {}, platform);
    CHECK(s.platform.sms == 81);
    CHECK(s.preset == "v100");
    CHECK(load_scenario(scenario, {{"platform.sms", "3"}}, platform).platform.sms == 3);
    CHECK(load_scenario(scenario).platform.sms == 4);
    std::ofstream(platform) << "platform:\n  sms: 0\n";
    try {
        load_scenario(scenario, {}, platform);
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK(e.file() == platform);
        CHECK(e.line() == 2);
        CHECK(e.key() == "platform.sms");
    }
    try {
        load_scenario(scenario, {}, dir + "/none.yaml");
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK_THAT(e.what(), Contains(dir + "/none.yaml: cannot open the platform file"));
    }
}
