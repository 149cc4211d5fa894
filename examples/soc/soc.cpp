// An SoC platform around gpuvp::Gpu, built only against the installed gpuvp package
// (find_package(gpuvp); docs/integration.md, "Using the installed package"). Copy it.
//
//   Cpu.bus ----> Interconnect.cpu_in --+--> HostMemory   [kHostBase, kHostBase + kHostBytes)
//                                       +--> gpu.mmio     [kGpuBase, kGpuBase + kGpuWindow)
//   gpu.sysmem -> Interconnect.gpu_in ----> HostMemory   (the GPU reaches host memory only)
//   gpu.irq ----> sc_signal<bool> irq ----> Cpu.irq
//
// The CPU stand-in does what a driver does: it loads a kernel object into the GPU's device
// memory through the BAR, prepares the kernel arguments, a completion signal and a ring in
// host memory, creates queue 0 through the command processor's registers, writes one AQL
// kernel dispatch packet (ROCm's hsa_kernel_dispatch_packet_t) with its header last, rings
// the doorbell and sleeps until the interrupt. Then it queues a barrier-AND packet on a signal it
// sets later with a plain store through DMI: its HostMemory knows nothing of gpuvp's write
// notification, so the CP polls the signal and releases the barrier within cp.signal_poll_ns of
// the store. Exit code 0 when the kernel completed and the barrier was released.
//
// `soc_example --check-protocol` puts gpuvp's TLM-2.0 base-protocol checker on each of the
// SoC's bindings and on every connection inside the GPU, prints what they saw and exits 1 on
// any violation: how to check your own platform's sockets.
#include <gpuvp/models/checker/checked_bindings.h>// gpuvp::CheckedBindings, gpuvp::ProtocolLog
#include <gpuvp/models/common/isa.h>              // gpuvp::Instruction: the GPU's 64-bit instruction words
#include <gpuvp/models/common/memory_map.h>       // gpuvp::map: mmio register offsets, kBar, kDeviceBase
#include <gpuvp/platform/gpu.h>                   // gpuvp::Gpu, gpuvp::GpuConfig

#include <hsa/amd_hsa_kernel_code.h>              // amd_kernel_code_t: the kernel descriptor
#include <hsa/hsa.h>                              // hsa_kernel_dispatch_packet_t, the AQL header fields
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace map = gpuvp::map;
using sc_core::sc_time;
using sc_core::SC_NS;

// ---- The SoC's physical address map ----------------------------------------------------
// The GPU puts host addresses (rings, packets, kernel arguments, signals) on `sysmem`
// unchanged, and everything below map::kDeviceBase (2^44) is host memory to it: host memory
// must sit at the same addresses for the CPU and for the GPU.
constexpr uint64_t kHostBase = 0x8000'0000ull;       // host DRAM, 64 MiB at 2 GiB
constexpr uint64_t kHostBytes = 64ull << 20;
constexpr uint64_t kDeviceBytes = 64ull << 20;       // GpuConfig: platform.memory.device_bytes
constexpr uint64_t kGpuBase = 0x4000'0000'0000ull;   // the GPU's mmio: CP registers, then the BAR
constexpr uint64_t kGpuWindow = map::kBar + kDeviceBytes;
constexpr uint32_t kWarpSize = 32;                   // GpuConfig: platform.sm.warp_size

// ---- Where the driver puts things -----------------------------------------------------
constexpr uint32_t kQueue = 0;                       // which of the CP's queues
constexpr uint32_t kRingPackets = 64;                // a power of two, 4 ... 131072
constexpr uint64_t kRing = kHostBase + 0x1'0000;     // 64-byte aligned, kRingPackets * 64 bytes
constexpr uint64_t kReadIndex = kHostBase + 0x2'0000;  // the CP writes its read index here
constexpr uint64_t kKernarg = kHostBase + 0x2'0040;  // the kernel's arguments
constexpr uint64_t kSignal = kHostBase + 0x2'0080;   // completion signal: an int64, 8-aligned
constexpr uint64_t kDep = kHostBase + 0x2'00c0;      // the barrier's dependency signal
constexpr uint64_t kBarrierSignal = kHostBase + 0x2'0100;  // the barrier's completion signal
constexpr uint64_t kKernelObject = map::kDeviceBase + 0x1'0000;  // device memory, 64-byte aligned
constexpr uint64_t kBuffer = map::kDeviceBase + 0x10'0000;       // the kernel's global buffer
constexpr uint32_t kPacketBytes = sizeof(hsa_kernel_dispatch_packet_t);  // 64: one ring slot

