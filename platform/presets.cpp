#include <gpuvp/platform/presets.h>

#include <stdexcept>

namespace gpuvp {

namespace {

// The documents, as the sources below cite them (docs/presets.md lists them in full).
constexpr const char* kA100 = "NVIDIA A100 Tensor Core GPU Architecture whitepaper";
constexpr const char* kV100 = "NVIDIA Tesla V100 GPU Architecture whitepaper";
constexpr const char* kH100 = "NVIDIA H100 Tensor Core GPU Architecture whitepaper";
constexpr const char* kCuda = "CUDA C++ Programming Guide, Compute Capabilities, Technical Specifications per Compute Capability";
constexpr const char* kRocmSpecs = "ROCm documentation, AMD GPU specifications, AMD Instinct table";
constexpr const char* kRocmWaves =
    "ROCm Compute Profiler documentation, Pipeline descriptions, VALU: 8 wavefront slots per SIMD, 4 SIMDs per CU "
    "(10 only on GCN and MI100); LLVM AMDGPU occupancy: gfx90a 8 waves per SIMD";

std::string cat(std::initializer_list<std::string> parts) {
    std::string s;
    for (const auto& p : parts) s += p;
    return s;
}

// NVIDIA's SM: 64 warps of 32 threads (2048 threads), 65536 32-bit registers (256 KB).
std::vector<PresetValue> nvidia_sm(const std::string& compute_capability, const char* whitepaper, const char* table) {
    const std::string cc = std::string(kCuda) + " (" + compute_capability + ")";
    return {
        {"sm.warp_slots", "64", cat({whitepaper, ", ", table, ": Max Warps / SM 64 (Max Threads / SM 2048); ", cc})},
        {"sm.warp_size", "32", cc + ": warp size 32"},
        {"sm.registers", "65536", cat({whitepaper, ", ", table, ": Max 32-bit Registers / SM 65536 (a 256 KB register file); ", cc})},
    };
}

std::vector<PlatformPreset> make_presets() {
    std::vector<PlatformPreset> p;
    auto add = [&](PlatformPreset preset, std::vector<PresetValue> head, std::vector<PresetValue> sm,
                   std::vector<PresetValue> tail) {
        for (auto* part : {&head, &sm, &tail})
            for (PresetValue& v : *part) preset.values.push_back(std::move(v));
        p.push_back(std::move(preset));
    };

    // ---- NVIDIA
    const char* a100_t3 = "Table 3 (Comparison of NVIDIA Data Center GPUs), A100 column";
    add({"a100", "NVIDIA A100 SXM4 40GB (GA100, Ampere, compute capability 8.0)", std::string(kA100) + "; " + kCuda, {}},
        {{"clock_mhz", "1410", std::string(kA100) + ", " + a100_t3 + ": GPU Boost Clock 1410 MHz"},
         {"sms", "108", std::string(kA100) + ", " + a100_t3 + ": SMs 108"}},
        nvidia_sm("8.0", kA100, "Table 4 (Compute Capability: GP100 vs. GV100 vs. GA100)"),
        {{"sm.shared_memory", "167936",
          std::string(kA100) + ", " + a100_t3 + ": Shared Memory Size / SM configurable up to 164 KB (167936 bytes, "
                                               "what CUDA reports as sharedMemPerMultiprocessor)"},
         {"sm.l1d_bytes", "28672",
          std::string(kA100) + ", A100 SM Architecture: a combined 192 KB L1 data cache and shared memory per SM; "
                               "192 KB - 164 KB of shared memory = 28 KB of L1"},
         {"memory.l2_bytes", "41943040", std::string(kA100) + ", " + a100_t3 + ": L2 Cache Size 40960 KB (40 MiB)"}});

    const char* h100_t = "the A100 / H100 comparison table, H100 SXM5 column";
    add({"h100-sxm", "NVIDIA H100 SXM5 80GB (GH100, Hopper, compute capability 9.0)",
         std::string(kH100) + "; NVIDIA H100 Tensor Core GPU datasheet; " + kCuda, {}},
        {{"clock_mhz", "1980",
          "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: FP32 67 TFLOPS = 132 SMs x 128 FP32 cores x 2 x 1.98 GHz "
          "(the whitepaper's table gives no final boost clock)"},
         {"sms", "132", std::string(kH100) + ", " + h100_t + ": SMs 132"}},
        nvidia_sm("9.0", kH100, "the Compute Capability table (GP100 vs. GV100 vs. GA100 vs. GH100)"),
        {{"sm.shared_memory", "233472",
          std::string(kH100) + ", " + h100_t + ": Shared Memory Size / SM configurable up to 228 KB (233472 bytes)"},
         {"sm.l1d_bytes", "28672",
          std::string(kH100) + ", H100 SM Architecture: a combined 256 KB L1 data cache and shared memory per SM; "
                               "256 KB - 228 KB of shared memory = 28 KB of L1"},
         {"memory.l2_bytes", "52428800", std::string(kH100) + ", " + h100_t + ": L2 Cache Size 50 MB (50 MiB)"}});

    const char* h200 = "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM";
    add({"h200", "NVIDIA H200 SXM 141GB (GH100, Hopper, compute capability 9.0)",
         std::string(h200) + "; the h100-sxm values (" + kH100 + ")", {}},
        {{"clock_mhz", "1980",
          std::string(h200) + ": FP64 34 TFLOPS and FP32 67 TFLOPS, the figures of H100 SXM: its 132 SMs at 1.98 GHz "
                              "(the datasheet lists neither SMs nor clocks)"},
         {"sms", "132", std::string(h200) + ": the same GH100 configuration as H100 SXM5 (" + kH100 + ", " + h100_t + ")"}},
        nvidia_sm("9.0", kH100, "the Compute Capability table (GP100 vs. GV100 vs. GA100 vs. GH100)"),
        {{"sm.shared_memory", "233472", std::string(kH100) + ", " + h100_t + ": configurable up to 228 KB; " + kCuda + " (9.0)"},
         {"sm.l1d_bytes", "28672", std::string(kH100) + ", H100 SM Architecture: 256 KB - 228 KB = 28 KB"},
         {"memory.l2_bytes", "52428800", std::string(kH100) + ", " + h100_t + ": L2 Cache Size 50 MB (50 MiB)"}});

    const char* v100_t1 = "Table 1 (Comparison of NVIDIA Tesla GPUs), Tesla V100 (SXM2) column";
    add({"v100", "NVIDIA Tesla V100 SXM2 (GV100, Volta, compute capability 7.0)", std::string(kV100) + "; " + kCuda, {}},
        {{"clock_mhz", "1530", std::string(kV100) + ", " + v100_t1 + ": GPU Boost Clock 1530 MHz"},
         {"sms", "80", std::string(kV100) + ", " + v100_t1 + ": SMs 80"}},
        nvidia_sm("7.0", kV100, "Table 3 (Compute Capabilities: GK180 vs. GM200 vs. GP100 vs. GV100)"),
        {{"sm.shared_memory", "98304",
          std::string(kV100) + ", " + v100_t1 + ": Shared Memory Size / SM configurable up to 96 KB (98304 bytes)"},
         {"sm.l1d_bytes", "32768",
          std::string(kV100) + ", Volta SM: a combined 128 KB L1 data cache and shared memory per SM; "
                               "128 KB - 96 KB of shared memory = 32 KB of L1"},
         {"memory.l2_bytes", "6291456", std::string(kV100) + ", " + v100_t1 + ": L2 Cache Size 6144 KB (6 MiB)"}});

    // ---- AMD: one CU is one SM; a wavefront is a warp. MI250 and MI250X are two GCDs, each a
    // GPU of its own to software: a preset is one GCD.
    auto amd_cu = [](const std::string& model) -> std::vector<PresetValue> {
        return {
            {"sm.warp_slots", "32", kRocmWaves},
            {"sm.warp_size", "64", std::string(kRocmSpecs) + ", " + model + ": Wavefront Size 64"},
            {"sm.registers", "131072",
             std::string(kRocmSpecs) + ", " + model + ": VGPR File 512 KiB per CU = 131072 32-bit registers"},
            {"sm.shared_memory", "65536", std::string(kRocmSpecs) + ", " + model + ": LDS 64 KiB per CU"},
        };
    };
    auto amd = [&](const char* name, const char* description, const char* model, const char* clock, const char* clock_source,
                   const char* cus, const char* cus_source, const char* l1d, const char* l2, const char* l2_source) {
        add({name, description, std::string(kRocmSpecs) + "; " + kRocmWaves + "; AMD's product page", {}},
            {{"clock_mhz", clock, clock_source}, {"sms", cus, std::string(kRocmSpecs) + ", " + model + ": " + cus_source}}, amd_cu(model),
            {{"sm.l1d_bytes", l1d, std::string(kRocmSpecs) + ", " + model + ": L1 Vector Cache " + std::to_string(std::stoul(l1d) / 1024) + " KiB"},
             {"memory.l2_bytes", l2, std::string(kRocmSpecs) + ", " + model + ": " + l2_source}});
    };
    amd("mi250", "AMD Instinct MI250, one of its two GCDs (CDNA2, gfx90a)", "MI250", "1700",
        "AMD Instinct MI250 product page: Peak Engine Clock 1700 MHz (208 CUs x 128 FP64 FLOP per clock x 1.7 GHz = its "
        "45.3 TFLOPS peak FP64 vector)",
        "104", "Compute Units 208 (104 per GCD)", "16384", "8388608", "L2 Cache 16 MiB (8 per GCD)");
    amd("mi250x", "AMD Instinct MI250X, one of its two GCDs (CDNA2, gfx90a)", "MI250X", "1700",
        "AMD Instinct MI250X product page: Peak Engine Clock 1700 MHz (220 CUs x 128 FP64 FLOP per clock x 1.7 GHz = its "
        "47.9 TFLOPS peak FP64 vector)",
        "110", "Compute Units 220 (110 per GCD)", "16384", "8388608", "L2 Cache 16 MiB (8 per GCD)");
    amd("mi300x", "AMD Instinct MI300X, the whole device: 8 XCDs (CDNA3, gfx942)", "MI300X", "2100",
        "AMD Instinct MI300X product page: Peak Engine Clock 2100 MHz", "304", "Compute Units 304 (38 per XCD)", "32768",
        "33554432", "L2 Cache 32 MiB (4 per XCD), the 8 XCDs' L2s together; the 256 MiB L3 (Infinity Cache) is not modelled");
    return p;
}

}  // namespace

void PlatformPreset::apply(GpuConfig& config) const {
    for (const PresetValue& v : values) set_param(config, v.param, v.value);
}

void PlatformPreset::apply(PlatformConfig& platform) const {
    GpuConfig g;
    g.platform = platform;
    apply(g);
    platform = g.platform;
}

const std::vector<PlatformPreset>& platform_presets() {
    static const std::vector<PlatformPreset> presets = make_presets();  // immutable after first use
    return presets;
}

const PlatformPreset* find_preset(const std::string& name) {
    for (const PlatformPreset& p : platform_presets())
        if (p.name == name) return &p;
    return nullptr;
}

std::vector<std::string> preset_names() {
    std::vector<std::string> names;
    for (const PlatformPreset& p : platform_presets()) names.push_back(p.name);
    return names;
}

std::string presets_markdown() {
    std::string s;
    for (const PlatformPreset& p : platform_presets()) {
        if (!s.empty()) s += "\n";
        s += "### `" + p.name + "`: " + p.description + "\n\n| parameter | value | source |\n|---|---|---|\n";
        for (const PresetValue& v : p.values) s += "| `" + v.param + "` | " + v.value + " | " + v.source + " |\n";
    }
    return s;
}

}  // namespace gpuvp
