// M4's decision logic, as pure functions: the two 2-bit load flags, the plan table and the
// orders in which the map looks for a donor core. No simulation kernel needed.
#pragma once
#include <gpuvp/models/common/messages.h>

#include <cstdint>
#include <vector>

namespace gpuvp {

const char* core_type_name(CoreType t);

constexpr uint32_t kCoresPerCluster = 8;

// A 2-bit load flag: 00 no idle core of the type, 01 exactly one, 10 two or more (11 never).
uint8_t load_flag(uint32_t idle_cores);
const char* flag_bits(uint8_t flag);  // "00", "01", "10" ("11" would be a defect)

// The plan table (steps 2 and 3 of the seed).
enum class Plan : uint8_t {
    balanced,             // V != 00 and P != 00: nothing to do
    no_idle_core,         // 00/00: nothing can be done
    keep_last_pixel,      // 00/01: the last idle pixel core stays pixel, so the pipeline cannot deadlock
    pixel_to_vertex,      // 00/10: one idle pixel core goes to vertex work
    last_vertex_to_pixel, // 01/00: the one idle vertex core goes to pixel work (keeps the pipeline flowing)
    vertex_to_pixel,      // 10/00: one idle vertex core goes to pixel work
};
const char* plan_name(Plan p);
Plan choose_plan(const LoadFlags& f);
// The type a plan takes a core from, and the type it gives the core (false: the plan moves none).
bool plan_moves(Plan p, CoreType& from, CoreType& to);

// Core i is core (i % 8) + 1 of cluster SSC (i / 8) + 1. Both orders list every core once.
// Breadth first: SSC1 core1, SSC2 core1, ..., SSCm core1, SSC1 core2, ...; a partial last
// cluster simply has no entries for the cores it lacks.
std::vector<uint32_t> breadth_first_order(uint32_t cores);
// Depth first (the baseline map): SSC1 core1..8, then SSC2, ...
std::vector<uint32_t> depth_first_order(uint32_t cores);
inline uint32_t cluster_of(uint32_t core) { return core / kCoresPerCluster; }
inline uint32_t clusters_for(uint32_t cores) { return (cores + kCoresPerCluster - 1) / kCoresPerCluster; }

}  // namespace gpuvp
