// The CP as a module (models/cp/command_processor.h): a stimulus sets up a queue and rings its
// doorbell through mmio as the host does; a stand-in memory holds the ring, the read-index word
// and the completion signal (100 ns per access); stand-ins for the WLM (records the launch) and
// the GLC (sends KernelDone when told). 1 GHz, bus 2 cycles, the CP's default cycle counts:
// wakeup 600, decode 900, system-scope fences 450 (acquire) and 750 (release), completion 300,
// irq 30.
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/cp/command_processor.h>

#include <catch2/catch.hpp>
#include <hsa/hsa.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <vector>

using namespace gpuvp;

namespace {

constexpr uint64_t kRing = 0x10000, kReadIndex = 0x20000, kSignal = 0x30000, kObject = 0x40000, kArgs = 0x50000;

double at(const sc_core::sc_time& t) { return to_ns(t); }

struct Memory : sc_core::sc_module {
    struct Access {
        double t;  // sent
        uint64_t address;
        bool write;
    };
    tlm_utils::simple_target_socket<Memory> socket{"socket"};
    std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 20);
    std::vector<Access> accesses;
    explicit Memory(sc_core::sc_module_name n) : sc_module(n) {
        socket.register_b_transport(this, &Memory::b_transport);
        socket.register_transport_dbg(this, &Memory::dbg);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        accesses.push_back({at(sc_core::sc_time_stamp() + delay), gp.get_address(), gp.is_write()});
        dbg(gp);
        delay += ns(100);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    unsigned dbg(tlm::tlm_generic_payload& gp) {
        unsigned char* p = &bytes.at(gp.get_address());
        if (gp.is_write()) std::memcpy(p, gp.get_data_ptr(), gp.get_data_length());
        else std::memcpy(gp.get_data_ptr(), p, gp.get_data_length());
        return gp.get_data_length();
    }
    int64_t signal() const {
        int64_t v;
        std::memcpy(&v, &bytes[kSignal], 8);
        return v;
    }
};

// The host's mmio writes, the WLM (records launches) and the GLC (sends KernelDone at `done_at`).
struct Stimulus : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Stimulus> mmio{"mmio"};
    tlm_utils::simple_initiator_socket<Stimulus> glc{"glc"};
    tlm_utils::simple_target_socket<Stimulus> wlm{"wlm"};
    tlm_utils::simple_target_socket<Stimulus> usa{"usa"};
    std::vector<std::pair<double, LaunchDescriptor>> launches;
    double done_at = 5000;
    explicit Stimulus(sc_core::sc_module_name n) : sc_module(n) {
        wlm.register_b_transport(this, &Stimulus::launch);
        usa.register_b_transport(this, &Stimulus::launch);
        SC_HAS_PROCESS(Stimulus);
        SC_THREAD(run);
    }
    template <class T>
    void write(uint64_t address, T v) {
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        REQUIRE(transport(mmio, tlm::TLM_WRITE_COMMAND, address, &v, sizeof v, d) == tlm::TLM_OK_RESPONSE);
    }
    void run() {
        const uint64_t q = map::kQueueRegs;  // queue 0
        write<uint64_t>(q + map::kQueueRingBase, kRing);
        write<uint32_t>(q + map::kQueueRingSize, 4);
        write<uint32_t>(q + map::kQueuePriority, 1);
        write<uint64_t>(q + map::kQueueReadIndexAddr, kReadIndex);
        write<uint32_t>(q + map::kQueueControl, 1);
        write<uint64_t>(map::kIntEnable, 1);
        write<uint64_t>(map::kDoorbells, 0);  // packet 0; posted: it arrives after the bus
        wait(ns(done_at));
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        REQUIRE(write_msg(glc, map::kCpKernelDone, KernelDone{0, 0, 0}, d) == tlm::TLM_OK_RESPONSE);
    }
    void launch(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        REQUIRE(gp.get_address() == map::kWlmLaunch);
        delay += ns(2);
        launches.push_back({at(sc_core::sc_time_stamp() + delay), from_bytes<LaunchDescriptor>(gp.get_data_ptr())});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct Log : Observer {
    std::vector<std::pair<Stage, double>> stages;
    std::vector<std::pair<bool, double>> irqs;
    double completed = -1;
    void kernel_stage(uint32_t, Stage s, const sc_core::sc_time& t) override { stages.push_back({s, at(t)}); }
    void kernel_completed(uint32_t, KernelError, const sc_core::sc_time& t) override { completed = at(t); }
    void irq(bool level, const sc_core::sc_time& t) override { irqs.push_back({level, at(t)}); }
};

struct CpBench {
    Log log;
    Memory memory{"memory"};
    Stimulus stim{"stim"};
    sc_core::sc_signal<bool> irq{"irq"};
    CommandProcessor cp;
    CpBench() : cp("cp", CpConfig{}, 4, DispatchLimits{}, 4, DrawLimits{}, Clock(1000), ns(2), &log) {
        stim.mmio.bind(cp.mmio);
        stim.glc.bind(cp.internal);
        cp.mem.bind(memory.socket);
        cp.to_wlm.bind(stim.wlm);
        cp.to_usa.bind(stim.usa);
        cp.irq.bind(irq);
        std::memset(&memory.bytes[kSignal], 0, 8);
        memory.bytes[kSignal] = 1;  // the host sets the signal to 1
    }
    // Packet 0: a dispatch of 2 blocks of 64 work-items, system-scope fences.
    void packet(uint16_t type = HSA_PACKET_TYPE_KERNEL_DISPATCH) {
        hsa_kernel_dispatch_packet_t p{};
        p.header = uint16_t(type << HSA_PACKET_HEADER_TYPE | HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE |
                            HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
        p.setup = 1;
        p.workgroup_size_x = 64;
        p.workgroup_size_y = p.workgroup_size_z = 1;
        p.grid_size_x = 128;
        p.grid_size_y = p.grid_size_z = 1;
        p.kernel_object = kObject;
        p.kernarg_address = reinterpret_cast<void*>(kArgs);
        p.completion_signal.handle = kSignal;
        std::memcpy(&memory.bytes[kRing], &p, sizeof p);
    }
};

}  // namespace

TEST_CASE("cp module: doorbell to launch to completion signal and interrupt at exact times", "[module][cp][timing]") {
    CpBench b;
    b.packet();
    sc_core::sc_start(ns(10000));
    // Doorbell there at 2; the idle firmware wakes up (602) and reads the packet (100 ns: 702);
    // decode 900 (1602), acquire fence 450 (2052): launched; the WLM has it 2 ns later.
    CHECK(b.log.stages == std::vector<std::pair<Stage, double>>{
                              {Stage::packet_fetched, 702}, {Stage::packet_decoded, 2052}, {Stage::launched, 2052}});
    REQUIRE(b.stim.launches.size() == 1);
    CHECK(b.stim.launches[0].first == 2054);
    const LaunchDescriptor& l = b.stim.launches[0].second;
    CHECK((l.kernel_slot == 0 && l.queue == 0 && l.packet_index == 0 && l.priority == 1));
    CHECK((l.grid_size[0] == 128 && l.workgroup_size[0] == 64 && l.dimensions == 1));
    CHECK((l.kernel_object == kObject && l.kernarg_address == kArgs));
    CHECK(b.cp.queue(0).read_index == 1);
    // The read index is published with a posted write when the launch has gone out (2054).
    bool published = false;
    for (const auto& a : b.memory.accesses) published |= a.write && a.address == kReadIndex && a.t == 2054;
    CHECK(published);
    // KernelDone sent at 5000, there at 5002; completion 300 + release fence 750 (6052); the
    // decrement reads the signal (100 ns round trip), the value changes at memory half way
    // (6102); the CP goes on at 6152 and INT_STATUS bit 0, with irq, follows 30 cycles later.
    CHECK(b.log.completed == 6102);
    CHECK(b.memory.signal() == 0);
    CHECK(b.log.irqs == std::vector<std::pair<bool, double>>{{true, 6182}});
    CHECK(b.irq.read());
    CHECK(b.cp.in_flight() == 0);
}

TEST_CASE("cp module: a packet of an unknown type stops its queue with an error and the interrupt", "[module][cp][timing]") {
    CpBench b;
    b.packet(7);  // not an AQL packet type
    sc_core::sc_start(ns(10000));
    // Rejected after decoding (1602); the interrupt 30 cycles later.
    CHECK(b.stim.launches.empty());
    CHECK(b.cp.queue(0).status != QueueError::none);
    CHECK(b.cp.queue(0).error_packet == 0);
    REQUIRE(b.log.irqs.size() == 1);
    CHECK(b.log.irqs[0] == std::pair<bool, double>{true, 1632});
}
