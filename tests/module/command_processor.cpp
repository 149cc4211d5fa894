// The CP as a module (models/cp/command_processor.h): a stimulus sets up a queue and rings its
// doorbell through mmio as the host does; a stand-in memory holds the ring, the read-index word
// and the completion signal (100 ns per access; it acknowledges the CP's watches, whose notices
// the stimulus sends, unless `acknowledge` is false); stand-ins for the WLM (records the launch) and
// the GLC (sends KernelDone when told). 1 GHz, bus 2 cycles, the CP's default cycle counts:
// wakeup 600, decode 900, system-scope fences 450 (acquire) and 750 (release), completion 300,
// irq 30.
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/common/write_watch.h>
#include <gpuvp/models/cp/command_processor.h>

#include <catch2/catch.hpp>
#include <hsa/hsa.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <vector>

using namespace gpuvp;

namespace {

constexpr uint64_t kRing = 0x10000, kReadIndex = 0x20000, kSignal = 0x30000, kObject = 0x40000, kArgs = 0x50000,
                   kDep = 0x60000;

double at(const sc_core::sc_time& t) { return to_ns(t); }

struct Memory : sc_core::sc_module {
    struct Access {
        double t;  // sent
        uint64_t address;
        bool write;
        unsigned length;
    };
    tlm_utils::simple_target_socket<Memory> socket{"socket"};
    std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 20);
    std::vector<Access> accesses;
    bool acknowledge = true;  // sets a read's WriteWatch armed
    explicit Memory(sc_core::sc_module_name n) : sc_module(n) {
        socket.register_b_transport(this, &Memory::b_transport);
        socket.register_transport_dbg(this, &Memory::dbg);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        accesses.push_back({at(sc_core::sc_time_stamp() + delay), gp.get_address(), gp.is_write(), gp.get_data_length()});
        if (WriteWatch* w = gp.get_extension<WriteWatch>(); w && acknowledge && gp.is_read()) w->armed = true;
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
    uint32_t type = HSA_QUEUE_TYPE_MULTI;      // the queue's TYPE register (its reset value: not written)
    std::function<void(Stimulus&)> script;   // after the setup; none: doorbell 0, KernelDone at done_at
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
        if (type != HSA_QUEUE_TYPE_MULTI) write<uint32_t>(q + map::kQueueType, type);
        write<uint32_t>(q + map::kQueueControl, 1);
        write<uint64_t>(map::kIntEnable, 1);
        if (script) return script(*this);
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
    std::vector<std::pair<uint64_t, double>> barriers;  // packet, done
    std::vector<std::string> rejected;                  // error: field: detail
    double completed = -1;
    void barrier_done(uint32_t, uint64_t packet, const sc_core::sc_time&, const sc_core::sc_time& t) override {
        barriers.push_back({packet, at(t)});
    }
    void packet_rejected(uint32_t, uint64_t, const PacketCheck& why, const sc_core::sc_time&) override {
        rejected.push_back(std::string(queue_error_name(why.error)) + ": " + why.field + ": " + why.detail);
    }
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
    // Packet `index`: a dispatch of 2 blocks of 64 work-items, system-scope fences.
    void packet(uint16_t type = HSA_PACKET_TYPE_KERNEL_DISPATCH, uint64_t index = 0) {
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
        std::memcpy(&memory.bytes[kRing + (index % 4) * 64], &p, sizeof p);
    }
    // Packet `index`: a barrier-AND on the signal at kDep, no fences, no completion signal.
    void barrier_packet(uint64_t index = 0) {
        hsa_barrier_and_packet_t p{};
        p.header = uint16_t(HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE);
        p.dep_signal[0].handle = kDep;
        std::memcpy(&memory.bytes[kRing + (index % 4) * 64], &p, sizeof p);
    }
    uint16_t header(uint64_t index) const {
        uint16_t h;
        std::memcpy(&h, &memory.bytes[kRing + (index % 4) * 64], 2);
        return h;
    }
    void set(uint64_t address, int64_t v) { std::memcpy(&memory.bytes[address], &v, 8); }
    void invalid(uint64_t index) { memory.bytes[kRing + (index % 4) * 64] = HSA_PACKET_TYPE_INVALID; }
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

// hsa.h: INVALID is "processed in the past, but has not been reassigned to the packet
// processor". The CP writes it back when the packet has taken effect, before it publishes the
// read index, so a producer never finds a processed packet in a slot it has not written.
TEST_CASE("cp module: a processed packet's header is INVALID again, written before the read index", "[module][cp][timing][aql]") {
    CpBench b;
    b.packet();
    sc_core::sc_start(ns(10000));
    CHECK(b.header(0) == HSA_PACKET_TYPE_INVALID);
    // Both posted when the launch has gone out (2054): the header (2 bytes), then the index.
    std::vector<std::pair<uint64_t, unsigned>> writes_at_2054;
    for (const auto& a : b.memory.accesses)
        if (a.write && a.t == 2054) writes_at_2054.push_back({a.address, a.length});
    CHECK(writes_at_2054 == std::vector<std::pair<uint64_t, unsigned>>{{kRing, 2}, {kReadIndex, 8}});
}

// A multi queue (the reset value of TYPE, as ROCm creates queues) takes doorbells in any order:
// two producers publish packets 0 and 1 and ring 1, then 0. Both launch, no error.
TEST_CASE("cp module: a multi queue takes doorbells out of order", "[module][cp][timing][aql]") {
    CpBench b;
    b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, 0);
    b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, 1);
    b.stim.script = [](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 1);
        s.write<uint64_t>(map::kDoorbells, 0);  // below the highest: a hint only
    };
    sc_core::sc_start(ns(20000));
    CHECK(b.log.rejected.empty());
    CHECK(b.cp.queue(0).status == QueueError::none);
    REQUIRE(b.stim.launches.size() == 2);
    CHECK((b.stim.launches[0].second.packet_index == 0 && b.stim.launches[1].second.packet_index == 1));
    CHECK(b.cp.queue(0).write_index == 2);
    CHECK(b.cp.queue(0).read_index == 2);
}

