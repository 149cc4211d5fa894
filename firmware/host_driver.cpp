#include <gpuvp/firmware/host_driver.h>
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace gpuvp {

using sc_core::sc_time;

namespace {
sc_time quantum_of(const Workload& w) { return sc_time(w.quantum_ns, sc_core::SC_NS); }
}  // namespace

HostDriver::HostDriver(sc_core::sc_module_name name, const Workload& work, const HostLayout& layout)
    : sc_module(name), bus("bus"), irq("irq"), work_(work), layout_(layout), host_next_(0x10000),
      device_next_(map::kDeviceBase + 0x10000), setup_quantum_(quantum_of(work)), irq_quantum_(quantum_of(work)) {
    if (work_.queues.empty()) work_.queues.push_back(QueueSpec{"q0", 0, 256});
    for (const QueueSpec& q : work_.queues) queues_.push_back(QueueState{q, 0, 0, 0, {}, HostQuantum(quantum_of(work_)), {}, 0, 0, false});
    auto add = [&](const std::string& name, bool draw, const std::string& queue, double submit_ns, uint32_t instances,
                   double interval_ns, bool copy = false) {
        LaunchRecord r;
        r.name = name;
        r.draw = draw;
        r.copy = copy;
        r.queue = queue_index(queue.empty() ? work_.queues.front().name : queue);
        r.submit = sc_time(submit_ns, sc_core::SC_NS);
        r.instances = std::max<uint32_t>(instances, 1);
        r.interval = sc_time(interval_ns, sc_core::SC_NS);
        r.slots = uint32_t(std::min<uint64_t>(r.instances, work_.queues[r.queue].size));
        launches_.push_back(r);
        slots_.emplace_back(r.slots);
    };
    for (const KernelSpec& k : work_.kernels) add(k.name, false, k.queue, k.submit_ns, k.instances, k.interval_ns);
    for (const DrawSpec& d : work_.draws) add(d.name, true, d.queue, d.submit_ns, d.instances, d.interval_ns);
    for (const CopySpec& c : work_.copies) add(c.name, false, c.queue, c.submit_ns, 1, 0, true);
    for (size_t i = 0; i < launches_.size(); ++i) {
        queues_[launches_[i].queue].kernels.push_back(i);
        queues_[launches_[i].queue].instances += launches_[i].instances;
        by_name_.emplace(launches_[i].name, i);
    }
    if (work_.replay == ReplayMode::closed)
        for (size_t c = 0; c < work_.calls.size(); ++c) {
            const uint32_t t = work_.calls[c].thread;
            if (t >= thread_calls_.size()) thread_calls_.resize(t + 1);
            thread_calls_[t].push_back(c);
        }
    for (size_t t = 0; t < thread_calls_.size(); ++t) call_quanta_.emplace_back(quantum_of(work_));
    SC_HAS_PROCESS(HostDriver);
    SC_THREAD(create_queues);
    SC_THREAD(interrupt_handler);
}

uint32_t HostDriver::queue_index(const std::string& name) const {
    for (uint32_t i = 0; i < work_.queues.size(); ++i)
        if (work_.queues[i].name == name) return i;
    throw std::invalid_argument("no queue named '" + name + "'");
}

uint64_t HostDriver::syncs() const {
    uint64_t n = setup_quantum_.syncs() + irq_quantum_.syncs() + other_syncs_;
    for (const QueueState& q : queues_) n += q.qk.syncs();
    for (const HostQuantum& qk : call_quanta_) n += qk.syncs();
    return n;
}

bool HostDriver::all_done() const {
    return std::all_of(launches_.begin(), launches_.end(), [](const LaunchRecord& r) { return r.done; });
}

const PostedPacket* HostDriver::posted(uint32_t q, uint64_t packet) const {
    if (q >= queues_.size()) return nullptr;
    auto it = queues_[q].in_flight.find(packet);
    return it == queues_[q].in_flight.end() ? nullptr : &it->second;
}

std::optional<HostDriver::Unended> HostDriver::first_unended(size_t k) const {
    const LaunchRecord& r = launches_.at(k);
    if (r.done) return std::nullopt;
    std::optional<Unended> first;
    for (const auto& [packet, p] : queues_[r.queue].in_flight)
        if (p.launch == k && (!first || p.instance < first->instance)) first = Unended{p.instance, true, packet};
    if (!first && r.posted < r.instances) first = Unended{r.posted, false, 0};
    return first;
}

size_t HostDriver::in_flight() const {
    size_t n = 0;
    for (const QueueState& q : queues_) n += q.in_flight.size();
    return n;
}

uint64_t HostDriver::alloc_host(uint64_t bytes, uint64_t align) {
    host_next_ = (host_next_ + align - 1) / align * align;
    uint64_t a = host_next_;
    host_next_ += std::max<uint64_t>(bytes, 1);
    if (host_next_ > layout_.host_bytes)
        throw std::runtime_error("host memory of " + std::to_string(layout_.host_bytes) +
                                 " bytes is too small for the scenario's queues and kernel arguments");
    return a;
}

uint64_t HostDriver::alloc_device(uint64_t bytes, uint64_t align) {
    device_next_ = (device_next_ + align - 1) / align * align;
    uint64_t a = device_next_;
    device_next_ += std::max<uint64_t>(bytes, 1);
    if (device_next_ > map::kDeviceBase + layout_.device_bytes)
        throw std::runtime_error("device memory of " + std::to_string(layout_.device_bytes) +
                                 " bytes is too small for the scenario's code objects and buffers");
    return a;
}

// The loader: code objects into device memory through the BAR, before time starts.
void HostDriver::load(uint64_t address, const std::vector<unsigned char>& bytes) {
    std::vector<unsigned char> copy(bytes);
    uint64_t mmio = layout_.mmio_base + map::kBar + (address - map::kDeviceBase);
    if (debug_transport(bus, tlm::TLM_WRITE_COMMAND, mmio, copy.data(), unsigned(copy.size())) != copy.size())
        throw std::runtime_error("loading a code object at " + hex(address) + " failed");
}

void HostDriver::end_of_elaboration() {
    // A signal per slot, on a line of its own, 1 from the start, so a barrier on a kernel not
    // yet submitted waits for it.
    auto signals = [&](LaunchRecord& r) {
        r.signal = r.signal_base = alloc_host(r.slots == 1 ? 8 : 64ull * (r.slots - 1) + 8, 64);
        int64_t one = 1;
        for (uint32_t s = 0; s < r.slots; ++s)
            if (debug_transport(bus, tlm::TLM_WRITE_COMMAND, slot_signal(r, s), &one, 8) != 8)
                throw std::runtime_error("host memory does not hold the completion signals");
    };
    for (size_t i = 0; i < work_.kernels.size(); ++i) {
        const KernelSpec& k = work_.kernels[i];
        LaunchRecord& r = launches_[i];
        std::vector<unsigned char> image = build_code_object(k, layout_.warp_size, work_.multilevel_scalars);
        r.kernel_object = alloc_device(image.size(), 256);
        if (work_.code == CodeLoad::once) load(r.kernel_object, image);
        else r.code = std::move(image);  // copied there at every launch
        if (work_.copy_args && k.kernarg_bytes)
            r.device_args = alloc_device(k.kernarg_bytes, 4096);  // its own page, away from the code
        r.kernarg_stride = (uint64_t(k.kernarg_bytes) + 63) / 64 * 64;  // a slot's segment, from a line
        r.kernarg = k.kernarg_bytes ? alloc_host(r.slots == 1 ? k.kernarg_bytes : r.kernarg_stride * r.slots, 64) : 0;
        r.global = k.global_bytes ? alloc_device(k.global_bytes, 4096) : 0;
        signals(r);
    }
    for (size_t i = work_.kernels.size(); i < launches_.size(); ++i) signals(launches_[i]);  // draws, copies: signals only
    for (const HostSignalSpec& h : work_.signals) {
        host_signals_.push_back(alloc_host(8, 64));
        if (debug_transport(bus, tlm::TLM_WRITE_COMMAND, host_signals_.back(), const_cast<int64_t*>(&h.initial), 8) != 8)
            throw std::runtime_error("host memory does not hold signal " + h.name);
    }
    for (QueueState& q : queues_) {
        q.ring = alloc_host(uint64_t(q.spec.size) * kPacketBytes, 4096);
        q.read_index_addr = alloc_host(8, 64);
        // Every slot starts INVALID, as the HSA runtime initialises a queue.
        std::vector<unsigned char> ring(size_t(q.spec.size) * kPacketBytes, 0);
        for (uint32_t s = 0; s < q.spec.size; ++s) ring[size_t(s) * kPacketBytes] = HSA_PACKET_TYPE_INVALID;
        if (debug_transport(bus, tlm::TLM_WRITE_COMMAND, q.ring, ring.data(), unsigned(ring.size())) != ring.size())
            throw std::runtime_error("host memory does not hold queue " + q.spec.name);
    }
}

// Queue creation at time 0: register writes through mmio (posted), then one submitting
// thread per queue.
void HostDriver::create_queues() {
    HostQuantum& qk = setup_quantum_;
    qk.reset();
    for (uint32_t i = 0; i < queues_.size(); ++i) {
        const QueueState& q = queues_[i];
        const uint64_t r = map::kQueueRegs + i * map::kQueueStride;
        uint32_t size = q.spec.size, prio = q.spec.priority, enable = 1;
        mmio_write(qk, r + map::kQueueRingBase, &q.ring, 8, true);
        mmio_write(qk, r + map::kQueueRingSize, &size, 4, true);
        mmio_write(qk, r + map::kQueuePriority, &prio, 4, true);
        mmio_write(qk, r + map::kQueueReadIndexAddr, &q.read_index_addr, 8, true);
        if (q.spec.type == QueueSpec::Type::single) {  // TYPE's reset value is multi
            uint32_t type = HSA_QUEUE_TYPE_SINGLE;
            mmio_write(qk, r + map::kQueueType, &type, 4, true);
        }
        mmio_write(qk, r + map::kQueueControl, &enable, 4, true);
        if (!q.kernels.empty() && thread_calls_.empty())
            sc_core::sc_spawn([this, i] { submit_queue(i); }, ("submit_" + q.spec.name).c_str());
    }
    for (uint32_t t = 0; t < thread_calls_.size(); ++t)
        if (!thread_calls_[t].empty())
            sc_core::sc_spawn([this, t] { replay_calls(t); }, ("host_thread_" + std::to_string(t)).c_str());
    for (size_t s = 0; s < work_.signals.size(); ++s)
        sc_core::sc_spawn([this, s] { set_signal(s); }, ("set_" + work_.signals[s].name).c_str());
}

void HostDriver::set_signal(size_t s) {
    HostQuantum qk(quantum_of(work_));
    qk.wait_until(sc_time(work_.signals[s].set_ns, sc_core::SC_NS));
    mem_write(qk, host_signals_[s], &work_.signals[s].value, 8);
    qk.flush();
    other_syncs_ += qk.syncs();
}

// A store of the host CPU: it costs the CPU `store_ns` (caches and write buffers hide the
// memory's latency from the CPU; the GPU, reading over the link, pays it in full). Decoupled:
// the store is made now and its cost goes to the thread's local time (the memory's latency,
// which the call adds to the delay, is not the CPU's cost).
void HostDriver::mem_write(HostQuantum& qk, uint64_t address, const void* data, unsigned length) {
    sc_time d = qk.get_local_time();
    {  // the payload's copy is gone before any wait
        std::vector<unsigned char> buf(static_cast<const unsigned char*>(data),
                                       static_cast<const unsigned char*>(data) + length);
        if (transport(bus, payloads_, tlm::TLM_WRITE_COMMAND, address, buf.data(), length, d) != tlm::TLM_OK_RESPONSE)
            throw std::runtime_error("host write to " + hex(address) + " failed");
    }
    qk.annotate(store_time());
}

// The host reads only what the GPU writes (the read index, the completion signals): in step.
void HostDriver::mem_read(HostQuantum& qk, uint64_t address, void* data, unsigned length) {
    qk.flush();
    sc_time d = qk.get_local_time();
    if (transport(bus, payloads_, tlm::TLM_READ_COMMAND, address, data, length, d) != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error("host read of " + hex(address) + " failed");
    qk.annotate_delay(d);
}

// The GPU sees a register write (a doorbell) when it is made: in step. A posted write's delay
// is not the host's to wait for.
void HostDriver::mmio_write(HostQuantum& qk, uint64_t offset, const void* data, unsigned length, bool posted) {
    uint64_t v = 0;
    std::memcpy(&v, data, length);
    qk.flush();
    sc_time d = qk.get_local_time();
    if (transport(bus, payloads_, tlm::TLM_WRITE_COMMAND, layout_.mmio_base + offset, &v, length, d) != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error("GPU register write at mmio offset " + hex(offset) + " failed");
    if (!posted) qk.annotate_delay(d);
}

void HostDriver::mmio_read(HostQuantum& qk, uint64_t offset, void* data, unsigned length) {
    qk.flush();
    sc_time d = qk.get_local_time();
    if (transport(bus, payloads_, tlm::TLM_READ_COMMAND, layout_.mmio_base + offset, data, length, d) != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error("GPU register read at mmio offset " + hex(offset) + " failed");
    qk.annotate_delay(d);
}

// The queue's kernels and draws, every instance, in submit-time order (ties in file order:
// kernels before draws, then the lower instance). One heap entry per launch: its next instance.
void HostDriver::submit_queue(uint32_t q) {
    HostQuantum& qk = queues_[q].qk;
    qk.reset();
    using Next = std::tuple<sc_time, size_t, uint64_t>;  // submit time, launch, instance
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> next;
    for (size_t k : queues_[q].kernels) next.emplace(launches_[k].submit, k, 0);
    while (!next.empty()) {
        const auto [at, k, i] = next.top();
        next.pop();
        qk.wait_until(at);
        if (!submit_launch(qk, q, k, i)) return;  // the queue takes no more
        if (i + 1 < launches_[k].instances) next.emplace(submit_time(launches_[k], i + 1), k, i + 1);
    }
}

// Waits until the ring has room for one more packet (the CP publishes its read index). None
// if the queue has stopped with its ring full: the CP will not consume it again.
std::optional<uint64_t> HostDriver::reserve_packet(HostQuantum& qk, uint32_t q) {
    QueueState& s = queues_[q];
    for (;;) {
        uint64_t read = 0;
        mem_read(qk, s.read_index_addr, &read, 8);
        if (s.write_index - read < s.spec.size) return s.write_index++;
        if (s.stopped) return std::nullopt;
        qk.wait_for(sc_time(1, sc_core::SC_US));  // the ring is full: poll as a runtime would
    }
}

// An instance's signal and kernel-argument slot: free once the host has seen the instance
// that last used it end (a runtime reusing its signals and kernarg segments). The flag is the
// interrupt handler's too: in step first, and not before the handler (with its local time)
// freed it.
void HostDriver::take_slot(HostQuantum& qk, size_t k, uint64_t instance) {
    Slot& slot = slots_[k][size_t(instance % launches_[k].slots)];
    qk.flush();
    while (slot.busy) {
        slot_waiter_ = true;
        qk.wait(instance_ended_);
    }
    qk.wait_until(slot.free_at);
    slot.busy = true;
}

// Writes a packet: the body first, the header last (HSA's order: the header publishes it).
void HostDriver::write_slot(HostQuantum& qk, uint32_t q, uint64_t index, const void* packet) {
    QueueState& s = queues_[q];
    const uint64_t slot = s.ring + (index % s.spec.size) * kPacketBytes;
    const auto* bytes = static_cast<const unsigned char*>(packet);
    mem_write(qk, slot + 2, bytes + 2, kPacketBytes - 2);
    mem_write(qk, slot, bytes, 2);
}

// Rings the queue's doorbell (a posted mmio write), so the CP can consume the packets.
void HostDriver::ring(HostQuantum& qk, uint32_t q, uint64_t value) {
    mmio_write(qk, map::kDoorbells + 8 * q, &value, 8, true);
}

bool HostDriver::submit_launch(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance) {
    const LaunchRecord& r = launches_[k];
    if (r.copy) return submit_copy(qk, q, k);
    return r.draw ? submit_draw(qk, q, k, instance) : submit(qk, q, k, instance);
}

// On the completion signals of kernels, draws or copies, or on signals the host sets.
bool HostDriver::post_dependencies(HostQuantum& qk, uint32_t q, const std::vector<std::string>& after,
                                   const std::vector<std::string>& after_any, bool barrier_bit) {
    auto barrier = [&](const std::vector<std::string>& names, size_t first, hsa_packet_type_t type) {
        hsa_barrier_and_packet_t b{};
        for (size_t i = first; i < std::min(first + 5, names.size()); ++i) {
            if (auto it = by_name_.find(names[i]); it != by_name_.end())
                b.dep_signal[i - first].handle = launches_[it->second].signal;
            for (size_t s = 0; s < work_.signals.size(); ++s)  // or a signal the host sets
                if (work_.signals[s].name == names[i]) b.dep_signal[i - first].handle = host_signals_[s];
        }
        b.header = make_header(type, barrier_bit, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
        const auto index = reserve_packet(qk, q);
        if (!index) return false;
        write_slot(qk, q, *index, &b);
        ring(qk, q, *index);
        return true;
    };
    for (size_t first = 0; first < after.size(); first += 5)
        if (!barrier(after, first, HSA_PACKET_TYPE_BARRIER_AND)) return false;
    return after_any.empty() || barrier(after_any, 0, HSA_PACKET_TYPE_BARRIER_OR);
}

bool HostDriver::submit(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance) {
    const KernelSpec& spec = work_.kernels[k];
    LaunchRecord& r = launches_[k];
    if (work_.api_overhead_ns > 0) qk.annotate(sc_time(work_.api_overhead_ns, sc_core::SC_NS));  // the CPU's own work

    // Dependencies, before the first instance only (the queue is in order: the later ones come
    // after them).
    if (instance == 0 && !post_dependencies(qk, q, spec.after, spec.after_any, spec.barrier)) return false;

    take_slot(qk, k, instance);
    const uint32_t slot = uint32_t(instance % r.slots);
    // Kernel arguments: the global buffer's address and size, then a recognisable pattern.
    if (r.kernarg) {
        std::vector<unsigned char> args(spec.kernarg_bytes);
        for (size_t i = 0; i < args.size(); ++i) args[i] = uint8_t(0xa0 + i);
        if (args.size() >= 16) {
            std::memcpy(&args[0], &r.global, 8);
            std::memcpy(&args[8], &spec.global_bytes, 8);
        }
        mem_write(qk, slot_kernarg(r, slot), args.data(), unsigned(args.size()));
        if (work_.copy_args) copy_to_device(qk, r.device_args, args, "the kernel arguments of " + r.name);
    }
    if (work_.code == CodeLoad::per_launch) copy_to_device(qk, r.kernel_object, r.code, "the code object of " + r.name);
    int64_t one = 1;
    mem_write(qk, slot_signal(r, slot), &one, 8);

    hsa_kernel_dispatch_packet_t p{};
    p.workgroup_size_x = uint16_t(spec.block[0]);
    p.workgroup_size_y = uint16_t(spec.block[1]);
    p.workgroup_size_z = uint16_t(spec.block[2]);
    p.grid_size_x = spec.grid[0];
    p.grid_size_y = spec.grid[1];
    p.grid_size_z = spec.grid[2];
    const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
    const uint16_t workgroup[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
    p.setup = uint16_t(dispatch_dimensions(grid, workgroup));
    p.group_segment_size = spec.shared_bytes;
    p.kernel_object = r.kernel_object;
    p.kernarg_address = reinterpret_cast<void*>(work_.copy_args ? r.device_args : r.kernarg ? slot_kernarg(r, slot) : 0);
    p.completion_signal.handle = slot_signal(r, slot);
    p.header = make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, spec.barrier, hsa_fence_scope_t(spec.acquire_fence),
                           hsa_fence_scope_t(spec.release_fence));
    Publish how;
    if (instance == 0) {
        how.doorbell = spec.doorbell;
        how.delay = sc_time(spec.publish_delay_ns, sc_core::SC_NS);
        how.doorbell_first = spec.publish_doorbell == KernelSpec::PublishDoorbell::before;
    }
    return post(qk, q, k, instance, p, spec.packet, how);
}

// The scenario's raw field overrides, then the packet into its slot and the doorbell; a late
// packet (`how.delay`) only reserves its slot here (and rings first if so asked).
template <class Packet>
bool HostDriver::post(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance, Packet& p,
                      const std::map<std::string, uint64_t>& overrides, const Publish& how) {
    LaunchRecord& r = launches_[k];
    QueueState& s = queues_[q];
    apply_packet_overrides(p, overrides);
    const uint64_t signal = p.completion_signal.handle;  // an override may point it elsewhere
    if (instance == 0) r.signal = signal;
    const auto index = reserve_packet(qk, q);
    if (!index) return false;
    const bool late = how.delay > sc_core::SC_ZERO_TIME;
    if (!late) write_slot(qk, q, *index, &p);
    if (!late || how.doorbell_first) ring(qk, q, how.doorbell.value_or(*index));
    const sc_time doorbell = qk.get_current_time();
    s.in_flight[*index] =
        PostedPacket{k, instance, uint32_t(instance % r.slots), *index, signal, submit_time(r, instance), doorbell, s.posted++};
    ++r.posted;
    if (instance == 0) {
        r.packet = *index;
        r.doorbell = doorbell;
        r.rung = !late;
    }
    if (late) {
        std::array<unsigned char, kPacketBytes> bytes;
        std::memcpy(bytes.data(), &p, kPacketBytes);
        sc_core::sc_spawn([this, q, k, i = *index, bytes, how] { publish_late(q, k, i, bytes, how); },
                          ("publish_" + r.name).c_str());
    }
    return true;
}

// The producer that reserved slot `index` at the submit: the packet `how.delay` later, then
// (unless it rang first) the doorbell. Only a kernel's first instance is published so.
void HostDriver::publish_late(uint32_t q, size_t k, uint64_t index, std::array<unsigned char, kPacketBytes> packet,
                              Publish how) {
    HostQuantum qk(quantum_of(work_));
    qk.wait_for(how.delay);
    write_slot(qk, q, index, packet.data());
    if (!how.doorbell_first) ring(qk, q, how.doorbell.value_or(index));
    qk.flush();
    LaunchRecord& r = launches_[k];
    if (!how.doorbell_first) {
        r.doorbell = qk.get_current_time();
        if (auto it = queues_[q].in_flight.find(index); it != queues_[q].in_flight.end()) it->second.doorbell = r.doorbell;
    }
    r.rung = true;
    other_syncs_ += qk.syncs();
}

// M4: a draw is one vendor-specific packet; the runtime's overhead and the signal reset come
// first, as for a kernel.
bool HostDriver::submit_draw(HostQuantum& qk, uint32_t q, size_t k, uint64_t instance) {
    const DrawSpec& spec = work_.draws[k - work_.kernels.size()];
    LaunchRecord& r = launches_[k];
    if (work_.api_overhead_ns > 0) qk.annotate(sc_time(work_.api_overhead_ns, sc_core::SC_NS));  // the CPU's own work
    take_slot(qk, k, instance);
    const uint32_t slot = uint32_t(instance % r.slots);
    int64_t one = 1;
    mem_write(qk, slot_signal(r, slot), &one, 8);
    DrawPacket p{};
    p.vertex_tasks = spec.vertex_tasks;
    p.vertex_cycles = spec.vertex_cycles;
    p.pixel_tasks_per_vertex_task = spec.pixel_tasks_per_vertex_task;
    p.pixel_cycles = spec.pixel_cycles;
    p.completion_signal.handle = slot_signal(r, slot);
    p.header.AmdFormat = kDrawPacketFormat;
    p.header.header = make_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC, false, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
    Publish how;
    if (instance == 0) how.doorbell = spec.doorbell;
    return post(qk, q, k, instance, p, spec.packet, how);
}

// A replayed trace's copy or fill: its dependencies, then one copy packet (the runtime's
// overhead and the signal reset first, as for a kernel).
bool HostDriver::submit_copy(HostQuantum& qk, uint32_t q, size_t k) {
    const CopySpec& spec = work_.copies[k - work_.kernels.size() - work_.draws.size()];
    LaunchRecord& r = launches_[k];
    if (work_.api_overhead_ns > 0) qk.annotate(sc_time(work_.api_overhead_ns, sc_core::SC_NS));  // the CPU's own work
    if (!post_dependencies(qk, q, spec.after, {}, true)) return false;
    take_slot(qk, k, 0);
    int64_t one = 1;
    mem_write(qk, slot_signal(r, 0), &one, 8);
    CopyPacket p{};
    p.fill = spec.fill ? 1 : 0;
    p.bytes = spec.bytes;
    p.duration_ns = uint64_t(std::llround(std::max(0.0, spec.duration_ns)));
    p.completion_signal.handle = slot_signal(r, 0);
    p.header.AmdFormat = kCopyPacketFormat;
    p.header.header = make_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC, true, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
    return post(qk, q, k, 0, p, {}, Publish{});
}

// A replayed trace's host thread: each call `gap_ns` of CPU time after the previous returned.
// A launch is the runtime's work for its measured duration less `launch_tail_ns`, then its
// packets (as any launch: api_overhead_ns, the stores, the doorbell); it returns when its
// measured duration has passed, or with the last doorbell if that is later. A cpu call takes its
// measured duration; a sync call returns when the host has seen the work it names end (at once
// if it has already).
void HostDriver::replay_calls(uint32_t thread) {
    HostQuantum& qk = call_quanta_[thread];
    qk.reset();
    auto ns = [](double v) { return sc_time(std::max(0.0, v), sc_core::SC_NS); };
    auto wait_until_ended = [&](const std::function<bool()>& ended) {
        qk.flush();
        while (!ended()) {
            sync_waiter_ = true;
            qk.wait(work_ended_);
        }
    };
    for (size_t c : thread_calls_[thread]) {
        const HostCall& call = work_.calls[c];
        qk.annotate(ns(call.gap_ns));
        const sc_time start = qk.get_current_time();
        switch (call.kind) {
        case HostCall::Kind::launch: {
            // The runtime's own work, as long as the trace measured the call less its tail, then
            // the packets, then what is left of the call.
            qk.annotate(ns(call.duration_ns - work_.launch_tail_ns));
            std::vector<size_t> posted;
            for (const std::string& name : call.work) {
                const size_t k = by_name_.at(name);
                LaunchRecord& r = launches_[k];
                r.submit = start;
                r.call_start = start;
                if (!submit_launch(qk, r.queue, k, 0)) break;  // the queue takes no more
                posted.push_back(k);
            }
            qk.flush();
            qk.wait_until(start + ns(call.duration_ns));
            for (size_t k : posted) launches_[k].call_end = qk.get_current_time();
            break;
        }
        case HostCall::Kind::cpu: qk.annotate(ns(call.duration_ns)); break;
        case HostCall::Kind::sync_device: wait_until_ended([this] { return in_flight() == 0; }); break;
        case HostCall::Kind::sync_queue: {
            const QueueState& s = queues_[queue_index(call.queue)];
            wait_until_ended([&s] { return s.in_flight.empty(); });
            break;
        }
        case HostCall::Kind::sync_work:
            wait_until_ended([&] {
                return std::all_of(call.work.begin(), call.work.end(), [&](const std::string& name) {
                    const LaunchRecord& r = launches_[by_name_.at(name)];
                    return r.done || r.posted == 0;  // never posted: nothing to wait for
                });
            });
            break;
        }
    }
    qk.flush();
}

// A host copy into device memory (M5: `serial`'s kernel arguments; the code object under
// `host.code: per-launch`): bytes through the BAR, one write, waited for, before the packet is
// written. It reaches the GPU: in step.
void HostDriver::copy_to_device(HostQuantum& qk, uint64_t device_address, const std::vector<unsigned char>& bytes,
                                const std::string& what) {
    qk.flush();
    sc_time d = qk.get_local_time();
    {
        std::vector<unsigned char> copy(bytes);
        const uint64_t bar = layout_.mmio_base + map::kBar + (device_address - map::kDeviceBase);
        if (transport(bus, payloads_, tlm::TLM_WRITE_COMMAND, bar, copy.data(), unsigned(copy.size()), d) != tlm::TLM_OK_RESPONSE)
            throw std::runtime_error("copying " + what + " to device memory failed");
    }
    qk.annotate_delay(d);
}

void HostDriver::interrupt_handler() {
    HostQuantum& qk = irq_quantum_;
    qk.reset();
    for (;;) {
        if (!irq.read()) qk.wait(irq.posedge_event());
        ++interrupts_;
        uint64_t status = 0;
        mmio_read(qk, map::kIntStatus, &status, 8);
        mmio_write(qk, map::kIntStatus, &status, 8, false);  // write 1 to clear
        for (uint32_t q = 0; q < queues_.size(); ++q)
            if (status >> q & 1) check_queue(qk, q);
        qk.flush();  // irq is the GPU's
        if (irq.read()) continue;
        qk.wait(irq.posedge_event());
    }
}

// Reads the completion signals of the queue's packets in flight (posted, not seen ended) and
// the queue's status.
void HostDriver::check_queue(HostQuantum& qk, uint32_t q) {
    const uint64_t regs = map::kQueueRegs + q * map::kQueueStride;
    uint32_t status = 0;
    uint64_t bad = 0, consumed = 0;
    mmio_read(qk, regs + map::kQueueStatus, &status, 4);
    if (status) {
        mmio_read(qk, regs + map::kQueueErrorPacket, &bad, 8);
        mmio_read(qk, regs + map::kQueueReadIndex, &consumed, 8);
        queues_[q].stopped = true;
    }
    const std::string why = queue_error_name(QueueError(status));
    // Packet order is submit order. After each read the handler catches up with SystemC time
    // (if the queue has later instances, posted or not), and looks again for packets posted
    // meanwhile, as a handler walking all of the queue's launches would.
    QueueState& s = queues_[q];
    auto& flight = s.in_flight;
    for (auto it = flight.begin(); it != flight.end();) {
        qk.flush();  // the map is the submitting thread's too
        const PostedPacket& p = it->second;
        const uint64_t packet = p.packet;
        const bool later = p.order + 1 < s.instances;
        int64_t v = 1;
        if (p.signal % 8 == 0 && p.signal && p.signal + 8 <= layout_.host_bytes) mem_read(qk, p.signal, &v, 8);
        if (v == 0) it = ended(qk, q, it, "");
        else if (v < 0 || (status && p.packet == bad)) it = ended(qk, q, it, status ? why : "failed");
        else if (status && p.packet >= consumed)
            it = ended(qk, q, it, "not processed: queue stopped by " + why + " at packet " + std::to_string(bad));
        else ++it;
        if (it == flight.end() && later) {
            qk.flush();
            it = flight.upper_bound(packet);
        }
    }
}

// The host saw a packet end (ok if `error` is empty): its launch's counts, its slot freed.
std::map<uint64_t, PostedPacket>::iterator HostDriver::ended(HostQuantum& qk, uint32_t q,
                                                             std::map<uint64_t, PostedPacket>::iterator it,
                                                             const std::string& error) {
    const PostedPacket& p = it->second;
    LaunchRecord& r = launches_[p.launch];
    ++r.ended;
    if (!error.empty()) {
        ++r.failed;
        if (!r.first_failure || p.instance < r.first_failure->instance)
            r.first_failure = LaunchRecord::Failure{p.instance, p.packet, error};
    }
    if (p.instance == 0) {
        r.first_done = true;
        r.error = error;
        r.seen_complete = qk.get_current_time();
    }
    r.done = r.ended == r.instances;
    slots_[p.launch][p.slot] = Slot{false, qk.get_current_time()};
    if (sync_waiter_) {
        sync_waiter_ = false;
        work_ended_.notify(qk.get_local_time());
    }
    if (slot_waiter_) {
        slot_waiter_ = false;
        instance_ended_.notify(qk.get_local_time());  // when the handler, in its own time, saw it
    }
    return queues_[q].in_flight.erase(it);
}

namespace {
// The header's fields by name; false for a name that is not one.
bool set_header_field(uint16_t& header, const std::string& name, uint64_t v) {
    auto set_bits = [&](unsigned at, unsigned width) {
        uint16_t mask = uint16_t(((1u << width) - 1) << at);
        header = uint16_t((header & ~mask) | ((v << at) & mask));
    };
    if (name == "header") header = uint16_t(v);
    else if (name == "type") set_bits(HSA_PACKET_HEADER_TYPE, 8);
    else if (name == "barrier_bit") set_bits(HSA_PACKET_HEADER_BARRIER, 1);
    else if (name == "acquire_fence_scope") set_bits(HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, 2);
    else if (name == "release_fence_scope") set_bits(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, 2);
    else return false;
    return true;
}
}  // namespace

void apply_packet_overrides(hsa_kernel_dispatch_packet_t& p, const std::map<std::string, uint64_t>& fields) {
    for (const auto& [name, v] : fields) {
        if (set_header_field(p.header, name, v)) continue;
        if (name == "dimensions") p.setup = uint16_t(v);
        else if (name == "workgroup_size_x") p.workgroup_size_x = uint16_t(v);
        else if (name == "workgroup_size_y") p.workgroup_size_y = uint16_t(v);
        else if (name == "workgroup_size_z") p.workgroup_size_z = uint16_t(v);
        else if (name == "reserved0") p.reserved0 = uint16_t(v);
        else if (name == "grid_size_x") p.grid_size_x = uint32_t(v);
        else if (name == "grid_size_y") p.grid_size_y = uint32_t(v);
        else if (name == "grid_size_z") p.grid_size_z = uint32_t(v);
        else if (name == "private_segment_size") p.private_segment_size = uint32_t(v);
        else if (name == "group_segment_size") p.group_segment_size = uint32_t(v);
        else if (name == "kernel_object") p.kernel_object = v;
        else if (name == "kernarg_address") p.kernarg_address = reinterpret_cast<void*>(v);
        else if (name == "reserved2") p.reserved2 = v;
        else if (name == "completion_signal") p.completion_signal.handle = v;
        else throw std::invalid_argument("'" + name + "' is not a field of the kernel dispatch packet");
    }
}

void apply_packet_overrides(CopyPacket& p, const std::map<std::string, uint64_t>& fields) {
    for (const auto& [name, v] : fields)
        if (!set_header_field(p.header.header, name, v))
            throw std::invalid_argument("'" + name + "' is not a field the copy packet may override");
}

void apply_packet_overrides(DrawPacket& p, const std::map<std::string, uint64_t>& fields) {
    for (const auto& [name, v] : fields) {
        if (set_header_field(p.header.header, name, v)) continue;
        if (name == "format") p.header.AmdFormat = uint8_t(v);
        else if (name == "reserved") p.header.reserved = uint8_t(v);
        else if (name == "vertex_tasks") p.vertex_tasks = uint32_t(v);
        else if (name == "vertex_cycles") p.vertex_cycles = uint32_t(v);
        else if (name == "pixel_tasks_per_vertex_task") p.pixel_tasks_per_vertex_task = uint32_t(v);
        else if (name == "pixel_cycles") p.pixel_cycles = uint32_t(v);
        else if (name == "reserved0") p.reserved0[0] = uint32_t(v);
        else if (name == "completion_signal") p.completion_signal.handle = v;
        else throw std::invalid_argument("'" + name + "' is not a field of the draw packet");
    }
}

}  // namespace gpuvp
