#include <gpuvp/platform/gpu_config.h>
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/memory_map.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace gpuvp {

namespace {

constexpr uint64_t kKiB = 1ull << 10, kMiB = 1ull << 20, kGiB = 1ull << 30;
constexpr uint64_t kCycles = 1000000;  // the bound of most latencies in cycles

// Builders. `g` reaches the member from the config: GpuConfig& -> T&.
template <class G>
using Member = std::remove_reference_t<std::invoke_result_t<G, GpuConfig&>>;

template <class G>
GpuParam integer_param(const char* name, G g, GpuParam::Kind kind, uint64_t lo, uint64_t hi, const char* unit) {
    GpuParam p;
    p.name = name;
    p.kind = kind;
    p.lo = lo;
    p.hi = hi;
    p.unit = unit;
    p.get_integer = [g](const GpuConfig& c) { return uint64_t(g(const_cast<GpuConfig&>(c))); };
    p.set_integer = [g](GpuConfig& c, uint64_t v) { g(c) = Member<G>(v); };
    return p;
}
template <class G>
GpuParam integer(const char* name, G g, uint64_t lo, uint64_t hi, const char* unit = "") {
    return integer_param(name, g, GpuParam::Kind::integer, lo, hi, unit);
}
template <class G>
GpuParam pow2(const char* name, G g, uint64_t lo, uint64_t hi, const char* unit = "bytes") {
    return integer_param(name, g, GpuParam::Kind::power_of_two, lo, hi, unit);
}
template <class G>
GpuParam one_of(const char* name, G g, std::vector<uint64_t> allowed) {
    GpuParam p = integer_param(name, g, GpuParam::Kind::one_of, 0, 0, "");
    p.allowed = std::move(allowed);
    return p;
}
template <class G>
GpuParam real(const char* name, G g, double lo, double hi, const char* unit) {
    GpuParam p;
    p.name = name;
    p.kind = GpuParam::Kind::real;
    p.real_lo = lo;
    p.real_hi = hi;
    p.unit = unit;
    p.get_real = [g](const GpuConfig& c) { return double(g(const_cast<GpuConfig&>(c))); };
    p.set_real = [g](GpuConfig& c, double v) { g(c) = v; };
    return p;
}
// A choice stored as an enum: its index in `values` (the enum's table of names).
template <class G>
GpuParam choice(const char* name, G g, std::vector<std::string> values) {
    GpuParam p;
    p.name = name;
    p.kind = GpuParam::Kind::choice;
    p.choices = values;
    p.get_text = [g, values](const GpuConfig& c) {
        const size_t i = size_t(g(const_cast<GpuConfig&>(c)));
        return i < values.size() ? values[i] : "#" + std::to_string(i);
    };
    p.set_text = [g, values](GpuConfig& c, const std::string& v) {
        g(c) = Member<G>(std::find(values.begin(), values.end(), v) - values.begin());
    };
    return p;
}

#define GPUVP_AT(path) [](GpuConfig & c) -> auto& { return c.path; }

std::vector<GpuParam> make_params() {
    const char* cyc = "cycles";
    const char* ns = "ns";
    return {
        real("clock_mhz", GPUVP_AT(platform.clock_mhz), 100, 5000, "MHz"),
        integer("sms", GPUVP_AT(platform.sms), 1, map::kMaxSms),
        integer("bus_cycles", GPUVP_AT(platform.bus_cycles), 0, 1000, cyc),
        integer("watchdog_ns", GPUVP_AT(platform.watchdog_ns), 0, 1000000000000ull, ns),
        // sm
        integer("sm.warp_slots", GPUVP_AT(platform.sm.warp_slots), 1, 128),
        one_of("sm.warp_size", GPUVP_AT(platform.sm.warp_size), {8, 16, 32, 64}),
        integer("sm.registers", GPUVP_AT(platform.sm.registers), 256, kMiB),
        integer("sm.shared_memory", GPUVP_AT(platform.sm.shared_memory), 0, kMiB, "bytes"),
        integer("sm.scalar_pool", GPUVP_AT(platform.sm.scalar_pool), 0, 65536),
        integer("sm.slice_size", GPUVP_AT(platform.sm.slice_size), 1, 63),
        choice("sm.scalar_split", GPUVP_AT(platform.sm.scalar_split), policy_names<ScalarSplit>()),
        integer("sm.scalar_quota.kernel", GPUVP_AT(platform.sm.scalar_quota[size_t(ScalarLevel::kernel)]), 0, 65536),
        integer("sm.scalar_quota.workgroup", GPUVP_AT(platform.sm.scalar_quota[size_t(ScalarLevel::workgroup)]), 0, 65536),
        integer("sm.scalar_quota.warp", GPUVP_AT(platform.sm.scalar_quota[size_t(ScalarLevel::warp)]), 0, 65536),
        integer("sm.scalar_quota.slice", GPUVP_AT(platform.sm.scalar_quota[size_t(ScalarLevel::slice)]), 0, 65536),
        integer("sm.slice_threshold", GPUVP_AT(platform.sm.slice_threshold), 0, 65536),
        // Caches: any size of whole sets (config_rules), not only a power of two.
        integer("sm.l1i_bytes", GPUVP_AT(platform.sm.l1i_bytes), kKiB, kMiB, "bytes"),
        integer("sm.l1d_bytes", GPUVP_AT(platform.sm.l1d_bytes), kKiB, kMiB, "bytes"),
        integer("sm.l1_ways", GPUVP_AT(platform.sm.l1_ways), 1, 32),
        integer("sm.issue_width", GPUVP_AT(platform.sm.issue_width), 1, 8),
        integer("sm.shared_latency_cycles", GPUVP_AT(platform.sm.shared_latency_cycles), 0, 10000, cyc),
        integer("sm.warp_launch_cycles", GPUVP_AT(platform.sm.warp_launch_cycles), 0, 10000, cyc),
        integer("sm.max_kernels", GPUVP_AT(platform.sm.max_kernels), 1, 64),
        integer("sm.atomic_latency_cycles", GPUVP_AT(platform.sm.atomic_latency_cycles), 1, 100000, cyc),
        integer("sm.lock_hold_limit", GPUVP_AT(platform.sm.lock_hold_limit), 0, 1ull << 31, "instructions"),
        choice("sm.lock_equal_priority", GPUVP_AT(platform.sm.lock_equal_priority), policy_names<LockEqualPriority>()),
        choice("sm.lock_hold_limit_action", GPUVP_AT(platform.sm.lock_hold_limit_action), policy_names<LockHoldLimitAction>()),
        integer("sm.lock_backoff_cycles", GPUVP_AT(platform.sm.lock_backoff_cycles), 0, 1000000, cyc),
        integer("sm.arbiter_cycles", GPUVP_AT(platform.sm.arbiter_cycles), 0, 10000, cyc),
        integer("sm.lock_watchdog_cycles", GPUVP_AT(platform.sm.lock_watchdog_cycles), 0, 1ull << 31, cyc),
        // memory
        real("memory.host_latency_ns", GPUVP_AT(platform.memory.host_latency_ns), 0, 1e6, ns),
        real("memory.link_latency_ns", GPUVP_AT(platform.memory.link_latency_ns), 0, 1e6, ns),
        real("memory.device_latency_ns", GPUVP_AT(platform.memory.device_latency_ns), 0, 1e6, ns),
        real("memory.l2_latency_ns", GPUVP_AT(platform.memory.l2_latency_ns), 0, 1e6, ns),
        real("memory.l1_latency_ns", GPUVP_AT(platform.memory.l1_latency_ns), 0, 1e6, ns),
        integer("memory.host_bytes", GPUVP_AT(platform.memory.host_bytes), kMiB, 16 * kGiB, "bytes"),
        integer("memory.device_bytes", GPUVP_AT(platform.memory.device_bytes), kMiB, 16 * kGiB, "bytes"),
        pow2("memory.line_bytes", GPUVP_AT(platform.memory.line_bytes), 16, 1024),
        integer("memory.l2_bytes", GPUVP_AT(platform.memory.l2_bytes), 16, 256 * kMiB, "bytes"),
        integer("memory.l2_ways", GPUVP_AT(platform.memory.l2_ways), 1, 64),
        // cp
        integer("cp.max_queues", GPUVP_AT(platform.cp.max_queues), 1, 64),
        integer("cp.max_blocks", GPUVP_AT(platform.cp.max_blocks), 1, 1ull << 48, "blocks"),
        integer("cp.wakeup_cycles", GPUVP_AT(platform.cp.wakeup_cycles), 0, kCycles, cyc),
        integer("cp.decode_cycles", GPUVP_AT(platform.cp.decode_cycles), 0, kCycles, cyc),
        integer("cp.barrier_cycles", GPUVP_AT(platform.cp.barrier_cycles), 0, kCycles, cyc),
        integer("cp.completion_cycles", GPUVP_AT(platform.cp.completion_cycles), 0, kCycles, cyc),
        integer("cp.fence_acquire_agent_cycles", GPUVP_AT(platform.cp.fence_acquire_agent_cycles), 0, kCycles, cyc),
        integer("cp.fence_acquire_system_cycles", GPUVP_AT(platform.cp.fence_acquire_system_cycles), 0, kCycles, cyc),
        integer("cp.fence_release_agent_cycles", GPUVP_AT(platform.cp.fence_release_agent_cycles), 0, kCycles, cyc),
        integer("cp.fence_release_system_cycles", GPUVP_AT(platform.cp.fence_release_system_cycles), 0, kCycles, cyc),
        integer("cp.irq_cycles", GPUVP_AT(platform.cp.irq_cycles), 0, kCycles, cyc),
        integer("cp.signal_poll_ns", GPUVP_AT(platform.cp.signal_poll_ns), 1, 1000000000, ns),
        // wlm, glc
        integer("wlm.setup_cycles", GPUVP_AT(platform.wlm.setup_cycles), 0, kCycles, cyc),
        integer("glc.decision_cycles", GPUVP_AT(platform.glc.decision_cycles), 0, kCycles, cyc),
        integer("glc.descriptor_cycles", GPUVP_AT(platform.glc.descriptor_cycles), 0, kCycles, cyc),
        choice("glc.second_sm", GPUVP_AT(platform.glc.second_sm), policy_names<SecondSmChoice>()),
        // usa
        integer("usa.cores", GPUVP_AT(platform.usa.cores), 2, 80),
        integer("usa.vertex_cores", GPUVP_AT(platform.usa.vertex_cores), 0, 80),
        integer("usa.max_draws", GPUVP_AT(platform.usa.max_draws), 1, 64),
        integer("usa.max_vertex_tasks", GPUVP_AT(platform.usa.max_vertex_tasks), 1, 1 << 20, "tasks"),
        integer("usa.pixel_queue", GPUVP_AT(platform.usa.pixel_queue), 1, 1 << 20, "tasks"),
        integer("usa.balance_cycles", GPUVP_AT(platform.usa.balance_cycles), 1, kCycles, cyc),
        integer("usa.switch_cycles", GPUVP_AT(platform.usa.switch_cycles), 0, kCycles, cyc),
        integer("usa.vertex_fetch_cycles", GPUVP_AT(platform.usa.vertex_fetch_cycles), 0, kCycles, cyc),
        integer("usa.pixel_setup_cycles", GPUVP_AT(platform.usa.pixel_setup_cycles), 0, kCycles, cyc),
        // the policies (the first value of each is the baseline)
        choice("policy.dispatch", GPUVP_AT(policy.dispatch), policy_names<DispatchPolicy>()),  // M1
        choice("policy.launch", GPUVP_AT(policy.launch), policy_names<LaunchPolicy>()),        // M5
        choice("policy.lock", GPUVP_AT(policy.lock), policy_names<LockPolicy>()),              // M2
        choice("policy.scalar", GPUVP_AT(policy.scalar), policy_names<ScalarPolicy>()),        // M3
        choice("policy.shading", GPUVP_AT(policy.shading), policy_names<ShadingBalance>()),    // M4
        choice("policy.issue", GPUVP_AT(policy.issue), policy_names<IssuePolicy>()),           // the SMs' issue order
    };
}

#undef GPUVP_AT

std::string strip_gpu(const std::string& name) { return name.rfind("gpu.", 0) == 0 ? name.substr(4) : name; }

// The keys an SM instance may set, with where each lives in SmInstanceConfig and SmConfig.
struct InstanceKey {
    const char* name;
    std::optional<uint32_t> SmInstanceConfig::*own;
    uint32_t SmConfig::*of_class;
};
const std::vector<InstanceKey>& instance_keys() {
    static const std::vector<InstanceKey> k = {
        {"warp_slots", &SmInstanceConfig::warp_slots, &SmConfig::warp_slots},
        {"registers", &SmInstanceConfig::registers, &SmConfig::registers},
        {"shared_memory", &SmInstanceConfig::shared_memory, &SmConfig::shared_memory},
        {"issue_width", &SmInstanceConfig::issue_width, &SmConfig::issue_width},
    };
    return k;
}

// "sm[3].warp_slots" -> SM 3 and its key; false for any other name.
bool instance_name(const std::string& name, uint32_t& sm, std::string& key) {
    const std::string n = strip_gpu(name);
    const size_t close = n.find("].");
    if (close == std::string::npos) return false;
    const auto i = instance_index(n.substr(0, close + 1), "sm");
    if (!i) return false;
    sm = *i;
    key = n.substr(close + 2);
    return true;
}

const InstanceKey* instance_key(const std::string& key) {
    for (const InstanceKey& k : instance_keys())
        if (key == k.name) return &k;
    return nullptr;
}

const GpuParam& param_or_throw(const std::string& name) {
    if (const GpuParam* p = find_gpu_param(name)) return *p;
    if (std::string r = retired_gpu_param(strip_gpu(name)); !r.empty()) throw std::invalid_argument(strip_gpu(name) + ": " + r);
    uint32_t sm = 0;
    std::string key;
    if (instance_name(name, sm, key))
        throw std::invalid_argument("gpu." + strip_gpu(name) + ": an SM instance sets only " + join_words(sm_instance_keys(), ", ") +
                                    (find_gpu_param("sm." + key) ? "; sm." + key + " sets every SM" : ""));
    std::vector<std::string> names;
    for (const GpuParam& p : gpu_params()) names.push_back(p.name);
    throw std::invalid_argument(unknown_word("parameter", strip_gpu(name), names));
}

// Edits (insert, delete, replace, swap two neighbours) that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::string format_number(double d) {
    if (d == std::floor(d) && std::fabs(d) < 1e18) return std::to_string(static_cast<long long>(d));
    std::ostringstream s;
    s.precision(15);
    s << d;
    return s.str();
}

std::string join_words(const std::vector<std::string>& words, const char* sep) {
    std::string s;
    for (const auto& x : words) s += (s.empty() ? "" : sep) + x;
    return s;
}

std::string unknown_word(const std::string& what, const std::string& word, const std::vector<std::string>& known) {
    std::string best;
    size_t best_d = std::max<size_t>(1, word.size() / 3) + 1;
    for (const auto& k : known)
        if (size_t d = edit_distance(word, k); d < best_d && d < word.size()) best = k, best_d = d;
    std::string s = "unknown " + what + " '" + word + "'";
    if (!best.empty()) return s + " (did you mean '" + best + "'?)";
    return known.empty() ? s : s + " (expected one of: " + join_words(known, ", ") + ")";
}

std::string GpuParam::range() const {
    switch (kind) {
    case Kind::integer: return std::to_string(lo) + ".." + std::to_string(hi);
    case Kind::power_of_two: return "a power of two in " + std::to_string(lo) + ".." + std::to_string(hi);
    case Kind::one_of: {
        std::vector<std::string> a;
        for (uint64_t y : allowed) a.push_back(std::to_string(y));
        return "one of " + join_words(a, ", ");
    }
    case Kind::real: return (lo_open ? "(" : "") + format_number(real_lo) + ".." + format_number(real_hi);
    case Kind::choice: return join_words(choices, ", ");
    }
    return "";
}

std::string GpuParam::check(uint64_t v) const {
    switch (kind) {
    case Kind::integer:
        return v < lo || v > hi ? std::to_string(v) + " is out of range " + range() : "";
    case Kind::power_of_two:
        return v < lo || v > hi || (v & (v - 1)) ? "must be " + range() + ", got " + std::to_string(v) : "";
    case Kind::one_of:
        return std::find(allowed.begin(), allowed.end(), v) == allowed.end()
                   ? "must be " + range() + ", got " + std::to_string(v)
                   : "";
    default: return "is not an integer parameter";
    }
}

std::string GpuParam::check(double v) const {
    if (kind != Kind::real) return "is not a real parameter";
    if (!(v >= real_lo && v <= real_hi) || (lo_open && v == real_lo))
        return format_number(v) + " is out of range: must be " + range();
    return "";
}

std::string GpuParam::check(const std::string& v) const {
    if (kind != Kind::choice) return "is not a choice";
    return std::find(choices.begin(), choices.end(), v) == choices.end() ? unknown_word("value", v, choices) : "";
}

const std::vector<GpuParam>& gpu_params() {
    static const std::vector<GpuParam> params = make_params();  // immutable after first use
    return params;
}

std::optional<uint32_t> instance_index(const std::string& text, const std::string& base) {
    const size_t n = base.size();
    if (text.size() < n + 3 || text.compare(0, n, base) != 0 || text[n] != '[' || text.back() != ']') return std::nullopt;
    const std::string digits = text.substr(n + 1, text.size() - n - 2);
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos ||
        (digits.size() > 1 && digits[0] == '0'))
        return std::nullopt;
    return uint32_t(std::stoul(digits));
}

