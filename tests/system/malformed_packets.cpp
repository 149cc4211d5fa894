// Every class of malformed AQL packet has a defined outcome: the packet is rejected with the
// field at fault, its queue reports the error (status register, a negative completion signal,
// the results), the queue stops, and other queues go on. One simulation per TEST_CASE.
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/platform/system.h>
#include "tests/support.h"

#include <catch2/catch.hpp>

using gpuvp::test::kRoundPlatform;
using gpuvp::test::run_yaml;

namespace {

// A bad packet in queue `bad`, a good kernel queued behind it, and a good kernel elsewhere.
gpuvp::test::Run run_bad(const std::string& packet_fields) {
    return run_yaml("name: t\n" + std::string(kRoundPlatform) + R"(
queues: [{name: bad}, {name: good}]
kernels:
  - {name: victim, queue: bad, grid: [256], block: [64], packet: )" + packet_fields + R"(, program: [{op: kernarg_load}]}
  - {name: behind, queue: bad, submit_ns: 100, program: [{op: kernarg_load}]}
  - {name: other, queue: good, program: [{op: kernarg_load}, {op: valu, cycles: 20, repeat: 10}]}
)");
}

void check_rejected(const gpuvp::test::Run& r, const std::string& error, const std::string& field) {
    const auto& v = r.kernel("victim");
    INFO(v.dump(2));
    CHECK(v["status"].get<std::string>().rfind(error, 0) == 0);
    REQUIRE(r.results["errors"].size() >= 1);
    CHECK(r.results["errors"][0]["queue"] == "bad");
    CHECK(r.results["errors"][0]["error"] == error);
    CHECK(r.results["errors"][0]["field"] == field);
    CHECK(r.results["queues"][0]["status"] == error);
    CHECK(r.kernel("behind")["status"].get<std::string>().rfind("not processed", 0) == 0);
    // The other queue goes on.
    CHECK(r.kernel("other")["status"] == "ok");
    CHECK(r.results["queues"][1]["status"] == "ok");
    CHECK(r.results["status"] == "error");
    CHECK(r.out.exit_code == 1);
    // The record holds each kernel's state by value (victim, behind, other).
    using State = gpuvp::LaunchStatus::State;
    REQUIRE(r.out.record->kernels.size() == 3);
    CHECK(r.out.record->kernels[0].status.state == State::failed);
    CHECK(r.out.record->kernels[1].status.state == State::not_processed);
    CHECK(r.out.record->kernels[2].status.ok());
}

}  // namespace

#define MALFORMED(title, fields, error, field)                      \
    TEST_CASE("malformed packet: " title, "[malformed]") {           \
        check_rejected(run_bad(fields), error, field);                \
    }

MALFORMED("unknown packet type", "{type: 7}", "unknown packet type", "header.type")
// A kernel packet typed vendor-specific: its setup byte reads as vendor format 1, not the draw format.
MALFORMED("vendor-specific packet of a format not served", "{type: 0}", "unsupported packet", "format")
MALFORMED("agent dispatch packet", "{type: 4}", "unsupported packet", "header.type")
MALFORMED("reserved header bits", "{header: 0x2002}", "invalid header", "header")
MALFORMED("acquire fence scope 3", "{acquire_fence_scope: 3}", "invalid header", "header.acquire_fence_scope")
MALFORMED("release fence scope 3", "{release_fence_scope: 3}", "invalid header", "header.release_fence_scope")
MALFORMED("zero dimensions", "{dimensions: 0}", "invalid dimensions", "setup.dimensions")
MALFORMED("unused dimension not 1", "{workgroup_size_y: 2}", "invalid dimensions", "workgroup_size_y")
MALFORMED("zero workgroup size", "{workgroup_size_x: 0}", "invalid workgroup size", "workgroup_size_x")
MALFORMED("oversized workgroup", "{workgroup_size_x: 2048, grid_size_x: 4096}", "invalid workgroup size", "workgroup_size")
MALFORMED("zero grid", "{grid_size_x: 0}", "invalid grid size", "grid_size_x")
MALFORMED("grid smaller than its workgroup", "{grid_size_x: 32}", "invalid grid size", "grid_size_x")
// 4 x (2^32 - 1) x 2^16 blocks: more than the 2^48 a kernel's blocks are numbered in (docs/limits.md).
MALFORMED("grid of more than 2^48 blocks", "{dimensions: 3, grid_size_y: 4294967295, grid_size_z: 65536}", "invalid grid size", "grid_size")
MALFORMED("reserved field set", "{reserved2: 1}", "reserved field not zero", "reserved2")
MALFORMED("group segment larger than an SM's shared memory", "{group_segment_size: 1000000}", "group segment too large",
          "group_segment_size")
