// The GPU's configuration without the scenario loader: plain structs with defaults, and one
// table of every parameter (its hierarchical name, type and range) that both the Gpu's own
// check and the YAML loader read. docs/integration.md, "Parameters", lists the table.
#pragma once
#include <gpuvp/models/common/memory_config.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/cp/cp_config.h>
#include <gpuvp/models/glc/glc_config.h>
#include <gpuvp/models/usa/usa_config.h>
#include <gpuvp/models/wlm/wlm_config.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp {

// What one SM instance may set differently from its class's SmConfig (gpu.sm[3].warp_slots):
// its capacities and issue width. Unset: the class's value.
struct SmInstanceConfig {
    std::optional<uint32_t> warp_slots, registers, shared_memory, issue_width;
};

struct PlatformConfig {
    double clock_mhz = 1500;
    uint32_t sms = 8;
    uint32_t bus_cycles = 2;  // one hop of the on-chip control bus
    // The GPU's watchdog: kernels or draws in flight and no forward progress for this long
    // means a hang (platform/gpu.h, Gpu::on_hang). 0: off.
    uint64_t watchdog_ns = 5000000;
    SmConfig sm;              // every SM (gpu.sm.KEY) ...
    std::map<uint32_t, SmInstanceConfig> sm_instance;  // ... but for what SM i sets itself
    // SM i's configuration: `sm` with its instance's values.
    SmConfig sm_of(uint32_t i) const;
    // The most of each capacity any SM has (each need of a block alone must fit it; a block
    // runs only if one SM holds all its needs at once: sm_of(i)).
    SmConfig largest_sm() const;
    MemoryConfig memory;
    CpConfig cp;
    WlmConfig wlm;
    GlcConfig glc;
    UsaConfig usa;
};

// Parsed once, at load; policy_name() gives each one's text (models/common/policies.h).
struct Policies {
    DispatchPolicy dispatch = DispatchPolicy::fifo;      // M1
    LaunchPolicy launch = LaunchPolicy::serial;          // M5
    LockPolicy lock = LockPolicy::spin;                  // M2
    ScalarPolicy scalar = ScalarPolicy::per_warp;        // M3
    ShadingBalance shading = ShadingBalance::static_split;  // M4
    IssuePolicy issue = IssuePolicy::gto;                // the SMs' issue order
};

struct GpuConfig {
    PlatformConfig platform;
    Policies policy;
    // Per-block verbosity of the GPU's sc_report messages (platform/gpu_log.h): a block's name
    // below the Gpu ("cp", "wlm", "glc", "usa", "sm" for every SM or "sm[3]" for one, "arbiter"
    // or "arbiter[3]", or "*" for all of them) -> an sc_verbosity (sc_core::SC_NONE .. SC_DEBUG).
    // A block not named follows sc_report_handler's global verbosity.
    std::map<std::string, int> log;
};

// One parameter. `name` is its hierarchical name below the Gpu instance: "sm.warp_slots" is
// gpu.sm.warp_slots for a Gpu named "gpu" (it applies to every gpu.sm[i]); "policy.dispatch"
// is gpu.policy.dispatch. In a scenario file the same parameter is platform.sm.warp_slots
// (policies: policy.dispatch).
struct GpuParam {
    enum class Kind : uint8_t {
        integer,       // lo..hi
        power_of_two,  // a power of two in lo..hi
        one_of,        // one of `allowed`
        real,          // real_lo..real_hi (above real_lo if lo_open)
        choice,        // one of `choices` (text)
    };
    std::string name;
    Kind kind = Kind::integer;
    uint64_t lo = 0, hi = 0;
    std::vector<uint64_t> allowed;
    double real_lo = 0, real_hi = 0;
    bool lo_open = false;
    std::vector<std::string> choices;
    std::string unit;  // "cycles", "ns", "bytes", "MHz" or empty
    // Access to the member it names (integer kinds; real; choice as its text).
    std::function<uint64_t(const GpuConfig&)> get_integer;
    std::function<void(GpuConfig&, uint64_t)> set_integer;
    std::function<double(const GpuConfig&)> get_real;
    std::function<void(GpuConfig&, double)> set_real;
    std::function<std::string(const GpuConfig&)> get_text;
    std::function<void(GpuConfig&, const std::string&)> set_text;

    std::string range() const;  // "1..128", "a power of two in 1024..1048576", "serial, prefetch", ...
    // Empty if the value is allowed, else why not ("200 is out of range 1..128").
    std::string check(uint64_t value) const;
    std::string check(double value) const;
    std::string check(const std::string& value) const;
};

// Every parameter, in the order the scenario loader reads them.
const std::vector<GpuParam>& gpu_params();
// The parameter called `name` ("sm.warp_slots"; a leading "gpu." is accepted), or null. An
// SM instance's parameter ("sm[3].warp_slots") gives its class's entry (same type and range).
const GpuParam* find_gpu_param(const std::string& name);
// Why `name` ("glc.dispatch_cycles"), a parameter of an earlier version, is no longer one and
// what replaces it; empty for any other name.
std::string retired_gpu_param(const std::string& name);
// "sm[3]" (with base "sm") -> 3; nothing for any other text: another base, no index, a
// leading zero ("sm[03]"), more than 6 digits or anything after the ']'.
std::optional<uint32_t> instance_index(const std::string& text, const std::string& base);
// The SmConfig keys an SM instance may set (sm[i].KEY): warp_slots, registers, shared_memory,
// issue_width.
const std::vector<std::string>& sm_instance_keys();

// A parameter's value as text ("48", "1500", "fifo").
std::string get_param(const GpuConfig& config, const std::string& name);
// Sets a parameter from text, as a configuration tool would. Throws std::invalid_argument
// naming the parameter (and the nearest known name for a typo) if the name is unknown or the
// value is not of its type or out of its range.
void set_param(GpuConfig& config, const std::string& name, const std::string& value);

struct ConfigProblem {
    std::string param;    // the parameter's name ("sm.slice_size")
    std::string message;  // "must be fewer than warp_size (32), got 40"
};
// Rules across parameters (a cache needs whole sets, the scalar quotas fit the pool, ...).
std::vector<ConfigProblem> config_rules(const PlatformConfig& platform);
// Every parameter's range, then the rules: what Gpu's constructor refuses. Empty: usable.
std::vector<ConfigProblem> check_config(const GpuConfig& config);

// The parameter table as Markdown (name, type, default, range): docs/integration.md has it.
std::string gpu_params_markdown();

// Text helpers the loader shares: a number as a person writes it ("1500", "12.5"); words
// joined with `sep`.
std::string format_number(double d);
std::string join_words(const std::vector<std::string>& words, const char* sep = ", ");

// "unknown key 'warp_slotz' (did you mean 'warp_slots'?)", or the list of what is known.
std::string unknown_word(const std::string& what, const std::string& word, const std::vector<std::string>& known);

}  // namespace gpuvp
