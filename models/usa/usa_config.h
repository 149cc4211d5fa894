#pragma once
#include <cstdint>

namespace gpuvp {

// The unified shading array (M4). Times in GPU clock cycles.
struct UsaConfig {
    uint32_t cores = 16;               // unified shading cores, 2..80, in shader clusters (SSC) of 8;
                                       // the last cluster holds the remainder when cores % 8 != 0
    uint32_t vertex_cores = 8;         // the initial split: this many cores start vertex-typed
    uint32_t max_draws = 16;           // draws in the array at once; the CP holds further ones
    uint32_t max_vertex_tasks = 1u << 20;  // vertex tasks a draw packet may have
    uint32_t pixel_queue = 1024;       // pixel tasks waiting for a core; a vertex task starts only
                                       // when the queue has room for the pixel tasks it will produce
    uint32_t balance_cycles = 1;       // the balancer reassigns at most one core per this many cycles
    uint32_t switch_cycles = 16;       // a core's first task after its type changed loads the
                                       // other type's shader state first
    uint32_t vertex_fetch_cycles = 16; // per SSC, one vertex fetch unit: a vertex task's inputs
    uint32_t pixel_setup_cycles = 8;   // per SSC, one pixel setup unit: a pixel task's interpolants
};

}  // namespace gpuvp
