// One StreamingMultiprocessor alone with a stimulus (the style guide's second level of
// tests): a 1 GHz clock (1 cycle = 1 ns), a bus of 2 cycles, and stand-ins for everything
// around it: the GLC and WLM (the driver writes the ISU context, the CPR table and block
// descriptors, and records the SM's notices), the L1I and L1D (one memory with a miss and a
// hit latency per line, recording every access) and the lock arbiter (records requests and
// answers each with the verdict the test chooses, a fixed time later).
#pragma once
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/sm/core_clock.h>
#include <gpuvp/models/sm/sm.h>

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace gpuvp::test {

constexpr uint64_t kCode = 0x1000;     // the program's first instruction
constexpr uint64_t kKernargs = 0x8000;  // the kernel arguments
constexpr uint32_t kLine = 64;          // the L1s' line

inline double at_ns(const sc_core::sc_time& t) { return to_ns(t); }

// The L1I or L1D: a flat memory; the first access to a line costs `miss_ns`, later ones `hit_ns`.
struct MemoryStandIn : sc_core::sc_module {
    struct Access {
        double t;  // sent
        uint64_t address;
        unsigned bytes;
        bool write;
    };
    tlm_utils::simple_target_socket<MemoryStandIn> socket{"socket"};
    std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 16);
    double miss_ns, hit_ns;
    std::set<uint64_t> lines;
    std::vector<Access> accesses;
    MemoryStandIn(sc_core::sc_module_name n, double miss, double hit) : sc_module(n), miss_ns(miss), hit_ns(hit) {
        socket.register_b_transport(this, &MemoryStandIn::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        const uint64_t a = gp.get_address();
        const unsigned n = gp.get_data_length();
        REQUIRE(a + n <= bytes.size());
        accesses.push_back({at_ns(sc_core::sc_time_stamp() + delay), a, n, gp.is_write()});
        if (gp.is_write()) std::memcpy(&bytes[a], gp.get_data_ptr(), n);
        else std::memcpy(gp.get_data_ptr(), &bytes[a], n);
        const bool hit = lines.count(a / kLine) > 0;
        lines.insert(a / kLine);
        delay += ns(hit ? hit_ns : miss_ns);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    std::vector<Access> reads_at_or_after(uint64_t from) const {
        std::vector<Access> r;
        for (const Access& x : accesses)
            if (!x.write && x.address >= from) r.push_back(x);
        return r;
    }
};

// The GLC and WLM: writes the ISU context and CPRs at time 0 and block descriptors when told;
// records every notice with the time it was sent.
struct Driver : sc_core::sc_module {
    struct Notice {
        double t;
        SmNotice n;
    };
    tlm_utils::simple_initiator_socket<Driver> to_sm{"to_sm"};
    tlm_utils::simple_target_socket<Driver> from_sm{"from_sm"};
    std::vector<std::pair<uint32_t, IsuContext>> contexts;
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> cprs;
    std::vector<std::pair<double, BlockDescriptor>> blocks;
    std::vector<std::pair<double, uint32_t>> drained;  // M3: (time, kernel slot), after the blocks
    std::vector<Notice> notices;
    explicit Driver(sc_core::sc_module_name n) : sc_module(n) {
        from_sm.register_b_transport(this, &Driver::receive);
        SC_HAS_PROCESS(Driver);
        SC_THREAD(run);
    }
    void run() {
        for (const auto& [slot, c] : contexts) {
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_sm, map::kSmIsuContext + slot * sizeof(IsuContext), c, d) == tlm::TLM_OK_RESPONSE);
        }
        for (const auto& [slot, v] : cprs) {
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(transport(to_sm, tlm::TLM_WRITE_COMMAND, map::kSmCprTable + slot * map::kCprBytes,
                              const_cast<uint8_t*>(v.data()), unsigned(v.size()), d) == tlm::TLM_OK_RESPONSE);
        }
        for (const auto& [at, b] : blocks) {
            if (at > at_ns(sc_core::sc_time_stamp())) wait(ns(at) - sc_core::sc_time_stamp());
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;  // posted: the SM acts on it after the bus
            REQUIRE(write_msg(to_sm, map::kSmDispatch, b, d) == tlm::TLM_OK_RESPONSE);
        }
        for (const auto& [at, slot] : drained) {  // as the GLC writes them
            if (at > at_ns(sc_core::sc_time_stamp())) wait(ns(at) - sc_core::sc_time_stamp());
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_sm, map::kSmKernelDrained, KernelDrained{slot, 0}, d) == tlm::TLM_OK_RESPONSE);
        }
    }
    void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        REQUIRE(gp.get_address() == map::kGlcSmNotice);
        REQUIRE(gp.get_data_length() == sizeof(SmNotice));
        notices.push_back({at_ns(sc_core::sc_time_stamp() + delay), from_bytes<SmNotice>(gp.get_data_ptr())});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    std::vector<Notice> of(NoticeKind k) const {
        std::vector<Notice> r;
        for (const Notice& x : notices)
            if (x.n.kind == k) r.push_back(x);
        return r;
    }
};

