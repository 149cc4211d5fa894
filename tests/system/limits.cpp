// Every hard limit of docs/limits.md, enforced with the error that page quotes: the scenario
// loader (file, line and key), the GPU's configuration check (check_config, the parameter's
// name), the command processor's checks of queues and packets, and memory that does not hold
// what a scenario needs (exit 2).
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/platform/gpu_config.h>
#include <gpuvp/platform/system.h>
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sys/wait.h>

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

std::string load_error(const std::string& yaml) {
    try {
        parse_scenario(yaml, "t.yaml");
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "no error";
}

std::string kernel(const std::string& keys) { return "name: t\nkernels:\n  - {name: k, " + keys + ", program: [{op: valu}]}\n"; }

// The first problem check_config finds with one parameter set (bypassing set_param's own check).
std::string config_problem(const std::function<void(GpuConfig&)>& set) {
    GpuConfig c;
    set(c);
    const auto problems = check_config(c);
    return problems.empty() ? "no problem" : "gpu." + problems[0].param + ": " + problems[0].message;
}

}  // namespace

TEST_CASE("limits: the loader refuses each platform limit with file line and key", "[limits]") {
    CHECK(load_error("name: t\nplatform: {sms: 513}\n") == "t.yaml:2: platform.sms: 513 is out of range 1..512");
    CHECK(load_error("name: t\nplatform: {sms: 0}\n") == "t.yaml:2: platform.sms: 0 is out of range 1..512");
    CHECK(load_error("name: t\nplatform: {sms: 512}\n") == "no error");
    CHECK(load_error("name: t\nplatform:\n  sm: {warp_slots: 129}\n") ==
          "t.yaml:3: platform.sm.warp_slots: 129 is out of range 1..128");
    CHECK(load_error("name: t\nplatform:\n  sm: {warp_size: 48}\n") ==
          "t.yaml:3: platform.sm.warp_size: must be one of 8, 16, 32, 64, got 48");
    CHECK(load_error("name: t\nplatform:\n  sm: {max_kernels: 65}\n") ==
          "t.yaml:3: platform.sm.max_kernels: 65 is out of range 1..64");
    CHECK(load_error("name: t\nplatform:\n  cp: {max_queues: 65}\n") ==
          "t.yaml:3: platform.cp.max_queues: 65 is out of range 1..64");
    CHECK(load_error("name: t\nplatform:\n  usa: {max_draws: 65}\n") ==
          "t.yaml:3: platform.usa.max_draws: 65 is out of range 1..64");
    CHECK(load_error("name: t\nplatform:\n  memory: {host_bytes: 17179869185}\n") ==
          "t.yaml:3: platform.memory.host_bytes: 17179869185 is out of range 1048576..17179869184");
    CHECK(load_error("name: t\nplatform:\n  memory: {device_bytes: 1000}\n") ==
          "t.yaml:3: platform.memory.device_bytes: 1000 is out of range 1048576..17179869184");
}

TEST_CASE("limits: the loader refuses each queue and work limit with file line and key", "[limits]") {
    CHECK(load_error("name: t\nqueues: [{name: q, size: 262144}]\n") ==
          "t.yaml:2: queues[0].size: must be a power of two in 4..131072, got 262144");
    CHECK(load_error("name: t\nqueues: [{name: q, size: 2}]\n") ==
          "t.yaml:2: queues[0].size: must be a power of two in 4..131072, got 2");
    std::string many = "name: t\nplatform:\n  cp: {max_queues: 2}\nqueues: [{name: a}, {name: b}, {name: c}]\n";
    CHECK(load_error(many) == "t.yaml:4: queues: 3 queues, but the command processor has 2 (platform.cp.max_queues)");
    CHECK(load_error(kernel("grid: [4294967296]")) == "t.yaml:3: kernels[0].grid[0]: 4294967296 is out of range 1..4294967295");
    CHECK(load_error(kernel("grid: [4294967295, 4294967295], block: [1]")) ==
          "t.yaml:3: kernels[0].grid: 18446744065119617025 blocks, more than platform.cp.max_blocks (281474976710656)");
    CHECK(load_error(kernel("block: [64, 32]")) == "t.yaml:3: kernels[0].block: a block of 2048 work-items is more than 1024");
    CHECK(load_error(kernel("instances: 4294967296")) == "t.yaml:3: kernels[0].instances: 4294967296 is out of range 1..4294967295");
    CHECK(load_error("name: t\ndraws:\n  - {name: d, vertex_tasks: 1048577}\n") ==
          "t.yaml:3: draws[0].vertex_tasks: 1048577 is out of range 1..1048576");
    // Just under 2^48 blocks is allowed (the loader does not count time: max_sim_ns does).
    CHECK(load_error(kernel("grid: [4294967295, 65536], block: [1]")) == "no error");
}

