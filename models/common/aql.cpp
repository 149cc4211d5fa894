#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/tlm_util.h>

namespace gpuvp {

const char* queue_error_name(QueueError e) {
    switch (e) {
    case QueueError::none: return "none";
    case QueueError::unknown_packet_type: return "unknown packet type";
    case QueueError::unsupported_packet: return "unsupported packet";
    case QueueError::invalid_header: return "invalid header";
    case QueueError::invalid_dimensions: return "invalid dimensions";
    case QueueError::invalid_workgroup: return "invalid workgroup size";
    case QueueError::invalid_grid: return "invalid grid size";
    case QueueError::invalid_reserved: return "reserved field not zero";
    case QueueError::null_kernel_object: return "null kernel object";
    case QueueError::unaligned_address: return "unaligned address";
    case QueueError::oversized_group_segment: return "group segment too large";
    case QueueError::address_error: return "address error";
    case QueueError::invalid_descriptor: return "invalid kernel descriptor";
    case QueueError::doorbell_regressed: return "doorbell regressed";
    case QueueError::queue_overflow: return "queue overflow";
    case QueueError::invalid_queue: return "invalid queue";
    case QueueError::kernel_fault: return "kernel fault";
    case QueueError::dependency_failed: return "dependency failed";
    case QueueError::invalid_draw: return "invalid draw";
    case QueueError::invalid_copy: return "invalid copy";
    }
    return "?";
}

namespace {
PacketCheck fail(QueueError e, std::string field, std::string detail) {
    return PacketCheck{e, std::move(field), std::move(detail)};
}
}  // namespace

PacketCheck check_header(uint16_t header) {
    PacketHeader h = decode_header(header);
    if (h.type > HSA_PACKET_TYPE_BARRIER_OR)
        return fail(QueueError::unknown_packet_type, "header.type", "type " + std::to_string(h.type) + " is not an AQL packet type");
    if (h.reserved)
        return fail(QueueError::invalid_header, "header", "reserved bits 13-15 are set");
    if (h.acquire_scope > HSA_FENCE_SCOPE_SYSTEM)
        return fail(QueueError::invalid_header, "header.acquire_fence_scope", "scope 3 is not a fence scope");
    if (h.release_scope > HSA_FENCE_SCOPE_SYSTEM)
        return fail(QueueError::invalid_header, "header.release_fence_scope", "scope 3 is not a fence scope");
    return {};
}

uint64_t grid_blocks(const uint32_t grid[3], const uint16_t workgroup[3]) {
    uint64_t blocks = 1;
    for (int d = 0; d < 3; ++d) {
        if (workgroup[d] == 0) return UINT64_MAX;
        const uint64_t n = (uint64_t(grid[d]) + workgroup[d] - 1) / workgroup[d];
        if (n && blocks > UINT64_MAX / n) return UINT64_MAX;
        blocks *= n;
    }
    return blocks;
}

PacketCheck check_grid(const uint32_t grid[3], const uint16_t wg[3], unsigned dims) {
    static const char* axis[3] = {"x", "y", "z"};
    for (unsigned d = 0; d < 3; ++d) {
        if (wg[d] == 0)
            return fail(QueueError::invalid_workgroup, std::string("workgroup_size_") + axis[d], "workgroup size is 0");
        if (grid[d] == 0)
            return fail(QueueError::invalid_grid, std::string("grid_size_") + axis[d], "grid size is 0");
        if (d >= dims && (wg[d] != 1 || grid[d] != 1))
            return fail(QueueError::invalid_dimensions, std::string(wg[d] != 1 ? "workgroup_size_" : "grid_size_") + axis[d],
                        "dimension " + std::string(axis[d]) + " is unused (dimensions = " + std::to_string(dims) + ") and must be 1");
        if (grid[d] < wg[d])
            return fail(QueueError::invalid_grid, std::string("grid_size_") + axis[d],
                        "grid " + std::to_string(grid[d]) + " is smaller than its workgroup " + std::to_string(wg[d]));
    }
    return {};
}

unsigned dispatch_dimensions(const uint32_t grid[3], const uint16_t wg[3]) {
    return grid[2] > 1 || wg[2] > 1 ? 3 : grid[1] > 1 || wg[1] > 1 ? 2 : 1;
}

PacketCheck check_dispatch(const hsa_kernel_dispatch_packet_t& p, const DispatchLimits& limits) {
    if (auto c = check_header(p.header); !c) return c;
    unsigned dims = p.setup & 3;
    if (p.setup >> 2)
        return fail(QueueError::invalid_reserved, "setup", "bits 2-15 of setup are reserved");
    if (dims < 1 || dims > 3)
        return fail(QueueError::invalid_dimensions, "setup.dimensions", "dimensions must be 1, 2 or 3, not " + std::to_string(dims));
    const uint16_t wg[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
    const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
    if (auto c = check_grid(grid, wg, dims); !c) return c;
    const uint64_t items = uint64_t(wg[0]) * wg[1] * wg[2];
    if (items > limits.max_workgroup_items)
        return fail(QueueError::invalid_workgroup, "workgroup_size",
                    std::to_string(items) + " work-items in a workgroup, at most " + std::to_string(limits.max_workgroup_items));
    if (const uint64_t blocks = grid_blocks(grid, wg); blocks > limits.max_blocks)
        return fail(QueueError::invalid_grid, "grid_size",
                    (blocks == UINT64_MAX ? "more than " + std::to_string(UINT64_MAX - 1) : std::to_string(blocks)) +
                        " blocks, at most " + std::to_string(limits.max_blocks));
    if (p.reserved0)
        return fail(QueueError::invalid_reserved, "reserved0", "reserved field is not 0");
    if (p.reserved2)
        return fail(QueueError::invalid_reserved, "reserved2", "reserved field is not 0");
    if (p.group_segment_size > limits.max_group_segment)
        return fail(QueueError::oversized_group_segment, "group_segment_size",
                    std::to_string(p.group_segment_size) + " bytes, an SM has " + std::to_string(limits.max_group_segment));
    if (p.kernel_object == 0)
        return fail(QueueError::null_kernel_object, "kernel_object", "kernel object is null");
    if (p.kernel_object % 64)
        return fail(QueueError::unaligned_address, "kernel_object", hex(p.kernel_object) + " is not 64-byte aligned");
    const auto kernarg = reinterpret_cast<uint64_t>(p.kernarg_address);
    if (kernarg % 16)
        return fail(QueueError::unaligned_address, "kernarg_address", hex(kernarg) + " is not 16-byte aligned");
    if (p.completion_signal.handle % 8)
        return fail(QueueError::unaligned_address, "completion_signal", hex(p.completion_signal.handle) + " is not 8-byte aligned");
    return {};
}

PacketCheck check_barrier(const hsa_barrier_and_packet_t& p) {
    if (auto c = check_header(p.header); !c) return c;
    if (p.reserved0 || p.reserved1 || p.reserved2)
        return fail(QueueError::invalid_reserved, "reserved", "reserved field is not 0");
    for (unsigned i = 0; i < 5; ++i)
        if (p.dep_signal[i].handle % 8)
            return fail(QueueError::unaligned_address, "dep_signal[" + std::to_string(i) + "]",
                        hex(p.dep_signal[i].handle) + " is not 8-byte aligned");
    if (p.completion_signal.handle % 8)
        return fail(QueueError::unaligned_address, "completion_signal", hex(p.completion_signal.handle) + " is not 8-byte aligned");
    return {};
}

PacketCheck check_draw(const DrawPacket& p, const DrawLimits& limits) {
    if (auto c = check_header(p.header.header); !c) return c;
    if (p.header.AmdFormat != kDrawPacketFormat)
        return fail(QueueError::unsupported_packet, "format",
                    "vendor-specific format " + std::to_string(p.header.AmdFormat) + " is not served (draws are format " +
                        std::to_string(kDrawPacketFormat) + ", copies " + std::to_string(kCopyPacketFormat) + ")");
    if (p.header.reserved) return fail(QueueError::invalid_reserved, "reserved", "reserved field is not 0");
    for (uint32_t r : p.reserved0)
        if (r) return fail(QueueError::invalid_reserved, "reserved0", "reserved field is not 0");
    auto range = [&](uint32_t v, uint32_t lo, uint32_t hi, const char* field) {
        if (v >= lo && v <= hi) return PacketCheck{};
        return fail(QueueError::invalid_draw, field,
                    std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    };
    if (auto c = range(p.vertex_tasks, 1, limits.max_vertex_tasks, "vertex_tasks"); !c) return c;
    if (auto c = range(p.vertex_cycles, 1, limits.max_task_cycles, "vertex_cycles"); !c) return c;
    if (auto c = range(p.pixel_tasks_per_vertex_task, 0, limits.max_pixel_tasks_per_vertex_task,
                       "pixel_tasks_per_vertex_task");
        !c)
        return c;
    if (p.pixel_tasks_per_vertex_task)
        if (auto c = range(p.pixel_cycles, 1, limits.max_task_cycles, "pixel_cycles"); !c) return c;
    if (p.completion_signal.handle % 8)
        return fail(QueueError::unaligned_address, "completion_signal", hex(p.completion_signal.handle) + " is not 8-byte aligned");
    return {};
}

PacketCheck check_copy(const CopyPacket& p) {
    if (auto c = check_header(p.header.header); !c) return c;
    if (p.header.reserved) return fail(QueueError::invalid_reserved, "reserved", "reserved field is not 0");
    for (uint64_t r : p.reserved0)
        if (r) return fail(QueueError::invalid_reserved, "reserved0", "reserved field is not 0");
    if (p.fill > 1) return fail(QueueError::invalid_copy, "fill", std::to_string(p.fill) + " is neither 0 nor 1");
    if (p.duration_ns > kMaxCopyNs)
        return fail(QueueError::invalid_copy, "duration_ns",
                    std::to_string(p.duration_ns) + " is above " + std::to_string(kMaxCopyNs));
    if (p.completion_signal.handle % 8)
        return fail(QueueError::unaligned_address, "completion_signal", hex(p.completion_signal.handle) + " is not 8-byte aligned");
    return {};
}

}  // namespace gpuvp