// The lock arbiter: each request gets `verdict(request)`, written back `decide_ns` after the
// request arrived.
struct ArbiterStandIn : sc_core::sc_module {
    struct Request {
        double t;  // arrival
        LockRequest r;
    };
    tlm_utils::simple_target_socket<ArbiterStandIn> regs{"regs"};
    tlm_utils::simple_initiator_socket<ArbiterStandIn> to_sm{"to_sm"};
    std::function<LockVerdict(const LockRequest&)> verdict = [](const LockRequest&) { return LockVerdict::wait; };
    double decide_ns = 2;
    std::vector<Request> requests;
    std::deque<std::pair<double, LockDecision>> pending;
    sc_core::sc_event wake;
    explicit ArbiterStandIn(sc_core::sc_module_name n) : sc_module(n) {
        regs.register_b_transport(this, &ArbiterStandIn::receive);
        SC_HAS_PROCESS(ArbiterStandIn);
        SC_THREAD(run);
    }
    void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        REQUIRE(gp.get_address() == map::kArbiterRequest);
        const LockRequest r = from_bytes<LockRequest>(gp.get_data_ptr());
        const double arrival = at_ns(sc_core::sc_time_stamp() + delay);
        requests.push_back({arrival, r});
        pending.push_back({arrival + decide_ns, LockDecision{r, verdict(r), 0}});
        wake.notify(ns(arrival + decide_ns) - sc_core::sc_time_stamp());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void run() {
        for (;;) {
            wait(wake);
            while (!pending.empty() && pending.front().first <= at_ns(sc_core::sc_time_stamp())) {
                sc_core::sc_time d = sc_core::SC_ZERO_TIME;
                REQUIRE(write_msg(to_sm, map::kSmLockDecision, pending.front().second, d) == tlm::TLM_OK_RESPONSE);
                pending.pop_front();
            }
            if (!pending.empty()) wake.notify(ns(pending.front().first) - sc_core::sc_time_stamp());
        }
    }
};

// What the SM tells its observer, with times in ns.
struct SmLog : Observer {
    struct StageAt {
        uint32_t slot;
        Stage s;
        double t;
    };
    std::vector<StageAt> stages;
    std::vector<WarpRecord> warps;
    std::vector<LockEvent> locks;
    std::vector<std::pair<double, std::array<uint32_t, 4>>> pool;
    std::vector<std::string> stalls;
    void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) override { stages.push_back({slot, s, at_ns(t)}); }
    void warp_finished(const WarpRecord& w) override { warps.push_back(w); }
    void lock_event(const LockEvent& e) override { locks.push_back(e); }
    void scalar_pool(uint32_t, const std::array<uint32_t, 4>& used, const sc_core::sc_time& t) override {
        pool.push_back({at_ns(t), used});
    }
    void lock_stalled(uint32_t, const std::string& state, const sc_core::sc_time&) override { stalls.push_back(state); }
    double stage(uint32_t slot, Stage s) const {
        for (const StageAt& x : stages)
            if (x.slot == slot && x.s == s) return x.t;
        return -1;
    }
    // The warps' (block, warp index, start, end) in the order they ended.
    const WarpRecord& warp(uint64_t block, uint32_t index) const {
        for (const WarpRecord& w : warps)
            if (w.block == block && w.warp == index) return w;
        throw std::runtime_error("no such warp");
    }
};

