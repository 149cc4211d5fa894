// The WLM as a module (models/wlm/workload_manager.h): a stimulus writes a LaunchDescriptor
// as the CP does; stand-ins for memory (the kernel descriptor, 100 ns), two SMs' ISUs and the
// GLC record what the WLM writes and when. 1 GHz, bus 2 cycles, setup_cycles 300; the SMs and
// the GLC add their bus delay (2 ns) as the real ones do.
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/wlm/workload_manager.h>

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <vector>

using namespace gpuvp;

namespace {

constexpr uint64_t kObject = 0x4000, kArgs = 0x9000;

double at(const sc_core::sc_time& t) { return to_ns(t); }

// Records every write (address, bytes, arrival time) and adds `latency` to reads and writes.
struct Target : sc_core::sc_module {
    struct Write {
        double t;
        uint64_t address;
        std::vector<unsigned char> bytes;
    };
    tlm_utils::simple_target_socket<Target> socket{"socket"};
    std::vector<unsigned char> memory = std::vector<unsigned char>(1 << 16);
    std::vector<Write> writes;
    double latency;
    Target(sc_core::sc_module_name n, double latency_ns) : sc_module(n), latency(latency_ns) {
        socket.register_b_transport(this, &Target::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        delay += ns(latency);
        const uint64_t a = gp.get_address();
        const unsigned n = gp.get_data_length();
        if (gp.is_write()) writes.push_back({at(sc_core::sc_time_stamp() + delay), a, {gp.get_data_ptr(), gp.get_data_ptr() + n}});
        else std::memcpy(gp.get_data_ptr(), &memory.at(a), n);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    template <class T>
    T as(size_t i) const {
        REQUIRE(writes.at(i).bytes.size() == sizeof(T));
        return from_bytes<T>(writes[i].bytes.data());
    }
};

struct Stages : Observer {
    std::vector<std::pair<Stage, double>> seen;
    void kernel_stage(uint32_t, Stage s, const sc_core::sc_time& t) override { seen.push_back({s, at(t)}); }
};

struct WlmBench {
    Stages stages;
    Target memory{"memory", 100}, sm0{"sm0", 2}, sm1{"sm1", 2}, glc{"glc", 2}, cp{"cp", 2};
    struct Cp : sc_core::sc_module {
        tlm_utils::simple_initiator_socket<Cp> to_wlm{"to_wlm"};
        LaunchDescriptor launch{};
        explicit Cp(sc_core::sc_module_name n) : sc_module(n) {
            SC_HAS_PROCESS(Cp);
            SC_THREAD(run);
        }
        void run() {
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_wlm, map::kWlmLaunch, launch, d) == tlm::TLM_OK_RESPONSE);
        }
    } driver{"driver"};
    WorkloadManager wlm;
    explicit WlmBench(uint32_t sm_registers = 65536)
        : wlm("wlm", {sm(sm_registers), sm(sm_registers)}, WlmConfig{}, Clock(1000), ns(2), &stages) {
        driver.to_wlm.bind(wlm.regs);
        wlm.mem.bind(memory.socket);
        wlm.to_isu.bind(sm0.socket);
        wlm.to_isu.bind(sm1.socket);
        wlm.to_glc.bind(glc.socket);
        wlm.to_cp.bind(cp.socket);
    }
    static SmConfig sm(uint32_t registers) {
        SmConfig c;
        c.registers = registers;
        return c;
    }
    // A kernel of 2 blocks of 128 work-items, 16 vregs, 64 bytes of arguments, scalars per
    // level {1, 2, 3, 4} and warp priorities {2, 0}; with `barrier`, a program of one barrier.
    void kernel(bool barrier = false) {
        KernelSpec k;
        k.grid = {256, 1, 1};
        k.block = {128, 1, 1};
        k.vregs = 16;
        k.kernarg_bytes = 64;
        k.scalars = {1, 2, 3, 4};
        k.warp_priorities = {2, 0};
        if (barrier) k.program = {ProgramStep{Instruction{Opcode::barrier, 0, 0, 0}, 1, {}}};
        const std::vector<unsigned char> image = build_code_object(k, 32, true);
        std::memcpy(&memory.memory[kObject], image.data(), image.size());
        LaunchDescriptor& l = driver.launch;
        l.kernel_slot = 3;
        l.priority = 1;
        l.dimensions = 1;
        l.workgroup_size[0] = 128;
        l.workgroup_size[1] = l.workgroup_size[2] = 1;
        l.grid_size[0] = 256;
        l.grid_size[1] = l.grid_size[2] = 1;
        l.kernel_object = kObject;
        l.kernarg_address = kArgs;
    }
};

}  // namespace