TEST_CASE("limits: check_config refuses a GPU outside its parameter ranges by the parameter's name", "[limits]") {
    CHECK(config_problem([](GpuConfig& c) { c.platform.sms = 513; }) == "gpu.sms: 513 is out of range 1..512");
    CHECK(config_problem([](GpuConfig& c) { c.platform.sms = map::kMaxSms; }) == "no problem");
    // A cache of any whole number of sets, not only a power of two: A100's 40 MiB L2.
    CHECK(config_problem([](GpuConfig& c) { c.platform.memory.l2_bytes = 40u << 20; }) == "no problem");
    CHECK(config_problem([](GpuConfig& c) { c.platform.memory.l2_bytes = (40u << 20) + 64; }) ==
          "gpu.memory.l2_bytes: 41943104 bytes of 64-byte lines do not divide into 16 ways (memory.l2_ways)");
    CHECK(config_problem([](GpuConfig& c) { c.platform.sm.warp_slots = 0; }) == "gpu.sm.warp_slots: 0 is out of range 1..128");
    CHECK(config_problem([](GpuConfig& c) { c.platform.cp.max_queues = 65; }) == "gpu.cp.max_queues: 65 is out of range 1..64");
    CHECK(config_problem([](GpuConfig& c) { c.platform.sm.max_kernels = 0; }) == "gpu.sm.max_kernels: 0 is out of range 1..64");
    CHECK(config_problem([](GpuConfig& c) { c.platform.memory.device_bytes = 1; }) ==
          "gpu.memory.device_bytes: 1 is out of range 1048576..17179869184");
    CHECK(config_problem([](GpuConfig&) {}) == "no problem");
}

TEST_CASE("limits: the CP refuses a packet whose grid has more than 2^48 blocks", "[limits][aql]") {
    hsa_kernel_dispatch_packet_t p{};
    p.header = make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, false, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
    p.setup = 3;
    p.workgroup_size_x = p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = 4294967295u;
    p.grid_size_y = 65536;
    p.grid_size_z = 1;
    p.kernel_object = 0x1000;
    CHECK(check_dispatch(p, DispatchLimits{}).error == QueueError::none);  // (2^32 - 1) x 2^16: just under 2^48
    p.grid_size_y = 65537;
    const PacketCheck c = check_dispatch(p, DispatchLimits{});
    CHECK(c.error == QueueError::invalid_grid);
    CHECK(c.field == "grid_size");
    CHECK(c.detail == "281479271612415 blocks, at most 281474976710656");
    p.grid_size_z = 4294967295u;  // about 2^80: counted without overflow (saturated at 2^64 - 1)
    CHECK(check_dispatch(p, DispatchLimits{}).detail == "more than 18446744073709551614 blocks, at most 281474976710656");
}

namespace {

// Sets up queue `q` through mmio with a ring of `size` packets and enables it; reads back the
// queue's status and the TLM status of the enabling write.
struct QueueSetup : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<QueueSetup> bus{"bus"};
    SC_HAS_PROCESS(QueueSetup);
    QueueSetup(sc_core::sc_module_name n, uint32_t q, uint32_t size) : sc_module(n), q_(q), size_(size) { SC_THREAD(run); }
    uint32_t status = ~0u;
    tlm::tlm_response_status enable = tlm::TLM_INCOMPLETE_RESPONSE;

private:
    void write(uint64_t reg, uint64_t v, unsigned n) {
        sc_core::sc_time d;
        enable = transport(bus, tlm::TLM_WRITE_COMMAND, HostLayout{}.mmio_base + map::kQueueRegs + q_ * map::kQueueStride + reg,
                           &v, n, d);
        wait(d);
    }
    void run() {
        write(map::kQueueRingBase, 0x800000, 8);
        write(map::kQueueRingSize, size_, 4);
        write(map::kQueueReadIndexAddr, 0x7ff000, 8);
        write(map::kQueueControl, 1, 4);
        if (enable != tlm::TLM_OK_RESPONSE) return;
        sc_core::sc_time d;
        REQUIRE(transport(bus, tlm::TLM_READ_COMMAND,
                          HostLayout{}.mmio_base + map::kQueueRegs + q_ * map::kQueueStride + map::kQueueStatus, &status, 4,
                          d) == tlm::TLM_OK_RESPONSE);
    }
    uint32_t q_, size_;
};

const char* kIdle = "name: idle\nqueues: [{name: q0}]\n";

}  // namespace

