// Fuzz target `packets`: a real gpuvp::Gpu with real memory, elaborated once per process, and a
// host firmware module that plays each input (fuzz/packet_input.h): it creates two hardware
// queues afresh through the CP's registers, writes the input's 64-byte packets into their rings
// in host memory, rings doorbells with the input's values and indices, waits, stores to
// signals, restarts queues and writes CP registers, as a buggy firmware might. The harness then
// runs the simulation in slices until the GPU is quiet (no SystemC activity left: nothing in
// flight, every queue stopped, drained or waiting for what will not come) or a bound passes
// (kTimeBound of simulated time, kDeltaBound delta cycles: some inputs start work that runs for
// a long time, e.g. a descriptor and code the input wrote into its own ring; that work then
// goes on under the next input). An input whose own steps outlast the bound (256 waits of
// 16 us are 4 ms) is cut there: the firmware stops after the step it is in.
//
// A bug: a crash, a sanitizer report, a hang, a SystemC error report, or one of the checks
// below failing (a kernel or draw slot given twice or freed unused; at quiet: a kernel or draw
// still in flight, a queue with work it does not start, a count of outstanding work that is not
// 0, a resource not free again (an SM's warp slots, registers or scalar registers, the GLC's
// kernel and SM tables, the shading array's cores and tasks), an interrupt line that disagrees
// with INT_STATUS & INT_ENABLE).
// --expect-clean (replay only): every input must also run without a rejected packet or a failed
// kernel or draw, consume every packet it rang, and become quiet; the seeds are checked so.
// --verbose (replay only): a line per input: quiet or not, simulated time, delta cycles.
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>
#include <gpuvp/platform/gpu.h>
#include "fuzz/packet_input.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace gpuvp;
using namespace gpuvp::fuzz;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;

const sc_time kSlice(10, SC_US);
const sc_time kTimeBound(2000, SC_US);
constexpr uint64_t kDeltaBound = 2'000'000;

bool expect_clean = false, verbose = false;

[[noreturn]] void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz_packets: BUG at %s: %s\n", sc_core::sc_time_stamp().to_string().c_str(), what.c_str());
    std::abort();
}

// The GPU the harness builds: small, so that one input's work is small (cp.max_blocks and
// usa.max_vertex_tasks bound a packet's work), and with every mechanism's policy on.
GpuConfig harness_config() {
    GpuConfig c;
    PlatformConfig& p = c.platform;
    p.clock_mhz = 1000;
    p.sms = 2;
    p.sm.warp_slots = 16;
    p.sm.max_kernels = 4;
    p.sm.lock_watchdog_cycles = 100000;
    p.memory.device_bytes = layout::kDeviceBytes;
    p.cp.max_queues = kQueues;
    p.cp.max_blocks = 16;
    p.usa.cores = 4;
    p.usa.vertex_cores = 2;
    p.usa.max_draws = 2;
    p.usa.pixel_queue = 8;
    p.usa.max_vertex_tasks = 16;
    c.policy.dispatch = DispatchPolicy::priority_warp;
    c.policy.launch = LaunchPolicy::prefetch;
    c.policy.lock = LockPolicy::priority;
    c.policy.scalar = ScalarPolicy::multilevel;
    c.policy.shading = ShadingBalance::adaptive;
    c.log = {{"*", sc_core::SC_NONE}};
    return c;
}

// What the GPU reports, checked as it happens and kept for the checks at quiet.
struct Watch : Observer {
    std::vector<bool> kernels, draws;  // slots in use
    uint64_t rejected = 0, failed = 0, finished = 0;
    std::string last_rejection;

    Watch(uint32_t kernel_slots, uint32_t draw_slots) : kernels(kernel_slots), draws(draw_slots) {}
    static void take(std::vector<bool>& slots, uint32_t slot, const char* what) {
        if (slot >= slots.size()) bug(std::string(what) + " slot " + std::to_string(slot) + " does not exist");
        if (slots[slot]) bug(std::string(what) + " slot " + std::to_string(slot) + " given while in use");
        slots[slot] = true;
    }
    void give(std::vector<bool>& slots, uint32_t slot, KernelError e, const char* what) {
        if (slot >= slots.size() || !slots[slot]) bug(std::string(what) + " slot " + std::to_string(slot) + " completed but not in use");
        slots[slot] = false;
        ++finished;
        if (e != KernelError::none) ++failed;
    }
    void kernel_accepted(uint32_t slot, uint32_t, uint64_t, const sc_time&, const sc_time&) override {
        take(kernels, slot, "kernel");
    }
    void kernel_completed(uint32_t slot, KernelError e, const sc_time&) override { give(kernels, slot, e, "kernel"); }
    void draw_accepted(uint32_t slot, uint32_t, uint64_t, const sc_time&, const sc_time&) override {
        take(draws, slot, "draw");
    }
    void draw_completed(uint32_t slot, KernelError e, const sc_time&) override { give(draws, slot, e, "draw"); }
    void barrier_done(uint32_t, uint64_t, const sc_time&, const sc_time&) override { ++finished; }
    void packet_rejected(uint32_t q, uint64_t packet, const PacketCheck& why, const sc_time&) override {
        ++rejected;
        last_rejection = "queue " + std::to_string(q) + " packet " + std::to_string(packet) + ": " +
                         queue_error_name(why.error) + ": " + why.field + ": " + why.detail;
    }
};

