#include <gpuvp/models/cp/command_processor.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/common/write_watch.h>

#include <algorithm>
#include <cstring>

namespace gpuvp {

using sc_core::sc_time;

CommandProcessor::CommandProcessor(sc_core::sc_module_name name, const CpConfig& config, uint32_t max_kernels,
                                   const DispatchLimits& limits, uint32_t max_draws, const DrawLimits& draw_limits,
                                   const Clock& clock, sc_time bus, Observer* observer)
    : sc_module(name), mmio("mmio"), internal("internal"), mem("mem"), to_wlm("to_wlm"), to_usa("to_usa"),
      irq("irq"), cfg_(config), limits_(limits), draw_limits_(draw_limits), clock_(clock), bus_(bus),
      observer_(observer), queues_(config.max_queues), pending_(config.max_queues), slots_(max_kernels),
      draw_slots_(max_draws) {
    mmio.register_b_transport(this, &CommandProcessor::mmio_b_transport);
    mmio.register_transport_dbg(this, &CommandProcessor::mmio_dbg);
    internal.register_b_transport(this, &CommandProcessor::internal_b_transport);
    internal.register_transport_dbg(this, &CommandProcessor::internal_dbg);
    SC_HAS_PROCESS(CommandProcessor);
    SC_THREAD(run);
    SC_METHOD(drive_irq);
    sensitive << irq_event_;
    dont_initialize();
}

// --- Registers ----------------------------------------------------------------------------

void CommandProcessor::mmio_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
    if (reject_unsupported(gp)) return;
    delay += bus_;
    bool ok = access_register(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.is_write(),
                              sc_core::sc_time_stamp() + delay);
    gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned CommandProcessor::mmio_dbg(tlm::tlm_generic_payload& gp) {
    if (!gp.is_read()) return 0;  // debug writes must not ring doorbells
    return access_register(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), false,
                           sc_core::sc_time_stamp())
               ? gp.get_data_length()
               : 0;
}

bool CommandProcessor::access_register(uint64_t a, unsigned char* data, unsigned n, bool write, const sc_time& at) {
    uint64_t v = 0;
    if (write) {
        if (n != 4 && n != 8) return false;
        std::memcpy(&v, data, n);
    }
    auto reply = [&](uint64_t value, unsigned width) {
        if (n != width) return false;
        if (!write) std::memcpy(data, &value, width);
        return true;
    };
    if (a == map::kGpuId) return !write && reply(map::kGpuIdValue, n == 8 ? 8 : 4);
    if (a == map::kIntStatus) {
        if (n != 8) return false;
        if (write) {
            int_status_ &= ~v;
            irq_event_.notify(at - sc_core::sc_time_stamp());
        } else {
            std::memcpy(data, &int_status_, 8);
        }
        return true;
    }
    if (a == map::kIntEnable) {
        if (n != 8) return false;
        if (write) {
            int_enable_ = v;
            irq_event_.notify(at - sc_core::sc_time_stamp());
        } else {
            std::memcpy(data, &int_enable_, 8);
        }
        return true;
    }
    if (a == map::kWriteNotice) {  // acted on when it arrives, like a doorbell
        if (!write || n != 8) return false;
        write_notices_.post(v, at);
        return true;
    }
    if (a >= map::kDoorbells && a < map::kDoorbells + 8 * queues_.size()) {
        if ((a - map::kDoorbells) % 8 || n != 8) return false;
        if (write) {  // takes effect when the write arrives
            doorbells_.post(Doorbell{at, uint32_t((a - map::kDoorbells) / 8), v}, at);
        }
        else std::memcpy(data, &queues_[(a - map::kDoorbells) / 8].write_index, 8);  // reads the last value + 1
        return true;
    }
    if (a < map::kQueueRegs || a >= map::kQueueRegs + map::kQueueStride * queues_.size()) return false;
    Queue& q = queues_[(a - map::kQueueRegs) / map::kQueueStride];
    const uint64_t r = (a - map::kQueueRegs) % map::kQueueStride;
    const bool enabled = q.control & 1;
    switch (r) {
    case map::kQueueRingBase:
        if (write && !enabled && n == 8) q.ring_base = v;
        return reply(q.ring_base, 8);
    case map::kQueueRingSize:
        if (write && !enabled && n == 4) q.ring_size = uint32_t(v);
        return reply(q.ring_size, 4);
    case map::kQueuePriority:
        if (write && n == 4) q.priority = uint32_t(v);
        return reply(q.priority, 4);
    case map::kQueueReadIndexAddr:
        if (write && !enabled && n == 8) q.read_index_addr = v;
        return reply(q.read_index_addr, 8);
    case map::kQueueType:
        if (write && (v != HSA_QUEUE_TYPE_MULTI && v != HSA_QUEUE_TYPE_SINGLE)) return false;  // no cooperative queues
        if (write && !enabled && n == 4) q.type = uint32_t(v);
        return reply(q.type, 4);
    case map::kQueueControl:
        if (write && n == 4) {
            const bool was_enabled = q.control & 1;
            q.control = uint32_t(v) & 1;
            if (bool(q.control) != was_enabled) {  // what the packet processor held of the queue is dropped
                ++q.epoch;
                stop_polling(q);
                pending_[(a - map::kQueueRegs) / map::kQueueStride].reset();
            }
            if (q.control && !was_enabled) {  // enabling checks the ring and starts it empty
                q.read_index = q.write_index = 0;
                q.outstanding = 0;
                q.not_ready = false;
                q.status = QueueError::none;
                bool pow2 = q.ring_size && !(q.ring_size & (q.ring_size - 1));
                if (!q.ring_base || q.ring_base % 64 || !pow2 || q.ring_size < 4 || q.ring_size > (1u << 17)) {
                    const uint32_t qi = uint32_t((a - map::kQueueRegs) / map::kQueueStride);
                    q.status = QueueError::invalid_queue;
                    if (observer_)
                        observer_->packet_rejected(qi, 0, {QueueError::invalid_queue, "ring",
                                                           "ring base " + hex(q.ring_base) + ", size " +
                                                               std::to_string(q.ring_size) + " packets"}, at);
                    post_interrupt(1ull << qi, at + clock_.cycles(cfg_.irq_cycles));
                }
            }
        }
        return reply(q.control, 4);
    case map::kQueueStatus: return !write && reply(uint32_t(q.status), 4);
    case map::kQueueErrorPacket: return !write && reply(q.error_packet, 8);
    case map::kQueueReadIndex: return !write && reply(q.read_index, 8);
    default: return false;
    }
}

