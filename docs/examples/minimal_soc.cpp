// A minimal SoC around gpuvp::Gpu, without YAML and without the firmware model: host memory,
// a system bus, the GPU and a small CPU model that creates a queue, loads a code object,
// writes one AQL kernel dispatch packet with ROCm's types, rings the doorbell and waits for
// the interrupt. See docs/integration.md. Built as `gpuvp_minimal_soc` and run by a test
// (`example:minimal_soc`), so it stays true.
#include <gpuvp/firmware/assembler.h>           // build_code_object: descriptor + extension + code
#include <gpuvp/models/common/aql.h>            // make_header, kPacketBytes
#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/memory_map.h>     // gpuvp::map: mmio offsets, kBar, kDeviceBase
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>
#include <gpuvp/platform/gpu.h>

#include <hsa/hsa.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace map = gpuvp::map;
using sc_core::sc_time;
using sc_core::SC_NS;

// The SoC's address plan (the GPU sees host memory at the same addresses: below kDeviceBase).
constexpr uint64_t kHostBase = 0x0;
constexpr uint64_t kHostBytes = 64ull << 20;
constexpr uint64_t kGpuMmio = 0x4000'0000'0000ull;  // any free range of kBar + device_bytes
constexpr uint64_t kRing = 0x10000, kReadIndex = 0x20000, kKernarg = 0x20040, kSignal = 0x20080;
constexpr uint32_t kRingPackets = 64;
constexpr uint64_t kCodeObject = map::kDeviceBase + 0x10000;  // device memory, 256-byte aligned
constexpr uint64_t kBuffer = map::kDeviceBase + 0x100000;     // the kernel's global buffer