const std::vector<std::string>& sm_instance_keys() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const InstanceKey& k : instance_keys()) n.push_back(k.name);
        return n;
    }();
    return names;
}

SmConfig PlatformConfig::sm_of(uint32_t i) const {
    SmConfig c = sm;
    if (auto it = sm_instance.find(i); it != sm_instance.end())
        for (const InstanceKey& k : instance_keys())
            if (const auto& v = it->second.*k.own) c.*k.of_class = *v;
    return c;
}

SmConfig PlatformConfig::largest_sm() const {
    SmConfig c = sm;
    if (sms == 0) return c;
    for (const InstanceKey& k : instance_keys()) {
        uint32_t most = 0;
        for (uint32_t i = 0; i < sms; ++i) most = std::max(most, sm_of(i).*k.of_class);
        c.*k.of_class = most;
    }
    return c;
}

std::string retired_gpu_param(const std::string& name) {
    if (name == "glc.dispatch_cycles")
        return "no longer a parameter: a placement costs glc.decision_cycles (the decision) plus "
               "glc.descriptor_cycles for each block descriptor it writes, under every policy; "
               "glc.decision_cycles is what glc.dispatch_cycles was under priority-block";
    return "";
}

const GpuParam* find_gpu_param(const std::string& name) {
    uint32_t sm = 0;
    std::string key;
    if (instance_name(name, sm, key)) return instance_key(key) ? find_gpu_param("sm." + key) : nullptr;
    const std::string n = strip_gpu(name);
    for (const GpuParam& p : gpu_params())
        if (p.name == n) return &p;
    return nullptr;
}

