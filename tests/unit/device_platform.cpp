// A profiler trace's device as a platform (sc_main/scenario/device_platform.h): the preset its
// name or properties match, and its stated properties over the preset, with the values of the
// real traces' `deviceProperties`.
#include <gpuvp/platform/presets.h>
#include "sc_main/scenario/device_platform.h"
#include "sc_main/scenario/scenario.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

TraceDevice a100() {  // an A100 trace's deviceProperties
    TraceDevice d;
    d.name = "NVIDIA A100-SXM4-40GB";
    d.sms = 108;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_threads_per_sm = 2048;
    d.registers_per_sm = 65536;
    d.registers_per_block = 65536;
    d.shared_per_sm = 167936;
    d.shared_per_block = 49152;
    d.global_memory = 42505273344ull;
    d.compute_major = 8;
    d.compute_minor = 0;
    return d;
}

TraceDevice v100() {
    TraceDevice d;
    d.name = "Tesla V100-SXM2-32GB";
    d.sms = 80;
    d.warp_size = 32;
    d.max_threads_per_sm = 2048;
    d.registers_per_sm = 65536;
    d.shared_per_sm = 98304;
    d.compute_major = 7;
    d.compute_minor = 0;
    return d;
}

TraceDevice mi250() {  // an MI250 GCD in a ROCm trace: the name says no model
    TraceDevice d;
    d.name = "AMD Radeon Graphics";
    d.amd = true;
    d.sms = 104;
    d.warp_size = 64;
    d.shared_per_sm = 65536;
    d.compute_major = 9;
    d.compute_minor = 0;
    return d;
}

TraceDevice amd(uint32_t cus, std::optional<uint32_t> minor) {
    TraceDevice d = mi250();
    d.sms = cus;
    d.compute_minor = minor;
    return d;
}

TraceDevice named(const std::string& name) {
    TraceDevice d;
    d.name = name;
    return d;
}

}  // namespace

TEST_CASE("device platform: a trace's device matches its preset by name, an AMD one by its CUs and gfx version",
          "[replay][presets]") {
    CHECK(preset_for(a100()) == "a100");
    CHECK(preset_for(v100()) == "v100");
    CHECK(preset_for(mi250()) == "mi250");
    CHECK(preset_for(amd(110, 0)) == "mi250x");
    CHECK(preset_for(amd(304, 4)) == "mi300x");
    CHECK(preset_for(amd(304, std::nullopt)) == "mi300x");  // gfx version not stated
    CHECK(preset_for(amd(304, 0)) == "");                    // 304 CUs but gfx90a: no such GPU
    CHECK(preset_for(amd(120, 0)) == "");                    // MI100-like: no preset
    CHECK(preset_for(named("NVIDIA A100-PG509-200")) == "a100");
    CHECK(preset_for(named("NVIDIA A100 80GB PCIe")) == "a100");
    CHECK(preset_for(named("NVIDIA H100 80GB HBM3")) == "h100-sxm");
    CHECK(preset_for(named("NVIDIA H200")) == "h200");
    CHECK(preset_for(named("Tesla V100-PCIE-16GB")) == "v100");
    CHECK(preset_for(named("AMD Instinct MI300X")) == "mi300x");
    CHECK(preset_for(named("AMD Instinct MI250X")) == "mi250x");
    // Not a word of the name: not the GPU.
    CHECK(preset_for(named("NVIDIA RTX A1000")) == "");
    CHECK(preset_for(named("NVIDIA GH200 480GB")) == "");
    CHECK(preset_for(named("NVIDIA GeForce RTX 4090")) == "");
    CHECK(preset_for(TraceDevice{}) == "");
    // A name with two models: the device's CU count decides.
    TraceDevice both = mi250();
    both.name = "AMD Instinct MI250X / MI250";
    CHECK(preset_for(both) == "mi250");
    both.sms = 110;
    CHECK(preset_for(both) == "mi250x");
    both.sms.reset();
    CHECK(preset_for(both) == "");
    // An NVIDIA device with a generic name is not matched by its properties.
    TraceDevice generic = a100();
    generic.name = "NVIDIA Graphics Device";
    CHECK(preset_for(generic) == "");
    // Every preset matched names one that exists.
    for (const char* p : {"a100", "h100-sxm", "h200", "v100", "mi250", "mi250x", "mi300x"}) CHECK(find_preset(p));
}