// ---- Host memory: a TLM target with b_transport, transport_dbg and DMI ---------------------
class HostMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<HostMemory> socket{"socket"};

    HostMemory(sc_core::sc_module_name name, uint64_t bytes, sc_time latency)
        : sc_module(name), data_(bytes, 0), latency_(latency) {
        socket.register_b_transport(this, &HostMemory::b_transport);
        socket.register_transport_dbg(this, &HostMemory::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &HostMemory::get_direct_mem_ptr);
    }

private:
    // Addresses are offsets into this memory. Returns the bytes copied (0 on an error).
    unsigned copy(tlm::tlm_generic_payload& gp) {
        const uint64_t address = gp.get_address(), length = gp.get_data_length();
        if (gp.get_byte_enable_ptr()) {
            gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return 0;
        }
        if (gp.get_streaming_width() < length) {
            gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
            return 0;
        }
        if (address >= data_.size() || length > data_.size() - address) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return 0;
        }
        if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &data_[address], length);
        else if (gp.is_write()) std::memcpy(&data_[address], gp.get_data_ptr(), length);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return unsigned(length);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
        copy(gp);
        delay += latency_;
        gp.set_dmi_allowed(true);  // a hint: initiators may ask for a direct pointer
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return copy(gp); }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_dmi_ptr(data_.data());
        dmi.set_start_address(0);
        dmi.set_end_address(data_.size() - 1);
        dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
        dmi.set_read_latency(latency_);
        dmi.set_write_latency(latency_);
        return true;
    }

    std::vector<unsigned char> data_;
    sc_time latency_;
};

// ---- The interconnect: decodes addresses, forwards with the target's local address ---------
// The CPU reaches host memory and the GPU's mmio; the GPU's sysmem reaches host memory only.
class Interconnect : public sc_core::sc_module {
public:
    enum Port { kFromCpu = 0, kFromGpu = 1 };
    tlm_utils::simple_target_socket_tagged<Interconnect> cpu_in{"cpu_in"};
    tlm_utils::simple_target_socket_tagged<Interconnect> gpu_in{"gpu_in"};
    tlm_utils::simple_initiator_socket<Interconnect> to_memory{"to_memory"};
    tlm_utils::simple_initiator_socket<Interconnect> to_gpu{"to_gpu"};

    explicit Interconnect(sc_core::sc_module_name name) : sc_module(name) {
        for (auto [socket, port] : {std::pair{&cpu_in, kFromCpu}, std::pair{&gpu_in, kFromGpu}}) {
            socket->register_b_transport(this, &Interconnect::b_transport, port);
            socket->register_transport_dbg(this, &Interconnect::transport_dbg, port);
            socket->register_get_direct_mem_ptr(this, &Interconnect::get_direct_mem_ptr, port);
        }
        to_memory.register_invalidate_direct_mem_ptr(this, &Interconnect::invalidate_memory);
    }

private:
    struct Route {
        tlm_utils::simple_initiator_socket<Interconnect>* out = nullptr;  // null: no target
        uint64_t base = 0, size = 0;
    };
    static sc_time hop() { return sc_time(1, SC_NS); }  // the interconnect's own latency

    Route decode(int port, const tlm::tlm_generic_payload& gp) {
        const uint64_t a = gp.get_address(), n = gp.get_data_length();
        auto inside = [&](uint64_t base, uint64_t size) { return a >= base && a - base < size && n <= size - (a - base); };
        if (inside(kHostBase, kHostBytes)) return {&to_memory, kHostBase, kHostBytes};
        if (port == kFromCpu && inside(kGpuBase, kGpuWindow)) return {&to_gpu, kGpuBase, kGpuWindow};
        return {};
    }
    void b_transport(int port, tlm::tlm_generic_payload& gp, sc_time& delay) {
        const Route r = decode(port, gp);
        if (!r.out) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        const uint64_t address = gp.get_address();
        gp.set_address(address - r.base);
        delay += hop();
        (*r.out)->b_transport(gp, delay);
        gp.set_address(address);
    }
    unsigned transport_dbg(int port, tlm::tlm_generic_payload& gp) {
        const Route r = decode(port, gp);
        if (!r.out) return 0;
        const uint64_t address = gp.get_address();
        gp.set_address(address - r.base);
        const unsigned n = (*r.out)->transport_dbg(gp);
        gp.set_address(address);
        return n;
    }
    bool get_direct_mem_ptr(int port, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        const Route r = decode(port, gp);
        if (!r.out) return false;
        const uint64_t address = gp.get_address();
        gp.set_address(address - r.base);
        const bool granted = (*r.out)->get_direct_mem_ptr(gp, dmi);
        gp.set_address(address);
        // The target's range, in its own addresses, back into the SoC's (within the window).
        dmi.set_start_address(dmi.get_start_address() + r.base);
        dmi.set_end_address(std::min<uint64_t>(dmi.get_end_address(), r.size - 1) + r.base);
        return granted;
    }
    void invalidate_memory(sc_dt::uint64 start, sc_dt::uint64 end) {
        cpu_in->invalidate_direct_mem_ptr(start + kHostBase, end + kHostBase);
        gpu_in->invalidate_direct_mem_ptr(start + kHostBase, end + kHostBase);
    }
};

