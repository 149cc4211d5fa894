// The scenario loader: defaults, every class of input error (file, line and dotted key),
// --set overrides and the decoding of programs into instructions.
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/aql.h>
#include "sc_main/scenario/scenario.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

using namespace gpuvp;
using gpuvp::test::error_of;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

// name + one kernel: everything else is default.
const char* kMinimal = R"(name: minimal
kernels:
  - name: k
    program: [{op: valu}]
)";

// A kernel program given inline, at line 4 onwards of the file.
std::vector<ProgramStep> program_of(const std::string& steps) {
    return parse_scenario("name: p\nkernels:\n  - name: k\n    program:\n" + steps, "p.yaml").workload.kernels.at(0).program;
}

}  // namespace

TEST_CASE("scenario: a minimal file gets the documented defaults", "[scenario]") {
    const Scenario s = parse_scenario(kMinimal, "min.yaml");
    CHECK(s.name == "minimal");
    CHECK(s.file == "min.yaml");
    CHECK(s.max_sim_ns == 1e9);
    CHECK(s.expect.empty());

    const PlatformConfig def;
    CHECK(s.platform.clock_mhz == def.clock_mhz);
    CHECK(s.platform.sms == def.sms);
    CHECK(s.platform.sm.warp_slots == def.sm.warp_slots);
    CHECK(s.platform.sm.slice_size == def.sm.slice_size);
    CHECK(s.platform.memory.host_latency_ns == def.memory.host_latency_ns);
    CHECK(s.platform.memory.l2_bytes == def.memory.l2_bytes);
    CHECK(s.platform.cp.decode_cycles == def.cp.decode_cycles);
    CHECK(s.platform.usa.vertex_cores == def.usa.vertex_cores);

    CHECK(s.policy.dispatch == DispatchPolicy::fifo);
    CHECK(s.policy.launch == LaunchPolicy::serial);
    CHECK(s.policy.lock == LockPolicy::spin);
    CHECK(s.policy.scalar == ScalarPolicy::per_warp);
    CHECK(s.policy.shading == ShadingBalance::static_split);
    CHECK(s.policy.issue == IssuePolicy::gto);

    REQUIRE(s.workload.queues.size() == 1);
    CHECK(s.workload.queues[0].name == "q0");
    CHECK(s.workload.queues[0].priority == 0);
    CHECK(s.workload.queues[0].size == 256);

    REQUIRE(s.workload.kernels.size() == 1);
    const KernelSpec& k = s.workload.kernels[0];
    const KernelSpec kdef;
    CHECK(k.name == "k");
    CHECK(k.line == 3);
    CHECK(k.queue == "q0");
    CHECK(k.grid == kdef.grid);
    CHECK(k.block == kdef.block);
    CHECK(k.vregs == kdef.vregs);
    CHECK(k.global_bytes == kdef.global_bytes);
    CHECK(k.acquire_fence == 2);
    CHECK(k.release_fence == 2);
    CHECK(k.packet.empty());
    REQUIRE(k.program.size() == 2);  // the trailing end is added
    CHECK(k.program[0].insn == Instruction{Opcode::valu, 0, 1, 0});
    CHECK(k.program[1].insn.op == Opcode::end);
}

TEST_CASE("scenario: the design example with baseline policies and no locks or draws loads", "[scenario]") {
    const Scenario s = parse_scenario(R"(name: high-priority-under-load
platform:
  clock_mhz: 1500
  sms: 8
  sm: {warp_slots: 48, warp_size: 32, registers: 65536, shared_memory: 65536,
       scalar_pool: 1024, slice_size: 8}
  memory: {host_latency_ns: 800, device_latency_ns: 300, l2_latency_ns: 120, l1_latency_ns: 20}
  usa: {cores: 16, vertex_cores: 8}
policy: {dispatch: fifo, launch: serial, lock: spin, scalar: per-warp, shading: static}
queues:
  - {name: low, priority: 2}
  - {name: high, priority: 0, size: 1024}
kernels:
  - name: background
    queue: low
    submit_ns: 250.5
    grid: [65536, 1, 1]
    block: [256]
    vregs: 32
    shared_bytes: 0x1000
    kernarg_bytes: 64
    scalars: {kernel: 2, workgroup: 4, warp: 8, slice: 2}
    warp_priorities: [1, 1, 0, 1]
    after: []
    barrier: true
    acquire_fence: agent
    release_fence: none
    program:
      - {op: kernarg_load}
      - {op: valu, cycles: 4, repeat: 500}
  - name: high
    queue: high
    after: [background]
    program: [{op: end}]
draws: []
expect:
  - {kernel: high, metric: response_ns, max: 5000}
  - {metric: kernels_failed, min: 0, max: 0}
)",
                                      "ex.yaml");
    CHECK(s.platform.memory.host_latency_ns == 800);
    CHECK(s.platform.memory.link_latency_ns == MemoryConfig{}.link_latency_ns);
    REQUIRE(s.workload.queues.size() == 2);
    CHECK(s.workload.queues[0].priority == 2);
    CHECK(s.workload.queues[1].size == 1024);
    const KernelSpec& bg = s.workload.kernels.at(0);
    CHECK(bg.queue == "low");
    CHECK(bg.submit_ns == 250.5);
    CHECK(bg.grid == std::array<uint32_t, 3>{65536, 1, 1});
    CHECK(bg.block == std::array<uint32_t, 3>{256, 1, 1});
    CHECK(bg.shared_bytes == 4096);
    CHECK(bg.scalars == std::array<uint16_t, 4>{2, 4, 8, 2});
    CHECK(bg.warp_priorities == std::vector<uint8_t>{1, 1, 0, 1});
    CHECK(bg.barrier);
    CHECK(bg.acquire_fence == 1);
    CHECK(bg.release_fence == 0);
    CHECK(s.workload.kernels.at(1).after == std::vector<std::string>{"background"});
    CHECK(s.workload.kernels.at(1).program.size() == 1);  // an explicit end is not doubled
    REQUIRE(s.expect.size() == 2);
    CHECK(s.expect[0].kernel == "high");
    CHECK(s.expect[0].max == 5000);
    CHECK_FALSE(s.expect[0].min);
    CHECK(s.expect[0].line == 37);
    CHECK(s.expect[1].kernel.empty());
    CHECK(s.expect[1].min == 0);
}

TEST_CASE("scenario: an unknown key names its line and suggests the closest key", "[scenario][errors]") {
    const auto e = error_of(R"(name: x
platform:
  sm:
    warp_slotz: 4
)");
    CHECK(e.file() == "t.yaml");
    CHECK(e.line() == 4);
    CHECK(e.key() == "platform.sm.warp_slotz");
    CHECK_THAT(e.what(), Equals("t.yaml:4: platform.sm.warp_slotz: unknown key 'warp_slotz' (did you mean 'warp_slots'?)"));
}

TEST_CASE("scenario: glc.dispatch_cycles, in a file or --set, names the two keys that replace it",
          "[scenario][errors][glc]") {
    const auto e = error_of("name: x\nplatform:\n  glc: {dispatch_cycles: 10}\n");
    CHECK(e.line() == 3);
    CHECK(e.key() == "platform.glc.dispatch_cycles");
    CHECK_THAT(e.what(), Contains("no longer a parameter: a placement costs glc.decision_cycles (the decision) plus "
                                  "glc.descriptor_cycles for each block descriptor it writes"));
    const auto set = error_of(kMinimal, {{"platform.glc.dispatch_cycles", "10"}});
    CHECK(set.file() == "--set");
    CHECK_THAT(set.what(), Contains("glc.decision_cycles"));
    // The two keys that replace it load.
    const Scenario s = parse_scenario("name: x\nplatform:\n  glc: {decision_cycles: 7, descriptor_cycles: 2}\n", "t.yaml");
    CHECK(s.platform.glc.decision_cycles == 7);
    CHECK(s.platform.glc.descriptor_cycles == 2);
}

TEST_CASE("scenario: an unknown key with no close match lists the known keys", "[scenario][errors]") {
    const auto e = error_of("name: x\nfrobnicate: 1\n");
    CHECK(e.line() == 2);
    CHECK(e.key() == "frobnicate");
    CHECK_THAT(e.what(), Contains("expected one of: name, max_sim_ns, measure_alone, platform, policy"));
}