// The host firmware: plays one input when `start` is notified, then sets `done`; with `stop`
// set it ends after the step it is in.
struct Firmware : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Firmware> bus{"bus"};
    sc_core::sc_event start;
    const Input* input = nullptr;
    bool done = true, stop = false;
    std::array<uint64_t, kQueues> written{};  // each queue's write index

    SC_HAS_PROCESS(Firmware);
    explicit Firmware(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }

    void run() {
        for (;;) {
            wait(start);
            play(*input);
            done = true;
        }
    }

    // One timed access; an error response is what a buggy firmware gets, not a harness failure.
    void access(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length) {
        sc_time delay = sc_core::SC_ZERO_TIME;
        transport(bus, cmd, address, data, length, delay);
        wait(delay);
    }
    void store(uint64_t address, const void* data, unsigned length) {
        access(tlm::TLM_WRITE_COMMAND, address, const_cast<void*>(data), length);
    }
    void mmio(uint64_t offset, uint64_t value, unsigned width) {
        store(layout::kMmioBase + offset, &value, width);
    }
    void posted_mmio(uint64_t offset, uint64_t value, unsigned width) {  // does not wait for the write
        sc_time delay = sc_core::SC_ZERO_TIME;
        transport(bus, tlm::TLM_WRITE_COMMAND, layout::kMmioBase + offset, &value, width, delay);
    }
    void load(uint64_t address, const void* data, size_t length) {  // zero time: the harness's reset
        if (debug_transport(bus, tlm::TLM_WRITE_COMMAND, address, const_cast<void*>(data), unsigned(length)) != length)
            bug("the harness cannot write " + std::to_string(length) + " bytes at " + hex(address));
    }

    // Everything the seeds' packets name, written afresh: rings INVALID, read indices 0,
    // signals 1, kernel arguments, both code objects (a kernel may have stored over them).
    void reset_memory(uint32_t warp_size) {
        std::vector<uint8_t> ring(64 * kPacketBytes, 0);
        for (size_t s = 0; s < 64; ++s) ring[s * kPacketBytes] = HSA_PACKET_TYPE_INVALID;
        const uint64_t zero = 0, one = 1;
        for (unsigned q = 0; q < kQueues; ++q) {
            load(layout::kRing[q], ring.data(), ring.size());
            load(layout::kReadIndex[q], &zero, 8);
        }
        for (unsigned i = 0; i < layout::kSignalCount; ++i) load(signal_address(i), &one, 8);
        const uint64_t args[8] = {layout::kBuffer, layout::kBufferBytes};
        load(layout::kKernarg, args, sizeof args);
        const auto a = kernel_a(warp_size), b = kernel_b(warp_size);
        load(layout::kMmioBase + map::kBar + (layout::kKernelA - map::kDeviceBase), a.data(), a.size());
        load(layout::kKernelB, b.data(), b.size());
    }

    void create_queue(unsigned q, const Input& in) {
        const uint64_t regs = map::kQueueRegs + q * map::kQueueStride;
        mmio(regs + map::kQueueControl, 0, 4);
        mmio(regs + map::kQueueRingBase, layout::kRing[q], 8);
        mmio(regs + map::kQueueRingSize, in.ring_packets[q], 4);
        mmio(regs + map::kQueuePriority, in.priority[q], 4);
        mmio(regs + map::kQueueReadIndexAddr, layout::kReadIndex[q], 8);
        mmio(regs + map::kQueueControl, 1, 4);
        written[q] = 0;
    }

    uint64_t slot_address(unsigned q, uint64_t index) const {
        return layout::kRing[q] + (index % input->ring_packets[q]) * kPacketBytes;
    }

    void play(const Input& in) {
        mmio(map::kIntStatus, ~0ull, 8);  // write 1 to clear: every queue's news
        mmio(map::kIntEnable, ~0ull, 8);
        for (unsigned q = 0; q < kQueues; ++q) create_queue(q, in);
        for (const Step& s : in.steps) {
            if (stop) break;
            const unsigned q = s.queue;
            switch (s.op) {
            case Op::packet:
            case Op::body: {  // the body first, the header last, as the HSA runtime does
                const uint64_t at = slot_address(q, written[q]++);
                const uint16_t invalid = HSA_PACKET_TYPE_INVALID;
                if (s.op == Op::body) store(at, &invalid, 2);
                store(at + 2, s.packet.data() + 2, kPacketBytes - 2);
                if (s.op == Op::packet) store(at, s.packet.data(), 2);
                break;
            }
            case Op::header: {
                const uint16_t h = uint16_t(s.value);
                store(slot_address(q, written[q] - 1), &h, 2);
                break;
            }
            case Op::doorbell: mmio(map::kDoorbells + 8 * q, s.value, 8); break;
            case Op::doorbell_next: mmio(map::kDoorbells + 8 * q, written[q] - 1, 8); break;
            case Op::wait: wait(sc_time(64.0 * double(s.value), SC_NS)); break;
            case Op::set_index: written[q] = s.value; break;
            case Op::restart: {
                const uint64_t control = map::kQueueRegs + q * map::kQueueStride + map::kQueueControl;
                mmio(control, 0, 4);
                mmio(control, 1, 4);
                written[q] = 0;
                break;
            }
            case Op::mmio: posted_mmio(s.offset, s.value, s.width); break;
            case Op::signal: store(signal_address(s.index), &s.value, 8); break;
            }
        }
    }
};

