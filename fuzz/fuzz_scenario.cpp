// Fuzz target `scenario`: the input is a scenario file's text, given to the loader as
// gpuvp::parse_scenario(text, "fuzz.yaml", overrides). Lines of the form `#set KEY=VALUE` (YAML
// comments) are also passed as --set overrides, so one input fuzzes both.
//
// Defined outcomes: a Scenario, or a ScenarioError (bad input, named by file, line and key).
// A bug: any other exception, a crash, a sanitizer report, a hang, a huge allocation, or a
// scenario the loader accepts that the rest of the program refuses: a GpuConfig that Gpu's
// constructor would refuse (check_config), a program the assembler cannot build, a packet
// override apply_packet_overrides does not know.
// --expect-clean (replay only): every input must load; the seed corpus is checked this way.
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/firmware/host_driver.h>
#include <gpuvp/platform/gpu_config.h>
#include "sc_main/scenario/scenario.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <typeinfo>

namespace {

bool expect_clean = false;

[[noreturn]] void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz_scenario: BUG: %s\n", what.c_str());
    std::abort();
}

gpuvp::Overrides overrides_in(const std::string& text) {
    gpuvp::Overrides o;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#set ", 0) != 0) continue;
        const std::string kv = line.substr(5);
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) o.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return o;
}

// What the loader accepted, the GPU and the host model must accept too.
void check_accepted(const gpuvp::Scenario& s) {
    const gpuvp::GpuConfig config{s.platform, s.policy, {}};
    for (const gpuvp::ConfigProblem& p : gpuvp::check_config(config))
        bug("the loader accepted a configuration Gpu refuses: " + p.param + ": " + p.message);
    const bool multilevel = s.policy.scalar == gpuvp::ScalarPolicy::multilevel;
    for (const gpuvp::KernelSpec& k : s.workload.kernels) {
        try {
            gpuvp::build_code_object(k, s.platform.sm.warp_size, multilevel);
        } catch (const std::exception& e) {
            bug("kernel '" + k.name + "': the loader accepted a program the assembler refuses: " + e.what());
        }
        if (gpuvp::block_count(k) > s.platform.cp.max_blocks)
            bug("kernel '" + k.name + "': more blocks than platform.cp.max_blocks");
        hsa_kernel_dispatch_packet_t p{};
        try {
            gpuvp::apply_packet_overrides(p, k.packet);
        } catch (const std::exception& e) {
            bug("kernel '" + k.name + "': a packet override the host model refuses: " + e.what());
        }
    }
    for (const gpuvp::DrawSpec& d : s.workload.draws) {
        gpuvp::DrawPacket p{};
        try {
            gpuvp::apply_packet_overrides(p, d.packet);
        } catch (const std::exception& e) {
            bug("draw '" + d.name + "': a packet override the host model refuses: " + e.what());
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::strcmp((*argv)[i], "--expect-clean") == 0) expect_clean = true;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const gpuvp::Scenario s = gpuvp::parse_scenario(text, "fuzz.yaml", overrides_in(text));
        check_accepted(s);
        for (const gpuvp::Scenario& v : s.variants) check_accepted(v);
    } catch (const gpuvp::ScenarioError& e) {  // bad input, named: the defined outcome
        if (expect_clean) bug(std::string("a seed does not load: ") + e.what());
    } catch (const std::exception& e) {
        bug(std::string("the loader threw ") + typeid(e).name() + " (not a ScenarioError): " + e.what());
    }
    return 0;
}