TEST_CASE("scenario: a key that another op takes is unknown for this op", "[scenario][errors]") {
    const auto e = error_of(R"(name: x
kernels:
  - name: k
    program:
      - {op: valu, cycles: 2}
      - {op: valu, bytes: 4}
)");
    CHECK(e.line() == 6);
    CHECK(e.key() == "kernels[0].program[1].bytes");
    CHECK_THAT(e.what(), Contains("unknown key 'bytes'"));
}

TEST_CASE("scenario: wrong types are errors naming line and key", "[scenario][errors]") {
    SECTION("a string where an integer is expected") {
        const auto e = error_of("name: x\nplatform:\n  sms: many\n");
        CHECK(e.line() == 3);
        CHECK(e.key() == "platform.sms");
        CHECK_THAT(e.what(), Contains("expected an integer, got 'many'"));
    }
    SECTION("a quoted number is a string") {
        const auto e = error_of("name: x\nplatform:\n  sms: \"8\"\n");
        CHECK(e.key() == "platform.sms");
        CHECK_THAT(e.what(), Contains("the string \"8\""));
    }
    SECTION("a map where a list is expected") {
        const auto e = error_of(R"(name: x
kernels:
  - name: k
    grid: {x: 64}
    program: [{op: valu}]
)");
        CHECK(e.line() == 4);
        CHECK(e.key() == "kernels[0].grid");
        CHECK_THAT(e.what(), Contains("got a map"));
    }
    SECTION("a map where the kernel list is expected") {
        const auto e = error_of("name: x\nkernels: {name: k}\n");
        CHECK(e.line() == 2);
        CHECK(e.key() == "kernels");
        CHECK_THAT(e.what(), Contains("expected a list, got a map"));
    }
    SECTION("a non-integer") {
        const auto e = error_of("name: x\nplatform:\n  sm: {warp_slots: 2.5}\n");
        CHECK(e.key() == "platform.sm.warp_slots");
        CHECK_THAT(e.what(), Contains("expected an integer, got 2.5"));
    }
    SECTION("a bool") {
        const auto e = error_of("name: x\nkernels:\n  - {name: k, barrier: maybe, program: [{op: valu}]}\n");
        CHECK(e.line() == 3);
        CHECK(e.key() == "kernels[0].barrier");
        CHECK_THAT(e.what(), Contains("expected true or false"));
    }
}