std::string get_param(const GpuConfig& config, const std::string& name) {
    const GpuParam& p = param_or_throw(name);
    uint32_t sm = 0;
    std::string key;
    if (instance_name(name, sm, key)) return std::to_string(config.platform.sm_of(sm).*instance_key(key)->of_class);
    if (p.kind == GpuParam::Kind::real) return format_number(p.get_real(config));
    if (p.kind == GpuParam::Kind::choice) return p.get_text(config);
    return std::to_string(p.get_integer(config));
}

void set_param(GpuConfig& config, const std::string& name, const std::string& value) {
    const GpuParam& p = param_or_throw(name);
    auto fail = [&](const std::string& why) { throw std::invalid_argument("gpu." + strip_gpu(name) + ": " + why); };
    std::string problem;
    if (p.kind == GpuParam::Kind::choice) {
        if (!(problem = p.check(value)).empty()) fail(problem);
        p.set_text(config, value);
        return;
    }
    // A decimal number as the scenario loader reads one: no spaces, no hex, no inf or nan.
    errno = 0;
    char* end = nullptr;
    const double d = std::strtod(value.c_str(), &end);
    if (value.empty() || value.find_first_not_of("0123456789+-.eE") != std::string::npos || *end != '\0' ||
        errno == ERANGE || !std::isfinite(d))
        fail("expected a number, got '" + value + "'");
    if (p.kind == GpuParam::Kind::real) {
        if (!(problem = p.check(d)).empty()) fail(problem);
        p.set_real(config, d);
        return;
    }
    if (d < 0 || d != std::floor(d) || d >= 18446744073709551616.0) fail("expected an integer, got '" + value + "'");
    if (!(problem = p.check(uint64_t(d))).empty()) fail(problem);
    uint32_t sm = 0;
    std::string key;
    if (instance_name(name, sm, key)) {  // SM `sm`'s own value (its index is checked by check_config)
        config.platform.sm_instance[sm].*instance_key(key)->own = uint32_t(d);
        return;
    }
    p.set_integer(config, uint64_t(d));
}

