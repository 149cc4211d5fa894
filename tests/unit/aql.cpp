// The shared formats, without a simulation: AQL packets built with ROCm's own types
// (hsa/hsa.h) and decoded and checked by models/common/aql.h; the kernel descriptor
// (amd_kernel_code_t + the GPVX extension); the abstract ISA encoding and the assembler.
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/kernel_descriptor.h>
#include <gpuvp/models/common/messages.h>

#include <hsa/amd_hsa_kernel_code.h>
#include <hsa/hsa.h>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace gpuvp;

namespace {

void* addr(uintptr_t a) { return reinterpret_cast<void*>(a); }

uint16_t dispatch_header() {
    return make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, false, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
}

// A valid 1-D dispatch: 256-item workgroups over 65536 items.
hsa_kernel_dispatch_packet_t packet_1d() {
    hsa_kernel_dispatch_packet_t p;
    std::memset(&p, 0, sizeof p);
    p.header = dispatch_header();
    p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    p.workgroup_size_x = 256;
    p.workgroup_size_y = 1;
    p.workgroup_size_z = 1;
    p.grid_size_x = 65536;
    p.grid_size_y = 1;
    p.grid_size_z = 1;
    p.private_segment_size = 0;
    p.group_segment_size = 4096;
    p.kernel_object = 0x10000;
    p.kernarg_address = addr(0x2000);
    p.completion_signal.handle = 0x3000;
    return p;
}

// A valid 3-D dispatch: 8x8x4 workgroups over 64x64x16.
hsa_kernel_dispatch_packet_t packet_3d() {
    hsa_kernel_dispatch_packet_t p = packet_1d();
    p.setup = 3;
    p.workgroup_size_x = 8;
    p.workgroup_size_y = 8;
    p.workgroup_size_z = 4;
    p.grid_size_x = 64;
    p.grid_size_y = 64;
    p.grid_size_z = 16;
    return p;
}

hsa_barrier_and_packet_t barrier_and() {
    hsa_barrier_and_packet_t b;
    std::memset(&b, 0, sizeof b);
    b.header = make_header(HSA_PACKET_TYPE_BARRIER_AND, true, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
    b.dep_signal[0].handle = 0x100;
    b.dep_signal[1].handle = 0x108;
    b.completion_signal.handle = 0x200;
    return b;
}

amd_kernel_code_t descriptor() {
    amd_kernel_code_t d;
    std::memset(&d, 0, sizeof d);
    d.amd_kernel_code_version_major = AMD_KERNEL_CODE_VERSION_MAJOR;
    d.amd_kernel_code_version_minor = AMD_KERNEL_CODE_VERSION_MINOR;
    d.amd_machine_kind = AMD_MACHINE_KIND_AMDGPU;
    d.kernel_code_entry_byte_offset = 512;
    d.workgroup_group_segment_byte_size = 2048;
    d.kernarg_segment_byte_size = 64;
    d.wavefront_sgpr_count = 20;
    d.workitem_vgpr_count = 24;
    d.wavefront_size = AMD_POWERTWO_32;
    return d;
}

ProgramStep step(Opcode op, uint16_t a = 0, uint32_t b = 0, uint32_t repeat = 1, uint8_t mod = 0) {
    ProgramStep s;
    s.insn = Instruction{op, mod, a, b};
    s.repeat = repeat;
    return s;
}

ProgramStep loop(uint32_t count, std::vector<ProgramStep> body) {
    ProgramStep s;
    s.repeat = count;
    s.body = std::move(body);
    return s;
}

std::vector<Instruction> decode_all(const std::vector<uint64_t>& words) {
    std::vector<Instruction> v;
    for (uint64_t w : words) v.push_back(Instruction::decode(w));
    return v;
}

const Opcode kAllOpcodes[] = {Opcode::end,   Opcode::valu,       Opcode::salu,    Opcode::load,
                              Opcode::store, Opcode::kernarg_load, Opcode::barrier, Opcode::lock,
                              Opcode::unlock, Opcode::loop_begin, Opcode::loop_end};

}  // namespace

// ------------------------------------------------------------------------------------------
// Headers and layout
// ------------------------------------------------------------------------------------------

TEST_CASE("aql: make_header / decode_header round trip for every type and barrier and scope", "[aql]") {
    const hsa_packet_type_t types[] = {HSA_PACKET_TYPE_VENDOR_SPECIFIC, HSA_PACKET_TYPE_INVALID,
                                       HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_BARRIER_AND,
                                       HSA_PACKET_TYPE_AGENT_DISPATCH,  HSA_PACKET_TYPE_BARRIER_OR};
    const hsa_fence_scope_t scopes[] = {HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_AGENT, HSA_FENCE_SCOPE_SYSTEM};
    std::set<uint16_t> distinct;
    for (hsa_packet_type_t t : types)
        for (bool barrier : {false, true})
            for (hsa_fence_scope_t acq : scopes)
                for (hsa_fence_scope_t rel : scopes) {
                    const uint16_t h = make_header(t, barrier, acq, rel);
                    CAPTURE(t, barrier, acq, rel, h);
                    // The bit positions of hsa_packet_header_t, written out.
                    CHECK((h & 0xff) == unsigned(t));
                    CHECK(((h >> 8) & 1) == unsigned(barrier));
                    CHECK(((h >> 9) & 3) == unsigned(acq));
                    CHECK(((h >> 11) & 3) == unsigned(rel));
                    CHECK((h >> 13) == 0);
                    const PacketHeader d = decode_header(h);
                    CHECK(unsigned(d.type) == unsigned(t));
                    CHECK(d.barrier == barrier);
                    CHECK(unsigned(d.acquire_scope) == unsigned(acq));
                    CHECK(unsigned(d.release_scope) == unsigned(rel));
                    CHECK(d.reserved == 0);
                    CHECK(check_header(h));
                    distinct.insert(h);
                }
    CHECK(distinct.size() == 6 * 2 * 3 * 3);

    // One header worked out by hand: dispatch, barrier, acquire system, release agent.
    CHECK(make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, true, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_AGENT) == 0x0d02);
    CHECK(HSA_PACKET_HEADER_BARRIER == 8);
    CHECK(HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE == 9);
    CHECK(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE == 11);
    // Reserved bits decode as such.
    CHECK(decode_header(0xe002).reserved == 7);
}

