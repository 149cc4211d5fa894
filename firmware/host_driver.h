// The host model: what a ROCm-like runtime and its firmware do for the scenario's work.
// At time 0 it loads every kernel's code object into device memory (through the GPU's BAR,
// by debug transport: the loader runs before simulated time starts) and creates the queues
// through mmio. Then, per queue, at each kernel's submit time: runtime overhead, kernel
// arguments into host memory, barrier-AND packets for `after` and a barrier-OR packet for
// `after_any`, the AQL packet (body first, header last), a doorbell after each packet. Draws
// (M4) go the same way as vendor-specific draw packets. An interrupt handler reads INT_STATUS
// and the completion signals.
#pragma once
#include "firmware/workload.h"
#include "models/common/aql.h"

#include <hsa/hsa.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <string>
#include <vector>

namespace gpuvp {

struct HostLayout {
    uint64_t mmio_base = 0x4000'0000'0000ull;  // where the system bus maps the GPU's mmio
    uint64_t host_bytes = 256ull << 20;
    uint64_t device_bytes = 256ull << 20;
    uint32_t warp_size = 32;
};

// What the host saw of one kernel launch (or one draw).
struct LaunchRecord {
    std::string name;
    bool draw = false;  // M4: a draw packet, not a kernel
    uint32_t queue = 0;
    uint64_t packet = ~0ull;  // its index in the queue
    uint64_t kernel_object = 0, kernarg = 0, signal = 0, global = 0;
    uint64_t device_code = 0, device_args = 0;  // copy_to_device: where the launch's copies go
    std::vector<unsigned char> code;            // copy_to_device: the code object to copy
    sc_core::sc_time submit, doorbell, seen_complete;
    bool rung = false, done = false;
    std::string error;  // empty: ok
};

class HostDriver : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostDriver> bus;  // the system bus: host memory and GPU mmio
    sc_core::sc_in<bool> irq;

    HostDriver(sc_core::sc_module_name name, const Workload& work, const HostLayout& layout);

    // The kernels in the workload's order, then the draws in theirs.
    const std::vector<LaunchRecord>& launches() const { return launches_; }
    bool all_done() const;
    uint32_t queue_index(const std::string& name) const;
    uint64_t interrupts() const { return interrupts_; }

private:
    struct QueueState {
        QueueSpec spec;
        uint64_t ring = 0, read_index_addr = 0;
        uint64_t write_index = 0;
        std::vector<size_t> kernels;  // launches_ indices in submit order
    };
    void end_of_elaboration() override;
    void create_queues();
    void submit_queue(uint32_t q);
    void submit(uint32_t q, size_t k);
    void submit_draw(uint32_t q, size_t k);
    template <class Packet>
    void post(uint32_t q, LaunchRecord& r, Packet& p, const std::map<std::string, uint64_t>& overrides);
    uint64_t reserve_packet(uint32_t q);
    void write_packet(uint32_t q, uint64_t index, const void* packet);
    void interrupt_handler();
    void copy_to_device(uint64_t device_address, const std::vector<unsigned char>& bytes, const std::string& what);
    void check_queue(uint32_t q);
    uint64_t alloc_host(uint64_t bytes, uint64_t align);
    uint64_t alloc_device(uint64_t bytes, uint64_t align);
    void mem_write(uint64_t address, const void* data, unsigned length);
    void mem_read(uint64_t address, void* data, unsigned length);
    void mmio_write(uint64_t offset, const void* data, unsigned length, bool posted);
    void mmio_read(uint64_t offset, void* data, unsigned length);
    void load(uint64_t address, const std::vector<unsigned char>& bytes);

    Workload work_;
    HostLayout layout_;
    std::vector<QueueState> queues_;
    std::vector<LaunchRecord> launches_;
    uint64_t host_next_, device_next_;
    uint64_t interrupts_ = 0;
};

// Writes the AQL field overrides of a scenario (`packet:`) into a dispatch packet. Throws
// std::invalid_argument for a name that is not a field.
void apply_packet_overrides(hsa_kernel_dispatch_packet_t& p, const std::map<std::string, uint64_t>& fields);
// The same for a draw packet (M4).
void apply_packet_overrides(DrawPacket& p, const std::map<std::string, uint64_t>& fields);

}  // namespace gpuvp