MALFORMED("null kernel object", "{kernel_object: 0}", "null kernel object", "kernel_object")
MALFORMED("unaligned kernel object", "{kernel_object: 0x100000010020}", "unaligned address", "kernel_object")
MALFORMED("unaligned kernarg address", "{kernarg_address: 0x10008}", "unaligned address", "kernarg_address")
MALFORMED("unaligned completion signal", "{completion_signal: 0x10004}", "unaligned address", "completion_signal")
MALFORMED("kernel object with no kernel descriptor", "{kernel_object: 0x100008000000}", "invalid kernel descriptor",
          "kernel_object")
MALFORMED("kernel object outside device memory", "{kernel_object: 0x200000000000}", "invalid kernel descriptor",
          "kernel_object")
MALFORMED("kernarg address outside memory", "{kernarg_address: 0x0f0000000000}", "kernel fault", "kernel")

TEST_CASE("a fault names the address that faulted", "[malformed]") {
    auto r = run_bad("{kernarg_address: 0x0f0000000000}");
    CHECK(r.results["errors"][0]["detail"] == "memory fault at 0xf0000000000");
}

TEST_CASE("a completion signal outside memory is an address error of the queue", "[malformed]") {
    auto r = run_bad("{completion_signal: 0x0f0000000000}");
    check_rejected(r, "address error", "completion_signal");
    CHECK(r.results["errors"][0]["detail"] == "signal at 0xf0000000000 cannot be written");
}

TEST_CASE("a rejected packet's completion signal is set negative and the host is interrupted", "[malformed][irq]") {
    auto r = run_bad("{workgroup_size_x: 0}");
    CHECK(r.kernel("victim")["milestones"]["host_saw_completion_ns"].is_number());
    CHECK(r.results["totals"]["interrupts"].get<int>() >= 1);
    CHECK(r.kernel("victim")["blocks"].get<int>() == 4);
    CHECK(r.kernel("victim")["first_block_dispatch_ns"].is_null());  // nothing of it ran
}

// Doorbells: the host writes the doorbell value a scenario gives (`doorbell:`) instead of the
// packet's index. The CP stops the queue with the error in its status register and raises the
// interrupt; the queue's packets not processed say so; the other queue goes on.
namespace {

gpuvp::test::Run run_doorbells(const std::string& bad_queue, const std::string& kernels) {
    return run_yaml("name: t\n" + std::string(kRoundPlatform) + "queues: [" + bad_queue + R"(, {name: good}]
kernels:
)" + kernels + R"(  - {name: other, queue: good, program: [{op: kernarg_load}, {op: valu, cycles: 20, repeat: 10}]}
)");
}

void check_doorbell_error(const gpuvp::test::Run& r, const std::string& error, const std::string& detail) {
    INFO(r.out.table);
    REQUIRE(r.results["errors"].size() == 1);
    const auto& e = r.results["errors"][0];
    CHECK(e["queue"] == "bad");
    CHECK(e["error"] == error);
    CHECK(e["field"] == "doorbell");
    CHECK(e["detail"] == detail);
    CHECK(r.results["queues"][0]["status"] == error);
    CHECK(r.kernel("other")["status"] == "ok");
    CHECK(r.results["queues"][1]["status"] == "ok");
    CHECK(r.results["status"] == "error");
    CHECK(r.results["hang"].is_null());  // stopped by the error, not hung
    CHECK(r.results["totals"]["interrupts"].get<int>() >= 1);
}

}  // namespace

TEST_CASE("malformed doorbell: a doorbell going back stops a single queue", "[malformed][doorbell]") {
    const auto r = run_doorbells("{name: bad, type: single}", R"(  - {name: a, queue: bad, program: [{op: kernarg_load}]}
  - {name: b, queue: bad, submit_ns: 100, program: [{op: kernarg_load}]}
  - {name: c, queue: bad, submit_ns: 20000, doorbell: 0, program: [{op: kernarg_load}]}
)");
    check_doorbell_error(r, "doorbell regressed", "doorbell 0 after 1");
    CHECK(r.kernel("a")["status"] == "ok");
    CHECK(r.kernel("b")["status"] == "ok");
    CHECK(r.kernel("c")["status"].get<std::string>().rfind("not processed: queue stopped by doorbell regressed", 0) == 0);
    CHECK(r.results["queues"][0]["packets_processed"] == 2);
}