struct Cpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Cpu> bus{"bus"};
    sc_core::sc_in<bool> irq{"irq"};

    SC_HAS_PROCESS(Cpu);
    explicit Cpu(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }

    // One blocking base-protocol access; the initiator honours the annotated delay.
    void access(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length) {
        tlm::tlm_generic_payload gp;
        sc_time delay = sc_core::SC_ZERO_TIME;
        gp.set_command(cmd);
        gp.set_address(address);
        gp.set_data_ptr(static_cast<unsigned char*>(data));
        gp.set_data_length(length);
        gp.set_streaming_width(length);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        bus->b_transport(gp, delay);
        if (!gp.is_response_ok()) SC_REPORT_FATAL("cpu", "bus error");
        wait(delay);
    }
    template <class T> void write(uint64_t a, T v) { access(tlm::TLM_WRITE_COMMAND, a, &v, sizeof v); }
    template <class T> T read(uint64_t a) { T v{}; access(tlm::TLM_READ_COMMAND, a, &v, sizeof v); return v; }

    void run() {
        // 1. The code object into device memory through the BAR (mmio kBar + x = device kDeviceBase + x).
        gpuvp::KernelSpec k;
        k.name = "k";
        k.grid = {256, 1, 1};
        k.block = {64, 1, 1};
        k.kernarg_bytes = 64;
        gpuvp::ProgramStep load;
        load.insn = gpuvp::Instruction{gpuvp::Opcode::kernarg_load};
        gpuvp::ProgramStep work;
        work.insn = gpuvp::Instruction{gpuvp::Opcode::valu, 0, 8};  // 8 cycles of vector work
        work.repeat = 4;
        k.program = {load, work};
        std::vector<unsigned char> image = gpuvp::build_code_object(k, 32);  // 32 = platform.sm.warp_size
        access(tlm::TLM_WRITE_COMMAND, kGpuMmio + map::kBar + (kCodeObject - map::kDeviceBase), image.data(),
               unsigned(image.size()));

        // 2. Kernel arguments (gpuvp's convention: global buffer address, its size), signal = 1,
        //    and every ring slot INVALID, as the HSA runtime initialises a queue.
        uint64_t args[8] = {kBuffer, 4096};
        access(tlm::TLM_WRITE_COMMAND, kKernarg, args, sizeof args);
        write<int64_t>(kSignal, 1);
        std::vector<unsigned char> ring(kRingPackets * gpuvp::kPacketBytes, 0);
        for (uint32_t s = 0; s < kRingPackets; ++s) ring[s * gpuvp::kPacketBytes] = HSA_PACKET_TYPE_INVALID;
        access(tlm::TLM_WRITE_COMMAND, kRing, ring.data(), unsigned(ring.size()));

        // 3. Queue 0 through mmio: exact widths, enable last.
        const uint64_t q = kGpuMmio + map::kQueueRegs + 0 * map::kQueueStride;
        write<uint64_t>(q + map::kQueueRingBase, kRing);
        write<uint32_t>(q + map::kQueueRingSize, kRingPackets);
        write<uint32_t>(q + map::kQueuePriority, 0);
        write<uint64_t>(q + map::kQueueReadIndexAddr, kReadIndex);
        write<uint32_t>(q + map::kQueueControl, 1);
        if (read<uint32_t>(q + map::kQueueStatus) != 0) SC_REPORT_FATAL("cpu", "queue rejected");

        // 4. The AQL packet with ROCm's type: body first, header last, then the doorbell.
        hsa_kernel_dispatch_packet_t p{};
        p.setup = 1;  // dimensions
        p.workgroup_size_x = 64, p.workgroup_size_y = 1, p.workgroup_size_z = 1;
        p.grid_size_x = 256, p.grid_size_y = 1, p.grid_size_z = 1;
        p.kernel_object = kCodeObject;
        p.kernarg_address = reinterpret_cast<void*>(kKernarg);
        p.completion_signal.handle = kSignal;
        const uint64_t index = 0;
        const uint64_t slot = kRing + (index % kRingPackets) * gpuvp::kPacketBytes;
        access(tlm::TLM_WRITE_COMMAND, slot + 2, reinterpret_cast<unsigned char*>(&p) + 2, gpuvp::kPacketBytes - 2);
        write<uint16_t>(slot, gpuvp::make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, false, HSA_FENCE_SCOPE_SYSTEM,
                                                 HSA_FENCE_SCOPE_SYSTEM));
        write<uint64_t>(kGpuMmio + map::kDoorbells + 8 * 0, index);  // the packet's index
        const sc_time rung = sc_core::sc_time_stamp();

        // 5. The interrupt (level, active high): read INT_STATUS, clear it (write 1s), read the signal.
        if (!irq.read()) wait(irq.posedge_event());
        const uint64_t status = read<uint64_t>(kGpuMmio + map::kIntStatus);
        write<uint64_t>(kGpuMmio + map::kIntStatus, status);
        const int64_t signal = read<int64_t>(kSignal);  // 0 done, negative failed
        std::printf("doorbell at %.1f ns, INT_STATUS 0x%llx, signal %lld at %.1f ns, irq now %d\n",
                    rung.to_seconds() * 1e9, (unsigned long long)status, (long long)signal,
                    sc_core::sc_time_stamp().to_seconds() * 1e9, int(irq.read()));
        sc_core::sc_stop();
    }
};

int sc_main(int, char**) {
    gpuvp::GpuConfig cfg;                   // defaults of every block (docs/timing.md)
    cfg.platform.sms = 4;
    cfg.platform.memory.device_bytes = 64ull << 20;
    cfg.policy.dispatch = gpuvp::DispatchPolicy::fifo;  // or priority_block, priority_warp (M1)

    gpuvp::Memory host_memory("host_memory", kHostBytes, sc_time(200, SC_NS));
    gpuvp::Router bus("bus");
    gpuvp::Gpu gpu("gpu", cfg);             // an Observer* may be passed as a third argument
    Cpu cpu("cpu");
    sc_core::sc_signal<bool> irq("irq");

    bus.map(kHostBase, kHostBytes, 0, "host memory");             // out[0]
    bus.out.bind(host_memory.socket);
    bus.map(kGpuMmio, map::kBar + cfg.platform.memory.device_bytes, 0, "gpu mmio");  // out[1]
    bus.out.bind(gpu.mmio);
    cpu.bus.bind(bus.in);
    gpu.sysmem.bind(bus.in);                // the GPU's host-memory traffic, addresses unchanged
    gpu.irq.bind(irq);
    cpu.irq.bind(irq);

    sc_core::sc_start();
    return 0;
}