TEST_CASE("aql: ROCm's dispatch packet has the field offsets of the design table", "[aql]") {
    CHECK(sizeof(hsa_kernel_dispatch_packet_t) == 64);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, header) == 0);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, setup) == 2);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_x) == 4);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_y) == 6);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_z) == 8);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, reserved0) == 10);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, grid_size_x) == 12);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, grid_size_y) == 16);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, grid_size_z) == 20);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, private_segment_size) == 24);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, group_segment_size) == 28);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, kernel_object) == 32);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, kernarg_address) == 40);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, reserved2) == 48);
    CHECK(offsetof(hsa_kernel_dispatch_packet_t, completion_signal) == 56);
    CHECK(offsetof(hsa_barrier_and_packet_t, dep_signal) == 8);
    CHECK(offsetof(hsa_barrier_and_packet_t, completion_signal) == 56);
    CHECK(offsetof(hsa_barrier_or_packet_t, dep_signal) == 8);
    CHECK(offsetof(hsa_barrier_or_packet_t, completion_signal) == 56);

    // The same packet as raw little-endian bytes (what sits in the ring).
    const hsa_kernel_dispatch_packet_t p = packet_3d();
    unsigned char raw[64];
    std::memcpy(raw, &p, sizeof raw);
    auto u16 = [&](unsigned o) { return unsigned(raw[o] | raw[o + 1] << 8); };
    CHECK(u16(0) == dispatch_header());
    CHECK(u16(2) == 3);
    CHECK(u16(4) == 8);
    CHECK(u16(8) == 4);
    CHECK(u16(12) == 64);
    CHECK(u16(20) == 16);
    CHECK(u16(28) == 4096);
    CHECK(u16(34) == 1);  // kernel_object 0x10000
    CHECK(u16(41) == 0x20);  // kernarg 0x2000
    CHECK(u16(57) == 0x30);  // signal 0x3000
}

// ------------------------------------------------------------------------------------------
// check_dispatch / check_barrier
// ------------------------------------------------------------------------------------------

TEST_CASE("aql: check_dispatch accepts valid packets including the boundaries", "[aql]") {
    const DispatchLimits limits;
    CHECK(check_dispatch(packet_1d(), limits));
    CHECK(check_dispatch(packet_3d(), limits));

    auto p = packet_1d();
    p.header = make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, true, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_AGENT);
    CHECK(check_dispatch(p, limits));

    p = packet_1d();
    p.grid_size_x = 300;  // not a multiple of 256: the last workgroup is partial (HSA allows it)
    CHECK(check_dispatch(p, limits));

    p = packet_1d();
    p.workgroup_size_x = 1024;  // exactly the limit
    p.grid_size_x = 1024;       // grid == workgroup
    CHECK(check_dispatch(p, limits));

    p = packet_1d();
    p.group_segment_size = limits.max_group_segment;  // exactly the limit
    p.kernarg_address = nullptr;                     // no arguments
    p.completion_signal.handle = 0;                  // no signal
    p.private_segment_size = 12345;                  // not checked
    CHECK(check_dispatch(p, limits));

    p = packet_3d();
    p.setup = 2;  // 2-D: z must be 1
    p.workgroup_size_z = 1;
    p.grid_size_z = 1;
    CHECK(check_dispatch(p, limits));

    p = packet_1d();
    p.kernel_object = 0xffff'ffff'ffff'ffc0ull;  // 64-aligned, large
    CHECK(check_dispatch(p, limits));
}

