#include "sc_main/scenario/device_platform.h"
#include <gpuvp/platform/presets.h>

#include <cctype>
#include <optional>
#include <stdexcept>

namespace gpuvp {

namespace {

// How a trace's device shows each preset: the model as its name writes it, and for an AMD
// device whose name says no model, its CU count and gfx version (HIP's major.minor).
struct DeviceMatch {
    const char* preset;
    const char* token;  // a word of the device's name
    bool amd;
    uint32_t cus;       // 0: matched by name only
    uint32_t gfx_major, gfx_minor;
};
constexpr DeviceMatch kMatches[] = {
    {"h200", "H200", false, 0, 0, 0},
    {"h100-sxm", "H100", false, 0, 0, 0},  // H100 PCIe (114 SMs) too: numSms sets its SM count
    {"a100", "A100", false, 0, 0, 0},
    {"v100", "V100", false, 0, 0, 0},
    {"mi300x", "MI300X", true, 304, 9, 4},
    {"mi250x", "MI250X", true, 110, 9, 0},
    {"mi250", "MI250", true, 104, 9, 0},  // an MI210 (one GCD of 104 CUs, gfx90a) matches it too
};

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// `word` in `text` with no letter or digit right before or after it ("A100" is in
// "NVIDIA A100-SXM4-40GB", not in "NVIDIA RTX A1000"; "H200" not in "GH200").
bool has_word(const std::string& text, const std::string& word) {
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool before = at > 0 && std::isalnum(static_cast<unsigned char>(text[at - 1]));
        const size_t end = at + word.size();
        const bool after = end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]));
        if (!before && !after) return true;
    }
    return false;
}

std::optional<uint32_t> preset_sms(const std::string& name) {
    if (const PlatformPreset* p = find_preset(name))
        for (const PresetValue& v : p->values)
            if (v.param == "sms") return uint32_t(std::stoul(v.value));
    return std::nullopt;
}

}  // namespace

std::string preset_for(const TraceDevice& d) {
    // By name: the models it names; of several ("AMD Instinct MI250X / MI250"), the one with
    // the device's SM count.
    const std::string name = upper(d.name);
    std::vector<const DeviceMatch*> named;
    for (const DeviceMatch& m : kMatches)
        if (has_word(name, m.token)) named.push_back(&m);
    if (named.size() == 1) return named[0]->preset;
    if (named.size() > 1) {
        std::vector<const DeviceMatch*> sized;
        for (const DeviceMatch* m : named)
            if (d.sms && preset_sms(m->preset) == *d.sms) sized.push_back(m);
        return sized.size() == 1 ? sized[0]->preset : "";
    }
    // By properties: an AMD device (or a warp of 64) with a known CU count and gfx version.
    const bool amd = d.amd || (d.warp_size && *d.warp_size == 64);
    if (!amd || !d.sms || (d.warp_size && *d.warp_size != 64)) return "";
    for (const DeviceMatch& m : kMatches) {
        if (!m.amd || m.cus != *d.sms) continue;
        if (d.compute_major && *d.compute_major != m.gfx_major) continue;
        if (d.compute_minor && *d.compute_minor != m.gfx_minor) continue;
        return m.preset;
    }
    return "";
}

std::vector<std::pair<std::string, std::string>> device_values(const TraceDevice& d) {
    std::vector<std::pair<std::string, std::string>> v;
    auto add = [&](const char* param, const std::optional<uint32_t>& x) {
        if (x) v.emplace_back(param, std::to_string(*x));
    };
    add("sms", d.sms);
    add("sm.warp_size", d.warp_size);
    if (d.max_threads_per_sm && d.warp_size && *d.warp_size > 0)
        v.emplace_back("sm.warp_slots", std::to_string(*d.max_threads_per_sm / *d.warp_size));
    add("sm.registers", d.registers_per_sm);
    add("sm.shared_memory", d.shared_per_sm);
    return v;
}

void apply_device_properties(const TraceDevice& d, PlatformConfig& platform) {
    static const std::pair<const char*, const char*> kProperty[] = {
        {"sms", "numSms"},
        {"sm.warp_size", "warpSize"},
        {"sm.warp_slots", "maxThreadsPerMultiProcessor / warpSize"},
        {"sm.registers", "regsPerMultiprocessor"},
        {"sm.shared_memory", "sharedMemPerMultiprocessor"},
    };
    GpuConfig g;
    g.platform = platform;
    for (const auto& [param, value] : device_values(d)) {
        try {
            set_param(g, param, value);
        } catch (const std::invalid_argument& e) {
            std::string property = param;
            for (const auto& [p, name] : kProperty)
                if (param == p) property = name;
            throw std::invalid_argument("device '" + d.name + "': deviceProperties " + property + " " + value + ": " + e.what());
        }
    }
    platform = g.platform;
}

PlatformConfig device_platform(const TraceDevice& d) {
    PlatformConfig platform;
    if (const PlatformPreset* p = find_preset(preset_for(d))) p->apply(platform);
    apply_device_properties(d, platform);
    return platform;
}

}  // namespace gpuvp