std::vector<ConfigProblem> config_rules(const PlatformConfig& p) {
    std::vector<ConfigProblem> out;
    const SmConfig& sm = p.sm;
    if (sm.slice_size >= sm.warp_size)
        out.push_back({"sm.slice_size", "must be fewer than warp_size (" + std::to_string(sm.warp_size) + "), got " +
                                            std::to_string(sm.slice_size)});
    const uint64_t quota = uint64_t(sm.scalar_quota[0]) + sm.scalar_quota[1] + sm.scalar_quota[2] + sm.scalar_quota[3];
    if (quota > sm.scalar_pool && sm.scalar_split != ScalarSplit::kernel)  // the kernel split sets its own
        out.push_back({"sm.scalar_quota", "the quotas add up to " + std::to_string(quota) + ", more than scalar_pool (" +
                                              std::to_string(sm.scalar_pool) + ")"});
    if (p.usa.vertex_cores > p.usa.cores)
        out.push_back({"usa.vertex_cores", "must be at most cores (" + std::to_string(p.usa.cores) + "), got " +
                                               std::to_string(p.usa.vertex_cores)});
    // A set-associative cache needs whole sets (of any number: a power of two or not).
    auto cache = [&](const char* param, uint64_t bytes, uint64_t ways, const char* ways_key) {
        const uint64_t line = p.memory.line_bytes;
        if (line == 0 || ways == 0 || bytes < line * ways || bytes % (line * ways))
            out.push_back({param, std::to_string(bytes) + " bytes of " + std::to_string(line) +
                                      "-byte lines do not divide into " + std::to_string(ways) + " ways (" + ways_key + ")"});
    };
    cache("memory.l2_bytes", p.memory.l2_bytes, p.memory.l2_ways, "memory.l2_ways");
    cache("sm.l1i_bytes", sm.l1i_bytes, sm.l1_ways, "sm.l1_ways");
    cache("sm.l1d_bytes", sm.l1d_bytes, sm.l1_ways, "sm.l1_ways");
    return out;
}