TEST_CASE("aql: check_dispatch rejects every malformed class with its error and field", "[aql]") {
    using Mutate = std::function<void(hsa_kernel_dispatch_packet_t&, DispatchLimits&)>;
    struct Case {
        const char* what;
        Mutate mutate;
        QueueError error;
        const char* field;
        bool three_d;
    };
    const Case cases[] = {
        {"unknown type 7", [](auto& p, auto&) { p.header = uint16_t((p.header & 0xff00) | 7); },
         QueueError::unknown_packet_type, "header.type", false},
        {"unknown type 255", [](auto& p, auto&) { p.header = uint16_t((p.header & 0xff00) | 0xff); },
         QueueError::unknown_packet_type, "header.type", false},
        {"reserved header bit 13", [](auto& p, auto&) { p.header |= 1 << 13; }, QueueError::invalid_header, "header", false},
        {"reserved header bit 15", [](auto& p, auto&) { p.header |= 1 << 15; }, QueueError::invalid_header, "header", false},
        {"acquire fence scope 3", [](auto& p, auto&) { p.header |= 3 << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE; },
         QueueError::invalid_header, "header.acquire_fence_scope", false},
        {"release fence scope 3", [](auto& p, auto&) { p.header |= 3 << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE; },
         QueueError::invalid_header, "header.release_fence_scope", false},
        {"setup reserved bit 2", [](auto& p, auto&) { p.setup = 1 | 1 << 2; }, QueueError::invalid_reserved, "setup", false},
        {"setup reserved bit 15", [](auto& p, auto&) { p.setup = 1 | 1 << 15; }, QueueError::invalid_reserved, "setup", false},
        {"dimensions 0", [](auto& p, auto&) { p.setup = 0; }, QueueError::invalid_dimensions, "setup.dimensions", false},
        // The dimensions field is 2 bits: a 4 written into setup lands in reserved bit 2.
        {"dimensions 4", [](auto& p, auto&) { p.setup = 4; }, QueueError::invalid_reserved, "setup", false},
        {"workgroup x 0", [](auto& p, auto&) { p.workgroup_size_x = 0; }, QueueError::invalid_workgroup,
         "workgroup_size_x", true},
        {"workgroup y 0", [](auto& p, auto&) { p.workgroup_size_y = 0; }, QueueError::invalid_workgroup,
         "workgroup_size_y", true},
        {"workgroup z 0", [](auto& p, auto&) { p.workgroup_size_z = 0; }, QueueError::invalid_workgroup,
         "workgroup_size_z", true},
        {"workgroup above the limit (16x16x8)", [](auto& p, auto&) {
             p.workgroup_size_x = 16; p.workgroup_size_y = 16; p.workgroup_size_z = 8; },
         QueueError::invalid_workgroup, "workgroup_size", true},
        {"workgroup above a lower limit", [](auto& p, auto& l) { l.max_workgroup_items = 128; },
         QueueError::invalid_workgroup, "workgroup_size", false},
        {"workgroup 1025 in 1-D", [](auto& p, auto&) { p.workgroup_size_x = 1025; p.grid_size_x = 2048; },
         QueueError::invalid_workgroup, "workgroup_size", false},
        {"grid x 0", [](auto& p, auto&) { p.grid_size_x = 0; }, QueueError::invalid_grid, "grid_size_x", true},
        {"grid y 0", [](auto& p, auto&) { p.grid_size_y = 0; }, QueueError::invalid_grid, "grid_size_y", true},
        {"grid z 0", [](auto& p, auto&) { p.grid_size_z = 0; }, QueueError::invalid_grid, "grid_size_z", true},
        {"grid x below workgroup", [](auto& p, auto&) { p.grid_size_x = 128; }, QueueError::invalid_grid,
         "grid_size_x", false},
        {"grid z below workgroup", [](auto& p, auto&) { p.grid_size_z = 3; }, QueueError::invalid_grid,
         "grid_size_z", true},
        {"1-D with workgroup_size_y 2", [](auto& p, auto&) { p.workgroup_size_y = 2; p.grid_size_y = 2; },
         QueueError::invalid_dimensions, "workgroup_size_y", false},
        {"2-D with workgroup_size_z 4", [](auto& p, auto&) { p.setup = 2; }, QueueError::invalid_dimensions,
         "workgroup_size_z", true},
        {"reserved0", [](auto& p, auto&) { p.reserved0 = 1; }, QueueError::invalid_reserved, "reserved0", false},
        {"reserved2", [](auto& p, auto&) { p.reserved2 = 0x8000'0000'0000'0000ull; }, QueueError::invalid_reserved,
         "reserved2", false},
        {"group segment above the limit", [](auto& p, auto& l) { p.group_segment_size = l.max_group_segment + 1; },
         QueueError::oversized_group_segment, "group_segment_size", false},
        {"null kernel object", [](auto& p, auto&) { p.kernel_object = 0; }, QueueError::null_kernel_object,
         "kernel_object", false},
        {"kernel object 32-aligned", [](auto& p, auto&) { p.kernel_object = 0x10020; }, QueueError::unaligned_address,
         "kernel_object", false},
        {"kernel object odd", [](auto& p, auto&) { p.kernel_object = 0x10001; }, QueueError::unaligned_address,
         "kernel_object", false},
        {"kernarg 8-aligned", [](auto& p, auto&) { p.kernarg_address = addr(0x2008); }, QueueError::unaligned_address,
         "kernarg_address", false},
        {"completion signal 4-aligned", [](auto& p, auto&) { p.completion_signal.handle = 0x3004; },
         QueueError::unaligned_address, "completion_signal", false},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        hsa_kernel_dispatch_packet_t p = c.three_d ? packet_3d() : packet_1d();
        DispatchLimits limits;
        REQUIRE(check_dispatch(p, limits));  // the base packet is fine before the change
        c.mutate(p, limits);
        const PacketCheck r = check_dispatch(p, limits);
        CHECK_FALSE(r);
        CHECK(r.error == c.error);
        CHECK(r.field == c.field);
        CHECK_FALSE(r.detail.empty());
    }
}

TEST_CASE("aql: check_dispatch refuses more blocks than max_blocks", "[aql]") {
    auto p = packet_1d();
    p.workgroup_size_x = 1;
    p.grid_size_x = 1u << 20;  // 2^20 one-item blocks: within the default
    CHECK(check_dispatch(p, DispatchLimits{}));
    DispatchLimits limits;
    limits.max_blocks = 1u << 20;
    CHECK(check_dispatch(p, limits));  // exactly the limit
    limits.max_blocks = (1u << 20) - 1;
    PacketCheck r = check_dispatch(p, limits);
    CHECK(r.error == QueueError::invalid_grid);
    CHECK(r.field == "grid_size");
    CHECK(r.detail == "1048576 blocks, at most 1048575");
    // A partial block at the far edge counts: 257 items in blocks of 256 are 2 blocks.
    p = packet_1d();
    p.grid_size_x = 257;
    limits.max_blocks = 1;
    CHECK(check_dispatch(p, limits).field == "grid_size");
    limits.max_blocks = 2;
    CHECK(check_dispatch(p, limits));
    // Three dimensions of 2^32 - 1 one-item blocks: more than 64 bits count, refused by the default.
    p = packet_3d();
    p.workgroup_size_x = p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = p.grid_size_y = p.grid_size_z = 0xffff'ffffu;
    r = check_dispatch(p, DispatchLimits{});
    CHECK(r.error == QueueError::invalid_grid);
    CHECK(r.detail == "more than 18446744073709551614 blocks, at most 281474976710656");
    const uint32_t grid[3] = {0xffff'ffffu, 0xffff'ffffu, 0xffff'ffffu};
    const uint16_t one[3] = {1, 1, 1}, wide[3] = {1024, 1024, 1024};
    CHECK(grid_blocks(grid, one) == UINT64_MAX);
    CHECK(grid_blocks(grid, wide) == UINT64_MAX);  // 2^22 blocks along each: 2^66
    const uint32_t flat[3] = {0xffff'ffffu, 0xffff'ffffu, 1};
    CHECK(grid_blocks(flat, one) == 0xffff'ffffull * 0xffff'ffffull);  // the most that fits
    CHECK(grid_blocks(flat, wide) == 4194304ull * 4194304);
}

// The unused-dimension check names the field at fault: the grid when the workgroup is 1.
TEST_CASE("aql: an unused grid dimension not 1 is reported on the grid field", "[aql]") {
    auto p = packet_1d();
    p.grid_size_y = 2;  // workgroup_size_y stays 1
    const PacketCheck r = check_dispatch(p, DispatchLimits{});
    CHECK(r.error == QueueError::invalid_dimensions);
    CHECK(r.field == "grid_size_y");
}

TEST_CASE("aql: check_draw accepts gpuvp's draw format and rejects every bad field", "[aql][m4]") {
    auto draw = [] {
        DrawPacket d{};
        d.header.header = make_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC, false, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
        d.header.AmdFormat = kDrawPacketFormat;
        d.vertex_tasks = 256;
        d.vertex_cycles = 200;
        d.pixel_tasks_per_vertex_task = 4;
        d.pixel_cycles = 100;
        d.completion_signal.handle = 0x1000;
        return d;
    };
    const DrawLimits limits;
    CHECK(check_draw(draw(), limits));
    // The layout starts with ROCm's AMD vendor packet header; the signal sits where AQL puts it.
    unsigned char bytes[64];
    const DrawPacket d0 = draw();
    std::memcpy(bytes, &d0, 64);
    CHECK(bytes[0] == HSA_PACKET_TYPE_VENDOR_SPECIFIC);
    CHECK(bytes[2] == kDrawPacketFormat);
    CHECK(from_bytes<uint32_t>(bytes + 4) == 256);
    CHECK(from_bytes<uint64_t>(bytes + 56) == 0x1000);
    struct Case {
        const char* what;
        std::function<void(DrawPacket&)> change;
        QueueError error;
        const char* field;
    };
    const Case cases[] = {
        {"AMD's barrier-value format", [](DrawPacket& d) { d.header.AmdFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE; },
         QueueError::unsupported_packet, "format"},
        {"reserved header byte", [](DrawPacket& d) { d.header.reserved = 1; }, QueueError::invalid_reserved, "reserved"},
        {"reserved body", [](DrawPacket& d) { d.reserved0[8] = 1; }, QueueError::invalid_reserved, "reserved0"},
        {"no vertex task", [](DrawPacket& d) { d.vertex_tasks = 0; }, QueueError::invalid_draw, "vertex_tasks"},
        {"too many vertex tasks", [](DrawPacket& d) { d.vertex_tasks = (1u << 20) + 1; }, QueueError::invalid_draw, "vertex_tasks"},
        {"zero vertex cycles", [](DrawPacket& d) { d.vertex_cycles = 0; }, QueueError::invalid_draw, "vertex_cycles"},
        {"pixel tasks past the queue", [](DrawPacket& d) { d.pixel_tasks_per_vertex_task = 1025; }, QueueError::invalid_draw,
         "pixel_tasks_per_vertex_task"},
        {"zero pixel cycles", [](DrawPacket& d) { d.pixel_cycles = 0; }, QueueError::invalid_draw, "pixel_cycles"},
        {"unaligned signal", [](DrawPacket& d) { d.completion_signal.handle = 0x1004; }, QueueError::unaligned_address,
         "completion_signal"},
        {"fence scope 3", [](DrawPacket& d) { d.header.header |= 3 << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE; },
         QueueError::invalid_header, "header.acquire_fence_scope"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        DrawPacket d = draw();
        c.change(d);
        const PacketCheck r = check_draw(d, limits);
        CHECK(r.error == c.error);
        CHECK(r.field == c.field);
    }
    // Pixel cycles do not matter for a draw without pixel tasks.
    DrawPacket d = draw();
    d.pixel_tasks_per_vertex_task = 0;
    d.pixel_cycles = 0;
    CHECK(check_draw(d, limits));
}

TEST_CASE("aql: check_barrier accepts AND and OR packets and rejects reserved fields and unaligned signals",
          "[aql]") {
    CHECK(check_barrier(barrier_and()));

    // A barrier-OR written with its own ROCm type, checked through the shared layout.
    hsa_barrier_or_packet_t o;
    std::memset(&o, 0, sizeof o);
    o.header = make_header(HSA_PACKET_TYPE_BARRIER_OR, false, HSA_FENCE_SCOPE_AGENT, HSA_FENCE_SCOPE_AGENT);
    o.dep_signal[4].handle = 0x1f8;
    hsa_barrier_and_packet_t as_and;
    std::memcpy(&as_and, &o, sizeof o);
    CHECK(check_barrier(as_and));
    o.dep_signal[4].handle = 0x1fc;
    std::memcpy(&as_and, &o, sizeof o);
    CHECK(check_barrier(as_and).field == "dep_signal[4]");

    auto b = barrier_and();
    b.reserved0 = 1;
    CHECK(check_barrier(b).error == QueueError::invalid_reserved);
    b = barrier_and();
    b.reserved1 = 0x80000000u;
    CHECK(check_barrier(b).error == QueueError::invalid_reserved);
    b = barrier_and();
    b.reserved2 = 1;
    CHECK(check_barrier(b).error == QueueError::invalid_reserved);
    CHECK(check_barrier(b).field == "reserved");

    for (unsigned i = 0; i < 5; ++i) {
        INFO("dep_signal " << i);
        b = barrier_and();
        b.dep_signal[i].handle = 0x404;
        const PacketCheck r = check_barrier(b);
        CHECK(r.error == QueueError::unaligned_address);
        CHECK(r.field == "dep_signal[" + std::to_string(i) + "]");
    }
    b = barrier_and();
    b.completion_signal.handle = 0x201;
    CHECK(check_barrier(b).error == QueueError::unaligned_address);
    CHECK(check_barrier(b).field == "completion_signal");

    b = barrier_and();
    b.header = uint16_t((b.header & 0xff00) | 6);
    CHECK(check_barrier(b).error == QueueError::unknown_packet_type);
    b = barrier_and();
    b.header |= 3 << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
    CHECK(check_barrier(b).error == QueueError::invalid_header);
}

TEST_CASE("aql: queue_error_name names every QueueError distinctly", "[aql]") {
    const QueueError all[] = {
        QueueError::none,           QueueError::unknown_packet_type, QueueError::unsupported_packet,
        QueueError::invalid_header, QueueError::invalid_dimensions,  QueueError::invalid_workgroup,
        QueueError::invalid_grid,   QueueError::invalid_reserved,    QueueError::null_kernel_object,
        QueueError::unaligned_address, QueueError::oversized_group_segment, QueueError::address_error,
        QueueError::invalid_descriptor, QueueError::doorbell_regressed, QueueError::queue_overflow,
        QueueError::invalid_queue,  QueueError::kernel_fault,        QueueError::dependency_failed,
        QueueError::invalid_draw,   QueueError::invalid_copy,
    };
    std::set<std::string> names;
    for (QueueError e : all) {
        const std::string n = queue_error_name(e);
        INFO(unsigned(e) << " -> " << n);
        CHECK(n != "?");
        CHECK_FALSE(n.empty());
        names.insert(n);
    }
    CHECK(names.size() == std::size(all));
    // The values are a contiguous list (the STATUS register's encoding): past the last, "?".
    CHECK(unsigned(QueueError::invalid_copy) == std::size(all) - 1);
    CHECK(std::string(queue_error_name(QueueError(std::size(all)))) == "?");
}

// A replayed trace's copy packet: format 0x81, a fill flag, a duration, the signal where every
// packet has it.
TEST_CASE("aql: check_copy takes a well-formed copy packet and names the bad field otherwise", "[aql][replay]") {
    CopyPacket p{};
    p.header.header = make_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC, true, HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_NONE);
    p.header.AmdFormat = kCopyPacketFormat;
    p.bytes = 4096;
    p.duration_ns = 1500;
    p.completion_signal.handle = 0x1000;
    CHECK(check_copy(p));
    auto bad = [](CopyPacket q, QueueError e, const char* field) {
        const PacketCheck c = check_copy(q);
        CHECK_FALSE(c);
        CHECK(c.error == e);
        CHECK(c.field == field);
    };
    CopyPacket q = p;
    q.fill = 2;
    bad(q, QueueError::invalid_copy, "fill");
    q = p;
    q.duration_ns = kMaxCopyNs + 1;
    bad(q, QueueError::invalid_copy, "duration_ns");
    q = p;
    q.reserved0[3] = 1;
    bad(q, QueueError::invalid_reserved, "reserved0");
    q = p;
    q.header.reserved = 1;
    bad(q, QueueError::invalid_reserved, "reserved");
    q = p;
    q.completion_signal.handle = 0x1004;
    bad(q, QueueError::unaligned_address, "completion_signal");
    CHECK(vendor_format(reinterpret_cast<const unsigned char*>(&p)) == kCopyPacketFormat);
    // A format neither draw nor copy is refused naming both.
    DrawPacket d{};
    d.header.header = p.header.header;
    d.header.AmdFormat = 3;
    CHECK(check_draw(d, DrawLimits{}).detail == "vendor-specific format 3 is not served (draws are format 128, copies 129)");
}

// ------------------------------------------------------------------------------------------
// Kernel descriptor
// ------------------------------------------------------------------------------------------

TEST_CASE("descriptor: a good amd_kernel_code_t fills KernelResources", "[aql]") {
    const amd_kernel_code_t d = descriptor();
    auto p = packet_1d();
    p.kernel_object = 0x40000;
    p.group_segment_size = 4096;  // more than the static 2048 is fine (dynamic group memory)
    KernelResources r;
    const PacketCheck c = check_descriptor(d, p, 32, 65536, r);
    REQUIRE(c);
    CHECK(r.code_entry == 0x40000 + 512);
    CHECK(r.vgprs == 24);
    CHECK(r.sgprs == 20);
    CHECK(r.group_segment == 2048);
    CHECK(r.kernarg_size == 64);
    CHECK(r.wavefront_size == 32);

    // A 64-wide build on 64-wide SMs, no kernargs with a null kernarg address.
    amd_kernel_code_t d64 = descriptor();
    d64.wavefront_size = AMD_POWERTWO_64;
    d64.kernarg_segment_byte_size = 0;
    d64.kernel_code_entry_byte_offset = 1024;  // code further out in the object
    p.kernarg_address = nullptr;
    KernelResources r64;
    REQUIRE(check_descriptor(d64, p, 64, 65536, r64));
    CHECK(r64.wavefront_size == 64);
    CHECK(r64.code_entry == 0x40000 + 1024);
    CHECK(r64.kernarg_size == 0);

    // Exactly one SM's registers for one warp is enough.
    amd_kernel_code_t big = descriptor();
    big.workitem_vgpr_count = 128;
    CHECK(check_descriptor(big, packet_1d(), 32, 128 * 32, r));
}

TEST_CASE("descriptor: every unrunnable descriptor is rejected with its field", "[aql]") {
    struct Case {
        const char* what;
        std::function<void(amd_kernel_code_t&, hsa_kernel_dispatch_packet_t&)> mutate;
        const char* field;
    };
    const Case cases[] = {
        {"version 2", [](auto& d, auto&) { d.amd_kernel_code_version_major = 2; },
         "kernel_descriptor.amd_kernel_code_version_major"},
        {"version 0", [](auto& d, auto&) { d.amd_kernel_code_version_major = 0; },
         "kernel_descriptor.amd_kernel_code_version_major"},
        {"entry inside the descriptor", [](auto& d, auto&) { d.kernel_code_entry_byte_offset = 128; },
         "kernel_descriptor.kernel_code_entry_byte_offset"},
        {"entry at 0", [](auto& d, auto&) { d.kernel_code_entry_byte_offset = 0; },
         "kernel_descriptor.kernel_code_entry_byte_offset"},
        {"entry negative", [](auto& d, auto&) { d.kernel_code_entry_byte_offset = -512; },
         "kernel_descriptor.kernel_code_entry_byte_offset"},
        {"entry unaligned", [](auto& d, auto&) { d.kernel_code_entry_byte_offset = 516; },
         "kernel_descriptor.kernel_code_entry_byte_offset"},
        {"wavefront 64 on 32-wide SMs", [](auto& d, auto&) { d.wavefront_size = AMD_POWERTWO_64; },
         "kernel_descriptor.wavefront_size"},
        {"wavefront 16 on 32-wide SMs", [](auto& d, auto&) { d.wavefront_size = 4; }, "kernel_descriptor.wavefront_size"},
        {"wavefront log2 200", [](auto& d, auto&) { d.wavefront_size = 200; }, "kernel_descriptor.wavefront_size"},
        {"zero VGPRs", [](auto& d, auto&) { d.workitem_vgpr_count = 0; }, "kernel_descriptor.workitem_vgpr_count"},
        {"a warp needs more registers than the SM", [](auto& d, auto&) { d.workitem_vgpr_count = 129; },
         "kernel_descriptor.workitem_vgpr_count"},
        {"packet group segment below the static one", [](auto&, auto& p) { p.group_segment_size = 2047; },
         "kernel_descriptor.workgroup_group_segment_byte_size"},
        {"kernargs expected, null kernarg_address", [](auto&, auto& p) { p.kernarg_address = nullptr; },
         "kernel_descriptor.kernarg_segment_byte_size"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        amd_kernel_code_t d = descriptor();
        auto p = packet_1d();
        p.group_segment_size = 2048;
        KernelResources r;
        REQUIRE(check_descriptor(d, p, 32, 128 * 32, r));
        c.mutate(d, p);
        KernelResources r2;
        const PacketCheck res = check_descriptor(d, p, 32, 128 * 32, r2);
        CHECK_FALSE(res);
        CHECK(res.error == QueueError::invalid_descriptor);
        CHECK(res.field == c.field);
        CHECK_FALSE(res.detail.empty());
    }
}

// ------------------------------------------------------------------------------------------
// ISA and assembler
// ------------------------------------------------------------------------------------------

TEST_CASE("isa: encode/decode round trip for every opcode at extreme field values", "[aql]") {
    std::set<std::string> names;
    for (Opcode op : kAllOpcodes) {
        INFO(opcode_name(op));
        CHECK(valid_opcode(uint8_t(op)));
        names.insert(opcode_name(op));
        for (uint8_t mod : {uint8_t(0), uint8_t(0x80), uint8_t(0xff)})
            for (uint16_t a : {uint16_t(0), uint16_t(1), uint16_t(0xffff)})
                for (uint32_t b : {0u, 1u, 0x8000'0000u, 0xffff'ffffu}) {
                    const Instruction i{op, mod, a, b};
                    const uint64_t w = i.encode();
                    // The documented layout: 0-7 opcode, 8-15 mod, 16-31 a, 32-63 b.
                    CHECK((w & 0xff) == uint8_t(op));
                    CHECK(((w >> 8) & 0xff) == mod);
                    CHECK(((w >> 16) & 0xffff) == a);
                    CHECK((w >> 32) == b);
                    CHECK(Instruction::decode(w) == i);
                }
    }
    CHECK(names.size() == std::size(kAllOpcodes));
    CHECK(names.count("illegal") == 0);
    CHECK(Instruction{Opcode::valu, 0xab, 0x1234, 0xdeadbeef}.encode() == 0xdeadbeef'1234'ab'02ull);

    // Zero (unwritten memory) and anything past the last opcode are illegal.
    CHECK_FALSE(valid_opcode(0));
    CHECK(valid_opcode(12));
    CHECK_FALSE(valid_opcode(13));
    CHECK_FALSE(valid_opcode(0xff));
    CHECK_FALSE(valid_opcode(uint8_t(Instruction::decode(0).op)));
    CHECK(std::string(opcode_name(Opcode(0))) == "illegal");
}

TEST_CASE("assembler: repeat and loops become loop_begin/loop_end with one end appended", "[aql]") {
    // repeat: 3 -> loop_begin(3), insn, loop_end(1), end
    {
        const auto v = decode_all(assemble({step(Opcode::valu, 4, 0, 3)}));
        REQUIRE(v.size() == 4);
        CHECK(v[0].op == Opcode::loop_begin);
        CHECK(v[0].b == 3);
        CHECK(v[1] == (Instruction{Opcode::valu, 0, 4, 0}));
        CHECK(v[2].op == Opcode::loop_end);
        CHECK(v[2].a == 1);
        CHECK(v[3].op == Opcode::end);
    }
    // A loop with a two-step body -> loop_begin(count), 2 insns, loop_end(2), end
    {
        const auto v = decode_all(assemble(
            {step(Opcode::kernarg_load), loop(7, {step(Opcode::load, 0, 128, 1, uint8_t(Space::global)),
                                                  step(Opcode::salu, 1, 0, 1, uint8_t(ScalarLevel::warp))})}));
        REQUIRE(v.size() == 6);
        CHECK(v[0].op == Opcode::kernarg_load);
        CHECK(v[1].op == Opcode::loop_begin);
        CHECK(v[1].b == 7);
        CHECK(v[2] == (Instruction{Opcode::load, uint8_t(Space::global), 0, 128}));
        CHECK(v[3] == (Instruction{Opcode::salu, uint8_t(ScalarLevel::warp), 1, 0}));
        CHECK(v[4].op == Opcode::loop_end);
        CHECK(v[4].a == 2);
        CHECK(v[5].op == Opcode::end);
    }
    // repeat: 1 is a plain instruction; exactly one end, never two.
    {
        const auto v = decode_all(assemble({step(Opcode::valu, 2, 0, 1)}));
        REQUIRE(v.size() == 2);
        CHECK(v[0].op == Opcode::valu);
        CHECK(v[1].op == Opcode::end);
    }
    CHECK(assemble({step(Opcode::valu), step(Opcode::end)}).size() == 2);
    {
        const auto v = decode_all(assemble({}));
        REQUIRE(v.size() == 1);
        CHECK(v[0].op == Opcode::end);
    }
    // A program ending in a loop still gets its end after the loop_end.
    {
        const auto v = decode_all(assemble({loop(2, {step(Opcode::end)})}));
        REQUIRE(v.size() == 4);
        CHECK(v[2].op == Opcode::loop_end);
        CHECK(v[3].op == Opcode::end);
    }
}

TEST_CASE("assembler: loops nest to the hardware's 4 levels and no deeper", "[aql]") {
    std::function<ProgramStep(int)> nested = [&](int depth) {
        return depth == 0 ? step(Opcode::valu, 1) : loop(2, {nested(depth - 1)});
    };
    const auto v = decode_all(assemble({nested(4)}));
    // loop_begin x4, valu, loop_end x4 (bodies 1, 3, 5, 7), end
    REQUIRE(v.size() == 10);
    for (int i = 0; i < 4; ++i) {
        CHECK(v[i].op == Opcode::loop_begin);
        CHECK(v[i].b == 2);
    }
    CHECK(v[4].op == Opcode::valu);
    for (int i = 0; i < 4; ++i) {
        CHECK(v[5 + i].op == Opcode::loop_end);
        CHECK(v[5 + i].a == 1 + 2 * i);
    }
    CHECK(v[9].op == Opcode::end);

    CHECK_THROWS_AS(assemble({nested(5)}), std::invalid_argument);
    // A repeat inside four loops is a fifth level too.
    std::function<ProgramStep(int)> nested_repeat = [&](int depth) {
        return depth == 0 ? step(Opcode::valu, 1, 0, 3) : loop(2, {nested_repeat(depth - 1)});
    };
    CHECK_THROWS_AS(assemble({nested_repeat(4)}), std::invalid_argument);
    CHECK_NOTHROW(assemble({nested_repeat(3)}));
}

TEST_CASE("assembler: build_code_object lays out descriptor and GPVX extension and code", "[aql]") {
    KernelSpec k;
    k.vregs = 24;
    k.sregs = 20;
    k.shared_bytes = 2048;
    k.kernarg_bytes = 48;
    k.global_bytes = 1 << 16;
    k.scalars = {1, 2, 3, 4};
    k.warp_priorities = {1, 1, 0, 1};
    k.program = {step(Opcode::kernarg_load), step(Opcode::valu, 4, 0, 2)};
    const std::vector<unsigned char> image = build_code_object(k, 32);
    const std::vector<uint64_t> code = assemble(k.program);
    REQUIRE(code.size() == 5);
    REQUIRE(image.size() == 512 + code.size() * 8);

    // At 0: a valid amd_kernel_code_t.
    amd_kernel_code_t d;
    std::memcpy(&d, image.data(), sizeof d);
    auto p = packet_1d();
    p.kernel_object = 0x80000;
    p.group_segment_size = 2048;
    KernelResources r;
    const PacketCheck c = check_descriptor(d, p, 32, 65536, r);
    REQUIRE(c);
    CHECK(r.code_entry == 0x80000 + 512);
    CHECK(r.vgprs == 24);
    CHECK(r.sgprs == 20);
    CHECK(r.group_segment == 2048);
    CHECK(r.kernarg_size == 48);
    CHECK(r.wavefront_size == 32);
    CHECK(d.amd_machine_kind == AMD_MACHINE_KIND_AMDGPU);
    // Built for 32-wide warps: 64-wide SMs refuse it.
    CHECK(check_descriptor(d, p, 64, 65536, r).field == "kernel_descriptor.wavefront_size");

    // At 256: the GPVX extension.
    CHECK(std::memcmp(image.data() + 256, "GPVX", 4) == 0);
    DescriptorExtension x;
    std::memcpy(&x, image.data() + kExtensionOffset, sizeof x);
    CHECK(x.magic == kExtensionMagic);
    CHECK(x.version == 1);
    CHECK(x.scalars[0] == 1);
    CHECK(x.scalars[1] == 2);
    CHECK(x.scalars[2] == 3);
    CHECK(x.scalars[3] == 4);
    CHECK(x.global_bytes == (1u << 16));
    REQUIRE(x.warp_priority_count == 4);
    CHECK(x.warp_priorities[0] == 1);
    CHECK(x.warp_priorities[2] == 0);
    CHECK(x.warp_priorities[3] == 1);

    // At 512: the code, word for word.
    std::vector<uint64_t> placed(code.size());
    std::memcpy(placed.data(), image.data() + 512, code.size() * 8);
    CHECK(placed == code);
    CHECK(Instruction::decode(placed.back()).op == Opcode::end);

    // 64-wide: wavefront_size is log2(64).
    const auto image64 = build_code_object(k, 64);
    amd_kernel_code_t d64;
    std::memcpy(&d64, image64.data(), sizeof d64);
    CHECK(d64.wavefront_size == AMD_POWERTWO_64);
    CHECK(check_descriptor(d64, p, 64, 65536, r));
}

TEST_CASE("assembler: the GPVX extension says what the program waits on with other warps, in a loop too",
          "[aql][m1][m3]") {
    KernelSpec k;
    auto syncs = [&] {
        DescriptorExtension x;
        std::memcpy(&x, build_code_object(k, 32).data() + kExtensionOffset, sizeof x);
        CHECK(x.version == 1);
        return x.syncs;
    };
    k.program = {step(Opcode::kernarg_load), step(Opcode::valu, 4, 0, 2)};
    CHECK(syncs() == 0);
    k.program = {step(Opcode::barrier), step(Opcode::valu, 4)};
    CHECK(syncs() == kSyncBarrier);
    k.program = {step(Opcode::valu, 4), loop(3, {step(Opcode::valu, 1), step(Opcode::barrier)})};
    CHECK(syncs() == kSyncBarrier);
    // M3: scalar writes by level (mod: the level in bits 0-1, kScalarWriteFlag); reads do not count.
    const uint8_t workgroup = uint8_t(ScalarLevel::workgroup), kernel = uint8_t(ScalarLevel::kernel);
    k.program = {step(Opcode::salu, 1, 0, 1, kernel), loop(2, {step(Opcode::salu, 1, 0, 1, workgroup | kScalarWriteFlag)})};
    CHECK(syncs() == kSyncWorkgroupWrite);
    k.program.push_back(step(Opcode::salu, 1, 0, 1, kernel | kScalarWriteFlag));
    CHECK(syncs() == (kSyncWorkgroupWrite | kSyncKernelWrite));
    k.program.push_back(step(Opcode::barrier));
    CHECK(syncs() == (kSyncBarrier | kSyncWorkgroupWrite | kSyncKernelWrite));
}