TEST_CASE("malformed doorbell: a doorbell past the ring's room is a queue overflow", "[malformed][doorbell]") {
    const auto r = run_doorbells("{name: bad, size: 4}", R"(  - {name: a, queue: bad, doorbell: 4, program: [{op: kernarg_load}]}
  - {name: b, queue: bad, submit_ns: 100, program: [{op: kernarg_load}]}
)");
    check_doorbell_error(r, "queue overflow", "doorbell 4 is more than the ring's 4 packets past read index 0");
    CHECK(r.kernel("a")["status"].get<std::string>().rfind("not processed: queue stopped by queue overflow", 0) == 0);
    CHECK(r.kernel("b")["status"].get<std::string>().rfind("not processed", 0) == 0);
    CHECK(r.results["queues"][0]["packets_processed"] == 0);
}

TEST_CASE("malformed doorbell: a doorbell ahead of the packets written waits at the first INVALID header", "[malformed][doorbell]") {
    // Packet 0 is rung as 3: the CP runs packet 0, then finds packet 1's header INVALID and
    // waits for it; the host then writes packet 1 and rings 1, which on a single queue is a
    // doorbell going back.
    const auto r = run_doorbells("{name: bad, size: 16, type: single}", R"(  - {name: a, queue: bad, doorbell: 3, program: [{op: kernarg_load}]}
  - {name: b, queue: bad, submit_ns: 20000, program: [{op: kernarg_load}]}
)");
    check_doorbell_error(r, "doorbell regressed", "doorbell 1 after 3");
    CHECK(r.kernel("a")["status"] == "ok");
    CHECK(r.kernel("b")["status"] == "doorbell regressed: doorbell: doorbell 1 after 3");  // its own doorbell
    CHECK(r.results["queues"][0]["packets_processed"] == 1);
}

// The same on a multi queue (the default): the lower doorbell is another producer's, no error.
// The CP runs packet 1 when its header is written (its write notification; the doorbell 1
// comes right after), then waits at packet 2's INVALID header, which nobody writes.
TEST_CASE("malformed doorbell: on a multi queue a doorbell ahead waits at the first INVALID header, and a lower one is no error", "[malformed][doorbell][aql]") {
    const auto r = run_doorbells("{name: bad, size: 16}", R"(  - {name: a, queue: bad, doorbell: 3, program: [{op: kernarg_load}]}
  - {name: b, queue: bad, submit_ns: 20000, program: [{op: kernarg_load}]}
)");
    INFO(r.out.table);
    CHECK(r.results["errors"].empty());
    CHECK(r.kernel("a")["status"] == "ok");
    CHECK(r.kernel("b")["status"] == "ok");
    CHECK(r.kernel("other")["status"] == "ok");
    CHECK(r.results["queues"][0]["packets_processed"] == 2);
    CHECK(r.results["queues"][0]["status"] == "ok");
    CHECK(r.results["queues"][0]["waiting_for"] == "packet 2: its header is still INVALID: waits for it to be written");
    CHECK(r.results["hang"].is_null());
}

// platform.cp.max_blocks reaches the CP: a packet whose grid has one block more is refused.
TEST_CASE("malformed packet: more blocks than platform.cp.max_blocks", "[malformed]") {
    auto r = run_yaml("name: t\n" + std::string(kRoundPlatform) + R"(  cp: {max_blocks: 4}
queues: [{name: bad}, {name: good}]
kernels:
  - {name: victim, queue: bad, grid: [256], block: [64], packet: {grid_size_x: 257}, program: [{op: kernarg_load}]}
  - {name: behind, queue: bad, submit_ns: 100, program: [{op: kernarg_load}]}
  - {name: other, queue: good, grid: [256], block: [64], program: [{op: kernarg_load}, {op: valu, cycles: 20, repeat: 10}]}
)");
    check_rejected(r, "invalid grid size", "grid_size");
    CHECK(r.results["errors"][0]["detail"] == "5 blocks, at most 4");
}

// platform.usa.max_vertex_tasks reaches the CP's draw check.
TEST_CASE("malformed packet: a draw of more vertex tasks than platform.usa.max_vertex_tasks", "[malformed][m4]") {
    auto r = run_yaml("name: t\n" + std::string(kRoundPlatform) + R"(  usa: {cores: 4, vertex_cores: 2, max_vertex_tasks: 8}
draws:
  - {name: bad, vertex_tasks: 8, packet: {vertex_tasks: 9}}
)");
    INFO(r.out.results);
    const auto& d = r.results["usa"]["draws"];
    CHECK(d[0]["status"] == "invalid draw: vertex_tasks: 9 is outside 1..8");
    CHECK(r.results["errors"][0]["field"] == "vertex_tasks");
    CHECK(r.results["usa"]["tasks"]["vertex"] == 0);
}

