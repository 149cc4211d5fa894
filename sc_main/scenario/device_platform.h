// The platform a profiler trace's GPU stands for: the preset its device matches
// (platform/presets.h), and what the trace's own `deviceProperties` state laid over it. For a
// replayed trace the platform is, lowest first: the preset < deviceProperties < `--platform FILE`
// < `--set` (docs/presets.md, "A trace's device").
#pragma once
#include <gpuvp/platform/gpu_config.h>
#include "sc_main/profiler/profiler_trace.h"

#include <string>
#include <utility>
#include <vector>

namespace gpuvp {

// The preset a trace's device is ("a100", "h100-sxm", "h200", "v100", "mi250", "mi250x",
// "mi300x"), or empty when none matches. By its name first ("NVIDIA A100-SXM4-40GB",
// "Tesla V100-SXM2-32GB", "AMD Instinct MI300X"); an AMD device whose name says no model
// ("AMD Radeon Graphics") by its properties: a warp of 64, its CU count (104: mi250, 110:
// mi250x, 304: mi300x) and, when stated, its gfx version (9.0: gfx90a; 9.4: gfx942).
std::string preset_for(const TraceDevice& device);

// What the trace states of the platform, as parameters (gpu_params()) and values: sms
// (numSms), sm.warp_size (warpSize), sm.warp_slots (maxThreadsPerMultiprocessor / warpSize),
// sm.registers (regsPerMultiprocessor), sm.shared_memory (sharedMemPerMultiprocessor). What
// it does not state is left out.
std::vector<std::pair<std::string, std::string>> device_values(const TraceDevice& device);

// Sets device_values(device) in `platform`, over what it holds (the preset's values). Throws
// std::invalid_argument naming the property if a stated value is outside the model's range.
void apply_device_properties(const TraceDevice& device, PlatformConfig& platform);

// The defaults, the preset the device matches (if any), then its properties.
PlatformConfig device_platform(const TraceDevice& device);

}  // namespace gpuvp
