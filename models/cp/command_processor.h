// The command processor: hardware queues created through mmio registers, doorbells, the AQL
// packet processor (kernel dispatch, barrier-AND, barrier-OR, vendor-specific draw packets
// for the unified shading array (M4) and copy packets for its copy engine; the barrier bit; acquire and release fences as a
// modelled cost), completion signals and the interrupt. Queues are
// served by priority (0 highest), round-robin within one priority.
#pragma once
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/cp/cp_config.h>

#include <gpuvp/models/common/tlm_util.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

class CommandProcessor : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<CommandProcessor> mmio;                 // host: registers, doorbells
    tlm_utils::multi_passthrough_target_socket<CommandProcessor> internal;  // GLC, WLM: kernel done
    tlm_utils::simple_initiator_socket<CommandProcessor> mem;               // packets, signals
    tlm_utils::simple_initiator_socket<CommandProcessor> to_wlm;
    tlm_utils::simple_initiator_socket<CommandProcessor> to_usa;            // draws (M4)
    sc_core::sc_out<bool> irq;

    CommandProcessor(sc_core::sc_module_name name, const CpConfig& config, uint32_t max_kernels,
                     const DispatchLimits& limits, uint32_t max_draws, const DrawLimits& draw_limits,
                     const Clock& clock, sc_core::sc_time bus, Observer* observer = nullptr);

    struct Queue {
        // registers
        uint64_t ring_base = 0;
        uint32_t ring_size = 0;
        uint32_t priority = 0;
        uint64_t read_index_addr = 0;
        uint32_t control = 0;
        uint32_t type = HSA_QUEUE_TYPE_MULTI;  // hsa_queue_type_t: multi or single
        QueueError status = QueueError::none;
        uint64_t error_packet = 0;
        // packet processor state
        uint64_t read_index = 0;   // the next packet to process
        uint64_t write_index = 0;  // one past the highest packet a doorbell announced
        sc_core::sc_time doorbell_time;
        uint32_t outstanding = 0;  // kernels and draws launched from this queue and not complete
        // Its next packet's header was still INVALID: it waits for a doorbell or for the write
        // notification of that header (a watch armed by the CP's last look at it).
        bool not_ready = false;
        // Changes each time the queue is enabled or disabled: work the packet processor began
        // for the queue before that is no longer the queue's (docs/models/cp.md).
        uint64_t epoch = 0;
        // Polling: its next header or a barrier's signal was read with a watch that came back
        // unacknowledged, so the packet processor looks again at `poll_at` itself; `poll_every`:
        // the interval that set it (zero: not polling since the last change).
        bool polling = false;
        sc_core::sc_time poll_at, poll_every;
        uint64_t polls = 0;  // looks again after an unacknowledged watch
    };
    const Queue& queue(uint32_t q) const { return queues_.at(q); }
    // What the queue's packet processor waits for now, in words ("" when it waits for nothing).
    std::string waiting_for(uint32_t q) const;
    uint64_t packets_processed() const { return packets_; }
    uint64_t completions() const { return completions_; }  // kernels and draws ended, ok or not
    uint32_t in_flight() const;  // kernels, draws and copies launched and not complete
    // Notified when a kernel or a draw is launched or completes (in_flight() changed): the
    // GPU's watchdog starts and stops watching.
    const sc_core::sc_event& in_flight_event() const { return in_flight_event_; }
    // Every enabled queue (indices, status, what it waits for) and every kernel and draw slot
    // in use, in lines of text. For the watchdog's state dump.
    void describe(std::vector<std::string>& out) const;

