// The register tables (GLC kernel status, GLC SM status, each SM's block status) are real
// tables, readable with transport_dbg through the GPU's debug aperture while a run goes on.
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/glc/tables.h>
#include <gpuvp/models/sm/sm.h>
#include <gpuvp/platform/system.h>
#include "tests/support.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstddef>
#include <cstring>

using namespace gpuvp;

namespace {


// 16 blocks of 4 warps (32 vregs) on 2 SMs of 8 warp slots: 2 blocks fit an SM at once.
const char* kYaml = R"(
name: tables
platform:
  clock_mhz: 1000
  sms: 2
  sm: {warp_slots: 8, registers: 65536}
queues: [{name: q, priority: 3}]
kernels:
  - {name: k, queue: q, grid: [2048], block: [128], vregs: 32, shared_bytes: 1024,
     program: [{op: kernarg_load}, {op: valu, cycles: 50, repeat: 40}]}
)";

}  // namespace

TEST_CASE("the GLC's and SMs' tables show a running kernel through transport_dbg", "[tables]") {
    Scenario s = parse_scenario(kYaml, "tables.yaml");
    System sys("system", s);
    gpuvp::test::DebugProbe probe("probe");
    probe.bus.bind(sys.bus.in);

    sc_core::sc_start(sc_core::sc_time(8, sc_core::SC_US));  // the kernel runs its first blocks
    // Kernel status table, row 0 (the kernel's slot).
    auto k = probe.read<std::array<uint32_t, 8>>(map::kDebugGlc + map::kGlcKernelTable);
    CHECK(k[0] == 3);            // priority: its queue's
    CHECK(k[1] == 32 * 32);      // registers per warp: vregs x warp size
    CHECK(k[2] == 4 * 32 * 32);  // per block
    CHECK(k[3] == 1024);         // shared memory per block
    CHECK(k[4] == 4);            // warps per block
    CHECK(k[5] == 1);            // valid
    uint64_t undispatched;
    std::memcpy(&undispatched, &k[6], 8);
    CHECK(undispatched == 16 - 4);  // two blocks on each SM

    // SM status table, row 1: two blocks' resources taken.
    auto sm = probe.read<SmRow>(map::kDebugGlc + map::kGlcSmTable + map::kTableRowBytes);
    CHECK(sm.free_slots == 0);
    CHECK(sm.free_regs == 65536 - 2 * 4 * 32 * 32);
    CHECK(sm.free_shared == 65536 - 2 * 1024);
    CHECK(sm.highest_priority == 3);

    // SM 1's block status table: two rows in use, of kernel slot 0.
    using Row = StreamingMultiprocessor::BlockRow;
    auto r0 = probe.read<Row>(map::kDebugSm + map::kDebugStride + map::kSmBlockTable);
    auto r1 = probe.read<Row>(map::kDebugSm + map::kDebugStride + map::kSmBlockTable + sizeof(Row));
    CHECK(r0.priority == 3);
    CHECK(r0.running_warps == 4);
    CHECK(r0.undispatched_warps == 0);
    CHECK(r0.regs_needed == 0);
    CHECK(r1.running_warps == 4);
    CHECK(r0.block_id != r1.block_id);

    // The ISU kernel context of slot 0 on SM 0 holds the code entry and the kernarg pointer.
    auto ctx = probe.read<IsuContext>(map::kDebugSm + map::kSmIsuContext);
    CHECK(ctx.valid == 1);
    const LaunchRecord& l = sys.host.launches()[0];  // serial launch: the argument's device copy
    CHECK(ctx.pc == l.kernel_object + 512);
    CHECK(ctx.kernarg_ptr == l.device_args);
    CHECK(ctx.kernarg_size == 64);

    sc_core::sc_start();  // to the end: the row is freed
    CHECK(sys.host.all_done());
    auto after = probe.read<std::array<uint32_t, 8>>(map::kDebugGlc + map::kGlcKernelTable);
    CHECK(after[5] == 0);
    auto sm_after = probe.read<SmRow>(map::kDebugGlc + map::kGlcSmTable);
    CHECK(sm_after.free_slots == 8);
    CHECK(sm_after.free_regs == 65536);
    CHECK(sm_after.highest_priority == kNoPriority);
}

TEST_CASE("the debug aperture refuses timed access", "[tables]") {
    Scenario s = parse_scenario("name: t\nkernels: [{name: k, program: [{op: end}]}]\n", "t.yaml");
    System sys("system", s);
    gpuvp::test::DebugProbe probe("probe");
    probe.bus.bind(sys.bus.in);
    sc_core::sc_start();  // to the end, so no process is left holding memory mid-wait
    uint64_t v = 0;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    CHECK(transport(probe.bus, tlm::TLM_READ_COMMAND, HostLayout{}.mmio_base + map::kDebugGlc, &v, 8, d) ==
          tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("every target inside the GPU answers transport_dbg: the WLM's last launch and the CP's last done messages", "[tables]") {
    Scenario s = parse_scenario(kYaml, "tables.yaml");
    System sys("system", s);
    gpuvp::test::DebugProbe probe("probe");
    probe.bus.bind(sys.bus.in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborated (multi-socket bindings complete there)
    const auto before = probe.read<LaunchDescriptor>(map::kDebugWlm + map::kWlmLaunch);
    CHECK(before.kernel_object == 0);  // nothing launched yet: the register's reset value
    sc_core::sc_start();
    REQUIRE(sys.host.all_done());
    const LaunchRecord& l = sys.host.launches()[0];
    const auto launch = probe.read<LaunchDescriptor>(map::kDebugWlm + map::kWlmLaunch);
    CHECK(launch.kernel_slot == 0);
    CHECK(launch.grid_size[0] == 2048);
    CHECK(launch.workgroup_size[0] == 128);
    CHECK(launch.group_segment_size == 1024);
    CHECK(launch.kernel_object == l.kernel_object);  // copied there at the launch (host.code: per-launch)
    CHECK(launch.priority == 3);
    // Part of the register: the grid size alone.
    CHECK(probe.read<std::array<uint32_t, 3>>(map::kDebugWlm + map::kWlmLaunch + offsetof(LaunchDescriptor, grid_size))[0] == 2048);
    const auto done = probe.read<KernelDone>(map::kDebugCpDone + map::kCpKernelDone);
    CHECK(done.kernel_slot == 0);
    CHECK(done.error == 0);
    // Debug writes change nothing there (0 bytes): they must not launch or complete a kernel.
    LaunchDescriptor bogus{};
    bogus.kernel_slot = 5;
    CHECK(debug_transport(probe.bus, tlm::TLM_WRITE_COMMAND, HostLayout{}.mmio_base + map::kDebugWlm + map::kWlmLaunch,
                          &bogus, sizeof bogus) == 0);
    CHECK(debug_transport(probe.bus, tlm::TLM_WRITE_COMMAND, HostLayout{}.mmio_base + map::kDebugCpDone + map::kCpKernelDone,
                          &bogus, sizeof(KernelDone)) == 0);
    CHECK(probe.read<LaunchDescriptor>(map::kDebugWlm + map::kWlmLaunch).kernel_slot == 0);
    // Past the register: 0 bytes.
    uint64_t v = 0;
    CHECK(debug_transport(probe.bus, tlm::TLM_READ_COMMAND,
                          HostLayout{}.mmio_base + map::kDebugWlm + map::kWlmLaunch + sizeof(LaunchDescriptor) - 4, &v, 8) == 0);
}