TEST_CASE("device platform: the trace's properties land over the preset's values", "[replay][presets]") {
    const PlatformConfig a = device_platform(a100());
    CHECK(a.sms == 108);
    CHECK(a.sm.warp_size == 32);
    CHECK(a.sm.warp_slots == 64);  // 2048 / 32
    CHECK(a.sm.registers == 65536);
    CHECK(a.sm.shared_memory == 167936);
    CHECK(a.clock_mhz == 1410);               // the preset's: the trace does not say
    CHECK(a.memory.l2_bytes == 40u << 20);    // the preset's

    const PlatformConfig v = device_platform(v100());
    CHECK(v.sms == 80);
    CHECK(v.sm.shared_memory == 98304);
    CHECK(v.clock_mhz == 1530);

    const PlatformConfig m = device_platform(mi250());
    CHECK(m.sms == 104);
    CHECK(m.sm.warp_size == 64);
    CHECK(m.sm.shared_memory == 65536);
    CHECK(m.sm.warp_slots == 32);       // the preset's: no maxThreadsPerMultiProcessor in this trace
    CHECK(m.sm.registers == 131072);    // the preset's
    CHECK(m.memory.l2_bytes == 8u << 20);
    CHECK(m.clock_mhz == 1700);

    // What the trace states wins over the preset: an H100 PCIe's 114 SMs.
    TraceDevice pcie = named("NVIDIA H100 PCIe");
    pcie.sms = 114;
    const PlatformConfig h = device_platform(pcie);
    CHECK(h.sms == 114);
    CHECK(h.sm.shared_memory == 233472);
    // A device no preset matches: the defaults and what it states.
    TraceDevice other = named("NVIDIA GeForce RTX 4090");
    other.sms = 128;
    other.warp_size = 32;
    other.max_threads_per_sm = 1536;
    const PlatformConfig o = device_platform(other);
    CHECK(o.sms == 128);
    CHECK(o.sm.warp_slots == 48);
    CHECK(o.clock_mhz == PlatformConfig{}.clock_mhz);

    // apply_device_properties overlays only what is stated.
    PlatformConfig p;
    find_preset("h100-sxm")->apply(p);
    TraceDevice few;
    few.sms = 100;
    apply_device_properties(few, p);
    CHECK(p.sms == 100);
    CHECK(p.sm.shared_memory == 233472);
    CHECK(device_values(few) == std::vector<std::pair<std::string, std::string>>{{"sms", "100"}});
}

TEST_CASE("device platform: a stated property outside the model's range is an error naming it", "[replay][presets][errors]") {
    TraceDevice d = a100();
    d.sms = 1000;
    PlatformConfig p;
    try {
        apply_device_properties(d, p);
        FAIL("applied");
    } catch (const std::invalid_argument& e) {
        CHECK_THAT(e.what(), Contains("device 'NVIDIA A100-SXM4-40GB': deviceProperties numSms 1000") &&
                                 Contains("out of range 1..512"));
    }
    d = a100();
    d.warp_size = 48;
    CHECK_THROWS_WITH(apply_device_properties(d, p), Contains("warpSize 48"));
}

TEST_CASE("device platform: preset < deviceProperties < --platform FILE < --set, through the loader", "[replay][presets]") {
    // A converter writes the preset and the device's values as the scenario's platform; the
    // loader lays the platform file and the --sets over it.
    TraceDevice d = a100();
    d.sms = 100;  // a device that differs from its preset
    CHECK(preset_for(d) == "a100");
    CHECK(device_values(d) == std::vector<std::pair<std::string, std::string>>{{"sms", "100"},
                                                                              {"sm.warp_size", "32"},
                                                                              {"sm.warp_slots", "64"},
                                                                              {"sm.registers", "65536"},
                                                                              {"sm.shared_memory", "167936"}});
    const std::string yaml =
        "name: replay\nplatform:\n  preset: a100\n  sms: 100\n"
        "  sm: {warp_size: 32, warp_slots: 64, registers: 65536, shared_memory: 167936}\n";
    Scenario s = parse_scenario(yaml, "replay.yaml");
    CHECK(s.platform.sms == 100);          // deviceProperties over the preset
    CHECK(s.platform.clock_mhz == 1410);   // the preset
    s = parse_scenario(yaml, "replay.yaml", {}, PlatformSource{"p.yaml", "sms: 90\nclock_mhz: 1000\n"});
    CHECK(s.platform.sms == 90);           // the platform file over deviceProperties
    CHECK(s.platform.clock_mhz == 1000);
    s = parse_scenario(yaml, "replay.yaml", {{"platform.sms", "50"}}, PlatformSource{"p.yaml", "sms: 90\n"});
    CHECK(s.platform.sms == 50);           // --set over the platform file
    CHECK(s.platform.sm.shared_memory == 167936);
}