// A single queue (TYPE 1) keeps its one producer's order: a doorbell that goes down stops it.
TEST_CASE("cp module: a single queue's doorbell going down is doorbell regressed", "[module][cp][timing][aql]") {
    CpBench b;
    b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, 0);
    b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, 1);
    b.stim.type = HSA_QUEUE_TYPE_SINGLE;
    b.stim.script = [](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 1);
        s.write<uint64_t>(map::kDoorbells, 0);
    };
    sc_core::sc_start(ns(20000));
    CHECK(b.log.rejected == std::vector<std::string>{"doorbell regressed: doorbell: doorbell 0 after 1"});
    CHECK(b.cp.queue(0).status == QueueError::doorbell_regressed);
    CHECK(b.cp.queue(0).error_packet == 0);
}

// The case: packets 0-3 ran and the ring wrapped; producer A reserved packet 4 (slot
// 0) and has not written it; producer B wrote packet 5 and rang 5. The CP stops at packet 4's
// INVALID header, not at the stale packet 0 it would otherwise take as new.
TEST_CASE("cp module: after a wrap the CP waits at an unwritten slot and does not rerun its stale packet", "[module][cp][timing][aql]") {
    CpBench b;
    for (uint64_t i = 0; i < 4; ++i) b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, i);
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 3);
        for (uint32_t slot = 0; slot < 4; ++slot) {  // each kernel ends, in the order launched
            sc_core::wait(ns(5000));
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(s.glc, map::kCpKernelDone, KernelDone{slot, 0, 0}, d) == tlm::TLM_OK_RESPONSE);
        }
        sc_core::wait(ns(5000));
        b.packet(HSA_PACKET_TYPE_KERNEL_DISPATCH, 5);  // producer B: packet 5 (slot 1), then doorbell 5
        s.write<uint64_t>(map::kDoorbells, 5);
    };
    sc_core::sc_start(ns(60000));
    CHECK(b.stim.launches.size() == 4);  // packets 0-3 only
    CHECK(b.cp.queue(0).read_index == 4);
    CHECK(b.cp.queue(0).status == QueueError::none);
    CHECK(b.cp.waiting_for(0) == "packet 4: its header is still INVALID: waits for it to be written");
    CHECK(b.cp.completions() == 4);
}

// A header written after its doorbell: the CP found it INVALID, armed a watch with a second
// look at it, and the write notification (here sent by the stimulus as the host memory would,
// to WRITE_NOTICE) brings it back without another doorbell.
TEST_CASE("cp module: a header written after its doorbell is taken on its write notification", "[module][cp][timing][aql]") {
    CpBench b;
    b.invalid(0);
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 0);  // there at 2
        sc_core::wait(ns(3000));
        b.packet();
        s.write<uint64_t>(map::kWriteNotice, kRing);  // there at 3002
    };
    sc_core::sc_start(ns(10000));
    // 602: the packet read; 702: INVALID, the header read again with a watch (2 bytes); 802:
    // still INVALID, the CP sleeps. 3002: the notice; wakeup 600 (3602), the packet read
    // (3702), decode 900 and acquire fence 450: launched at 5052, at the WLM at 5054.
    std::vector<double> header_reads;
    for (const auto& a : b.memory.accesses)
        if (!a.write && a.address == kRing) header_reads.push_back(a.t);
    CHECK(header_reads == std::vector<double>{602, 702, 3602});
    CHECK(b.log.stages == std::vector<std::pair<Stage, double>>{
                              {Stage::packet_fetched, 3702}, {Stage::packet_decoded, 5052}, {Stage::launched, 5052}});
    REQUIRE(b.stim.launches.size() == 1);
    CHECK(b.stim.launches[0].first == 5054);
}

// A notice of an address no queue waits on changes nothing and costs the CP no time.
TEST_CASE("cp module: a write notification of an address nothing waits on is ignored", "[module][cp][timing][aql]") {
    CpBench b;
    b.invalid(0);
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 0);
        sc_core::wait(ns(3000));
        s.write<uint64_t>(map::kWriteNotice, kRing + 64);  // another slot
    };
    sc_core::sc_start(ns(10000));
    CHECK(b.stim.launches.empty());
    CHECK(b.cp.waiting_for(0) == "packet 0: its header is still INVALID: waits for it to be written");
    CHECK(b.memory.accesses.size() == 2);  // the packet read and the second look, nothing after
}

