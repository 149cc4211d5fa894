#include "fuzz/packet_input.h"
#include <gpuvp/firmware/assembler.h>

#include <cstring>

namespace gpuvp::fuzz {

namespace {

uint64_t read_le(const uint8_t* p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

void put_le(std::vector<uint8_t>& out, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

// The operand bytes of each op.
unsigned operand_bytes(Op op) {
    switch (op) {
    case Op::packet:
    case Op::body: return kPacketBytes;
    case Op::doorbell: return 8;
    case Op::doorbell_next:
    case Op::restart: return 0;
    case Op::wait: return 1;
    case Op::set_index:
    case Op::header: return 2;
    case Op::mmio: return 11;
    case Op::signal: return 9;
    }
    return 0;
}

ProgramStep step(Opcode op, uint8_t mod = 0, uint16_t a = 0, uint32_t b = 0, uint32_t repeat = 1) {
    ProgramStep s;
    s.insn = Instruction{op, mod, a, b};
    s.repeat = repeat;
    return s;
}

}  // namespace

Input decode(const uint8_t* data, size_t size) {
    Input in;
    size_t at = 0;
    if (at < size) {
        in.ring_packets[0] = 4u << (data[at] & 7) % 5;
        in.ring_packets[1] = 4u << (data[at] >> 4 & 7) % 5;
        ++at;
    }
    if (at < size) {
        in.priority[0] = data[at] & 15;
        in.priority[1] = data[at] >> 4;
        ++at;
    }
    while (at < size && in.steps.size() < kMaxSteps) {
        const uint8_t code = data[at++];
        if ((code & 15) >= kOps) continue;
        Step s;
        s.op = Op(code & 15);
        s.queue = code >> 4 & 1;
        const unsigned n = operand_bytes(s.op);
        if (size - at < n) break;
        const uint8_t* p = data + at;
        at += n;
        switch (s.op) {
        case Op::packet:
        case Op::body: std::memcpy(s.packet.data(), p, kPacketBytes); break;
        case Op::mmio:
            s.offset = uint16_t(read_le(p, 2) & 0x7fff);
            s.width = uint8_t(1u << (p[2] & 3));
            s.value = read_le(p + 3, 8);
            break;
        case Op::signal:
            s.index = uint8_t(p[0] % layout::kSignalCount);
            s.value = read_le(p + 1, 8);
            break;
        default: s.value = read_le(p, n);
        }
        in.steps.push_back(s);
    }
    return in;
}

std::vector<uint8_t> encode(const Input& in) {
    auto ring_code = [](uint32_t packets) {
        uint8_t n = 0;
        while ((4u << n) < packets && n < 4) ++n;
        return n;
    };
    std::vector<uint8_t> out;
    out.push_back(uint8_t(ring_code(in.ring_packets[0]) | ring_code(in.ring_packets[1]) << 4));
    out.push_back(uint8_t((in.priority[0] & 15) | (in.priority[1] & 15) << 4));
    for (const Step& s : in.steps) {
        out.push_back(uint8_t(uint8_t(s.op) | (s.queue & 1) << 4));
        switch (s.op) {
        case Op::packet:
        case Op::body: out.insert(out.end(), s.packet.begin(), s.packet.end()); break;
        case Op::mmio: {
            put_le(out, s.offset, 2);
            uint8_t w = 0;
            while ((1u << w) < s.width && w < 3) ++w;
            out.push_back(w);
            put_le(out, s.value, 8);
            break;
        }
        case Op::signal:
            out.push_back(s.index);
            put_le(out, s.value, 8);
            break;
        default: put_le(out, s.value, operand_bytes(s.op));
        }
    }
    return out;
}

uint64_t signal_address(unsigned i) { return layout::kSignals + 64 * uint64_t(i); }

std::vector<unsigned char> kernel_a(uint32_t warp_size) {
    KernelSpec k;
    k.name = "a";
    k.kernarg_bytes = 64;
    k.vregs = 16;
    k.global_bytes = layout::kBufferBytes;
    k.program = {step(Opcode::kernarg_load), step(Opcode::valu, 0, 4, 0, 4),
                 step(Opcode::load, uint8_t(Space::global), 0, 128), step(Opcode::store, uint8_t(Space::global), 0, 64)};
    return build_code_object(k, warp_size, true);
}

std::vector<unsigned char> kernel_b(uint32_t warp_size) {
    KernelSpec k;
    k.name = "b";
    k.kernarg_bytes = 64;
    k.vregs = 8;
    k.shared_bytes = layout::kKernelBShared;
    k.global_bytes = layout::kBufferBytes;
    k.scalars = {2, 2, 4, 1};
    k.warp_priorities = {3, 1, 2, 0};
    const uint8_t workgroup_write = uint8_t(uint8_t(ScalarLevel::workgroup) | kScalarWriteFlag);
    ProgramStep if_warp0 = step(Opcode::if_warp, 0, 0, 1);  // warp 0 of each block only
    if_warp0.body = {step(Opcode::valu, 0, 3)};
    k.program = {step(Opcode::kernarg_load),
                 step(Opcode::salu, workgroup_write, 2),
                 step(Opcode::salu, uint8_t(ScalarLevel::slice), 1),
                 step(Opcode::lock, 0, 0),
                 step(Opcode::valu, 0, 8),
                 step(Opcode::store, uint8_t(Space::shared), 0, 4),
                 step(Opcode::unlock, 0, 0),
                 step(Opcode::barrier),
                 if_warp0,
                 step(Opcode::valu, 0, 2, 0, 2)};
    return build_code_object(k, warp_size, true);
}

std::array<uint8_t, kPacketBytes> dispatch(uint64_t kernel_object, std::array<uint32_t, 3> grid,
                                           std::array<uint16_t, 3> wg, int signal, bool barrier) {
    hsa_kernel_dispatch_packet_t p{};
    p.header = make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
    p.setup = grid[2] > 1 || wg[2] > 1 ? 3 : grid[1] > 1 || wg[1] > 1 ? 2 : 1;
    p.workgroup_size_x = wg[0], p.workgroup_size_y = wg[1], p.workgroup_size_z = wg[2];
    p.grid_size_x = grid[0], p.grid_size_y = grid[1], p.grid_size_z = grid[2];
    p.group_segment_size = kernel_object == layout::kKernelB ? layout::kKernelBShared : 0;
    p.kernel_object = kernel_object;
    p.kernarg_address = reinterpret_cast<void*>(layout::kKernarg);
    p.completion_signal.handle = signal < 0 ? 0 : signal_address(unsigned(signal));
    std::array<uint8_t, kPacketBytes> b;
    std::memcpy(b.data(), &p, kPacketBytes);
    return b;
}

std::array<uint8_t, kPacketBytes> barrier_packet(hsa_packet_type_t and_or, std::vector<int> deps, int signal) {
    hsa_barrier_and_packet_t p{};
    p.header = make_header(and_or, false, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
    for (size_t i = 0; i < deps.size() && i < 5; ++i) p.dep_signal[i].handle = signal_address(unsigned(deps[i]));
    p.completion_signal.handle = signal < 0 ? 0 : signal_address(unsigned(signal));
    std::array<uint8_t, kPacketBytes> b;
    std::memcpy(b.data(), &p, kPacketBytes);
    return b;
}

std::array<uint8_t, kPacketBytes> draw(uint32_t vertex_tasks, uint32_t pixel_tasks_per_vertex_task, int signal) {
    DrawPacket d{};
    d.header.header = make_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC, false, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
    d.header.AmdFormat = kDrawPacketFormat;
    d.vertex_tasks = vertex_tasks;
    d.vertex_cycles = 40;
    d.pixel_tasks_per_vertex_task = pixel_tasks_per_vertex_task;
    d.pixel_cycles = 20;
    d.completion_signal.handle = signal < 0 ? 0 : signal_address(unsigned(signal));
    std::array<uint8_t, kPacketBytes> b;
    std::memcpy(b.data(), &d, kPacketBytes);
    return b;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds() {
    using namespace layout;
    auto packet = [](uint8_t q, std::array<uint8_t, kPacketBytes> bytes) {
        Step s;
        s.op = Op::packet;
        s.queue = q;
        s.packet = bytes;
        return s;
    };
    auto ring = [](uint8_t q) {
        Step s;
        s.op = Op::doorbell_next;
        s.queue = q;
        return s;
    };
    auto wait = [](uint64_t units) {
        Step s;
        s.op = Op::wait;
        s.value = units;
        return s;
    };
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const char* name, Input in) { out.emplace_back(name, encode(in)); };
    const std::array<uint32_t, 3> g256{256, 1, 1}, g128{128, 1, 1};
    const std::array<uint16_t, 3> w64{64, 1, 1};

    Input in;
    in.steps = {packet(0, dispatch(kKernelA, g256, w64, 0)), ring(0)};
    add("dispatch-device-kernel", in);

    in = Input{};
    in.steps = {packet(0, dispatch(kKernelB, g128, w64, 0)), ring(0)};
    add("dispatch-locks-scalars", in);

    in = Input{};
    in.steps = {packet(0, dispatch(kKernelA, {8, 8, 4}, {4, 4, 2}, 0)), ring(0)};
    add("dispatch-3d", in);

    in = Input{};
    in.priority = {1, 0};
    in.steps = {packet(0, dispatch(kKernelA, g256, w64, 0)), ring(0), packet(1, dispatch(kKernelB, g128, w64, 1)), ring(1)};
    add("two-queues", in);

    // Queue 1 waits (barrier-AND) for the kernel on queue 0, then runs its own.
    in = Input{};
    in.steps = {packet(1, barrier_packet(HSA_PACKET_TYPE_BARRIER_AND, {0}, 2)), ring(1),
                packet(1, dispatch(kKernelB, g128, w64, 1)), ring(1),
                wait(16), packet(0, dispatch(kKernelA, g256, w64, 0)), ring(0)};
    add("barrier-and", in);

    // A barrier-OR on two signals, one of which the host stores 0 into.
    in = Input{};
    Step store;
    store.op = Op::signal;
    store.index = 4;
    store.value = 0;
    in.steps = {packet(0, barrier_packet(HSA_PACKET_TYPE_BARRIER_OR, {3, 4}, 2)), ring(0),
                packet(0, dispatch(kKernelA, g128, w64, 0)), ring(0), wait(32), store, ring(0)};
    add("barrier-or", in);

    in = Input{};
    in.steps = {packet(0, draw(6, 2, 0)), ring(0)};
    add("draw", in);

    // A ring of 4 packets wraps: a draw, kernels (one with the barrier bit), the index past 4.
    in = Input{};
    in.ring_packets = {4, 64};
    in.steps = {packet(0, dispatch(kKernelA, g128, w64, 0)), ring(0), packet(0, draw(4, 1, 1)), ring(0),
                packet(0, dispatch(kKernelA, g128, w64, 2, true)), ring(0), wait(200),
                packet(0, dispatch(kKernelB, g128, w64, 3)), ring(0), packet(0, dispatch(kKernelA, g256, w64, 5)), ring(0)};
    add("ring-wraps", in);

    // Rung before the header was written: the CP waits for the next doorbell.
    in = Input{};
    Step body;
    body.op = Op::body;
    body.packet = dispatch(kKernelA, g256, w64, 0);
    Step header;
    header.op = Op::header;
    header.value = uint16_t(body.packet[0] | body.packet[1] << 8);
    in.steps = {body, ring(0), wait(64), header, ring(0)};
    add("header-after-doorbell", in);

    // More kernels than kernel slots: packets wait for a free one.
    in = Input{};
    for (int i = 0; i < 6; ++i) in.steps.push_back(packet(0, dispatch(kKernelA, g128, w64, i)));
    Step all;
    all.op = Op::doorbell;
    all.value = 5;
    in.steps.push_back(all);
    add("kernel-slots-full", in);
    return out;
}

}  // namespace gpuvp::fuzz
