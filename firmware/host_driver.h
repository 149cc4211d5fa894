// The host model: what a ROCm-like runtime and its firmware do for the scenario's work.
// At time 0 it loads every kernel's code object into device memory (through the GPU's BAR,
// by debug transport: the loader runs before simulated time starts) and creates the queues
// through mmio. Then, per queue, at each kernel's submit time: runtime overhead, kernel
// arguments into host memory, barrier-AND packets for `after` and a barrier-OR packet for
// `after_any`, the AQL packet (body first, header last), a doorbell after each packet. Draws
// (M4) go the same way as vendor-specific draw packets. An interrupt handler reads INT_STATUS
// and the completion signals.
//
// Temporal decoupling (`Workload::quantum_ns`, docs/integration.md): each thread has its own
// HostQuantum. The host's stores into host memory and the runtime's own work only add to the
// thread's local time; the thread waits it out before everything the GPU or another thread
// can observe or that reads what the GPU or another thread writes (every mmio access, every
// read of host memory, the copies through the BAR, the interrupt handler's look at whether a
// launch has rung its doorbell, every wait for a time or an event), and when it reaches the
// quantum. Quantum 0 (the default): every access waits at once, as before decoupling.
#pragma once
#include <gpuvp/firmware/host_quantum.h>
#include <gpuvp/firmware/workload.h>
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/tlm_util.h>

#include <hsa/hsa.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

struct HostLayout {
    uint64_t mmio_base = 0x4000'0000'0000ull;  // where the system bus maps the GPU's mmio
    uint64_t host_bytes = 256ull << 20;
    uint64_t device_bytes = 256ull << 20;
    uint32_t warp_size = 32;
};

// What the host saw of one kernel launch (or one draw): of its first instance, and counts over
// all of them. A kernel or draw with `instances` posts that many packets; the host keeps only
// these counts and the packets in flight, never a record per instance.
struct LaunchRecord {
    std::string name;
    bool draw = false;  // M4: a draw packet, not a kernel
    bool copy = false;  // a replayed trace's copy or fill (a copy packet)
    uint32_t queue = 0;
    uint64_t instances = 1;            // packets it posts
    sc_core::sc_time submit, interval;  // instance i is submitted at submit + i * interval
    uint64_t kernel_object = 0, kernarg = 0, global = 0;  // kernarg: slot 0's segment
    uint64_t signal = 0;       // instance 0's completion signal (as posted: an override may move it)
    uint64_t signal_base = 0;  // slot 0's signal; slot s's is 64 * s further
    uint64_t device_args = 0;         // copy_args: where the launch's copy of the arguments goes
    std::vector<unsigned char> code;  // code per_launch: the code object to copy to kernel_object
    // Signals and kernel-argument segments, `slots` of each (min(instances, queue size)):
    // instance i uses slot i % slots, once the host has seen instance i - slots end.
    uint32_t slots = 1;
    uint64_t kernarg_stride = 0;
    // Instance 0.
    uint64_t packet = ~0ull;  // its index in the queue
    sc_core::sc_time doorbell, seen_complete;
    // A replayed trace's launch (closed loop): when the host call that submitted it started
    // and returned (the first instance's; unset otherwise).
    std::optional<sc_core::sc_time> call_start, call_end;
    bool rung = false, first_done = false;
    std::string error;  // empty: ok
    // Every instance.
    uint64_t posted = 0;  // packets written and rung
    uint64_t ended = 0;   // seen ended by the host: completed, failed or not processed
    uint64_t failed = 0;  // of those, not ok
    bool done = false;    // every instance ended
    struct Failure {
        uint64_t instance = 0, packet = 0;
        std::string error;
    };
    std::optional<Failure> first_failure;  // the lowest-numbered instance that failed
};

// A packet the host has posted and not yet seen end (kernel or draw instances only).
struct PostedPacket {
    size_t launch = 0;  // index into launches()
    uint64_t instance = 0;
    uint32_t slot = 0;
    uint64_t packet = 0, signal = 0;
    sc_core::sc_time submit, doorbell;
    uint64_t order = 0;  // its place among every instance of its queue, in submit order
};

class HostDriver : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostDriver> bus;  // the system bus: host memory and GPU mmio
    sc_core::sc_in<bool> irq;

    HostDriver(sc_core::sc_module_name name, const Workload& work, const HostLayout& layout);

    // The kernels in the workload's order, then the draws in theirs, then the copies.
    const std::vector<LaunchRecord>& launches() const { return launches_; }
    // The packet `packet` of queue `q` if the host posted it for a kernel or a draw and has not
    // seen it end; nullptr otherwise (a barrier packet, or one already ended).
    const PostedPacket* posted(uint32_t q, uint64_t packet) const;
    // The lowest-numbered instance of launch `k` that has not ended (nullopt if all have), and
    // whether it was posted (then `packet` is its packet).
    struct Unended {
        uint64_t instance = 0;
        bool posted = false;
        uint64_t packet = 0;
    };
    std::optional<Unended> first_unended(size_t k) const;
    // Packets posted and not yet seen ended, over every queue (bounded: at most the slots of
    // each launch).
    size_t in_flight() const;
    bool all_done() const;
    uint32_t queue_index(const std::string& name) const;
    uint64_t interrupts() const { return interrupts_; }
    // The host threads' waits so far (context switches): every keeper sync and every wait
    // for the interrupt, all threads.
    uint64_t syncs() const;