void CommandProcessor::ring_doorbell(uint32_t qi, uint64_t value, const sc_time& at) {
    Queue& q = queues_[qi];
    if (observer_) observer_->doorbell(qi, value, at);
    if (!(q.control & 1) || q.status != QueueError::none) return;
    PacketCheck why;
    if (q.type == HSA_QUEUE_TYPE_SINGLE && value + 1 < q.write_index) {
        why = {QueueError::doorbell_regressed, "doorbell",
               "doorbell " + std::to_string(value) + " after " + std::to_string(q.write_index - 1)};
    } else if (value + 1 > q.read_index + q.ring_size) {
        why = {QueueError::queue_overflow, "doorbell",
               "doorbell " + std::to_string(value) + " is more than the ring's " + std::to_string(q.ring_size) +
                   " packets past read index " + std::to_string(q.read_index)};
    }
    if (!why) {
        q.status = why.error;
        q.error_packet = value;
        if (observer_) observer_->packet_rejected(qi, value, why, at);
        raise_interrupt(qi);
        return;
    }
    if (value + 1 > q.write_index) {  // a multi queue's doorbell below the highest only hints
        q.write_index = value + 1;
        q.doorbell_time = at;
    }
    q.not_ready = false;
    for (auto& p : pending_)  // a doorbell is also the hint to look at barrier signals again
        if (p && p->wait == Wait::signals) p->wait = Wait::none;
}

void CommandProcessor::notice_write(uint64_t address) {
    for (uint32_t qi = 0; qi < queues_.size(); ++qi) {
        const Queue& q = queues_[qi];
        const auto& p = pending_[qi];
        bool waited_on = q.not_ready && !p && slot_address(q, q.read_index) == address;
        if (p && p->wait == Wait::signals) {
            const auto b = from_bytes<hsa_barrier_and_packet_t>(p->bytes.data());
            waited_on = std::any_of(std::begin(b.dep_signal), std::end(b.dep_signal),
                                    [&](const hsa_signal_t& d) { return d.handle && d.handle == address; });
        }
        if (waited_on) look_again(qi);
    }
}

void CommandProcessor::look_again(uint32_t qi) {
    auto& p = pending_[qi];
    if (!p) queues_[qi].not_ready = false;
    else if (p->wait == Wait::signals) p->wait = Wait::none;
}

void CommandProcessor::poll_later(uint32_t qi) {
    Queue& q = queues_[qi];
    const sc_time longest(double(cfg_.signal_poll_ns), sc_core::SC_NS);
    q.poll_every = q.poll_every == sc_core::SC_ZERO_TIME ? longest / 16 : std::min(2 * q.poll_every, longest);
    q.poll_at = sc_core::sc_time_stamp() + q.poll_every;
    q.polling = true;
}