TEST_CASE("scenario: out-of-range values are errors naming line and key", "[scenario][errors]") {
    SECTION("integer") {
        const auto e = error_of("name: x\nplatform:\n  sm:\n    warp_slots: 500\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "platform.sm.warp_slots");
        CHECK_THAT(e.what(), Contains("500 is out of range 1..128"));
    }
    SECTION("real") {
        const auto e = error_of("name: x\nplatform: {clock_mhz: 50}\n");
        CHECK(e.line() == 2);
        CHECK(e.key() == "platform.clock_mhz");
        CHECK_THAT(e.what(), Contains("100..5000"));
    }
    SECTION("negative") {
        const auto e = error_of("name: x\nkernels:\n  - {name: k, submit_ns: -1, program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].submit_ns");
        CHECK_THAT(e.what(), Contains(">= 0"));
    }
    SECTION("max_sim_ns must be positive") {
        const auto e = error_of("name: x\nmax_sim_ns: 0\n");
        CHECK(e.key() == "max_sim_ns");
        CHECK_THAT(e.what(), Contains("> 0"));
    }
    SECTION("power of two") {
        const auto e = error_of("name: x\nplatform:\n  memory: {line_bytes: 48}\n");
        CHECK(e.key() == "platform.memory.line_bytes");
        CHECK_THAT(e.what(), Contains("power of two in 16..1024"));
    }
    SECTION("a cache of whole sets, not only a power of two") {
        CHECK(parse_scenario("name: x\nplatform:\n  sm: {l1d_bytes: 28672}\n", "t.yaml").platform.sm.l1d_bytes == 28672);
        const auto e = error_of("name: x\nplatform:\n  sm: {l1d_bytes: 3000}\n");
        CHECK(e.key() == "platform.sm.l1d_bytes");
        CHECK_THAT(e.what(), Contains("3000 bytes of 64-byte lines do not divide into 4 ways (sm.l1_ways)"));
    }
    SECTION("one of a set") {
        const auto e = error_of("name: x\nplatform:\n  sm: {warp_size: 24}\n");
        CHECK(e.key() == "platform.sm.warp_size");
        CHECK_THAT(e.what(), Contains("must be one of 8, 16, 32, 64"));
    }
    SECTION("list element") {
        const auto e = error_of("name: x\nkernels:\n  - name: k\n    block: [16, 2000]\n    program: [{op: valu}]\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "kernels[0].block[1]");
        CHECK_THAT(e.what(), Contains("2000 is out of range 1..1024"));
    }
    SECTION("queue priority") {
        const auto e = error_of("name: x\nqueues:\n  - {name: a}\n  - {name: b, priority: 16}\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "queues[1].priority");
    }
}

TEST_CASE("scenario: name is required", "[scenario][errors]") {
    const auto e = error_of("platform: {sms: 2}\n");
    CHECK(e.key() == "name");
    CHECK_THAT(e.what(), Contains("missing required key 'name'"));
    CHECK_THAT(error_of("").what(), Contains("the file is empty: a scenario or a profiler trace expected"));
}

TEST_CASE("scenario: a kernel needs a name and a program", "[scenario][errors]") {
    auto e = error_of("name: x\nkernels:\n  - {queue: q0, program: [{op: valu}]}\n");
    CHECK(e.line() == 3);
    CHECK(e.key() == "kernels[0].name");
    e = error_of("name: x\nkernels:\n  - {name: k}\n");
    CHECK(e.key() == "kernels[0].program");
    e = error_of("name: x\nkernels:\n  - {name: k, program: []}\n");
    CHECK(e.key() == "kernels[0].program");
    CHECK_THAT(e.what(), Contains("non-empty"));
}

TEST_CASE("scenario: duplicate names and duplicate keys are errors", "[scenario][errors]") {
    SECTION("kernel") {
        const auto e = error_of(R"(name: x
kernels:
  - {name: k, program: [{op: valu}]}
  - name: j
    program: [{op: valu}]
  - name: k
    program: [{op: valu}]
)");
        CHECK(e.line() == 6);
        CHECK(e.key() == "kernels[2].name");
        CHECK_THAT(e.what(), Contains("duplicate kernel name 'k' (first at line 3)"));
    }
    SECTION("queue") {
        const auto e = error_of("name: x\nqueues:\n  - {name: a}\n  - {name: a}\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "queues[1].name");
    }
    SECTION("YAML key holding a map") {
        const auto e = error_of("name: x\nplatform:\n  sm:\n    warp_slots: 4\n  sm: {}\n");
        CHECK(e.line() == 5);
        CHECK(e.key() == "platform.sm");
        CHECK_THAT(e.what(), Contains("duplicate key (first at line 3)"));
    }
    SECTION("YAML key") {
        const auto e = error_of("name: x\nplatform:\n  sms: 2\n  sms: 4\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "platform.sms");
        CHECK_THAT(e.what(), Contains("duplicate key (first at line 3)"));
    }
}

TEST_CASE("scenario: 'after' must name another kernel of the file", "[scenario][errors]") {
    SECTION("unknown") {
        const auto e = error_of(R"(name: x
kernels:
  - {name: producer, program: [{op: valu}]}
  - name: consumer
    after: [producer, producr]
    program: [{op: valu}]
)");
        CHECK(e.line() == 5);
        CHECK(e.key() == "kernels[1].after[1]");
        CHECK_THAT(e.what(), Contains("unknown kernel 'producr' (did you mean 'producer'?)"));
    }
    SECTION("itself") {
        const auto e = error_of("name: x\nkernels:\n  - {name: k, after: [k], program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].after[0]");
        CHECK_THAT(e.what(), Contains("cannot wait for itself"));
    }
}

TEST_CASE("scenario: an 'after' cycle is an error", "[scenario][errors]") {
    const auto e = error_of(R"(name: x
kernels:
  - {name: a, after: [c], program: [{op: valu}]}
  - {name: b, after: [a], program: [{op: valu}]}
  - {name: c, after: [b], program: [{op: valu}]}
)");
    CHECK(e.line() == 4);  // the edge that closes the cycle, walking from the first kernel
    CHECK(e.key() == "kernels[1].after[0]");
    CHECK_THAT(e.what(), Contains("cycle: a -> c -> b -> a"));
}

TEST_CASE("scenario: slice_size must be fewer than warp_size", "[scenario][errors]") {
    auto e = error_of("name: x\nplatform:\n  sm:\n    slice_size: 16\n    warp_size: 16\n");
    CHECK(e.line() == 4);
    CHECK(e.key() == "platform.sm.slice_size");
    CHECK_THAT(e.what(), Contains("fewer than warp_size (16)"));
    // Only warp_size given: the default slice_size (8) is checked against it.
    e = error_of("name: x\nplatform:\n  sm:\n    warp_size: 8\n");
    CHECK(e.key() == "platform.sm.slice_size");
    CHECK(parse_scenario("name: x\nplatform: {sm: {warp_size: 8, slice_size: 4}}\n", "t").platform.sm.slice_size == 4);
}

TEST_CASE("scenario: cross-key platform rules", "[scenario][errors]") {
    auto e = error_of("name: x\nplatform:\n  usa: {cores: 4, vertex_cores: 5}\n");
    CHECK(e.key() == "platform.usa.vertex_cores");
    e = error_of("name: x\nplatform:\n  memory: {l2_bytes: 1024, line_bytes: 64, l2_ways: 32}\n");
    CHECK(e.line() == 3);
    CHECK(e.key() == "platform.memory.l2_bytes");
}

TEST_CASE("scenario: every value of every policy key loads", "[scenario]") {
    using P = std::pair<std::string, std::string>;
    const auto [key, value] = GENERATE(P{"dispatch", "fifo"}, P{"dispatch", "priority-block"}, P{"dispatch", "priority-warp"},
                                       P{"launch", "serial"}, P{"launch", "prefetch"}, P{"lock", "spin"},
                                       P{"lock", "priority"}, P{"scalar", "per-warp"}, P{"scalar", "multilevel"},
                                       P{"shading", "static"}, P{"shading", "adaptive"},
                                       P{"shading", "adaptive-depth-first"}, P{"issue", "gto"}, P{"issue", "lrr"});
    const Scenario s = parse_scenario("name: x\npolicy: {" + key + ": " + value + "}\n", "t");
    const std::string got = key == "dispatch" ? policy_name(s.policy.dispatch)
                            : key == "launch" ? policy_name(s.policy.launch)
                            : key == "lock"   ? policy_name(s.policy.lock)
                            : key == "scalar" ? policy_name(s.policy.scalar)
                            : key == "issue"  ? policy_name(s.policy.issue)
                                              : policy_name(s.policy.shading);
    CHECK(got == value);
}

TEST_CASE("scenario: an unknown policy value lists the allowed ones", "[scenario][errors]") {
    const auto e = error_of("name: x\npolicy: {dispatch: round-robin}\n");
    CHECK(e.key() == "policy.dispatch");
    CHECK_THAT(e.what(), Contains("fifo, priority-block, priority-warp"));
}

TEST_CASE("scenario: host.code is per-launch by default, once on request, and nothing else", "[scenario][m5]") {
    CHECK(parse_scenario(kMinimal, "t").workload.code == CodeLoad::per_launch);
    CHECK(parse_scenario("name: x\nhost: {code: per-launch}\n", "t").workload.code == CodeLoad::per_launch);
    CHECK(parse_scenario("name: x\nhost: {code: once}\n", "t").workload.code == CodeLoad::once);
    const auto e = error_of("name: x\nhost:\n  code: warm\n");
    CHECK(e.file() == "t.yaml");
    CHECK(e.line() == 3);
    CHECK(e.key() == "host.code");
    CHECK_THAT(e.what(), Contains("per-launch, once"));
}

TEST_CASE("scenario: the M2 rules default to the seed's, take the improvements by name, and nothing else", "[scenario][m2]") {
    const Scenario def = parse_scenario(kMinimal, "t");
    CHECK(def.platform.sm.lock_equal_priority == LockEqualPriority::wait);
    CHECK(def.platform.sm.lock_hold_limit_action == LockHoldLimitAction::release);
    const Scenario s = parse_scenario("name: x\nplatform: {sm: {lock_equal_priority: wait-die, lock_hold_limit_action: yield}}\n", "t");
    CHECK(s.platform.sm.lock_equal_priority == LockEqualPriority::wait_die);
    CHECK(s.platform.sm.lock_hold_limit_action == LockHoldLimitAction::yield);
    const auto e = error_of("name: x\nplatform:\n  sm:\n    lock_equal_priority: die\n");
    CHECK(e.line() == 4);
    CHECK(e.key() == "platform.sm.lock_equal_priority");
    CHECK_THAT(e.what(), Contains("wait, wait-die"));
    const auto a = error_of("name: x\nplatform: {sm: {lock_hold_limit_action: keep}}\n");
    CHECK(a.key() == "platform.sm.lock_hold_limit_action");
    CHECK_THAT(a.what(), Contains("release, yield"));
}

TEST_CASE("scenario: lock steps follow the rules of critical sections", "[scenario][errors][m2]") {
    // One kernel of 2 warps with 16 bytes of shared memory (lock words 0 to 3); `program` is
    // written from line 5 on.
    auto program = [](const std::string& steps, const std::string& policy = "spin") {
        return "name: x\npolicy: {lock: " + policy + "}\nkernels:\n  - name: k\n    block: [64]\n    shared_bytes: 16\n    program:\n" +
               steps;
    };
    auto e = error_of(program("      - {op: lock, id: 4}\n      - {op: unlock, id: 4}\n"));
    CHECK(e.line() == 8);
    CHECK(e.key() == "kernels[0].program[0].id");
    CHECK_THAT(e.what(), Contains("past the kernel's shared_bytes (16): give the kernel at least 20 shared_bytes"));
    e = error_of(program("      - {op: unlock, id: 1}\n"));
    CHECK(e.key() == "kernels[0].program[0]");
    CHECK_THAT(e.what(), Contains("lock 1 is not held here"));
    e = error_of(program("      - {op: lock, id: 1}\n      - {op: lock, id: 1}\n"));
    CHECK(e.line() == 9);
    CHECK_THAT(e.what(), Contains("lock 1 (taken at line 8) is already held here"));
    e = error_of(program("      - {op: lock, id: 1}\n      - {op: valu}\n"));
    CHECK(e.key() == "kernels[0].program[0]");
    CHECK_THAT(e.what(), Contains("lock 1 (taken at line 8) is not released before the end of the program"));
    e = error_of(program("      - {op: lock, id: 0}\n      - {op: barrier}\n      - {op: unlock, id: 0}\n"));
    CHECK(e.line() == 9);
    CHECK_THAT(e.what(), Contains("a barrier while holding lock 0"));
    e = error_of(program("      - {op: valu}\n      - {op: lock, id: 0}\n      - {op: end}\n"));
    CHECK(e.line() == 9);
    CHECK_THAT(e.what(), Contains("lock 0 (taken at line 9) is not released before the end of the program"));
    e = error_of(program("      - {op: lock, id: 0, repeat: 2}\n"));
    CHECK(e.key() == "kernels[0].program[0].repeat");
    // A lock taken outside a loop is released outside it, and one taken inside, inside.
    e = error_of(program("      - {op: lock, id: 0}\n      - {op: loop, count: 2, body: [{op: unlock, id: 0}]}\n"));
    CHECK(e.key() == "kernels[0].program[1].body[0]");
    CHECK_THAT(e.what(), Contains("was taken outside this loop body"));
    e = error_of(program("      - {op: loop, count: 2, body: [{op: lock, id: 0}]}\n"));
    CHECK_THAT(e.what(), Contains("is not released before the end of the loop body"));
    e = error_of(program("      - {op: if_warp, warps: [0], body: [{op: lock, id: 2}]}\n"));
    CHECK_THAT(e.what(), Contains("before the end of the if_warp body"));
    e = error_of(program("      - {op: if_warp, warps: [2], body: [{op: valu}]}\n"));
    CHECK(e.key() == "kernels[0].program[0].warps");
    CHECK_THAT(e.what(), Contains("warp 2 is not in a block of 2 warps (indices 0 to 1)"));
    e = error_of(program("      - {op: if_warp, warps: [], body: [{op: valu}]}\n"));
    CHECK_THAT(e.what(), Contains("non-empty list of warp indices"));
    e = error_of(program("      - {op: if_warp, body: [{op: valu}]}\n"));
    CHECK_THAT(e.what(), Contains("missing required key 'warps'"));
    // Nested, properly released locks and an if_warp inside a critical section are fine.
    CHECK_NOTHROW(parse_scenario(program("      - {op: lock, id: 0}\n      - {op: lock, id: 3}\n"
                                         "      - {op: if_warp, warps: [1], body: [{op: valu}]}\n"
                                         "      - {op: unlock, id: 0}\n      - {op: unlock, id: 3}\n"),
                                 "t"));
}


TEST_CASE("scenario: lock and if_warp steps assemble to their instructions", "[scenario][m2]") {
    const Scenario s = parse_scenario(R"(name: x
kernels:
  - name: k
    grid: [128]
    block: [128]
    shared_bytes: 8
    program:
      - {op: if_warp, warps: [0, 3], body: [{op: valu, cycles: 7}, {op: salu}]}
      - {op: lock, id: 1}
      - {op: unlock, id: 1}
)", "t");
    const auto& p = s.workload.kernels[0].program;
    REQUIRE(p.size() == 4);  // and the end
    CHECK(p[0].insn == Instruction{Opcode::if_warp, 0, 0, 0b1001});
    CHECK(p[0].body.size() == 2);
    CHECK(p[1].insn == Instruction{Opcode::lock, 0, 1});
    CHECK(p[2].insn == Instruction{Opcode::unlock, 0, 1});
}

TEST_CASE("scenario: end must be the last step", "[scenario][errors]") {
    auto e = error_of(R"(name: x
kernels:
  - name: k
    program:
      - {op: end}
      - {op: valu}
)");
    CHECK(e.line() == 5);
    CHECK(e.key() == "kernels[0].program[0].op");
    CHECK_THAT(e.what(), Contains("'end' must be the last step"));
    e = error_of("name: x\nkernels:\n  - name: k\n    program:\n      - {op: loop, count: 2, body: [{op: end}]}\n");
    CHECK(e.key() == "kernels[0].program[0].body[0].op");
}

TEST_CASE("scenario: an unknown op suggests the closest", "[scenario][errors]") {
    const auto e = error_of("name: x\nkernels:\n  - name: k\n    program:\n      - op: vlau\n");
    CHECK(e.line() == 5);
    CHECK(e.key() == "kernels[0].program[0].op");
    CHECK_THAT(e.what(), Contains("unknown op 'vlau' (did you mean 'valu'?)"));
}

TEST_CASE("scenario: a YAML syntax error is a ScenarioError with its line", "[scenario][errors]") {
    const auto e = error_of("name: x\nkernels:\n  - name: k\n    grid: [1, 2\n    program: []\n");
    CHECK(e.file() == "t.yaml");
    CHECK(e.line() == 5);
    CHECK(e.key().empty());
    CHECK_THAT(e.what(), Contains("YAML syntax error"));
}

TEST_CASE("scenario: a missing file is an error naming it", "[scenario][errors]") {
    try {
        load_scenario("/nonexistent/dir/s.yaml");
        FAIL("no error");
    } catch (const ScenarioError& e) {
        CHECK(e.file() == "/nonexistent/dir/s.yaml");
        CHECK_THAT(e.what(), Contains("/nonexistent/dir/s.yaml") && Contains("cannot open"));
    }
}

TEST_CASE("scenario: --set changes a value and creates missing maps", "[scenario][set]") {
    const Scenario s = parse_scenario(kMinimal, "t",
                                      {{"platform.memory.host_latency_ns", "2000"},
                                       {"policy.dispatch", "fifo"},
                                       {"kernels[0].submit_ns", "75"},
                                       {"max_sim_ns", "5e6"}});
    CHECK(s.platform.memory.host_latency_ns == 2000);
    CHECK(s.platform.memory.l2_latency_ns == MemoryConfig{}.l2_latency_ns);
    CHECK(s.policy.dispatch == DispatchPolicy::fifo);
    CHECK(s.workload.kernels[0].submit_ns == 75);
    CHECK(s.max_sim_ns == 5e6);
}

TEST_CASE("scenario: --set overrides a value already in the file", "[scenario][set]") {
    const std::string yaml = "name: x\nplatform:\n  sms: 2\n";
    CHECK(parse_scenario(yaml, "t").platform.sms == 2);
    CHECK(parse_scenario(yaml, "t", {{"platform.sms", "16"}}).platform.sms == 16);
    CHECK(parse_scenario(yaml, "t", {{"name", "renamed"}}).name == "renamed");
}

TEST_CASE("scenario: --set takes flow lists and kernels by name", "[scenario][set]") {
    const Scenario s = parse_scenario(kMinimal, "t",
                                      {{"kernels[0].grid", "[128, 2]"},
                                       {"kernels.k.block", "[32, 2, 1]"},
                                       {"kernels.k.program", "[{op: salu, level: slice}, {op: valu}]"}});
    const KernelSpec& k = s.workload.kernels.at(0);
    CHECK(k.grid == std::array<uint32_t, 3>{128, 2, 1});
    CHECK(k.block == std::array<uint32_t, 3>{32, 2, 1});
    REQUIRE(k.program.size() == 3);
    CHECK(k.program[0].insn.op == Opcode::salu);
    CHECK(k.program[0].insn.mod == uint8_t(ScalarLevel::slice));
}

TEST_CASE("scenario: a bad value from --set names --set and the key, not a line", "[scenario][set][errors]") {
    auto e = error_of(kMinimal, {{"platform.sm.warp_slots", "500"}});
    CHECK(e.file() == "--set");
    CHECK(e.line() == 0);
    CHECK(e.key() == "platform.sm.warp_slots");
    CHECK_THAT(e.what(), Equals("--set: platform.sm.warp_slots: 500 is out of range 1..128"));
    e = error_of(kMinimal, {{"policy.dispatch", "priority-warpp"}});
    CHECK(e.file() == "--set");
    CHECK(e.key() == "policy.dispatch");
    e = error_of(kMinimal, {{"platform.sm.warp_slotz", "4"}});
    CHECK(e.file() == "--set");
    CHECK_THAT(e.what(), Contains("did you mean 'warp_slots'"));
    e = error_of(kMinimal, {{"kernels[0].grid", "[1, 2"}});
    CHECK(e.file() == "--set");
    CHECK(e.key() == "kernels[0].grid");
}

TEST_CASE("scenario: a --set path through a non-map is an error", "[scenario][set][errors]") {
    auto e = error_of("name: x\nplatform: {sms: 2}\n", {{"platform.sms.count", "1"}});
    CHECK(e.file() == "--set");
    CHECK(e.line() == 0);
    CHECK(e.key() == "platform.sms.count");
    CHECK_THAT(e.what(), Contains("'platform.sms' is '2', not a map or a list"));
    e = error_of(kMinimal, {{"kernels[3].vregs", "8"}});
    CHECK_THAT(e.what(), Contains("'kernels' has 1 elements"));
    e = error_of(kMinimal, {{"kernels.nosuch.vregs", "8"}});
    CHECK_THAT(e.what(), Contains("no element named 'nosuch'"));
    e = error_of(kMinimal, {{"platform[0]", "1"}});  // name[i] on a map is the key name[i] (as sm[3])
    CHECK_THAT(e.what(), Contains("unknown key 'platform[0]' (did you mean 'platform'?)"));
    e = error_of(kMinimal, {{"platform..sms", "1"}});
    CHECK(e.key() == "platform..sms");
    CHECK_THAT(e.what(), Contains("empty name"));
}

TEST_CASE("scenario: program steps decode into instructions", "[scenario][program]") {
    const auto p = program_of(R"(      - {op: kernarg_load}
      - {op: valu, cycles: 4, repeat: 500}
      - {op: salu, level: workgroup, cycles: 3}
      - {op: salu, level: kernel, write: true}
      - {op: salu}
      - {op: load, space: shared, bytes: 256}
      - {op: store, bytes: 64}
      - {op: load, space: kernarg}
      - {op: barrier, repeat: 2}
      - op: end
)");
    REQUIRE(p.size() == 10);
    CHECK(p[0].insn == Instruction{Opcode::kernarg_load, 0, 0, 0});
    CHECK(p[1].insn == Instruction{Opcode::valu, 0, 4, 0});
    CHECK(p[1].repeat == 500);
    CHECK(p[1].line == 6);
    CHECK(p[2].insn == Instruction{Opcode::salu, uint8_t(ScalarLevel::workgroup), 3, 0});
    CHECK(p[3].insn == Instruction{Opcode::salu, uint8_t(uint8_t(ScalarLevel::kernel) | kScalarWriteFlag), 1, 0});
    CHECK(p[4].insn == Instruction{Opcode::salu, uint8_t(ScalarLevel::warp), 1, 0});
    CHECK(p[5].insn == Instruction{Opcode::load, uint8_t(Space::shared), 0, 256});
    CHECK(p[6].insn == Instruction{Opcode::store, uint8_t(Space::global), 0, 64});
    CHECK(p[7].insn == Instruction{Opcode::load, uint8_t(Space::kernarg), 0, 128});
    CHECK(p[8].insn.op == Opcode::barrier);
    CHECK(p[8].repeat == 2);
    CHECK(p[9].insn.op == Opcode::end);
    CHECK(p[9].line == 14);
    for (const auto& s : p) CHECK(s.body.empty());
}

TEST_CASE("scenario: loops carry their count as repeat and nest", "[scenario][program]") {
    const auto p = program_of(R"(      - op: loop
        count: 10
        body:
          - {op: valu, cycles: 2}
          - op: loop
            count: 3
            body: [{op: load, bytes: 64, repeat: 4}]
)");
    REQUIRE(p.size() == 2);
    CHECK(p[0].insn == Instruction{Opcode::loop_begin, 0, 0, 10});
    CHECK(p[0].repeat == 10);
    CHECK(p[0].line == 5);
    REQUIRE(p[0].body.size() == 2);
    CHECK(p[0].body[0].insn == Instruction{Opcode::valu, 0, 2, 0});
    CHECK(p[0].body[1].repeat == 3);
    REQUIRE(p[0].body[1].body.size() == 1);
    CHECK(p[0].body[1].body[0].insn.b == 64);
    CHECK(p[0].body[1].body[0].repeat == 4);
    CHECK(p[0].body[1].body[0].line == 11);
}

TEST_CASE("scenario: loop rules", "[scenario][program][errors]") {
    auto nest = [](int depth) {
        std::string steps = "[{op: valu}]";
        for (int i = 0; i < depth; ++i) steps = "[{op: loop, count: 2, body: " + steps + "}]";
        return "name: x\nkernels:\n  - name: k\n    program: " + steps + "\n";
    };
    CHECK(parse_scenario(nest(int(kMaxLoopDepth)), "t").workload.kernels[0].program[0].repeat == 2);
    auto e = error_of(nest(int(kMaxLoopDepth) + 1));
    CHECK(e.key() == "kernels[0].program[0].body[0].body[0].body[0].body[0].body");
    CHECK_THAT(e.what(), Contains("at most 4 deep"));

    // A repeated step is a loop too (the assembler emits loop_begin/loop_end around it).
    std::string deep = nest(int(kMaxLoopDepth));
    deep.replace(deep.find("{op: valu}"), 10, "{op: valu, repeat: 2}");
    e = error_of(deep);
    CHECK(e.key() == "kernels[0].program[0].body[0].body[0].body[0].body[0].repeat");

    e = error_of("name: x\nkernels:\n  - name: k\n    program: [{op: loop, count: 2, repeat: 3, body: [{op: valu}]}]\n");
    CHECK(e.key() == "kernels[0].program[0].repeat");
    e = error_of("name: x\nkernels:\n  - name: k\n    program: [{op: loop, count: 2}]\n");
    CHECK(e.key() == "kernels[0].program[0].body");
    CHECK_THAT(e.what(), Contains("missing required key 'body'"));
    e = error_of("name: x\nkernels:\n  - name: k\n    program: [{op: loop, count: 0, body: [{op: valu}]}]\n");
    CHECK(e.key() == "kernels[0].program[0].count");
    e = error_of("name: x\nkernels:\n  - name: k\n    program: [{op: valu, repeat: 0}]\n");
    CHECK(e.key() == "kernels[0].program[0].repeat");
}

TEST_CASE("scenario: assembled_size counts the instructions assemble makes", "[scenario][program]") {
    const std::vector<std::string> programs = {
        "[{op: valu}]",
        "[{op: valu, repeat: 3}, {op: end}]",
        "[{op: loop, count: 2, body: [{op: valu}, {op: salu, repeat: 2}]}, {op: barrier}]",
        "[{op: if_warp, warps: [0], body: [{op: valu}, {op: end}]}]",
        "[{op: if_warp, warps: [1], body: [{op: loop, count: 3, body: [{op: valu}]}]}, {op: valu}]",
    };
    for (const std::string& p : programs) {
        INFO(p);
        const auto steps = parse_scenario("name: p\nkernels:\n  - name: k\n    program: " + p + "\n", "p.yaml")
                               .workload.kernels.at(0).program;
        CHECK(assembled_size(steps) == assemble(steps).size());
    }
}

// Aliases multiply if_warp bodies (which add no loop depth) 16-fold per level.
std::string nested_bodies(int levels) {
    std::string doc = "name: x\nkernels:\n  - name: k\n    program:\n      - {op: if_warp, warps: [0], body: &l1 [";
    for (int i = 0; i < 16; ++i) doc += i ? ", {op: valu}" : "{op: valu}";
    doc += "]}\n";
    for (int l = 2; l <= levels; ++l) {
        doc += "      - {op: if_warp, warps: [0], body: &l" + std::to_string(l) + " [";
        for (int i = 0; i < 16; ++i)
            doc += std::string(i ? ", " : "") + "{op: if_warp, warps: [0], body: *l" + std::to_string(l - 1) + "}";
        doc += "]}\n";
    }
    return doc;
}

TEST_CASE("scenario: a program assembles to at most 65536 instructions", "[scenario][program][errors]") {
    // 3 levels: 3 if_warps holding 16, 16 x 17 and 16 x 273 instructions, then an end; a 4th
    // level's if_warp body would hold 16 x 4369 = 69904.
    const Scenario s = parse_scenario(nested_bodies(3), "t");
    CHECK(assembled_size(s.workload.kernels[0].program) == 3 + 16 + 272 + 4368 + 1);
    const auto e = error_of(nested_bodies(4));
    CHECK(e.line() == 5);
    CHECK(e.key() == "kernels[0].program");
    CHECK_THAT(e.what(), Contains("the program assembles to more than 65536 instructions"));
}

TEST_CASE("scenario: aliases that make the document enormous are refused before it is read", "[scenario][errors]") {
    // 7 levels of 16-fold aliases: 4 KB of text for some 300 million steps.
    const auto e = error_of(nested_bodies(7));
    CHECK(e.line() == 0);
    CHECK_THAT(e.what(), Contains("aliases make the document more than 1000000 nodes long"));
    // An alias inside its own anchor's value: an endless document.
    const auto cycle = error_of("name: x\nkernels:\n  - name: k\n    program:\n      - &w {op: if_warp, warps: [0], body: [*w]}\n");
    CHECK_THAT(cycle.what(), Contains("aliases nest the document more than 1000 levels deep"));
    // (3 levels of them load: "a program assembles to at most 65536 instructions".) A long file without aliases loads.
    std::string big = "name: x\nkernels:\n  - name: k\n    program:\n";
    for (int i = 0; i < 20000; ++i) big += "      - {op: valu, cycles: 1}\n";
    CHECK(parse_scenario(big, "t").workload.kernels.at(0).program.size() == 20001);
}

TEST_CASE("scenario: a grid smaller than its block in a dimension is refused at load, as the CP refuses its packet", "[scenario][errors]") {
    const auto e = error_of("name: x\nkernels:\n  - name: k\n    grid: [300, 7, 5]\n    block: [10, 10, 1]\n    program: [{op: valu}]\n");
    CHECK(e.line() == 4);
    CHECK(e.key() == "kernels[0].grid");
    CHECK_THAT(e.what(), Contains("y: grid 7 is smaller than its workgroup 10"));
    // The same sizes in a packet: the CP's check names the same dimension.
    const uint32_t grid[3] = {300, 7, 5};
    const uint16_t block[3] = {10, 10, 1};
    const PacketCheck c = check_grid(grid, block, dispatch_dimensions(grid, block));
    CHECK(c.field == "grid_size_y");
    CHECK(c.detail == "grid 7 is smaller than its workgroup 10");
    CHECK(dispatch_dimensions(grid, block) == 3);
    // A grid that is no multiple of its block loads: the blocks at the edge are partial.
    CHECK_NOTHROW(parse_scenario("name: x\nkernels:\n  - {name: k, grid: [300, 17], block: [16, 16], program: [{op: valu}]}\n", "x.yaml"));
}

TEST_CASE("scenario: a block must fit one SM", "[scenario][errors]") {
    SECTION("warps") {
        const auto e = error_of("name: x\nplatform: {sm: {warp_slots: 4}}\nkernels:\n  - name: k\n    block: [256]\n    program: [{op: valu}]\n");
        CHECK(e.line() == 5);
        CHECK(e.key() == "kernels[0].block");
        CHECK_THAT(e.what(), Contains("needs 8 warps"));
    }
    SECTION("registers") {
        const auto e = error_of("name: x\nkernels:\n  - name: k\n    block: [1024]\n    vregs: 128\n    program: [{op: valu}]\n");
        CHECK(e.line() == 5);
        CHECK(e.key() == "kernels[0].vregs");
        CHECK_THAT(e.what(), Contains("131072 registers"));
    }
    SECTION("work-items") {
        const auto e = error_of("name: x\nkernels:\n  - name: k\n    block: [64, 32]\n    program: [{op: valu}]\n");
        CHECK(e.key() == "kernels[0].block");
        CHECK_THAT(e.what(), Contains("2048 work-items"));
    }
    SECTION("shared memory") {
        const auto e = error_of("name: x\nplatform: {sm: {shared_memory: 1024}}\nkernels:\n  - {name: k, shared_bytes: 2048, program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].shared_bytes");
    }
    SECTION("warp priorities") {
        const auto e = error_of("name: x\nkernels:\n  - {name: k, block: [64], warp_priorities: [0, 1, 2], program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].warp_priorities");
        CHECK_THAT(e.what(), Contains("a block has 2"));
    }
}

TEST_CASE("scenario: a grid of more blocks than platform.cp.max_blocks is refused", "[scenario][errors]") {
    const std::string kernel = "kernels:\n  - name: k\n    grid: [256, 4]\n    block: [64]\n    program: [{op: valu}]\n";
    CHECK_NOTHROW(parse_scenario("name: x\nplatform: {cp: {max_blocks: 16}}\n" + kernel, "t"));  // 4 x 4 blocks
    auto e = error_of("name: x\nplatform: {cp: {max_blocks: 15}}\n" + kernel);
    CHECK(e.line() == 5);
    CHECK(e.key() == "kernels[0].grid");
    CHECK_THAT(e.what(), Contains("16 blocks, more than platform.cp.max_blocks (15)"));
    // Three 32-bit sizes of one-item blocks: more blocks than 64 bits count.
    e = error_of("name: x\nkernels:\n  - {name: k, grid: [4294967295, 4294967295, 4294967295], block: [1], program: [{op: valu}]}\n");
    CHECK(e.key() == "kernels[0].grid");
    CHECK_THAT(e.what(), Contains("more than 2^64 blocks, more than platform.cp.max_blocks (281474976710656)"));
}

TEST_CASE("scenario: kernels go to the first queue unless they name one", "[scenario]") {
    const Scenario s = parse_scenario(R"(name: x
queues:
  - {name: hi, priority: 0}
  - {name: lo, priority: 3, size: 64}
kernels:
  - {name: a, program: [{op: valu}]}
  - {name: b, queue: lo, program: [{op: valu}]}
)",
                                      "t");
    CHECK(s.workload.kernels[0].queue == "hi");
    CHECK(s.workload.kernels[1].queue == "lo");
    auto e = error_of("name: x\nqueues: [{name: hi}]\nkernels:\n  - {name: a, queue: ho, program: [{op: valu}]}\n");
    CHECK(e.key() == "kernels[0].queue");
    CHECK_THAT(e.what(), Contains("unknown queue 'ho' (did you mean 'hi'?)"));
    e = error_of("name: x\nqueues: [{name: hi, size: 100}]\n");
    CHECK(e.key() == "queues[0].size");
    e = error_of("name: x\nqueues: []\n");
    CHECK(e.key() == "queues");
}

TEST_CASE("scenario: expectations are checked against the kernels and metric lists", "[scenario][errors]") {
    const std::string head = "name: x\nkernels: [{name: k, program: [{op: valu}]}]\nexpect:\n";
    auto e = error_of(head + "  - {kernel: j, metric: response_ns, max: 1}\n");
    CHECK(e.line() == 4);
    CHECK(e.key() == "expect[0].kernel");
    e = error_of(head + "  - {kernel: k, metric: respons_ns, max: 1}\n");
    CHECK(e.key() == "expect[0].metric");
    CHECK_THAT(e.what(), Contains("did you mean 'response_ns'"));
    e = error_of(head + "  - {metric: response_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("is a kernel metric"));
    e = error_of(head + "  - {kernel: k, metric: sim_end_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("is a scenario metric"));
    e = error_of(head + "  - {kernel: k, metric: blocks}\n");
    CHECK(e.key() == "expect[0]");
    CHECK_THAT(e.what(), Contains("'min', 'max'"));
    e = error_of(head + "  - {kernel: k, metric: blocks, min: 5, max: 2}\n");
    CHECK(e.key() == "expect[0].max");
    CHECK(std::find(kernel_metrics().begin(), kernel_metrics().end(), "launch_latency_ns") != kernel_metrics().end());
    CHECK(std::find(scenario_metrics().begin(), scenario_metrics().end(), "sync_failures") != scenario_metrics().end());
    // Lock metrics of a warp priority (M2).
    e = error_of(head + "  - {metric: lock_wait_mean_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("is a lock metric of a warp priority: name it with 'priority'"));
    e = error_of(head + "  - {kernel: k, priority: 0, metric: lock_wait_mean_ns, max: 1}\n");
    CHECK(e.key() == "expect[0]");
    CHECK_THAT(e.what(), Contains("name one of 'kernel', 'draw' or 'priority', not several"));
    e = error_of(head + "  - {priority: 0, metric: response_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("unknown metric 'response_ns'"));
    CHECK_NOTHROW(parse_scenario(head + "  - {priority: 1, metric: task_end_max_ns, max: 1}\n", "t"));
}

TEST_CASE("scenario: draws load with their defaults and the first queue", "[scenario][m4]") {
    const Scenario s = parse_scenario(R"(name: x
queues: [{name: compute}, {name: gfx}]
draws:
  - {name: f0, vertex_tasks: 256, vertex_cycles: 200, pixel_tasks_per_vertex_task: 4, pixel_cycles: 100}
  - {name: f1, queue: gfx, submit_ns: 500}
)",
                                      "t");
    REQUIRE(s.workload.draws.size() == 2);
    const DrawSpec& f0 = s.workload.draws[0];
    CHECK(f0.name == "f0");
    CHECK(f0.queue == "compute");
    CHECK(f0.vertex_tasks == 256);
    CHECK(f0.vertex_cycles == 200);
    CHECK(f0.pixel_tasks_per_vertex_task == 4);
    CHECK(f0.pixel_cycles == 100);
    CHECK(f0.line == 4);
    const DrawSpec& f1 = s.workload.draws[1];
    CHECK(f1.queue == "gfx");
    CHECK(f1.submit_ns == 500);
    CHECK(f1.vertex_tasks == DrawSpec{}.vertex_tasks);
    CHECK(f1.pixel_tasks_per_vertex_task == DrawSpec{}.pixel_tasks_per_vertex_task);
    CHECK_NOTHROW(parse_scenario("name: x\ndraws: []\n", "t"));
}

TEST_CASE("scenario: bad draws name their line and key", "[scenario][m4][errors]") {
    auto e = error_of("name: x\ndraws:\n  - {name: f0, vertex_taskz: 256}\n");
    CHECK(e.key() == "draws[0].vertex_taskz");
    CHECK_THAT(e.what(), Contains("did you mean 'vertex_tasks'"));
    e = error_of("name: x\ndraws:\n  - {name: f0, vertex_tasks: 0}\n");
    CHECK(e.key() == "draws[0].vertex_tasks");
    e = error_of("name: x\ndraws:\n  - {name: f0, queue: gfx}\n");
    CHECK(e.line() == 3);
    CHECK(e.key() == "draws[0].queue");
    CHECK_THAT(e.what(), Contains("unknown queue 'gfx'"));
    e = error_of("name: x\ndraws:\n  - {name: f0}\n  - {name: f0}\n");
    CHECK(e.line() == 4);
    CHECK_THAT(e.what(), Contains("duplicate draw name 'f0' (first at line 3)"));
    e = error_of("name: x\nkernels: [{name: k, program: [{op: valu}]}]\ndraws:\n  - {name: k}\n");
    CHECK(e.key() == "draws[0].name");
    CHECK_THAT(e.what(), Contains("already a kernel's name"));
    e = error_of("name: x\nplatform: {usa: {pixel_queue: 8}}\ndraws:\n  - {name: f0, pixel_tasks_per_vertex_task: 9}\n");
    CHECK(e.key() == "draws[0].pixel_tasks_per_vertex_task");
    CHECK_THAT(e.what(), Contains("never fit the pixel queue of 8"));
    e = error_of("name: x\nplatform: {usa: {max_vertex_tasks: 64}}\ndraws:\n  - {name: f0, vertex_tasks: 65}\n");
    CHECK(e.key() == "draws[0].vertex_tasks");
    CHECK_THAT(e.what(), Contains("65 vertex tasks, more than platform.usa.max_vertex_tasks (64)"));
    CHECK_NOTHROW(parse_scenario("name: x\nplatform: {usa: {max_vertex_tasks: 64}}\ndraws: [{name: f0, vertex_tasks: 64}]\n", "t"));
}

TEST_CASE("scenario: a static split that can never run a draw's tasks is refused", "[scenario][m4][errors]") {
    auto e = error_of("name: x\nplatform: {usa: {cores: 4, vertex_cores: 0}}\npolicy: {shading: static}\ndraws: [{name: f0}]\n");
    CHECK(e.line() == 4);
    CHECK_THAT(e.what(), Contains("no core ever runs its vertex tasks"));
    e = error_of("name: x\nplatform: {usa: {cores: 4, vertex_cores: 4}}\npolicy: {shading: static}\n"
                 "draws: [{name: f0, pixel_tasks_per_vertex_task: 1}]\n");
    CHECK_THAT(e.what(), Contains("no core ever runs its pixel tasks"));
    // Without pixel tasks an all-vertex static split is fine; the adaptive policies move cores.
    CHECK_NOTHROW(parse_scenario("name: x\nplatform: {usa: {cores: 4, vertex_cores: 4}}\npolicy: {shading: static}\n"
                                 "draws: [{name: f0}]\n", "t"));
    CHECK_NOTHROW(parse_scenario("name: x\nplatform: {usa: {cores: 4, vertex_cores: 0}}\npolicy: {shading: adaptive}\n"
                                 "draws: [{name: f0, pixel_tasks_per_vertex_task: 2}]\n", "t"));
}

TEST_CASE("scenario: draw expectations name a draw and a draw metric", "[scenario][m4][errors]") {
    const std::string head = "name: x\nkernels: [{name: k, program: [{op: valu}]}]\ndraws: [{name: f0}]\nexpect:\n";
    CHECK_NOTHROW(parse_scenario(head + "  - {draw: f0, metric: complete_ns, max: 1}\n", "t"));
    CHECK_NOTHROW(parse_scenario(head + "  - {metric: usa_utilization, min: 0.5}\n", "t"));
    auto e = error_of(head + "  - {draw: f1, metric: complete_ns, max: 1}\n");
    CHECK(e.key() == "expect[0].draw");
    CHECK_THAT(e.what(), Contains("unknown draw 'f1' (did you mean 'f0'?)"));
    e = error_of(head + "  - {draw: f0, metric: blocks, max: 1}\n");
    CHECK(e.key() == "expect[0].metric");
    CHECK_THAT(e.what(), Contains("unknown draw metric 'blocks'"));
    e = error_of(head + "  - {metric: vertex_done_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("is a draw metric: name the draw with 'draw'"));
    e = error_of(head + "  - {draw: f0, kernel: k, metric: end_ns, max: 1}\n");
    CHECK_THAT(e.what(), Contains("not several"));
}

TEST_CASE("scenario: the shading array's keys are range-checked", "[scenario][m4][errors]") {
    const Scenario s = parse_scenario("name: x\nplatform:\n  usa: {cores: 20, vertex_cores: 3, max_draws: 4, pixel_queue: 64,"
                                      " balance_cycles: 2, switch_cycles: 0, vertex_fetch_cycles: 5, pixel_setup_cycles: 6}\n",
                                      "t");
    const UsaConfig& u = s.platform.usa;
    CHECK(u.cores == 20);
    CHECK(u.vertex_cores == 3);
    CHECK(u.max_draws == 4);
    CHECK(u.pixel_queue == 64);
    CHECK(u.balance_cycles == 2);
    CHECK(u.switch_cycles == 0);
    CHECK(u.vertex_fetch_cycles == 5);
    CHECK(u.pixel_setup_cycles == 6);
    auto e = error_of("name: x\nplatform: {usa: {cores: 81}}\n");
    CHECK(e.key() == "platform.usa.cores");
    e = error_of("name: x\nplatform: {usa: {cores: 1}}\n");
    CHECK(e.key() == "platform.usa.cores");
    e = error_of("name: x\nplatform: {usa: {balance_cycles: 0}}\n");
    CHECK(e.key() == "platform.usa.balance_cycles");
    e = error_of("name: x\nplatform: {usa: {max_draws: 0}}\n");
    CHECK(e.key() == "platform.usa.max_draws");
}

TEST_CASE("scenario: raw packet overrides take hex and fit their field", "[scenario]") {
    const Scenario s = parse_scenario(R"(name: x
kernels:
  - name: k
    packet: {type: 0x7, kernel_object: 0, workgroup_size_x: 0x10, completion_signal: 0xffffffffffffffff}
    program: [{op: valu}]
)",
                                      "t");
    const auto& p = s.workload.kernels[0].packet;
    CHECK(p.at("type") == 7);
    CHECK(p.at("kernel_object") == 0);
    CHECK(p.at("workgroup_size_x") == 16);
    CHECK(p.at("completion_signal") == ~0ull);
    CHECK(p.size() == 4);
    auto e = error_of("name: x\nkernels:\n  - name: k\n    packet: {barrier_bit: 2}\n    program: [{op: valu}]\n");
    CHECK(e.key() == "kernels[0].packet.barrier_bit");
    CHECK_THAT(e.what(), Contains("out of range 0..1"));
    e = error_of("name: x\nkernels:\n  - name: k\n    packet: {grid_sise_x: 2}\n    program: [{op: valu}]\n");
    CHECK(e.line() == 4);
    CHECK_THAT(e.what(), Contains("did you mean 'grid_size_x'"));
}

// The reference must name every key the loader accepts. The loader itself lists them: an
// unknown key at a place makes its error name every key accepted there.
TEST_CASE("docs: every key the loader accepts appears in docs/scenario.md", "[scenario][docs]") {
    std::ifstream f(std::string(GPUVP_SOURCE_DIR) + "/docs/scenario.md");
    REQUIRE(f);
    std::stringstream text;
    text << f.rdbuf();
    const std::string doc = text.str();
    auto listed = [](const std::string& yaml) {
        std::vector<std::string> keys;
        try {
            parse_scenario(yaml, "probe.yaml");
        } catch (const ScenarioError& e) {
            const std::string w = e.what();
            const auto a = w.find("(expected one of: ");
            if (a == std::string::npos) return keys;
            const auto b = w.find(')', a);
            std::istringstream in(w.substr(a + 18, b - a - 18));
            for (std::string k; std::getline(in, k, ',');) keys.push_back(k.substr(k.find_first_not_of(' ')));
        }
        return keys;
    };
    const std::string z = "zzzzzzzzzzzzzzzz: 1";
    std::vector<std::pair<std::string, std::string>> places = {
        {"top level", "name: x\n" + z + "\n"},
        {"platform", "name: x\nplatform: {" + z + "}\n"},
        {"platform.sm", "name: x\nplatform: {sm: {" + z + "}}\n"},
        {"platform.sm.scalar_quota", "name: x\nplatform: {sm: {scalar_quota: {" + z + "}}}\n"},
        {"platform.memory", "name: x\nplatform: {memory: {" + z + "}}\n"},
        {"platform.cp", "name: x\nplatform: {cp: {" + z + "}}\n"},
        {"platform.wlm", "name: x\nplatform: {wlm: {" + z + "}}\n"},
        {"platform.glc", "name: x\nplatform: {glc: {" + z + "}}\n"},
        {"platform.usa", "name: x\nplatform: {usa: {" + z + "}}\n"},
        {"policy", "name: x\npolicy: {" + z + "}\n"},
        {"host", "name: x\nhost: {" + z + "}\n"},
        {"queues[]", "name: x\nqueues: [{name: q, " + z + "}]\n"},
        {"signals[]", "name: x\nsignals: [{name: s, " + z + "}]\n"},
        {"kernels[]", "name: x\nkernels: [{name: k, program: [{op: valu}], " + z + "}]\n"},
        {"kernels[].scalars", "name: x\nkernels: [{name: k, program: [{op: valu}], scalars: {" + z + "}}]\n"},
        {"kernels[].packet", "name: x\nkernels: [{name: k, program: [{op: valu}], packet: {" + z + "}}]\n"},
        {"draws[]", "name: x\ndraws: [{name: d, " + z + "}]\n"},
        {"draws[].packet", "name: x\ndraws: [{name: d, packet: {" + z + "}}]\n"},
        {"expect[]", "name: x\nexpect: [{metric: sim_end_ns, max: 1, " + z + "}]\n"},
        {"variants[]", "name: x\nvariants: [{name: a, " + z + "}]\n"},
    };
    // Each op of a program step, and the keys of each.
    const auto ops = listed("name: x\nkernels: [{name: k, program: [{op: zzzzzzzzzzzzzzzz}]}]\n");
    CHECK(ops.size() >= 11);
    for (const std::string& op : ops)
        places.push_back({"program op " + op, "name: x\nkernels: [{name: k, program: [{op: " + op + ", " + z + "}]}]\n"});
    int checked = 0;
    for (const auto& [where, yaml] : places) {
        const auto keys = listed(yaml);
        INFO(where);
        CHECK_FALSE(keys.empty());  // the probe reached the place
        for (const std::string& k : keys) {
            INFO("key " << k);  // as `key` or as the end of a path, `usa.key`
            CHECK((doc.find("`" + k + "`") != std::string::npos || doc.find("." + k + "`") != std::string::npos));
            ++checked;
        }
    }
    for (const std::string& op : ops) CHECK(doc.find("`" + op + "`") != std::string::npos);
    // Every value of every policy key.
    for (const char* key : {"dispatch", "launch", "lock", "scalar", "shading", "issue"})
        for (const std::string& v : listed(std::string("name: x\npolicy: {") + key + ": zzzzzzzzzzzzzzzz}\n")) {
            INFO("policy." << key << " value " << v);
            CHECK(doc.find("`" + v + "`") != std::string::npos);
            ++checked;
        }
    CHECK(checked > 150);
}

// And the results reference names every field a run writes (keys that are names the scenario
// chose, such as a kernel's name in `vregs_per_thread`, excepted).
TEST_CASE("docs: every field of results.json appears in docs/results.md", "[scenario][docs]") {
    std::ifstream f(std::string(GPUVP_SOURCE_DIR) + "/docs/results.md");
    REQUIRE(f);
    std::stringstream text;
    text << f.rdbuf();
    const std::string doc = text.str();
    // A run that fills every section: locks with priorities, multilevel scalars, a draw, a
    // malformed packet (errors[]), a kernel run alone.
    const auto run = test::run_yaml(R"(name: all-sections
platform: {sms: 2, usa: {cores: 8, vertex_cores: 4}}
policy: {lock: priority, scalar: multilevel, shading: adaptive}
measure_alone: true
queues: [{name: q}, {name: bad}]
kernels:
  - name: k
    queue: q
    grid: [256]
    block: [128]
    shared_bytes: 16
    warp_priorities: [0, 1, 1, 1]
    scalars: {kernel: 1, workgroup: 1, warp: 1}
    program:
      - {op: salu, level: warp, write: true}
      - {op: lock, id: 0}
      - {op: valu, cycles: 8}
      - {op: unlock, id: 0}
  - {name: broken, queue: bad, packet: {workgroup_size_x: 0}, program: [{op: valu}]}
draws:
  - {name: d, queue: q, vertex_tasks: 8, pixel_tasks_per_vertex_task: 2}
expect:
  - {metric: kernels_failed, min: 1, max: 1}
)");
    std::set<std::string> keys;
    std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& j, const std::string& parent) {
        if (j.is_array())
            for (const auto& x : j) walk(x, parent);
        if (!j.is_object()) return;
        for (const auto& [k, v] : j.items()) {
            // Keys the scenario or the data chose: kernel names, warp priorities, flag pairs.
            const bool chosen = parent == "vregs_per_thread" || parent == "by_priority" || parent == "flags_time_ns";
            if (!chosen) keys.insert(k);
            walk(v, k);
        }
    };
    walk(run.results, "");
    CHECK(keys.count("by_priority"));
    CHECK(keys.count("draws"));
    CHECK(keys.count("errors"));
    CHECK(keys.size() > 120);
    for (const std::string& k : keys) {
        INFO("results field " << k);
        CHECK((doc.find("`" + k + "`") != std::string::npos || doc.find("." + k + "`") != std::string::npos));
    }
}

// AQL queues: the queue type, host signals and a late producer's packet, each checked with
// file, line, key and the allowed values.
TEST_CASE("scenario: queue types, host signals and late packets are checked", "[scenario][errors][aql]") {
    SECTION("queue type") {
        const auto e = error_of("name: x\nqueues:\n  - {name: q, type: cooperative}\n");
        CHECK(e.line() == 3);
        CHECK(e.key() == "queues[0].type");
        CHECK_THAT(e.what(), Contains("multi") && Contains("single"));
    }
    SECTION("publish_doorbell") {
        const auto e = error_of("name: x\nkernels:\n  - {name: k, publish_doorbell: never, program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].publish_doorbell");
        CHECK_THAT(e.what(), Contains("after") && Contains("before"));
    }
    SECTION("a kernel waits for a signal not defined") {
        const auto e = error_of("name: x\nsignals: [{name: go}]\nkernels:\n  - {name: k, after: [og], program: [{op: valu}]}\n");
        CHECK(e.line() == 4);
        CHECK(e.key() == "kernels[0].after[0]");
        CHECK_THAT(e.what(), Contains("unknown kernel or signal 'og' (did you mean 'go'?)"));
    }
    SECTION("a signal's value must be an integer") {
        const auto e = error_of("name: x\nsignals:\n  - {name: go, value: 0.5}\n");
        CHECK(e.key() == "signals[0].value");
    }
    SECTION("a kernel may not take a signal's name") {
        const auto e = error_of("name: x\nsignals: [{name: go}]\nkernels:\n  - {name: go, program: [{op: valu}]}\n");
        CHECK(e.key() == "kernels[0].name");
        CHECK_THAT(e.what(), Contains("already a signal's name"));
    }
    SECTION("accepted") {
        const Scenario s = parse_scenario(R"(name: x
queues: [{name: a, type: single}, {name: b}]
signals: [{name: go, initial: 2, set_ns: 100, value: -1}]
kernels:
  - {name: k, queue: b, after: [go], publish_delay_ns: 5, publish_doorbell: before, program: [{op: valu}]}
)", "s.yaml");
        CHECK(s.workload.queues[0].type == QueueSpec::Type::single);
        CHECK(s.workload.queues[1].type == QueueSpec::Type::multi);
        REQUIRE(s.workload.signals.size() == 1);
        CHECK((s.workload.signals[0].initial == 2 && s.workload.signals[0].set_ns == 100 && s.workload.signals[0].value == -1));
        CHECK(s.workload.kernels[0].publish_delay_ns == 5);
        CHECK(s.workload.kernels[0].publish_doorbell == KernelSpec::PublishDoorbell::before);
    }
}

TEST_CASE("scenario: --set takes the names gpuvp params prints (gpu.X for platform.X, gpu.policy.X for policy.X)", "[scenario][set]") {
    const Scenario s = parse_scenario(kMinimal, "t.yaml", {{"gpu.sm.warp_slots", "32"}, {"gpu.policy.dispatch", "priority-warp"}, {"gpu.sms", "3"}});
    CHECK(s.platform.sm.warp_slots == 32);
    CHECK(s.platform.sms == 3);
    CHECK(s.policy.dispatch == DispatchPolicy::priority_warp);
    try {
        parse_scenario(kMinimal, "t.yaml", {{"gpu.sm.warp_slotz", "32"}});
        FAIL("no error");
    } catch (const ScenarioError& e) {
        CHECK(e.file() == "--set");
        CHECK_THAT(e.what(), Contains("did you mean 'warp_slots'"));
    }
}