TEST_CASE("limits: the CP refuses a ring of more than 2^17 packets when the queue is enabled", "[limits][cp]") {
    System sys("system", parse_scenario(kIdle, "idle.yaml"));
    QueueSetup big("big", 1, 1u << 18), largest("largest", 2, 1u << 17), small("small", 3, 2);
    big.bus.bind(sys.bus.in);
    largest.bus.bind(sys.bus.in);
    small.bus.bind(sys.bus.in);
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    CHECK(big.status == uint32_t(QueueError::invalid_queue));
    CHECK(largest.status == uint32_t(QueueError::none));
    CHECK(small.status == uint32_t(QueueError::invalid_queue));
}

TEST_CASE("limits: the CP has max_queues queues and no register beyond them", "[limits][cp]") {
    System sys("system", parse_scenario("name: idle\nplatform:\n  cp: {max_queues: 4}\n", "idle.yaml"));
    QueueSetup last("last", 3, 64), past("past", 4, 64);
    last.bus.bind(sys.bus.in);
    past.bus.bind(sys.bus.in);
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    CHECK(last.enable == tlm::TLM_OK_RESPONSE);
    CHECK(last.status == uint32_t(QueueError::none));
    CHECK(past.enable == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("limits: memory too small for a scenario's rings and signals is exit 2 before time starts", "[limits][cli]") {
    const std::string path = gpuvp::test::temp_dir() + "/small.yaml";
    std::ofstream(path) << "name: t\nplatform:\n  memory: {host_bytes: 1048576}\nqueues: [{name: q, size: 131072}]\n"
                           "kernels:\n  - {name: k, program: [{op: valu}]}\n";
    const std::string cmd = std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " run " + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int st = pclose(p);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 2);
    CHECK(out == "gpuvp: " + path + ": host memory of 1048576 bytes is too small for the scenario's queues and kernel arguments\n");
}

TEST_CASE("limits: a GPU of 304 SMs (the mi300x preset) runs a kernel whose blocks spread over every SM", "[limits][presets]") {
    // 608 blocks of 16 waves (1024 work-items): a CU's 32 slots hold two, so each placement
    // puts two on the next CU round robin, and the kernel takes all 304.
    const auto r = test::run_yaml(R"(
name: wide
platform: {preset: mi300x}
kernels:
  - name: k
    grid: [622592]
    block: [1024]
    program: [{op: kernarg_load}, {op: valu, cycles: 200}, {op: load, bytes: 256}]
)");
    CHECK(r.out.exit_code == 0);
    CHECK(r.kernel("k")["status"] == "ok");
    CHECK(r.kernel("k")["blocks"] == 608);
    REQUIRE(r.results["sms"].size() == 304);
    uint64_t blocks = 0;
    for (const auto& sm : r.results["sms"]) {
        INFO("sm " << sm["id"]);
        CHECK(sm["blocks_run"] == 2);
        CHECK(sm["warp_slots"] == 32);
        blocks += sm["blocks_run"].get<uint64_t>();
    }
    CHECK(blocks == 608);
    CHECK(r.results["platform"]["preset"] == "mi300x");
}

TEST_CASE("limits: an L2 whose size is not a power of two (A100's 40 MiB) caches as any other", "[limits][presets]") {
    // 32 one-warp blocks on 4 SMs of 8 warp slots (8 blocks an SM) read 4 KiB over and over:
    // the first reads of each line miss in the L2, the other SMs' then hit. The same run with a 32 MiB L2 (a
    // power of two) ends at the same time with the same counts: the working set fits both.
    auto run = [](const std::string& l2) {
        return nlohmann::json::parse(test::in_child([&] {
            const auto r = test::run_yaml(R"(
name: l2
platform: {preset: a100, sms: 4, sm: {warp_slots: 8}}
kernels:
  - name: k
    grid: [1024]
    block: [32]
    global_bytes: 4096
    program: [{op: kernarg_load}, {op: loop, count: 8, body: [{op: load, bytes: 128}]}]
)",
                                          {{"platform.memory.l2_bytes", l2}});
            return nlohmann::json{{"exit", r.out.exit_code},
                                  {"status", r.kernel("k")["status"]},
                                  {"end", r.results["sim_end_ns"]},
                                  {"l2", r.results["memory"]["l2"]},
                                  {"preset", r.results["platform"]["preset"]}}
                .dump();
        }));
    };
    const auto a100 = run(std::to_string(40u << 20)), pow2 = run(std::to_string(32u << 20));
    CHECK(a100["exit"] == 0);
    CHECK(a100["status"] == "ok");
    CHECK(a100["l2"]["read_misses"].get<uint64_t>() > 0);
    CHECK(a100["l2"]["read_hits"].get<uint64_t>() > a100["l2"]["read_misses"].get<uint64_t>());
    CHECK(a100["preset"] == "a100");
    CHECK(a100["end"] == pow2["end"]);
    CHECK(a100["l2"] == pow2["l2"]);
}
