// One cost of block dispatch under every placement policy (models/glc.md): a kernel alone on
// the GPU, with nothing to prioritise, takes the same time under fifo and priority-block, and
// priority-warp differs only where it starts a block warp by warp on a first SM (a slot free
// beside a block's warps still running, not a whole block's room).
// Over a family of lone kernels: few and many blocks, small and large blocks, with and without
// a block barrier, on 8 and 108 SMs (8 only under the sanitizers); each run in a child process.
#include "sc_main/scenario/trace_scenario.h"
#include "tests/sizes.h"
#include "tests/support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace gpuvp;

namespace {

struct Shape {
    uint32_t sms, threads;
    bool many, barrier;
    uint64_t blocks = 0;
};

struct Duration {
    double ns = 0;           // the first warp's start to the kernel's end
    uint64_t first_sm = 0;   // blocks priority-warp started warp by warp (glc.blocks_placed.first_sm)
};

std::string yaml_of(const Shape& s) {
    std::ostringstream y;
    y << "name: lone-kernel\nplatform: {sms: " << s.sms << "}\nqueues: [{name: q}]\nkernels:\n"
      << "  - {name: k, queue: q, grid: [" << s.blocks * s.threads << "], block: [" << s.threads
      << "], program: [{op: kernarg_load}, " << (s.barrier ? "{op: barrier}, " : "")
      << "{op: valu, cycles: 40, repeat: 50}]}\n";
    return y.str();
}

Duration run(const Shape& s, const char* policy) {
    const std::string text = test::in_child([&] {
        const RunOutput out = run_scenario(parse_scenario(yaml_of(s), "lone-kernel.yaml", {{"policy.dispatch", policy}}));
        const nlohmann::json r = nlohmann::json::parse(out.results);
        const nlohmann::json& k = r["kernels"][0];
        std::ostringstream o;
        o.precision(17);
        o << (k["status"] == "ok") << ' ' << k["end_ns"].get<double>() - k["first_warp_start_ns"].get<double>() << ' '
          << r["glc"]["blocks_placed"]["first_sm"].get<uint64_t>();
        return o.str();
    });
    std::istringstream in(text);
    bool ok = false;
    Duration d;
    in >> ok >> d.ns >> d.first_sm;
    INFO(policy << "\n" << yaml_of(s));
    REQUIRE(ok);
    return d;
}

}  // namespace

TEST_CASE("a lone kernel takes the same time under fifo and priority-block, and priority-warp differs only by "
          "its warp-by-warp starts", "[m1][glc][dispatch]") {
    std::vector<Shape> family;
    // Under the sanitizers the 8-SM half: the 108-SM kernels take the same code paths.
    for (uint32_t sms : {8u, 108u}) {
        if (sms == 108 && test::kSanitized) continue;
        for (uint32_t threads : {64u, 1024u})
            for (bool many : {false, true})
                for (bool barrier : {false, true}) family.push_back({sms, threads, many, barrier});
    }
    std::printf("lone kernels (tests/system/lone_kernel_dispatch.cpp): first warp -> end, ns\n"
                " sms threads blocks barrier        fifo  priority-block  priority-warp  first_sm\n");
    double apart = 0;  // priority-warp's largest difference from priority-block
    for (Shape& s : family) {
        // Few: half the SMs get a block. Many: two and a half waves of the default SM.
        const Scenario one = parse_scenario(yaml_of(Shape{s.sms, s.threads, false, false, 1}), "p.yaml");
        const KernelSpec& k = one.workload.kernels.at(0);
        const uint64_t per_sm = blocks_per_sm(one.platform.sm, s.threads, k.vregs, k.shared_bytes);
        s.blocks = s.many ? per_sm * s.sms * 5 / 2 : s.sms / 2;
        const Duration fifo = run(s, "fifo"), block = run(s, "priority-block"), warp = run(s, "priority-warp");
        std::printf("%4u %7u %6llu %7s %11.1f %15.1f %14.1f %9llu\n", s.sms, s.threads, (unsigned long long)s.blocks,
                    s.barrier ? "yes" : "no", fifo.ns, block.ns, warp.ns, (unsigned long long)warp.first_sm);
        INFO(yaml_of(s));
        CHECK(std::fabs(fifo.ns / block.ns - 1) <= 0.01);
        // priority-warp places whole blocks as the others do; only a block it puts on a first
        // SM (room for a warp, not for the block) starts differently, its warps one by one in
        // slots as they free: the two differ by more than 1 % only where it did.
        if (std::fabs(warp.ns / block.ns - 1) > 0.01) CHECK(warp.first_sm > 0);
        if (warp.first_sm == 0) CHECK(std::fabs(warp.ns / block.ns - 1) <= 0.01);
        apart = std::max(apart, std::fabs(warp.ns / block.ns - 1));
    }
    std::printf("priority-warp at most %.1f %% from priority-block\n", 100 * apart);
}