std::vector<ConfigProblem> check_config(const GpuConfig& config) {
    std::vector<ConfigProblem> out;
    for (const GpuParam& p : gpu_params()) {
        std::string problem;
        if (p.kind == GpuParam::Kind::real) problem = p.check(p.get_real(config));
        else if (p.kind == GpuParam::Kind::choice) problem = p.check(p.get_text(config));
        else problem = p.check(p.get_integer(config));
        if (!problem.empty()) out.push_back({p.name, problem});
    }
    for (const auto& [i, own] : config.platform.sm_instance) {
        const std::string sm = "sm[" + std::to_string(i) + "]";
        if (i >= config.platform.sms)
            out.push_back({sm, "no such SM: sms is " + std::to_string(config.platform.sms)});
        for (const InstanceKey& k : instance_keys())
            if (const auto& v = own.*k.own)
                if (std::string problem = find_gpu_param(std::string("sm.") + k.name)->check(uint64_t(*v)); !problem.empty())
                    out.push_back({sm + "." + k.name, problem});
    }
    for (const auto& [key, level] : config.log) {
        const size_t open = key.find('[');
        const std::string base = key.substr(0, open);
        bool known = key == "*" || base == "cp" || base == "wlm" || base == "glc" || base == "usa" || base == "sm" ||
                     base == "arbiter";
        if (known && open != std::string::npos) {  // sm[i], arbiter[i]: i an SM
            const auto i = instance_index(key, base);
            known = (base == "sm" || base == "arbiter") && i && *i < config.platform.sms;
        }
        if (!known)
            out.push_back({"log", "no block '" + key + "' (cp, wlm, glc, usa, sm, sm[i], arbiter, arbiter[i] or *; i an SM's index)"});
        else if (level < 0)
            out.push_back({"log", key + ": a verbosity is >= 0 (sc_core::SC_NONE .. SC_DEBUG), got " + std::to_string(level)});
    }
    if (out.empty())  // the rules assume every value in its range
        for (ConfigProblem& r : config_rules(config.platform)) out.push_back(std::move(r));
    return out;
}

std::string gpu_params_markdown() {
    const GpuConfig defaults;
    std::string s = "| parameter | type | default | range |\n|---|---|---|---|\n";
    for (const GpuParam& p : gpu_params()) {
        const char* type = p.kind == GpuParam::Kind::real ? "real" : p.kind == GpuParam::Kind::choice ? "choice" : "integer";
        std::string t = type;
        if (!p.unit.empty()) t += " (" + p.unit + ")";
        s += "| `gpu." + p.name + "` | " + t + " | " + get_param(defaults, p.name) + " | " + p.range() + " |\n";
    }
    for (const InstanceKey& k : instance_keys()) {  // one SM's own value
        const GpuParam& p = *find_gpu_param(std::string("sm.") + k.name);
        s += std::string("| `gpu.sm[i].") + k.name + "` | integer | `gpu.sm." + k.name + "` | " + p.range() + " |\n";
    }
    return s;
}

}  // namespace gpuvp
