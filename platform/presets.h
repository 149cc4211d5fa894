// Platform presets: named sets of platform values of real GPUs (the SM count, each SM's warp
// slots, warp size, registers, shared memory and L1 data cache, the L2 and the clock), each
// value with the public document it comes from. A scenario names one as `platform: {preset:
// a100}`; the keys it writes beside it override the preset's (docs/presets.md). The model's own
// latencies are not part of a preset: they keep their defaults (docs/timing.md).
#pragma once
#include <gpuvp/platform/gpu_config.h>

#include <string>
#include <vector>

namespace gpuvp {

// One value of a preset: a parameter of gpu_params() ("sm.warp_slots"), its value as text
// ("64"), and where the number comes from.
struct PresetValue {
    std::string param;
    std::string value;
    std::string source;
};

struct PlatformPreset {
    std::string name;         // "a100"
    std::string description;  // "NVIDIA A100 SXM4 40GB (GA100, Ampere)"
    std::string source;       // the documents its values come from, in short
    std::vector<PresetValue> values;  // in gpu_params() order
    // Sets each of `values` in `config` (set_param: every value is checked against its range).
    void apply(GpuConfig& config) const;
    void apply(PlatformConfig& platform) const;
};

// Every preset, in the order docs/presets.md lists them.
const std::vector<PlatformPreset>& platform_presets();
// The preset called `name`, or null.
const PlatformPreset* find_preset(const std::string& name);
// Their names, in that order.
std::vector<std::string> preset_names();

// Every preset as Markdown: a table of each one's values with their sources (docs/presets.md
// holds the same text).
std::string presets_markdown();

}  // namespace gpuvp