struct Harness {
    GpuConfig config = harness_config();
    Watch watch{config.platform.sm.max_kernels, config.platform.usa.max_draws};
    Memory host_memory{"host_memory", layout::kHostBytes, sc_time(200, SC_NS)};
    Router bus{"bus"};
    Gpu gpu{"gpu", config, &watch};
    Firmware firmware{"firmware"};
    sc_core::sc_signal<bool> irq{"irq"};

    Harness() {
        bus.map(0, layout::kHostBytes, 0, "host memory");
        bus.out.bind(host_memory.socket);
        bus.map(layout::kMmioBase, map::kBar + layout::kDeviceBytes, 0, "gpu mmio");
        bus.out.bind(gpu.mmio);
        firmware.bus.bind(bus.in);
        gpu.sysmem.bind(bus.in);
        gpu.irq.bind(irq);
        // Host memory announces writes to what the CP watches, as gpuvp's own platform does:
        // the CP is woken by the write, not by polling (an input's waits stay quiet).
        host_memory.notify.bind(bus.in);
        host_memory.notify_writes_to(layout::kMmioBase + map::kWriteNotice);
    }

    // The checks that hold whenever nothing is left to happen.
    void check_quiet() {
        for (uint32_t s = 0; s < watch.kernels.size(); ++s)
            if (watch.kernels[s]) bug("kernel slot " + std::to_string(s) + " still in flight with nothing left to happen");
        for (uint32_t s = 0; s < watch.draws.size(); ++s)
            if (watch.draws[s]) bug("draw slot " + std::to_string(s) + " still in flight with nothing left to happen");
        for (unsigned q = 0; q < kQueues; ++q) {
            const auto& queue = gpu.cp().queue(q);
            const std::string waits = gpu.cp().waiting_for(q);
            const std::string name = "queue " + std::to_string(q) + ": ";
            if (queue.outstanding != 0)
                bug(name + std::to_string(queue.outstanding) + " kernels or draws outstanding, none in flight");
            if (!(queue.control & 1) || queue.status != QueueError::none) continue;
            if (queue.read_index > queue.write_index)
                bug(name + "read index " + std::to_string(queue.read_index) + " past write index " +
                    std::to_string(queue.write_index));
            const bool on_signals = waits.find("waits on signals") != std::string::npos;
            const bool not_written = waits.find("still INVALID") != std::string::npos;
            if (!waits.empty() && !on_signals && !not_written) bug(name + "stuck: " + waits);
            if (waits.empty() && queue.read_index != queue.write_index)
                bug(name + "packets " + std::to_string(queue.read_index) + " to " + std::to_string(queue.write_index - 1) +
                    " rung but never taken");
        }
        // Nothing runs, so every resource is free again: in each SM, in the GLC's view of it, in
        // the GLC's kernel table, in the shading array.
        const GlcTables& glc = gpu.glc().tables();
        for (uint32_t k = 0; k < glc.kernels.size(); ++k)
            if (glc.kernels[k].valid) bug("GLC kernel row " + std::to_string(k) + " still valid");
        for (uint32_t i = 0; i < gpu.sm_count(); ++i) {
            const SmConfig sm = config.platform.sm_of(i);
            const StreamingMultiprocessor& s = gpu.sm(i);
            const std::string name = "sm[" + std::to_string(i) + "]: ";
            if (s.free_slots() != sm.warp_slots || s.free_registers() != sm.registers)
                bug(name + std::to_string(s.free_slots()) + " warp slots and " + std::to_string(s.free_registers()) +
                    " registers free of " + std::to_string(sm.warp_slots) + " and " + std::to_string(sm.registers));
            if (s.scalar_pool().total_held() != 0)
                bug(name + std::to_string(s.scalar_pool().total_held()) + " scalar registers still held");
            const SmRow& row = glc.sms[i];
            if (row.free_slots != sm.warp_slots || row.free_regs != sm.registers || row.free_shared != sm.shared_memory)
                bug("the GLC's row of " + name + std::to_string(row.free_slots) + " slots, " + std::to_string(row.free_regs) +
                    " registers, " + std::to_string(row.free_shared) + " bytes of shared memory free");
        }
        const ShadingState& usa = gpu.usa().state();
        if (usa.busy_vertex || usa.busy_pixel || usa.ready_vertex || usa.ready_pixel)
            bug("the shading array has busy cores or ready tasks");
        uint64_t status = 0, enable = 0;
        if (debug_transport(firmware.bus, tlm::TLM_READ_COMMAND, layout::kMmioBase + map::kIntStatus, &status, 8) != 8 ||
            debug_transport(firmware.bus, tlm::TLM_READ_COMMAND, layout::kMmioBase + map::kIntEnable, &enable, 8) != 8)
            bug("INT_STATUS or INT_ENABLE cannot be read");
        if (irq.read() != ((status & enable) != 0))
            bug("irq is " + std::to_string(irq.read()) + " but INT_STATUS & INT_ENABLE is " + hex(status & enable));
    }