// A small SM: `slots` warp slots, 4096 registers, 4 KiB of shared memory, warps of 32 threads;
// the L1I answers in 20 ns, the L1D in 300 ns (20 on a hit).
inline SmConfig small_sm(uint32_t slots = 4) {
    SmConfig c;
    c.warp_slots = slots;
    c.registers = 4096;
    c.shared_memory = 4096;
    c.warp_launch_cycles = 4;
    c.atomic_latency_cycles = 10;
    c.lock_backoff_cycles = 0;
    c.max_kernels = 4;
    return c;
}

struct SmBench {
    SmLog log;
    CoreClock core_clock{"core_clock"};
    Driver driver{"driver"};
    MemoryStandIn l1i{"l1i", 20, 20};
    MemoryStandIn l1d{"l1d", 300, 20};
    ArbiterStandIn arbiter{"arbiter"};
    StreamingMultiprocessor sm;

    explicit SmBench(const SmConfig& c = small_sm(), SmPolicy policy = {})
        : sm("sm", 0, c, kLine, Clock(1000), ns(2), core_clock, policy, &log) {
        driver.to_sm.bind(sm.regs);
        arbiter.to_sm.bind(sm.regs);
        sm.to_glc.bind(driver.from_sm);
        sm.to_l1i.bind(l1i.socket);
        sm.to_l1d.bind(l1d.socket);
        sm.to_arbiter.bind(arbiter.regs);
    }
    // Kernel slot `slot` runs `program` (an `end` is added), with `kernarg_bytes` of arguments.
    void kernel(uint32_t slot, std::vector<Instruction> program, uint32_t kernarg_bytes = 0,
                std::array<uint16_t, 4> scalars = {}) {
        program.push_back(Instruction{Opcode::end, 0, 0, 0});
        const uint64_t base = kCode + slot * 0x1000;
        for (size_t i = 0; i < program.size(); ++i) {
            const uint64_t w = program[i].encode();
            std::memcpy(&l1i.bytes[base + i * kInstructionBytes], &w, sizeof w);
        }
        IsuContext c{};
        c.pc = base;
        c.kernarg_ptr = kKernargs;
        c.kernarg_size = kernarg_bytes;
        c.valid = 1;
        for (const Instruction& i : program) {  // as build_code_object sets them
            const bool write = i.op == Opcode::salu && (i.mod & kScalarWriteFlag);
            if (i.op == Opcode::barrier) c.syncs |= kSyncBarrier;
            if (write && ScalarLevel(i.mod & 3) == ScalarLevel::workgroup) c.syncs |= kSyncWorkgroupWrite;
            if (write && ScalarLevel(i.mod & 3) == ScalarLevel::kernel) c.syncs |= kSyncKernelWrite;
        }
        for (size_t l = 0; l < 4; ++l) c.scalars[l] = scalars[l];
        driver.contexts.push_back({slot, c});
    }
    void cprs(uint32_t slot, std::vector<uint8_t> v) { driver.cprs.push_back({slot, std::move(v)}); }
    // A block of `warps` warps of kernel `slot`, written by the driver at `at_ns` (it arrives 2 ns later).
    void block(double at, uint32_t slot, uint64_t id, uint32_t warps, uint32_t priority = 0, uint32_t regs_per_warp = 256,
               uint32_t shared_bytes = 0) {
        driver.blocks.push_back({at, BlockDescriptor{slot, priority, id, warps, warps * 32, regs_per_warp, shared_bytes}});
    }
    // M3: the GLC's word that no more blocks of kernel `slot` will come, written at `at_ns`.
    void drained(double at, uint32_t slot) { driver.drained.push_back({at, slot}); }
    void run(double until_ns = 1e6) { sc_core::sc_start(ns(until_ns)); }
};

inline Instruction valu(uint16_t cycles) { return Instruction{Opcode::valu, 0, cycles, 0}; }
inline Instruction lock(uint16_t id) { return Instruction{Opcode::lock, 0, id, 0}; }
inline Instruction unlock(uint16_t id) { return Instruction{Opcode::unlock, 0, id, 0}; }
inline Instruction kernarg_load() { return Instruction{Opcode::kernarg_load, 0, 0, 0}; }
inline Instruction salu(ScalarLevel level, uint16_t cycles, bool write = false) {
    return Instruction{Opcode::salu, uint8_t(uint8_t(level) | (write ? kScalarWriteFlag : 0)), cycles, 0};
}

}  // namespace gpuvp::test