// A barrier-AND on a signal the host sets: unsatisfied at first, it is looked at again on the
// signal's write notification, not on a poll.
TEST_CASE("cp module: a barrier-AND notices a signal the host sets through its write notification", "[module][cp][timing][aql]") {
    CpBench b;
    b.barrier_packet();
    b.set(kDep, 1);
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 0);
        sc_core::wait(ns(3000));
        b.set(kDep, 0);
        s.write<uint64_t>(map::kWriteNotice, kDep);  // there at 3002
    };
    sc_core::sc_start(ns(10000));
    // 602 packet read, 702 + decode 900 = 1602; the signal read (1702) + barrier 300: 2002,
    // unsatisfied. 3002 the notice, wakeup 600 (3602), the signal read (3702) + 300: done at 4002.
    CHECK(b.log.barriers == std::vector<std::pair<uint64_t, double>>{{0, 4002}});
    std::vector<double> signal_reads;
    for (const auto& a : b.memory.accesses)
        if (!a.write && a.address == kDep) signal_reads.push_back(a.t);
    CHECK(signal_reads == std::vector<double>{1602, 3602});
    CHECK(b.cp.queue(0).read_index == 1);
    CHECK(b.header(0) == HSA_PACKET_TYPE_INVALID);
}

// A memory that does not acknowledge the watch sends no notice: the CP polls. A barrier-AND on
// a signal the host sets with a plain store is released at the first look after the store.
TEST_CASE("cp module: without an acknowledged watch a barrier's signal is polled, a 16th of cp.signal_poll_ns "
          "first, twice as long each time, and released at the first look after the store",
          "[module][cp][timing][aql]") {
    CpBench b;
    b.memory.acknowledge = false;
    b.barrier_packet();
    b.set(kDep, 1);
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 0);
        sc_core::wait(ns(3000));
        b.set(kDep, 0);  // a plain store: no notice
    };
    sc_core::sc_start(ns(10000));
    // 1602 the signal read, + 100 + barrier 300: 2002, unsatisfied. Looks again after 62.5, 125,
    // 250 ns (no wake-up: the firmware's own timer): reads at 2064.5, 2589.5 (2064.5 + 400 +
    // 125), 3239.5 (2989.5 + 250), which sees the store of 3000; + 100 + 300: done at 3639.5.
    std::vector<double> signal_reads;
    for (const auto& a : b.memory.accesses)
        if (!a.write && a.address == kDep) signal_reads.push_back(a.t);
    CHECK(signal_reads == std::vector<double>{1602, 2064.5, 2589.5, 3239.5});
    CHECK(signal_reads.back() - 3000 < 1000);  // within cp.signal_poll_ns of the store
    CHECK(b.log.barriers == std::vector<std::pair<uint64_t, double>>{{0, 3639.5}});
    CHECK(b.cp.queue(0).read_index == 1);
    CHECK(b.cp.queue(0).polls == 3);
    CHECK_FALSE(b.cp.queue(0).polling);
}

// The same for a header still INVALID after its doorbell: each look reads the packet and the
// header again, up to cp.signal_poll_ns apart; the header stored at 3000 is seen at the next.
TEST_CASE("cp module: without an acknowledged watch an INVALID header is polled until it is written", "[module][cp][timing][aql]") {
    CpBench b;
    b.memory.acknowledge = false;
    b.invalid(0);
    std::string waiting;
    b.stim.script = [&](Stimulus& s) {
        s.write<uint64_t>(map::kDoorbells, 0);
        sc_core::wait(ns(2600));  // after the fourth look's reads
        waiting = b.cp.waiting_for(0);
        sc_core::wait(ns(400));
        b.packet();  // a plain store at 3000
    };
    sc_core::sc_start(ns(10000));
    // 602 the packet read, 702 the header's second look, 802 INVALID: looks again at 864.5,
    // 1189.5, 1639.5, 2339.5 and 3539.5 (each look two reads, then 62.5, 125, 250, 500, 1000 ns);
    // the last sees the packet: fetched at 3639.5, decode 900 and acquire 450: at the WLM 4991.5.
    std::vector<double> header_reads;
    for (const auto& a : b.memory.accesses)
        if (!a.write && a.address == kRing) header_reads.push_back(a.t);
    CHECK(header_reads ==
          std::vector<double>{602, 702, 864.5, 964.5, 1189.5, 1289.5, 1639.5, 1739.5, 2339.5, 2439.5, 3539.5});
    CHECK(waiting == "packet 0: its header is still INVALID: waits for it to be written (polled: its watch was not "
                     "acknowledged; 4 looks again so far)");
    REQUIRE(b.stim.launches.size() == 1);
    CHECK(b.stim.launches[0].first == 4991.5);
    CHECK(b.cp.queue(0).polls == 5);
}
