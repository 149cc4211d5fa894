#include <gpuvp/models/usa/load_flags.h>

namespace gpuvp {

const char* core_type_name(CoreType t) { return t == CoreType::vertex ? "vertex" : "pixel"; }

uint8_t load_flag(uint32_t idle_cores) { return idle_cores == 0 ? 0 : idle_cores == 1 ? 1 : 2; }

const char* flag_bits(uint8_t flag) {
    static const char* bits[] = {"00", "01", "10", "11"};
    return bits[flag & 3];
}

Plan choose_plan(const LoadFlags& f) {
    if (f.idle_vertex != 0 && f.idle_pixel != 0) return Plan::balanced;
    if (f.idle_vertex == 0) {
        if (f.idle_pixel == 0) return Plan::no_idle_core;
        return f.idle_pixel == 1 ? Plan::keep_last_pixel : Plan::pixel_to_vertex;
    }
    return f.idle_vertex == 1 ? Plan::last_vertex_to_pixel : Plan::vertex_to_pixel;  // P == 00
}

bool plan_moves(Plan p, CoreType& from, CoreType& to) {
    switch (p) {
    case Plan::pixel_to_vertex:
        from = CoreType::pixel;
        to = CoreType::vertex;
        return true;
    case Plan::last_vertex_to_pixel:
    case Plan::vertex_to_pixel:
        from = CoreType::vertex;
        to = CoreType::pixel;
        return true;
    default: return false;
    }
}

const char* plan_name(Plan p) {
    switch (p) {
    case Plan::balanced: return "balanced";
    case Plan::no_idle_core: return "no idle core";
    case Plan::keep_last_pixel: return "keep the last idle pixel core";
    case Plan::pixel_to_vertex: return "idle pixel core to vertex";
    case Plan::last_vertex_to_pixel: return "the idle vertex core to pixel";
    case Plan::vertex_to_pixel: return "idle vertex core to pixel";
    }
    return "?";
}

std::vector<uint32_t> breadth_first_order(uint32_t cores) {
    std::vector<uint32_t> order;
    const uint32_t m = clusters_for(cores);
    for (uint32_t k = 0; k < kCoresPerCluster; ++k)
        for (uint32_t c = 0; c < m; ++c)
            if (c * kCoresPerCluster + k < cores) order.push_back(c * kCoresPerCluster + k);
    return order;
}

std::vector<uint32_t> depth_first_order(uint32_t cores) {
    std::vector<uint32_t> order(cores);
    for (uint32_t i = 0; i < cores; ++i) order[i] = i;
    return order;
}

}  // namespace gpuvp