// ---- The kernel object: ROCm's amd_kernel_code_t, then the code --------------------------
// The GPU runs gpuvp's abstract instruction set (docs/memory-map.md, "The kernel object"): one
// 64-bit word per instruction at kernel_object + kernel_code_entry_byte_offset.
std::vector<unsigned char> make_kernel_object() {
    using gpuvp::Instruction;
    using gpuvp::Opcode;
    const uint64_t code[] = {
        Instruction{Opcode::kernarg_load}.encode(),   // the arguments: buffer address and size
        Instruction{Opcode::valu, 0, 8}.encode(),     // 8 cycles of vector work, four times
        Instruction{Opcode::valu, 0, 8}.encode(),
        Instruction{Opcode::valu, 0, 8}.encode(),
        Instruction{Opcode::valu, 0, 8}.encode(),
        Instruction{Opcode::end}.encode(),
    };
    amd_kernel_code_t d{};
    d.amd_kernel_code_version_major = AMD_KERNEL_CODE_VERSION_MAJOR;
    d.amd_kernel_code_version_minor = AMD_KERNEL_CODE_VERSION_MINOR;
    d.amd_machine_kind = AMD_MACHINE_KIND_AMDGPU;
    d.kernel_code_entry_byte_offset = sizeof d;   // 256: the code right after the descriptor
    d.wavefront_size = 5;                         // log2(kWarpSize)
    d.workitem_vgpr_count = 16;                   // registers per warp = 16 * kWarpSize
    d.kernarg_segment_byte_size = 16;
    d.kernarg_segment_alignment = AMD_POWERTWO_16;
    d.group_segment_alignment = AMD_POWERTWO_16;
    d.private_segment_alignment = AMD_POWERTWO_16;
    static_assert(1u << 5 == kWarpSize, "wavefront_size is log2 of the GPU's warp size");

    std::vector<unsigned char> image(sizeof d + sizeof code);
    std::memcpy(image.data(), &d, sizeof d);
    std::memcpy(image.data() + sizeof d, code, sizeof code);
    return image;
}