private:
    KernelDone last_kernel_done_{};  // the internal registers' contents
    DrawDone last_draw_done_{};
    enum class Wait { none, barrier_bit, kernel_slot, draw_slot, signals };
    struct Pending {  // a fetched and checked packet that has not taken effect yet
        std::array<unsigned char, 64> bytes;
        PacketHeader header;
        uint64_t index;
        sc_core::sc_time doorbell, fetched, decoded;
        Wait wait = Wait::none;
    };
    struct Slot {
        bool used = false;
        uint32_t queue = 0;
        uint64_t packet = 0;
        uint64_t signal = 0;
        uint8_t release_scope = 0;
        uint64_t epoch = 0;  // the queue's when the packet was taken
        sc_core::sc_time start;  // copies: when the copy engine took it
    };
    enum class Work : uint8_t { kernel, draw, copy };  // what a slot holds

    void mmio_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned mmio_dbg(tlm::tlm_generic_payload& gp);
    bool access_register(uint64_t address, unsigned char* data, unsigned length, bool write,
                         const sc_core::sc_time& at);
    void internal_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    // Debug reads of the internal "done" registers give the last KernelDone / DrawDone
    // written; debug writes are refused (0 bytes): they must not complete anything.
    unsigned internal_dbg(int id, tlm::tlm_generic_payload& gp);
    void ring_doorbell(uint32_t q, uint64_t value, const sc_core::sc_time& at);
    // A watched header or signal at `address` was written (a write notification has arrived).
    void notice_write(uint64_t address);
    // What queue q waits on (its next header, a barrier's signals) is looked at again.
    void look_again(uint32_t q);
    // Queue q's watch was not acknowledged: it looks again itself, later each time (Polling).
    void poll_later(uint32_t q);
    void poll_due(const sc_core::sc_time& now);
    static void stop_polling(Queue& q) {  // what it waited for came, or a notice will come
        q.polling = false;
        q.poll_every = sc_core::SC_ZERO_TIME;
    }
    uint64_t slot_address(const Queue& q, uint64_t index) const { return q.ring_base + (index % q.ring_size) * kPacketBytes; }

    void run();
    int pick_queue() const;
    bool can_proceed(uint32_t q) const;
    void serve(uint32_t q);
    // Whether queue q is still as it was at `epoch` (not disabled or enabled since).
    bool current(uint32_t q, uint64_t epoch) const { return queues_[q].epoch == epoch; }
    bool fetch(uint32_t q);
    static int free_slot(const std::vector<Slot>& slots);
    void launch(uint32_t q);
    void draw(uint32_t q);
    void copy(uint32_t q);
    void barrier(uint32_t q);
    void complete(std::vector<Slot>& slots, uint32_t slot, KernelError e, uint64_t fault_address, Work work);
    void finish_packet(uint32_t q);
    void queue_error(uint32_t q, uint64_t packet, const PacketCheck& why, uint64_t signal);
    bool write_signal(uint64_t address, int64_t value, bool decrement, sc_core::sc_time* written = nullptr);
    void raise_interrupt(uint32_t q);
    void post_interrupt(uint64_t bits, const sc_core::sc_time& at);
    void drive_irq();
    sc_core::sc_time fence_cost(uint8_t scope, bool acquire) const;

    CpConfig cfg_;
    DispatchLimits limits_;
    DrawLimits draw_limits_;
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    sc_core::sc_event work_event_, irq_event_;  // before the inboxes that wake them
    sc_core::sc_event in_flight_event_;
    std::vector<Queue> queues_;
    std::vector<std::optional<Pending>> pending_;
    std::vector<Slot> slots_;       // kernels in flight
    std::vector<Slot> draw_slots_;  // draws in the shading array (M4)
    // Copies in the copy engine: it takes any number at once (a slot each), each for its duration.
    std::vector<Slot> copy_slots_;
    struct Doorbell {
        sc_core::sc_time at;  // when the write reaches the CP
        uint32_t queue;
        uint64_t value;
    };
    Inbox<KernelDone> done_{work_event_};
    Inbox<DrawDone> draws_done_{work_event_};
    Inbox<uint32_t> copies_done_{work_event_};  // copy slots whose duration has passed
    Inbox<Doorbell> doorbells_{work_event_};
    Inbox<uint64_t> write_notices_{work_event_};  // watched addresses written, when the notice arrives
    Inbox<uint64_t> pending_irqs_{irq_event_};  // INT_STATUS bits and when they rise
    uint64_t int_status_ = 0, int_enable_ = ~0ull;
    int last_served_ = -1;
    bool idle_ = true;
    uint64_t packets_ = 0, completions_ = 0;
    PayloadPool payloads_;  // for its transactions (tlm_util.h)
};

}  // namespace gpuvp