void CommandProcessor::poll_due(const sc_time& now) {
    for (uint32_t qi = 0; qi < queues_.size(); ++qi) {
        Queue& q = queues_[qi];
        if (!q.polling || q.poll_at > now) continue;
        q.polling = false;
        ++q.polls;
        look_again(qi);
        idle_ = false;  // its own timer: the firmware is awake (no wake-up, as for a doorbell)
    }
}

unsigned CommandProcessor::internal_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address(), n = gp.get_data_length();
    auto read = [&](uint64_t base, const void* reg, uint64_t size) -> unsigned {
        if (a < base || a - base > size || n > size - (a - base)) return 0;
        std::memcpy(gp.get_data_ptr(), static_cast<const unsigned char*>(reg) + (a - base), n);
        return unsigned(n);
    };
    if (!gp.is_read()) return 0;
    if (unsigned got = read(map::kCpKernelDone, &last_kernel_done_, sizeof last_kernel_done_)) return got;
    return read(map::kCpDrawDone, &last_draw_done_, sizeof last_draw_done_);
}

void CommandProcessor::internal_b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    if (reject_unsupported(gp)) return;
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    if (gp.is_write() && a == map::kCpKernelDone && n == sizeof(KernelDone)) {
        delay += bus_;
        last_kernel_done_ = from_bytes<KernelDone>(gp.get_data_ptr());
        done_.post_in(last_kernel_done_, delay);
    } else if (gp.is_write() && a == map::kCpDrawDone && n == sizeof(DrawDone)) {
        delay += bus_;
        last_draw_done_ = from_bytes<DrawDone>(gp.get_data_ptr());
        draws_done_.post_in(last_draw_done_, delay);
    } else {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void CommandProcessor::drive_irq() {
    const sc_time now = sc_core::sc_time_stamp();
    while (pending_irqs_.due(now)) int_status_ |= pending_irqs_.pop();
    if (!pending_irqs_.empty()) irq_event_.notify(pending_irqs_.next() - now);
    bool level = (int_status_ & int_enable_) != 0;
    if (irq.read() != level) {
        irq.write(level);
        if (observer_) observer_->irq(level, sc_core::sc_time_stamp());
    }
}

// --- The packet processor -----------------------------------------------------------------

void CommandProcessor::run() {
    for (;;) {
        const sc_time now = sc_core::sc_time_stamp();
        while (doorbells_.due(now)) {
            const Doorbell d = doorbells_.pop();
            ring_doorbell(d.queue, d.value, d.at);
        }
        while (write_notices_.due(now)) notice_write(write_notices_.pop());
        poll_due(now);
        if (done_.due(now)) {
            const KernelDone d = done_.pop();
            complete(slots_, d.kernel_slot, KernelError(d.error), d.fault_address, Work::kernel);
            continue;
        }
        if (draws_done_.due(now)) {
            const DrawDone d = draws_done_.pop();
            complete(draw_slots_, d.draw_slot, KernelError(d.error), 0, Work::draw);
            continue;
        }
        if (copies_done_.due(now)) {
            complete(copy_slots_, copies_done_.pop(), KernelError::none, 0, Work::copy);
            continue;
        }
        int q = pick_queue();
        if (q >= 0) {
            if (idle_) {
                wait(clock_.cycles(cfg_.wakeup_cycles));  // the firmware wakes up
                idle_ = false;
                if (!can_proceed(uint32_t(q))) continue;  // the queue was disabled or changed meanwhile
            }
            serve(uint32_t(q));
            continue;
        }
        idle_ = true;
        sc_time next = sc_core::sc_max_time();
        if (!done_.empty()) next = done_.next();
        if (!draws_done_.empty()) next = std::min(next, draws_done_.next());
        if (!copies_done_.empty()) next = std::min(next, copies_done_.next());
        if (!doorbells_.empty()) next = std::min(next, doorbells_.next());
        if (!write_notices_.empty()) next = std::min(next, write_notices_.next());
        for (const Queue& q : queues_)
            if (q.polling) next = std::min(next, q.poll_at);
        if (next != sc_core::sc_max_time()) wait(next - now, work_event_);
        else wait(work_event_);
    }
}

bool CommandProcessor::can_proceed(uint32_t qi) const {
    const Queue& q = queues_[qi];
    if (!(q.control & 1) || q.status != QueueError::none) return false;
    const auto& p = pending_[qi];
    if (!p) return !q.not_ready && q.read_index < q.write_index;
    switch (p->wait) {
    case Wait::none: return true;
    case Wait::barrier_bit: return q.outstanding == 0;
    case Wait::kernel_slot: return free_slot(slots_) >= 0;
    case Wait::draw_slot: return free_slot(draw_slots_) >= 0;
    case Wait::signals: return false;
    }
    return false;
}

int CommandProcessor::pick_queue() const {
    int best = -1;
    const int n = int(queues_.size());
    for (int k = 1; k <= n; ++k) {  // round-robin from the one after the last served
        int qi = (last_served_ + k) % n;
        if (qi < 0) qi += n;
        if (!can_proceed(uint32_t(qi))) continue;
        if (best < 0 || queues_[qi].priority < queues_[best].priority) best = qi;
    }
    return best;
}

void CommandProcessor::serve(uint32_t qi) {
    last_served_ = int(qi);
    if (!pending_[qi] && !fetch(qi)) return;
    Pending& p = *pending_[qi];
    if (p.header.barrier && queues_[qi].outstanding > 0) {
        p.wait = Wait::barrier_bit;
        return;
    }
    if (p.header.type == HSA_PACKET_TYPE_KERNEL_DISPATCH) launch(qi);
    else if (p.header.type == HSA_PACKET_TYPE_VENDOR_SPECIFIC && vendor_format(p.bytes.data()) == kCopyPacketFormat) copy(qi);
    else if (p.header.type == HSA_PACKET_TYPE_VENDOR_SPECIFIC) draw(qi);
    else barrier(qi);
}

// Reads the packet at the read index and checks it. False if the queue cannot go on now.
bool CommandProcessor::fetch(uint32_t qi) {
    Queue& q = queues_[qi];
    const uint64_t epoch = q.epoch;  // after each wait: was the queue disabled meanwhile?
    Pending p{};
    p.index = q.read_index;
    p.doorbell = q.doorbell_time;
    const uint64_t address = slot_address(q, p.index);
    sc_time d = sc_core::SC_ZERO_TIME;
    auto status = transport(mem, payloads_, tlm::TLM_READ_COMMAND, address, p.bytes.data(), kPacketBytes, d);
    wait(d);
    if (!current(qi, epoch)) return false;
    if (status != tlm::TLM_OK_RESPONSE) {
        queue_error(qi, p.index, {QueueError::address_error, "ring_base", "packet at " + hex(address) + " cannot be read"}, 0);
        return false;
    }
    p.fetched = sc_core::sc_time_stamp();
    uint16_t header;
    std::memcpy(&header, p.bytes.data(), 2);
    p.header = decode_header(header);
    if (p.header.type == HSA_PACKET_TYPE_INVALID) {  // rung before the header was written
        // Arms a watch on the header with a second look at it (docs/models/cp.md): a header
        // written after this read sends a write notification; one written since the first
        // read is seen now.
        sc_time w = sc_core::SC_ZERO_TIME;
        bool armed = false;
        status = watched_transport(mem, payloads_, tlm::TLM_READ_COMMAND, address, &header, 2, w, &armed);
        wait(w);
        if (!current(qi, epoch)) return false;
        q.not_ready = status != tlm::TLM_OK_RESPONSE || decode_header(header).type == HSA_PACKET_TYPE_INVALID;
        if (q.not_ready && status == tlm::TLM_OK_RESPONSE && !armed) poll_later(qi);  // no notice will come
        else stop_polling(q);
        return false;  // written meanwhile: the queue is served again and reads the whole packet
    }
    stop_polling(q);  // what it waited for came
    wait(clock_.cycles(cfg_.decode_cycles));
    if (!current(qi, epoch)) return false;
    PacketCheck c;
    uint64_t signal = 0;
    switch (p.header.type) {
    case HSA_PACKET_TYPE_KERNEL_DISPATCH: {
        auto k = from_bytes<hsa_kernel_dispatch_packet_t>(p.bytes.data());
        c = check_dispatch(k, limits_);
        signal = k.completion_signal.handle;
        break;
    }
    case HSA_PACKET_TYPE_BARRIER_AND:
    case HSA_PACKET_TYPE_BARRIER_OR: {
        auto b = from_bytes<hsa_barrier_and_packet_t>(p.bytes.data());
        c = check_barrier(b);
        signal = b.completion_signal.handle;
        break;
    }
    case HSA_PACKET_TYPE_VENDOR_SPECIFIC:
        if (vendor_format(p.bytes.data()) == kCopyPacketFormat) {
            auto k = from_bytes<CopyPacket>(p.bytes.data());
            c = check_copy(k);
            signal = k.completion_signal.handle;
        } else {
            auto d = from_bytes<DrawPacket>(p.bytes.data());
            c = check_draw(d, draw_limits_);
            signal = d.completion_signal.handle;
        }
        break;
    case HSA_PACKET_TYPE_AGENT_DISPATCH:
        c = check_header(header);
        if (c) c = {QueueError::unsupported_packet, "header.type", "agent dispatch packets are not served"};
        break;
    default: c = check_header(header);
    }
    if (!c) {
        queue_error(qi, p.index, c, signal % 8 ? 0 : signal);
        return false;
    }
    wait(fence_cost(p.header.acquire_scope, true));
    if (!current(qi, epoch)) return false;
    p.decoded = sc_core::sc_time_stamp();
    pending_[qi] = p;
    return true;
}

// The first unused slot, or -1.
int CommandProcessor::free_slot(const std::vector<Slot>& slots) {
    for (size_t i = 0; i < slots.size(); ++i)
        if (!slots[i].used) return int(i);
    return -1;
}

void CommandProcessor::launch(uint32_t qi) {
    Pending& p = *pending_[qi];
    const int free = free_slot(slots_);
    if (free < 0) {
        p.wait = Wait::kernel_slot;
        return;
    }
    const uint32_t slot = uint32_t(free);
    const auto k = from_bytes<hsa_kernel_dispatch_packet_t>(p.bytes.data());
    Queue& q = queues_[qi];
    slots_[slot] = Slot{true, qi, p.index, k.completion_signal.handle, p.header.release_scope, q.epoch, sc_core::SC_ZERO_TIME};
    ++q.outstanding;
    in_flight_event_.notify(sc_core::SC_ZERO_TIME);
    const uint64_t epoch = q.epoch;
    if (observer_) {
        observer_->kernel_accepted(slot, qi, p.index, p.doorbell, sc_core::sc_time_stamp());
        observer_->kernel_stage(slot, Stage::packet_fetched, p.fetched);
        observer_->kernel_stage(slot, Stage::packet_decoded, p.decoded);
        observer_->kernel_stage(slot, Stage::launched, sc_core::sc_time_stamp());
    }
    LaunchDescriptor l{};
    l.kernel_slot = slot;
    l.queue = qi;
    l.packet_index = p.index;
    l.priority = q.priority;
    l.dimensions = k.setup & 3;
    l.workgroup_size[0] = k.workgroup_size_x;
    l.workgroup_size[1] = k.workgroup_size_y;
    l.workgroup_size[2] = k.workgroup_size_z;
    l.grid_size[0] = k.grid_size_x;
    l.grid_size[1] = k.grid_size_y;
    l.grid_size[2] = k.grid_size_z;
    l.group_segment_size = k.group_segment_size;
    l.private_segment_size = k.private_segment_size;
    l.kernel_object = k.kernel_object;
    l.kernarg_address = reinterpret_cast<uint64_t>(k.kernarg_address);
    sc_time d = sc_core::SC_ZERO_TIME;
    write_msg(to_wlm, payloads_, map::kWlmLaunch, l, d);
    wait(d);
    if (current(qi, epoch)) finish_packet(qi);  // else the kernel runs on, no longer the queue's
}

// M4: a draw goes to the unified shading array when the array has a free draw slot.
void CommandProcessor::draw(uint32_t qi) {
    Pending& p = *pending_[qi];
    const int free = free_slot(draw_slots_);
    if (free < 0) {
        p.wait = Wait::draw_slot;
        return;
    }
    const uint32_t slot = uint32_t(free);
    const auto d = from_bytes<DrawPacket>(p.bytes.data());
    const uint64_t epoch = queues_[qi].epoch;
    draw_slots_[slot] = Slot{true, qi, p.index, d.completion_signal.handle, p.header.release_scope, epoch, sc_core::SC_ZERO_TIME};
    ++queues_[qi].outstanding;
    in_flight_event_.notify(sc_core::SC_ZERO_TIME);
    if (observer_) observer_->draw_accepted(slot, qi, p.index, p.doorbell, sc_core::sc_time_stamp());
    DrawDescriptor desc{slot, d.vertex_tasks, d.vertex_cycles, d.pixel_tasks_per_vertex_task, d.pixel_cycles, qi, p.index};
    sc_time delay = sc_core::SC_ZERO_TIME;
    write_msg(to_usa, payloads_, map::kUsaDraw, desc, delay);
    wait(delay);
    if (current(qi, epoch)) finish_packet(qi);
}

// A replayed trace's copy or fill: the copy engine holds it for its duration, without the SMs,
// then it completes as a kernel does (completion signal, interrupt).
void CommandProcessor::copy(uint32_t qi) {
    const Pending& p = *pending_[qi];
    const auto c = from_bytes<CopyPacket>(p.bytes.data());
    int free = free_slot(copy_slots_);
    if (free < 0) {
        free = int(copy_slots_.size());
        copy_slots_.emplace_back();
    }
    Queue& q = queues_[qi];
    const sc_time now = sc_core::sc_time_stamp();
    copy_slots_[size_t(free)] = Slot{true, qi, p.index, c.completion_signal.handle, p.header.release_scope, q.epoch, now};
    ++q.outstanding;
    in_flight_event_.notify(sc_core::SC_ZERO_TIME);
    copies_done_.post(uint32_t(free), now + sc_time(double(c.duration_ns), sc_core::SC_NS));
    finish_packet(qi);
}

void CommandProcessor::barrier(uint32_t qi) {
    const Pending p = *pending_[qi];  // a copy: an error below resets the pending packet
    const uint64_t epoch = queues_[qi].epoch;  // after each wait: was the queue disabled meanwhile?
    const auto b = from_bytes<hsa_barrier_and_packet_t>(p.bytes.data());
    const bool is_and = p.header.type == HSA_PACKET_TYPE_BARRIER_AND;
    bool any_zero = false, all_zero = true, any_signal = false, all_armed = true;
    sc_time d = sc_core::SC_ZERO_TIME;
    for (unsigned i = 0; i < 5; ++i) {
        uint64_t a = b.dep_signal[i].handle;
        if (!a) continue;
        any_signal = true;
        int64_t v = 0;
        // Each read arms a watch on the signal: a write to it by another agent is noticed, if
        // the memory acknowledges the watch (else the CP polls).
        bool armed = false;
        if (watched_transport(mem, payloads_, tlm::TLM_READ_COMMAND, a, &v, 8, d, &armed) != tlm::TLM_OK_RESPONSE) {
            wait(d);
            if (!current(qi, epoch)) return;
            pending_[qi].reset();
            queue_error(qi, p.index, {QueueError::address_error, "dep_signal[" + std::to_string(i) + "]",
                                      "signal at " + hex(a) + " cannot be read"}, b.completion_signal.handle);
            return;
        }
        if (v < 0) {  // the kernel behind the signal failed: so does what waits for it
            wait(d);
            if (!current(qi, epoch)) return;
            pending_[qi].reset();
            queue_error(qi, p.index, {QueueError::dependency_failed, "dep_signal[" + std::to_string(i) + "]",
                                      "signal at " + hex(a) + " is " + std::to_string(v) + ": its kernel failed"},
                        b.completion_signal.handle);
            return;
        }
        any_zero |= v == 0;
        all_zero &= v == 0;
        all_armed &= armed;
    }
    wait(d + clock_.cycles(cfg_.barrier_cycles));
    if (!current(qi, epoch)) return;
    const bool satisfied = is_and ? all_zero : (any_zero || !any_signal);
    if (!satisfied) {
        // Looked at again after a doorbell, a kernel's completion or a write notification of
        // one of its signals; or, if a watch was not acknowledged, when it polls.
        pending_[qi]->wait = Wait::signals;
        if (!all_armed) poll_later(qi);
        else stop_polling(queues_[qi]);
        return;
    }
    stop_polling(queues_[qi]);
    wait(fence_cost(p.header.release_scope, false));
    if (!current(qi, epoch)) return;
    const sc_time start = p.decoded;
    const uint64_t index = p.index;
    const bool written = !b.completion_signal.handle || write_signal(b.completion_signal.handle, 0, true);
    if (!current(qi, epoch)) return;
    if (!written) {
        queue_error(qi, index, {QueueError::address_error, "completion_signal",
                                "signal at " + hex(b.completion_signal.handle) + " cannot be written"}, 0);
        return;
    }
    if (observer_) observer_->barrier_done(qi, index, start, sc_core::sc_time_stamp());
    finish_packet(qi);
    if (b.completion_signal.handle) raise_interrupt(qi);
}

// The packet has taken effect: its slot's header becomes INVALID again (hsa.h: "processed in
// the past, but has not been reassigned"), then the read index moves on and is published to the
// host. Both are posted writes, in that order.
void CommandProcessor::finish_packet(uint32_t qi) {
    Queue& q = queues_[qi];
    pending_[qi].reset();
    uint16_t invalid = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
    sc_time d = sc_core::SC_ZERO_TIME;
    watched_transport(mem, payloads_, tlm::TLM_WRITE_COMMAND, slot_address(q, q.read_index), &invalid, 2, d);
    ++q.read_index;
    ++packets_;
    if (q.read_index_addr) {
        d = sc_core::SC_ZERO_TIME;
        transport(mem, payloads_, tlm::TLM_WRITE_COMMAND, q.read_index_addr, &q.read_index, 8, d);
    }
}

// A kernel (or a draw) has ended: its completion signal, its slot, the interrupt. One its
// queue had before it was disabled (Slot::epoch) still writes its signal (-1 if it failed), but
// no longer counts as the queue's: no error stops the queue, no interrupt, no outstanding count.
void CommandProcessor::complete(std::vector<Slot>& slots, uint32_t slot, KernelError e, uint64_t fault_address,
                                Work work) {
    if (slot >= slots.size() || !slots[slot].used) return;
    Slot s = slots[slot];
    wait(clock_.cycles(cfg_.completion_cycles) + fence_cost(s.release_scope, false));
    sc_time written = sc_core::sc_time_stamp();
    if (e == KernelError::none) {
        if (s.signal && !write_signal(s.signal, 0, true, &written) && current(s.queue, s.epoch))
            queue_error(s.queue, s.packet, {QueueError::address_error, "completion_signal",
                                            "signal at " + hex(s.signal) + " cannot be written"}, 0);
    } else if (!current(s.queue, s.epoch)) {
        if (s.signal) write_signal(s.signal, -1, false);
    } else if (e == KernelError::descriptor_fault) {
        queue_error(s.queue, s.packet, {QueueError::invalid_descriptor, "kernel_object",
                                        "the kernel descriptor at " + hex(fault_address) + " is unreadable or invalid"},
                    s.signal);
    } else if (work == Work::draw) {
        queue_error(s.queue, s.packet,
                    {QueueError::invalid_draw, "draw_slot", "the shading array refused the draw descriptor"}, s.signal);
    } else {
        std::string detail = kernel_error_text(e);
        if (fault_address) detail += " at " + hex(fault_address);
        queue_error(s.queue, s.packet, {QueueError::kernel_fault, "kernel", detail}, s.signal);
    }
    slots[slot].used = false;
    ++completions_;
    in_flight_event_.notify(sc_core::SC_ZERO_TIME);
    if (observer_) {
        if (work == Work::draw) observer_->draw_completed(slot, e, written);
        else if (work == Work::copy) observer_->copy_done(s.queue, s.packet, s.start, written);
        else observer_->kernel_completed(slot, e, written);
    }
    const bool mine = current(s.queue, s.epoch);  // (enabling the queue again set its count to 0)
    if (mine) --queues_[s.queue].outstanding;
    for (auto& p : pending_)
        if (p && p->wait == Wait::signals) p->wait = Wait::none;  // a signal changed
    if (e == KernelError::none && mine) raise_interrupt(s.queue);
}

void CommandProcessor::queue_error(uint32_t qi, uint64_t packet, const PacketCheck& why, uint64_t signal) {
    Queue& q = queues_[qi];
    if (q.status == QueueError::none) {
        q.status = why.error;
        q.error_packet = packet;
    }
    pending_[qi].reset();
    if (observer_) observer_->packet_rejected(qi, packet, why, sc_core::sc_time_stamp());
    if (signal) write_signal(signal, -1, false);  // a negative signal: the packet failed
    raise_interrupt(qi);
}

// Decrements (an atomic read-modify-write) or stores a signal. The request crosses to memory
// in half the round trip, the value changes there (that is the signal's "written" time,
// returned), and the response takes the other half. False on a TLM error.
bool CommandProcessor::write_signal(uint64_t address, int64_t value, bool decrement, sc_time* written) {
    int64_t v = 0;
    sc_time round_trip = sc_core::SC_ZERO_TIME;  // learnt from a read of the signal
    if (transport(mem, payloads_, tlm::TLM_READ_COMMAND, address, &v, 8, round_trip) != tlm::TLM_OK_RESPONSE) {
        wait(round_trip);
        return false;
    }
    wait(round_trip / 2);
    // At memory: the value as it is now (a debug read: no second transaction) and the write,
    // with no wait between them, so the read-modify-write is atomic.
    // (A memory without debug access keeps the value of the first read.)
    if (decrement) {
        debug_transport(mem, tlm::TLM_READ_COMMAND, address, &v, 8);
        value = v - 1;
    }
    sc_time ignored = sc_core::SC_ZERO_TIME;
    // Its own write: a watch the CP armed on the signal ends without a notification.
    bool ok = watched_transport(mem, payloads_, tlm::TLM_WRITE_COMMAND, address, &value, 8, ignored) == tlm::TLM_OK_RESPONSE;
    if (written) *written = sc_core::sc_time_stamp();
    wait(round_trip / 2);
    return ok;
}

void CommandProcessor::raise_interrupt(uint32_t qi) {
    post_interrupt(1ull << qi, sc_core::sc_time_stamp() + clock_.cycles(cfg_.irq_cycles));
}

// The bits appear in INT_STATUS (and the line rises) at `at`, not before.
void CommandProcessor::post_interrupt(uint64_t bits, const sc_time& at) {
    pending_irqs_.post(bits, at);
}

std::string CommandProcessor::waiting_for(uint32_t qi) const {
    const Queue& q = queues_.at(qi);
    if (!(q.control & 1)) return "";
    if (q.status != QueueError::none)
        return std::string("stopped by ") + queue_error_name(q.status) + " at packet " + std::to_string(q.error_packet);
    const auto& p = pending_[qi];
    // A wait no notice ends: the memory did not acknowledge the watch.
    const std::string polled = q.polling ? " (polled: its watch was not acknowledged; " + std::to_string(q.polls) +
                                               (q.polls == 1 ? " look" : " looks") + " again so far)"
                                         : "";
    if (!p) {
        if (q.not_ready)
            return "packet " + std::to_string(q.read_index) + ": its header is still INVALID: waits for it to be written" +
                   polled;
        return "";
    }
    const std::string packet = "packet " + std::to_string(p->index) + ": ";
    switch (p->wait) {
    case Wait::barrier_bit:
        return packet + "barrier bit: waits for " + std::to_string(q.outstanding) + " earlier kernel(s) or draw(s)";
    case Wait::kernel_slot: return packet + "waits for a free kernel slot";
    case Wait::draw_slot: return packet + "waits for a free draw slot in the shading array";
    case Wait::signals: {
        const auto b = from_bytes<hsa_barrier_and_packet_t>(p->bytes.data());
        std::string s = packet + (p->header.type == HSA_PACKET_TYPE_BARRIER_AND ? "barrier-AND" : "barrier-OR") +
                        " waits on signals";
        for (const auto& d : b.dep_signal)
            if (d.handle) s += " " + hex(d.handle);
        return s + polled;
    }
    case Wait::none: return packet + "ready";
    }
    return "";
}

uint32_t CommandProcessor::in_flight() const {
    uint32_t n = 0;
    for (const Slot& s : slots_) n += s.used;
    for (const Slot& s : draw_slots_) n += s.used;
    for (const Slot& s : copy_slots_) n += s.used;
    return n;
}

void CommandProcessor::describe(std::vector<std::string>& out) const {
    for (uint32_t qi = 0; qi < queues_.size(); ++qi) {
        const Queue& q = queues_[qi];
        if (!(q.control & 1)) continue;
        std::string line = "cp queue " + std::to_string(qi) + ": priority " + std::to_string(q.priority) +
                           ", read index " + std::to_string(q.read_index) + ", write index " +
                           std::to_string(q.write_index) + ", " + std::to_string(q.outstanding) +
                           " kernel(s) or draw(s) outstanding, status " +
                           queue_status_name(q.status);
        const std::string w = waiting_for(qi);
        if (!w.empty()) line += "; " + w;
        out.push_back(line);
    }
    auto slots = [&](const std::vector<Slot>& v, const char* what) {
        for (size_t i = 0; i < v.size(); ++i)
            if (v[i].used)
                out.push_back(std::string("cp ") + what + " slot " + std::to_string(i) + ": queue " +
                              std::to_string(v[i].queue) + ", packet " + std::to_string(v[i].packet) +
                              ", signal " + hex(v[i].signal) + ", in flight");
    };
    slots(slots_, "kernel");
    slots(draw_slots_, "draw");
    slots(copy_slots_, "copy");
}

sc_time CommandProcessor::fence_cost(uint8_t scope, bool acquire) const {
    uint32_t c = 0;
    if (scope == HSA_FENCE_SCOPE_AGENT) c = acquire ? cfg_.fence_acquire_agent_cycles : cfg_.fence_release_agent_cycles;
    if (scope == HSA_FENCE_SCOPE_SYSTEM) c = acquire ? cfg_.fence_acquire_system_cycles : cfg_.fence_release_system_cycles;
    return clock_.cycles(c);
}

}  // namespace gpuvp