// The 16-bit AQL header, from hsa.h's field positions.
constexpr uint16_t aql_header(hsa_packet_type_t type, hsa_fence_scope_t acquire, hsa_fence_scope_t release) {
    return uint16_t(type << HSA_PACKET_HEADER_TYPE | acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                    release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

// ---- The CPU stand-in: one driver thread ---------------------------------------------------
class Cpu : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<Cpu> bus{"bus"};
    sc_core::sc_in<bool> irq{"irq"};

    SC_HAS_PROCESS(Cpu);
    explicit Cpu(sc_core::sc_module_name name) : sc_module(name) { SC_THREAD(run); }

    bool passed() const { return passed_; }

private:
    void run() {
        try {
            drive();
            passed_ = true;
        } catch (const Failure& e) {
            std::fprintf(stderr, "soc_example: FAILED: %s\n", e.what());
        }
        sc_core::sc_stop();
    }

    void drive() {
        // 1. The kernel object into device memory, through the BAR (mmio kBar + x is device
        //    address kDeviceBase + x).
        const std::vector<unsigned char> kernel = make_kernel_object();
        write_bytes(kGpuBase + map::kBar + (kKernelObject - map::kDeviceBase), kernel.data(), kernel.size());

        // 2. Host memory: kernel arguments (gpuvp's convention: the global buffer's device
        //    address, its size), the completion signal = 1, and every ring slot's header INVALID,
        //    as the HSA runtime initialises a queue.
        const uint64_t args[2] = {kBuffer, 4096};
        write_bytes(kKernarg, args, sizeof args);
        write<int64_t>(kSignal, 1);
        init_ring();

        // 3. The queue, through the CP's registers: exact widths, enable last, then check it.
        const uint64_t q = kGpuBase + map::kQueueRegs + kQueue * map::kQueueStride;
        write<uint64_t>(q + map::kQueueRingBase, kRing);
        write<uint32_t>(q + map::kQueueRingSize, kRingPackets);
        write<uint32_t>(q + map::kQueuePriority, 0);
        write<uint64_t>(q + map::kQueueReadIndexAddr, kReadIndex);
        write<uint32_t>(q + map::kQueueControl, 1);
        check(read<uint32_t>(q + map::kQueueStatus) == 0, "the GPU refused the queue (STATUS not 0)");

        // 4. The AQL kernel dispatch packet, in slot index % kRingPackets: bytes 2-63 first, the
        //    header last, which publishes the packet.
        hsa_kernel_dispatch_packet_t p{};
        p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;  // one dimension
        p.workgroup_size_x = 64, p.workgroup_size_y = 1, p.workgroup_size_z = 1;
        p.grid_size_x = 256, p.grid_size_y = 1, p.grid_size_z = 1;  // 4 workgroups of 2 warps
        p.kernel_object = kKernelObject;
        p.kernarg_address = reinterpret_cast<void*>(kKernarg);
        p.completion_signal.handle = kSignal;  // the GPU decrements it: 0 done, negative failed
        const uint64_t index = 0;              // the queue's write index
        const uint64_t slot = kRing + (index % kRingPackets) * kPacketBytes;
        write_bytes(slot + 2, reinterpret_cast<const unsigned char*>(&p) + 2, kPacketBytes - 2);
        write<uint16_t>(slot, aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_FENCE_SCOPE_SYSTEM,
                                         HSA_FENCE_SCOPE_SYSTEM));

        // 5. The doorbell: the index of the last packet written.
        write<uint64_t>(kGpuBase + map::kDoorbells + 8 * kQueue, index);

        // 6. Sleep until the interrupt (level, active high), with a deadline.
        if (!irq.read()) wait(sc_time(1, sc_core::SC_MS), irq.posedge_event());
        check(irq.read(), "no interrupt within 1 ms");
        const sc_time done = sc_core::sc_time_stamp();
        const uint64_t status = read<uint64_t>(kGpuBase + map::kIntStatus);
        write<uint64_t>(kGpuBase + map::kIntStatus, status);  // write 1s to clear
        check(status & (1ull << kQueue), "INT_STATUS does not name the queue");
        check(read<uint32_t>(q + map::kQueueStatus) == 0, "the queue stopped on an error");
        const int64_t signal = read<int64_t>(kSignal);
        check(signal == 0, "completion signal is " + std::to_string(signal) + ", not 0");
        check(read<uint64_t>(kReadIndex) == index + 1, "the CP's read index is not past the packet");

        std::printf("kernel done at %.1f ns, signal %lld\n", done.to_seconds() * 1e9, (long long)signal);

        // 7. A barrier-AND packet on a signal the CPU sets later with a plain store (through its
        //    DMI pointer), and no doorbell after it. This HostMemory does not implement gpuvp's
        //    write notification (it ignores the WriteWatch extension), so the CP looks at the
        //    signal again itself (docs/models/cp.md, "Polling"): the barrier is released within
        //    cp.signal_poll_ns (1000 ns by default) of the store, plus a read and its processing.
        write<int64_t>(kDep, 1);
        write<int64_t>(kBarrierSignal, 1);
        hsa_barrier_and_packet_t b{};
        b.dep_signal[0].handle = kDep;
        b.completion_signal.handle = kBarrierSignal;
        const uint64_t next = index + 1;
        const uint64_t next_slot = kRing + (next % kRingPackets) * kPacketBytes;
        write_bytes(next_slot + 2, reinterpret_cast<const unsigned char*>(&b) + 2, kPacketBytes - 2);
        write<uint16_t>(next_slot, aql_header(HSA_PACKET_TYPE_BARRIER_AND, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE));
        write<uint64_t>(kGpuBase + map::kDoorbells + 8 * kQueue, next);
        wait(sc_time(5, sc_core::SC_US));  // the CP has read the signal (1) and waits on it
        check(!irq.read() && read<int64_t>(kBarrierSignal) == 1, "the barrier was released before its signal was set");
        const int64_t zero = 0;
        store(kDep, &zero, sizeof zero);
        const sc_time stored = sc_core::sc_time_stamp();
        if (!irq.read()) wait(sc_time(1, sc_core::SC_MS), irq.posedge_event());
        check(irq.read(), "the barrier was not released within 1 ms of its signal's store");
        const sc_time released = sc_core::sc_time_stamp() - stored;
        write<uint64_t>(kGpuBase + map::kIntStatus, read<uint64_t>(kGpuBase + map::kIntStatus));
        check(read<int64_t>(kBarrierSignal) == 0, "the barrier's completion signal is not 0");
        check(released < sc_time(3000, SC_NS), "the barrier was released more than 3 us after its signal's store");
        std::printf("barrier released %.1f ns after its signal's store\n", released.to_seconds() * 1e9);
    }

    // Ring slots, header INVALID.
    void init_ring() {
        std::vector<unsigned char> ring(kRingPackets * kPacketBytes, 0);
        for (uint32_t s = 0; s < kRingPackets; ++s) ring[s * kPacketBytes] = HSA_PACKET_TYPE_INVALID;
        store(kRing, ring.data(), ring.size());
    }

    // A plain store to host memory: through a DMI pointer when the interconnect grants one over
    // the bytes, else over the bus.
    void store(uint64_t address, const void* data, size_t length) {
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_address(address);
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        if (bus->get_direct_mem_ptr(gp, dmi) && dmi.is_write_allowed() && dmi.get_start_address() <= address &&
            address + length - 1 <= dmi.get_end_address()) {
            std::memcpy(dmi.get_dmi_ptr() + (address - dmi.get_start_address()), data, length);
            wait(dmi.get_write_latency());
        } else {
            write_bytes(address, static_cast<const unsigned char*>(data), length);
        }
    }

    // One blocking base-protocol access; the CPU waits for the delay it was given.
    void access(tlm::tlm_command cmd, uint64_t address, void* data, size_t length) {
        tlm::tlm_generic_payload gp;
        sc_time delay = sc_core::SC_ZERO_TIME;
        gp.set_command(cmd);
        gp.set_address(address);
        gp.set_data_ptr(static_cast<unsigned char*>(data));
        gp.set_data_length(unsigned(length));
        gp.set_streaming_width(unsigned(length));
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        bus->b_transport(gp, delay);
        char where[64];
        std::snprintf(where, sizeof where, " at 0x%llx", (unsigned long long)address);
        check(gp.is_response_ok(), gp.get_response_string() + where);
        wait(delay);
    }
    void write_bytes(uint64_t address, const void* data, size_t length) {
        std::vector<unsigned char> copy(static_cast<const unsigned char*>(data),
                                        static_cast<const unsigned char*>(data) + length);
        access(tlm::TLM_WRITE_COMMAND, address, copy.data(), length);
    }
    template <class T> void write(uint64_t address, T value) { access(tlm::TLM_WRITE_COMMAND, address, &value, sizeof value); }
    template <class T> T read(uint64_t address) {
        T value{};
        access(tlm::TLM_READ_COMMAND, address, &value, sizeof value);
        return value;
    }
    struct Failure : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    static void check(bool ok, const std::string& what) {
        if (!ok) throw Failure(what);
    }

    bool passed_ = false;
};