// A load and a store of 0 bytes in global space. The scenario loader refuses `bytes: 0`, but
// kernel code in device memory can hold any word (SoC software may write it), so the test
// loads a normal kernel and rewrites the `b` field of its load and store words in device
// memory (through the BAR, by debug transport) before simulated time starts. Such an access
// takes one cycle and makes no memory transaction (as a 0-byte kernarg access does); the
// kernel goes on and ends ok.
namespace {

// Calls `patch` once every module has ended elaboration (the host has loaded the code
// objects) and before simulated time starts.
struct CodePatcher : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<CodePatcher> bus{"bus"};
    std::function<void()> patch;
    explicit CodePatcher(sc_core::sc_module_name n) : sc_module(n) {}
    void start_of_simulation() override { patch(); }
};

}  // namespace

TEST_CASE("malformed program: a global load and store of 0 bytes make no memory access and the kernel goes on",
          "[malformed][program]") {
    using namespace gpuvp;
    // host.code once: the GPU runs the code object the loader placed in device memory before
    // time 0 (per-launch copies the host's image over it at submit time). 2 blocks of 2 warps.
    const Scenario s = parse_scenario("name: t\n" + std::string(kRoundPlatform) + R"(policy: {launch: prefetch}
host: {code: once}
queues: [{name: q}]
kernels:
  - {name: k, queue: q, grid: [128], block: [64], global_bytes: 4096,
     program: [{op: kernarg_load}, {op: load, space: global, bytes: 128}, {op: store, space: global, bytes: 128},
               {op: valu, cycles: 4}]}
)", "test.yaml");
    System sys("system", s);
    CodePatcher patcher("patcher");
    patcher.bus.bind(sys.bus.in);
    const Instruction load{Opcode::load, uint8_t(Space::global), 0, 128}, store{Opcode::store, uint8_t(Space::global), 0, 128};
    bool patched = false;
    patcher.patch = [&] {
        // The code: kernarg_load, load, store, valu, end, from the descriptor's entry offset.
        const uint64_t code = System::layout(s.platform).mmio_base + map::kBar +
                              (sys.host.launches().at(0).kernel_object - map::kDeviceBase) + kCodeEntryOffset;
        uint64_t words[5] = {};
        REQUIRE(debug_transport(patcher.bus, tlm::TLM_READ_COMMAND, code, words, sizeof words) == sizeof words);
        REQUIRE(Instruction::decode(words[1]) == load);
        REQUIRE(Instruction::decode(words[2]) == store);
        REQUIRE(Instruction::decode(words[4]).op == Opcode::end);
        Instruction l = load, st = store;
        l.b = st.b = 0;
        words[1] = l.encode();
        words[2] = st.encode();
        REQUIRE(debug_transport(patcher.bus, tlm::TLM_WRITE_COMMAND, code, words, sizeof words) == sizeof words);
        uint64_t back[5] = {};
        REQUIRE(debug_transport(patcher.bus, tlm::TLM_READ_COMMAND, code, back, sizeof back) == sizeof back);
        REQUIRE(Instruction::decode(back[1]).b == 0);
        REQUIRE(Instruction::decode(back[2]).b == 0);
        patched = true;
    };
    sc_core::sc_start();
    REQUIRE(patched);
    // The run completes and the kernel ends ok.
    REQUIRE(sys.host.all_done());
    const LaunchRecord& k = sys.host.launches().at(0);
    CHECK(k.done);
    CHECK(k.error == "");
    CHECK(k.failed == 0);
    // Every warp executes the whole program: 4 warps x 5 instructions (kernarg_load, load,
    // store, valu, end).
    uint64_t instructions = 0, warps = 0, prefetches = 0, reads = 0, writes = 0;
    for (uint32_t i = 0; i < sys.gpu.sm_count(); ++i) {
        const auto& st = sys.gpu.sm(i).stats();
        instructions += st.instructions;
        warps += st.warps_run;
        prefetches += st.kernarg_prefetches;
        const auto& c = sys.gpu.l1d(i).stats();
        reads += c.read_hits + c.read_misses + c.mshr_hits;
        writes += c.writes;
        CHECK(c.errors == 0);
    }
    CHECK(warps == 4);
    CHECK(instructions == 20);
    // The 0-byte accesses make no memory transaction: the L1Ds see only the kernel-argument
    // prefetches and each warp's kernarg_load, and no write at all.
    CHECK(prefetches >= 1);
    CHECK(reads == prefetches + warps);
    CHECK(writes == 0);
}