TEST_CASE("wlm module: descriptor fetch then setup then ISU contexts and CPRs to every SM then the GLC row",
          "[module][wlm][timing]") {
    WlmBench b;
    b.kernel();
    sc_core::sc_start(ns(10000));
    // The launch arrives at 2; the descriptor read takes 100 ns (102); setup 300 cycles (402);
    // then every SM's context (2 ns of bus: there at 404) and CPR table (after it: 406), the
    // SMs at once, and the GLC's row after them (408).
    CHECK(b.stages.seen == std::vector<std::pair<Stage, double>>{
                               {Stage::descriptor_fetched, 102}, {Stage::isu_written, 406}, {Stage::kernel_registered, 408}});
    for (Target* sm : {&b.sm0, &b.sm1}) {
        REQUIRE(sm->writes.size() == 2);
        CHECK(sm->writes[0].address == map::kSmIsuContext + 3 * sizeof(IsuContext));
        CHECK(sm->writes[0].t == 404);
        const IsuContext c = sm->as<IsuContext>(0);
        CHECK(c.pc == kObject + kCodeEntryOffset);
        CHECK(c.kernarg_ptr == kArgs);
        CHECK(c.kernarg_size == 64);
        CHECK(c.valid == 1);
        CHECK(c.syncs == 0);  // the program has no barrier and writes no scalars
        CHECK((c.scalars[0] == 1 && c.scalars[1] == 2 && c.scalars[2] == 3 && c.scalars[3] == 4));
        CHECK(sm->writes[1].address == map::kSmCprTable + 3 * map::kCprBytes);
        CHECK(sm->writes[1].t == 406);
        REQUIRE(sm->writes[1].bytes.size() == map::kCprBytes);
        CHECK(sm->writes[1].bytes[0] == 2);
        CHECK(sm->writes[1].bytes[1] == 0);
        CHECK(sm->writes[1].bytes[255] == 0);  // warps past the list take the last entry
    }
    REQUIRE(b.glc.writes.size() == 1);
    CHECK(b.glc.writes[0].t == 408);
    const KernelRegistration r = b.glc.as<KernelRegistration>(0);
    CHECK(r.kernel_slot == 3);
    CHECK(r.priority == 1);
    CHECK(r.regs_per_warp == 16 * 32);
    CHECK(r.warps_per_block == 4);
    CHECK(r.threads_per_block == 128);
    CHECK(r.blocks == 2);
    CHECK(b.cp.writes.empty());
}

TEST_CASE("wlm module: a program with a barrier marks every SM's ISU context (M1)", "[module][wlm][m1]") {
    WlmBench b;
    b.kernel(true);
    sc_core::sc_start(ns(10000));
    for (Target* sm : {&b.sm0, &b.sm1}) {
        REQUIRE(!sm->writes.empty());
        CHECK(sm->as<IsuContext>(0).syncs == kSyncBarrier);
    }
}

TEST_CASE("wlm module: a kernel whose block fits no SM is refused to the CP after the descriptor fetch",
          "[module][wlm][timing]") {
    WlmBench b(1024);  // a block needs 4 warps x 512 registers
    b.kernel();
    sc_core::sc_start(ns(10000));
    REQUIRE(b.cp.writes.size() == 1);
    CHECK(b.cp.writes[0].t == 104);  // the descriptor at 102, refused at once (the CP's bus: 2)
    const KernelDone d = b.cp.as<KernelDone>(0);
    CHECK(d.kernel_slot == 3);
    CHECK(d.error == uint32_t(KernelError::resources));
    CHECK(b.sm0.writes.empty());
    CHECK(b.glc.writes.empty());
}