int sc_main(int argc, char** argv) {
    const bool check_protocol = argc > 1 && std::string(argv[1]) == "--check-protocol";
    gpuvp::ProtocolLog protocol;  // what the checkers see (used with --check-protocol only)
    gpuvp::ProtocolLog* checked = check_protocol ? &protocol : nullptr;

    gpuvp::GpuConfig cfg;  // every block's defaults (gpuvp's docs/timing.md)
    cfg.platform.sms = 4;
    cfg.platform.sm.warp_size = kWarpSize;
    cfg.platform.memory.device_bytes = kDeviceBytes;

    HostMemory memory("memory", kHostBytes, sc_time(100, SC_NS));
    Interconnect interconnect("interconnect");
    gpuvp::Gpu gpu("gpu", cfg, nullptr, checked);  // with a log: a checker on each inner connection
    Cpu cpu("cpu");
    sc_core::sc_signal<bool> irq("irq");

    gpuvp::CheckedBindings connect(checked);  // a.bind(b), or a -> checker -> b
    connect(cpu.bus, interconnect.cpu_in);
    connect(gpu.sysmem, interconnect.gpu_in);  // every access the GPU makes to host memory
    connect(interconnect.to_memory, memory.socket);
    connect(interconnect.to_gpu, gpu.mmio);
    gpu.irq.bind(irq);
    cpu.irq.bind(irq);

    gpu.run_ahead_until(sc_core::sc_max_time());  // the SMs may run ahead: this sc_start has no end
    sc_core::sc_start();
    if (check_protocol) std::printf("%s", protocol.summary().c_str());
    if (!cpu.passed() || !protocol.clean()) {
        std::fprintf(stderr, "soc_example: FAILED\n");
        return 1;
    }
    return 0;
}