    void run(const Input& in) {
        const uint64_t rejected = watch.rejected, failed = watch.failed, finished = watch.finished;
        firmware.reset_memory(config.platform.sm.warp_size);
        firmware.input = &in;
        firmware.done = firmware.stop = false;
        firmware.start.notify(sc_core::SC_ZERO_TIME);
        const sc_time t0 = sc_core::sc_time_stamp();
        const uint64_t d0 = sc_core::sc_delta_count();
        bool quiet = false;
        for (;;) {
            if (firmware.done && !sc_core::sc_pending_activity()) {
                quiet = true;
                break;
            }
            if (sc_core::sc_time_stamp() - t0 >= kTimeBound || sc_core::sc_delta_count() - d0 >= kDeltaBound) break;
            // To the slice's end, events or not (SC_EXIT_ON_STARVATION would not move time to an
            // event past the slice's end: the next call would not either).
            sc_core::sc_start(kSlice);
        }
        // The input is gone when this returns: the firmware must not be inside it any more.
        firmware.stop = true;
        for (int i = 0; !firmware.done; ++i) {
            if (i == 10) bug("the firmware did not stop within 10 slices");
            sc_core::sc_start(kSlice);
        }
        if (verbose)
            std::printf("  %s after %s, %llu delta cycles; %llu finished, %llu rejected\n", quiet ? "quiet" : "at the bound",
                        (sc_core::sc_time_stamp() - t0).to_string().c_str(),
                        (unsigned long long)(sc_core::sc_delta_count() - d0), (unsigned long long)(watch.finished - finished),
                        (unsigned long long)(watch.rejected - rejected));
        if (quiet) check_quiet();
        if (!expect_clean) return;
        if (!quiet) bug("expected clean: the input was still running at the bound");
        if (watch.rejected != rejected) bug("expected clean: a packet was rejected: " + watch.last_rejection);
        if (watch.failed != failed) bug("expected clean: a kernel or draw failed");
        if (watch.finished == finished) bug("expected clean: no kernel, draw or barrier finished");
        for (unsigned q = 0; q < kQueues; ++q)
            if (gpu.cp().queue(q).read_index != firmware.written[q])
                bug("expected clean: queue " + std::to_string(q) + " took " + std::to_string(gpu.cp().queue(q).read_index) +
                    " of the " + std::to_string(firmware.written[q]) + " packets written");
    }
};

Harness* harness = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::strcmp((*argv)[i], "--expect-clean") == 0) expect_clean = true;
        else if (std::strcmp((*argv)[i], "--verbose") == 0) verbose = true;
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
    // An error report from a model is a bug: abort there, with its message, not an exception
    // a SystemC process would carry out of sc_start.
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_ABORT);
    harness = new Harness;  // one elaboration per process: kept until the process ends
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const Input in = decode(data, size);
    harness->run(in);
    return 0;
}