private:
    struct QueueState {
        QueueSpec spec;
        uint64_t ring = 0, read_index_addr = 0;
        uint64_t write_index = 0;
        std::vector<size_t> kernels;  // launches_ indices on this queue, in file order
        HostQuantum qk;               // its submitting thread's
        std::map<uint64_t, PostedPacket> in_flight;  // by packet index
        uint64_t instances = 0;       // of every launch on the queue
        uint64_t posted = 0;          // of those, posted so far
        bool stopped = false;         // the host saw the queue's error
    };
    void end_of_elaboration() override;
    void create_queues();
    void submit_queue(uint32_t q);
    // A replayed trace's host thread (Workload::calls, closed loop): its calls in order.
    void replay_calls(uint32_t thread);
    // Submits instance `instance` of launch k (a kernel, a draw or a copy) to queue q from the
    // thread whose keeper is qk. False: the queue took no more packets.
    bool submit_launch(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance);
    bool submit(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance);
    bool submit_draw(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance);
    bool submit_copy(HostQuantum& qk, uint32_t q, size_t k);
    // Barrier packets for what a launch waits for: barrier-AND packets on every one of `after`
    // (five signals a packet), then one barrier-OR packet on `after_any` (if any).
    bool post_dependencies(HostQuantum& qk, uint32_t q, const std::vector<std::string>& after,
                           const std::vector<std::string>& after_any, bool barrier_bit);
    void take_slot(HostQuantum& qk, size_t k, uint64_t instance);
    sc_core::sc_time submit_time(const LaunchRecord& r, uint64_t instance) const {
        return r.submit + r.interval * double(instance);
    }
    uint64_t slot_signal(const LaunchRecord& r, uint32_t slot) const { return r.signal_base + 64ull * slot; }
    uint64_t slot_kernarg(const LaunchRecord& r, uint32_t slot) const { return r.kernarg + r.kernarg_stride * slot; }
    std::map<uint64_t, PostedPacket>::iterator ended(HostQuantum& qk, uint32_t q, std::map<uint64_t, PostedPacket>::iterator it,
                                                     const std::string& error);
    sc_core::sc_time store_time() const { return sc_core::sc_time(work_.store_ns, sc_core::SC_NS); }
    // How a packet is published: its doorbell value (the packet's index if none), and for a
    // late packet (KernelSpec::publish_delay_ns) the delay and whether the doorbell comes first.
    struct Publish {
        std::optional<uint64_t> doorbell;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        bool doorbell_first = false;
    };
    template <class Packet>
    bool post(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance, Packet& p,
              const std::map<std::string, uint64_t>& overrides, const Publish& how);
    std::optional<uint64_t> reserve_packet(HostQuantum& qk, uint32_t q);
    // The packet into its ring slot: the body, then the header.
    void write_slot(HostQuantum& qk, uint32_t q, uint64_t index, const void* packet);
    void ring(HostQuantum& qk, uint32_t q, uint64_t value);
    // A second producer: writes the reserved packet `how.delay` after now and rings after it.
    void publish_late(uint32_t q, size_t k, uint64_t index, std::array<unsigned char, kPacketBytes> packet,
                      Publish how);
    // At the signal's set_ns the host stores its value (HSA's hsa_signal_store_screlease).
    void set_signal(size_t s);
    void interrupt_handler();
    void copy_to_device(HostQuantum& qk, uint64_t device_address, const std::vector<unsigned char>& bytes,
                        const std::string& what);
    void check_queue(HostQuantum& qk, uint32_t q);
    uint64_t alloc_host(uint64_t bytes, uint64_t align);
    uint64_t alloc_device(uint64_t bytes, uint64_t align);
    // The timed accesses of one thread, with its keeper: see the top of this file.
    void mem_write(HostQuantum& qk, uint64_t address, const void* data, unsigned length);
    void mem_read(HostQuantum& qk, uint64_t address, void* data, unsigned length);
    void mmio_write(HostQuantum& qk, uint64_t offset, const void* data, unsigned length, bool posted);
    void mmio_read(HostQuantum& qk, uint64_t offset, void* data, unsigned length);
    void load(uint64_t address, const std::vector<unsigned char>& bytes);

    Workload work_;
    HostLayout layout_;
    std::vector<QueueState> queues_;
    std::vector<LaunchRecord> launches_;
    std::vector<uint64_t> host_signals_;  // work_.signals' addresses, in their order
    uint64_t other_syncs_ = 0;            // of the threads that end: late producers, signal setters
    struct Slot {
        bool busy = false;         // an instance holds it
        sc_core::sc_time free_at;  // when the handler saw its last instance end (its local time included)
    };
    std::vector<std::vector<Slot>> slots_;  // per launch, per slot
    sc_core::sc_event instance_ended_;      // a slot may have come free
    bool slot_waiter_ = false;              // a submitting thread waits for one
    sc_core::sc_event work_ended_;          // the host saw an instance end (a replayed sync call waits for it)
    bool sync_waiter_ = false;              // a replayed sync call waits for it
    std::map<std::string, size_t> by_name_;  // launches_ by name
    std::vector<std::vector<size_t>> thread_calls_;  // Workload::calls by host thread, in order
    std::vector<HostQuantum> call_quanta_;           // each replayed host thread's keeper
    uint64_t host_next_, device_next_;
    uint64_t interrupts_ = 0;
    HostQuantum setup_quantum_, irq_quantum_;  // create_queues' and interrupt_handler's
    PayloadPool payloads_;  // for its transactions (every thread of it leases its own)
};

// Writes the AQL field overrides of a scenario (`packet:`) into a dispatch packet. Throws
// std::invalid_argument for a name that is not a field.
void apply_packet_overrides(hsa_kernel_dispatch_packet_t& p, const std::map<std::string, uint64_t>& fields);
// The same for a draw packet (M4).
void apply_packet_overrides(DrawPacket& p, const std::map<std::string, uint64_t>& fields);
// A replayed trace's copy packet: the header's fields only.
void apply_packet_overrides(CopyPacket& p, const std::map<std::string, uint64_t>& fields);

}  // namespace gpuvp
