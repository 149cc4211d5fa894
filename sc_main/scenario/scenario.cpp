// Scenario loader: YAML text -> Scenario. Every key is declared once, in the schema tables
// below (name, type, range; its default is the initialiser of the struct member it fills),
// and every value is checked on load. The document comes from yaml.h.
#include "sc_main/scenario/scenario.h"
#include "sc_main/scenario/document.h"
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/platform/presets.h>
#include <gpuvp/models/common/aql.h>
#include <gpuvp/models/common/messages.h>
#include "sc_main/record/metrics.h"


#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <variant>

namespace gpuvp {

namespace {
template <class Entry>
std::vector<std::string> metric_names() {
    std::vector<std::string> names;
    for (const EntryMetric& m : entry_metrics<Entry>()) names.push_back(m.name);
    return names;
}
}  // namespace

const std::vector<std::string>& kernel_metrics() {
    static const std::vector<std::string> m = metric_names<KernelRecord>();
    return m;
}

const std::vector<std::string>& scenario_metrics() {
    static const std::vector<std::string> m = [] {
        std::vector<std::string> names;
        for (const RunMetric& x : kRunMetrics) names.push_back(x.name);
        return names;
    }();
    return m;
}

const std::vector<std::string>& results_sections() {
    static const std::vector<std::string> m = [] {
        std::vector<std::string> names;
        auto add = [&](std::string_view name, const auto&, const Doc& = {}) {
            if (name != "variant" && name != "expectations" && name != "protocol" && name != "variants" && name != "platform")
                names.emplace_back(name);
        };
        const RunRecord probe;
        RunRecord::fields(probe, add);
        return names;
    }();
    return m;
}

const std::vector<std::string>& draw_metrics() {
    static const std::vector<std::string> m = metric_names<DrawRecord>();
    return m;
}

const std::vector<std::string>& priority_metrics() {
    static const std::vector<std::string> m = [] {
        std::vector<std::string> names;
        for (const PriorityMetric& x : kPriorityMetrics) names.push_back(x.name);
        return names;
    }();
    return m;
}

namespace {

using yaml::Node;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;
constexpr uint64_t kMaxInstances = 0xffffffffull;  // `instances` of a kernel or a draw (docs/limits.md)

// ---- Text helpers (format_number, join_words, unknown_word: platform/gpu_config.h)

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// ---- Where a value sits, and the errors that name it

struct Loc {
    std::string key;  // dotted: kernels[2].program[3].op
    int line = 0;     // 1-based; 0 when unknown
    Loc field(const std::string& name, int l) const { return {key.empty() ? name : key + "." + name, l}; }
    Loc item(size_t i, int l) const { return {key + "[" + std::to_string(i) + "]", l}; }
};

int line_of(const Node& n, int fallback) { return n && !n.is_null() && n.line() > 0 ? n.line() : fallback; }

// Where key `path` ("sm.l1d_bytes") of map `m` is written: its line, else its nearest parent's.
Loc key_loc(const Node& map, Loc at, const std::string& path) {
    const Node* m = &map;
    for (size_t from = 0; from <= path.size();) {
        const size_t dot = std::min(path.find('.', from), path.size());
        const std::string part = path.substr(from, dot - from);
        const Node* key = m ? m->find_key(part) : nullptr;
        at = at.field(part, key ? line_of(*key, at.line) : at.line);
        m = key ? &(*m)[part] : nullptr;
        from = dot + 1;
    }
    return at;
}

bool under(const std::string& key, const std::string& prefix) {
    return key.compare(0, prefix.size(), prefix) == 0 &&
           (key.size() == prefix.size() || key[prefix.size()] == '.' || key[prefix.size()] == '[');
}

// The variant a scenario is being read as (`variants:`).
struct VariantCtx {
    std::string name;                          // empty: the scenario has no variants
    std::vector<std::string> names;            // every variant's
    std::vector<std::pair<std::string, Loc>> set;  // the keys its `set:` changed, and where they are written
};

// The keys a --platform file laid over the scenario's platform (platform.sms, platform.sm, ...).
struct PlatformBlame {
    std::string file;
    std::vector<std::string> keys;
};

class Ctx {
public:
    Ctx(std::string file, std::vector<std::string> overridden, VariantCtx variant = {}, PlatformBlame platform = {})
        : file_(std::move(file)), overridden_(std::move(overridden)), variant_(std::move(variant)),
          platform_(std::move(platform)) {}

    // A value that came from --set is blamed on --set, one from a variant's `set:` on that
    // line, one from a --platform file on that file's line, not on a line of the file.
    [[noreturn]] void fail(const Loc& at, const std::string& msg) const {
        for (const auto& [key, where] : variant_.set)  // applied after --set
            if (under(at.key, key)) throw ScenarioError(file_, where.line, where.key, msg);
        for (const auto& o : overridden_)  // applied after the platform file
            if (under(at.key, o)) throw ScenarioError("--set", 0, at.key, msg);
        for (const auto& k : platform_.keys)
            if (under(at.key, k)) throw ScenarioError(platform_.file, at.line, at.key, msg);
        throw ScenarioError(file_, at.line, at.key, msg);
    }
    const VariantCtx& variant() const { return variant_; }

private:
    std::string file_;
    std::vector<std::string> overridden_;
    VariantCtx variant_;
    PlatformBlame platform_;
};

// ---- Scalars

std::string got(const Node& n) {
    if (!n || n.is_null()) return "nothing";
    if (n.is_sequence()) return "a list of " + std::to_string(n.size());
    if (n.is_map()) return "a map";
    return n.is_text() ? "the string \"" + n.value() + "\"" : "'" + n.value() + "'";
}

struct Number {
    double d = 0;
    std::optional<uint64_t> u;  // set for a non-negative whole number that fits 64 bits
};

// Decimal or 0x-hexadecimal integers, and decimal reals (1e6, 2.5).
std::optional<Number> parse_number(const std::string& s) {
    auto all = [&](size_t from, const char* set) {
        return from < s.size() && s.find_first_not_of(set, from) == std::string::npos;
    };
    Number n;
    errno = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && all(2, "0123456789abcdefABCDEF")) {
        uint64_t u = std::strtoull(s.c_str() + 2, nullptr, 16);
        n.d = errno == ERANGE ? kInf : double(u);
        if (errno != ERANGE) n.u = u;
        return n;
    }
    size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (all(sign, "0123456789")) {
        uint64_t u = std::strtoull(s.c_str() + sign, nullptr, 10);
        bool exact = errno != ERANGE;
        n.d = (s[0] == '-' ? -1 : 1) * (exact ? double(u) : kInf);
        if (exact && (s[0] != '-' || u == 0)) n.u = u;
        return n;
    }
    if (!all(0, "0123456789+-.eE")) return std::nullopt;
    char* end = nullptr;
    n.d = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(n.d)) return std::nullopt;
    if (n.d >= 0 && n.d < 18446744073709551616.0 && n.d == std::floor(n.d)) n.u = uint64_t(n.d);
    return n;
}

Number get_number(const Ctx& c, const Node& v, const Loc& at, const char* expected) {
    std::optional<Number> n;
    if (v.is_scalar() && !v.is_text()) n = parse_number(v.value());
    if (!n) c.fail(at, std::string("expected ") + expected + ", got " + got(v));
    return *n;
}

std::string range(uint64_t lo, uint64_t hi) { return std::to_string(lo) + ".." + std::to_string(hi); }

uint64_t get_uint(const Ctx& c, const Node& v, const Loc& at, uint64_t lo, uint64_t hi) {
    Number n = get_number(c, v, at, "an integer");
    if (n.d != std::floor(n.d)) c.fail(at, "expected an integer, got " + v.value());
    if (!n.u || *n.u < lo || *n.u > hi) c.fail(at, v.value() + " is out of range " + range(lo, hi));
    return *n.u;
}

double get_real(const Ctx& c, const Node& v, const Loc& at, double lo, double hi, bool lo_open) {
    double d = get_number(c, v, at, "a number").d;
    if (d < lo || d > hi || (lo_open && d == lo)) {
        std::string r = hi == kInf ? (lo_open ? "> " : ">= ") + format_number(lo)
                                   : (lo_open ? "(" : "") + format_number(lo) + ".." + format_number(hi);
        c.fail(at, v.value() + " is out of range: must be " + r);
    }
    return d;
}

bool get_bool(const Ctx& c, const Node& v, const Loc& at) {
    bool b = false;
    if (!v.is_scalar() || v.is_text() || !yaml::read_bool(v.value(), b))
        c.fail(at, "expected true or false, got " + got(v));
    return b;
}

std::string get_string(const Ctx& c, const Node& v, const Loc& at) {
    if (!v.is_scalar()) c.fail(at, "expected a string, got " + got(v));
    if (v.value().empty()) c.fail(at, "must not be empty");
    return v.value();
}

size_t get_choice(const Ctx& c, const Node& v, const Loc& at, const std::vector<std::string>& values) {
    std::string s = get_string(c, v, at);
    auto it = std::find(values.begin(), values.end(), s);
    if (it == values.end()) c.fail(at, unknown_word("value", s, values));
    return size_t(it - values.begin());
}

// Calls item(element, its location) for every element of a list (nothing: an empty list).
void each_item(const Ctx& c, const Node& v, const Loc& at,
               const std::function<void(const Node&, const Loc&)>& item) {
    if (!v || v.is_null()) return;
    if (!v.is_sequence()) c.fail(at, "expected a list, got " + got(v));
    for (size_t i = 0; i < v.size(); ++i) item(v[i], at.item(i, line_of(v[i], at.line)));
}

// ---- The schema: one Field per key

template <class S>
using Reader = std::function<void(const Ctx&, const Node&, const Loc&, S&)>;

template <class S>
struct Field {
    std::string name;
    Reader<S> read;
    bool required = false;
};

template <class S>
struct Schema {
    std::vector<Field<S>> fields;
    Reader<S> check = nullptr;  // rules across keys, run on the whole map once its keys are read
    // Keys of a form rather than a name ("sm[3]"): `matches` says which; `pattern` reads one,
    // given its key, after the named fields, in key order.
    std::function<bool(const std::string&)> matches = nullptr;
    std::function<void(const Ctx&, const std::string& key, const Node&, const Loc&, S&)> pattern = nullptr;
};

// Reads map `m` into `out`: unknown and duplicate keys are errors, absent keys keep `out`'s
// defaults, and keys are read in schema order (so later keys may depend on earlier ones).
template <class S>
void read_map(const Ctx& c, const Node& m, const Loc& at, const Schema<S>& schema, S& out) {
    if (m && !m.is_null() && !m.is_map()) c.fail(at, "expected a map, got " + got(m));
    std::vector<size_t> given(schema.fields.size(), SIZE_MAX);  // each field's pair in the map
    std::vector<size_t> patterns;                                // pairs whose key is of the schema's form
    for (size_t i = 0; i < m.size(); ++i) {  // (m.size() is 0 but for a map)
        const Node& key = m.key(i);
        const int line = line_of(key, at.line);
        if (!key.is_scalar()) c.fail(at.field("?", line), "a key must be a plain name, got " + got(key));
        const std::string& name = key.value();
        size_t f = 0;
        while (f < schema.fields.size() && schema.fields[f].name != name) ++f;
        size_t first = SIZE_MAX;  // an earlier pair with the same key
        if (f < schema.fields.size()) {
            first = given[f];
            if (first == SIZE_MAX) given[f] = i;
        } else if (schema.matches && schema.matches(name)) {
            for (size_t p : patterns)
                if (m.key(p).value() == name) first = p;
            if (first == SIZE_MAX) patterns.push_back(i);
        } else {
            const Loc here = at.field(name, line);
            if (under(here.key, "platform"))
                if (std::string r = retired_gpu_param(here.key.substr(9)); !r.empty()) c.fail(here, r);
            std::vector<std::string> names;
            for (const auto& field : schema.fields) names.push_back(field.name);
            c.fail(here, unknown_word("key", name, names));
        }
        if (first != SIZE_MAX)
            c.fail(at.field(name, line), "duplicate key (first at line " + std::to_string(line_of(m.key(first), at.line)) + ")");
    }
    for (size_t f = 0; f < schema.fields.size(); ++f) {
        const Field<S>& field = schema.fields[f];
        if (given[f] != SIZE_MAX) {
            const Node& value = m.value(given[f]);
            const Loc key = at.field(field.name, line_of(m.key(given[f]), at.line));
            field.read(c, value, Loc{key.key, line_of(value, key.line)}, out);
        } else if (field.required) {
            c.fail(at.field(field.name, at.line), "missing required key '" + field.name + "'");
        }
    }
    // Keys of the schema's form, after the named fields, in key order.
    std::sort(patterns.begin(), patterns.end(), [&](size_t x, size_t y) { return m.key(x).value() < m.key(y).value(); });
    for (size_t p : patterns) {
        const Node& value = m.value(p);
        const Loc key = at.field(m.key(p).value(), line_of(m.key(p), at.line));
        schema.pattern(c, m.key(p).value(), value, Loc{key.key, line_of(value, key.line)}, out);
    }
    if (schema.check) schema.check(c, m, at, out);
}

template <class S>
std::vector<S> read_list(const Ctx& c, const Node& v, const Loc& at, const Schema<S>& schema,
                         std::vector<Loc>* locs = nullptr) {
    std::vector<S> out;
    each_item(c, v, at, [&](const Node& item, const Loc& here) {
        read_map(c, item, here, schema, out.emplace_back());
        if (locs) locs->push_back(here);
    });
    return out;
}

// Field builders for struct S. `g` reaches the member: a pointer to member or a callable S& -> T&.
template <class S>
struct Keys {
    template <class G>
    using T = std::remove_reference_t<std::invoke_result_t<G, S&>>;

    static Field<S> custom(const char* n, Reader<S> r, bool required = false) { return {n, std::move(r), required}; }

    template <class G>
    static Field<S> integer(const char* n, G g, uint64_t lo, uint64_t hi) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    std::invoke(g, s) = T<G>(get_uint(c, v, at, lo, hi));
                }};
    }
    template <class G>
    static Field<S> pow2(const char* n, G g, uint64_t lo, uint64_t hi) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    uint64_t x = get_uint(c, v, at, 0, ~0ull);
                    if (x < lo || x > hi || (x & (x - 1)))
                        c.fail(at, "must be a power of two in " + range(lo, hi) + ", got " + v.value());
                    std::invoke(g, s) = T<G>(x);
                }};
    }
    template <class G>
    static Field<S> among(const char* n, G g, std::vector<uint64_t> allowed) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    uint64_t x = get_uint(c, v, at, 0, ~0ull);
                    if (std::find(allowed.begin(), allowed.end(), x) == allowed.end()) {
                        std::vector<std::string> a;
                        for (uint64_t y : allowed) a.push_back(std::to_string(y));
                        c.fail(at, "must be one of " + join_words(a) + ", got " + v.value());
                    }
                    std::invoke(g, s) = T<G>(x);
                }};
    }
    template <class G>
    static Field<S> real(const char* n, G g, double lo, double hi, bool lo_open = false) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    std::invoke(g, s) = get_real(c, v, at, lo, hi, lo_open);
                }};
    }
    template <class G>
    static Field<S> flag(const char* n, G g) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) { std::invoke(g, s) = get_bool(c, v, at); }};
    }
    template <class G>
    static Field<S> text(const char* n, G g, bool required = false) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) { std::invoke(g, s) = get_string(c, v, at); },
                required};
    }
    // One of `values`: stored as the text, or as its index for an integer member.
    template <class G>
    static Field<S> choice(const char* n, G g, std::vector<std::string> values) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    size_t i = get_choice(c, v, at, values);
                    if constexpr (std::is_same_v<T<G>, std::string>) std::invoke(g, s) = values[i];
                    else std::invoke(g, s) = T<G>(i);
                }};
    }
    template <class G, class U>
    static Field<S> map(const char* n, G g, const Schema<U>& schema) {
        return {n, [g, &schema](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    read_map(c, v, at, schema, std::invoke(g, s));
                }};
    }
    // A list of 1 to 3 sizes, each lo..hi; missing dimensions are 1.
    template <class G>
    static Field<S> dims(const char* n, G g, uint64_t lo, uint64_t hi) {
        return {n, [=](const Ctx& c, const Node& v, const Loc& at, S& s) {
                    if (!v.is_sequence() || v.size() < 1 || v.size() > 3)
                        c.fail(at, "expected a list of 1 to 3 sizes like [64, 1, 1], got " + got(v));
                    auto& d = std::invoke(g, s);
                    d = {1, 1, 1};
                    size_t i = 0;
                    each_item(c, v, at, [&](const Node& x, const Loc& l) { d[i++] = uint32_t(get_uint(c, x, l, lo, hi)); });
                }};
    }
};

// ---- Platform and policies: read from the GPU's parameter table (platform/gpu_config.h),
// so the loader and Gpu's own check share one list of names, types and ranges.

// "unknown preset 'a10' (did you mean 'a100'?); the presets: a100, h100-sxm, ..."
std::string unknown_preset(const std::string& name) {
    const std::vector<std::string> names = preset_names();
    std::string s = unknown_word("preset", name, names);
    // A GPU's name without its form factor ("h100"): the one preset that begins with it.
    std::vector<std::string> longer;
    for (const std::string& n : names)
        if (n.rfind(name + "-", 0) == 0) longer.push_back(n);
    if (longer.size() == 1) s = "unknown preset '" + name + "' (did you mean '" + longer[0] + "'?)";
    if (s.find("(expected one of") == std::string::npos) s += "; the presets: " + join_words(names);
    return s;
}

// The schema of the parameters below `prefix` ("" for the platform map, "sm." for platform.sm,
// "policy." for the policy map), nested maps for deeper names.
const Schema<GpuConfig>& param_schema(const std::string& prefix) {
    static std::map<std::string, Schema<GpuConfig>> schemas;  // built once per prefix, then only read
    if (auto it = schemas.find(prefix); it != schemas.end()) return it->second;
    Schema<GpuConfig> s;
    std::vector<std::string> groups;
    for (const GpuParam& p : gpu_params()) {
        if (p.name.rfind(prefix, 0) != 0 || (prefix.empty() && p.name.rfind("policy.", 0) == 0)) continue;
        const std::string rest = p.name.substr(prefix.size());
        if (const size_t dot = rest.find('.'); dot != std::string::npos) {
            const std::string group = rest.substr(0, dot);
            if (contains(groups, group)) continue;
            groups.push_back(group);
            const Schema<GpuConfig>* sub = &param_schema(prefix + group + ".");
            s.fields.push_back({group, [sub](const Ctx& c, const Node& v, const Loc& at, GpuConfig& g) {
                                    read_map(c, v, at, *sub, g);
                                }});
            continue;
        }
        s.fields.push_back({rest, [&p](const Ctx& c, const Node& v, const Loc& at, GpuConfig& g) {
                                switch (p.kind) {
                                case GpuParam::Kind::integer: p.set_integer(g, get_uint(c, v, at, p.lo, p.hi)); break;
                                case GpuParam::Kind::power_of_two:
                                case GpuParam::Kind::one_of: {
                                    const uint64_t x = get_uint(c, v, at, 0, ~0ull);
                                    if (std::string why = p.check(x); !why.empty()) c.fail(at, why);
                                    p.set_integer(g, x);
                                    break;
                                }
                                case GpuParam::Kind::real:
                                    p.set_real(g, get_real(c, v, at, p.real_lo, p.real_hi, p.lo_open));
                                    break;
                                case GpuParam::Kind::choice: p.set_text(g, p.choices[get_choice(c, v, at, p.choices)]); break;
                                }
                            }});
    }
    if (prefix.empty()) {
        // preset: a real GPU's values (platform/presets.h), read first so that every other key
        // of the map overrides them.
        s.fields.insert(s.fields.begin(), {"preset", [](const Ctx& c, const Node& v, const Loc& at, GpuConfig& g) {
                                               const std::string name = get_string(c, v, at);
                                               const PlatformPreset* p = find_preset(name);
                                               if (!p) c.fail(at, unknown_preset(name));
                                               p->apply(g);
                                           }});
        // sm[i]: what SM i sets itself (sm_instance_keys()), with the class's ranges.
        s.matches = [](const std::string& key) { return key.rfind("sm[", 0) == 0; };
        s.pattern = [](const Ctx& c, const std::string& key, const Node& v, const Loc& at, GpuConfig& g) {
            const auto i = instance_index(key, "sm");
            if (!i) c.fail(at, "an SM of its own is sm[i] with i an SM's index (no leading zero), got '" + key + "'");
            if (*i >= g.platform.sms)
                c.fail(at, "no such SM: platform.sms is " + std::to_string(g.platform.sms) + " (sm[0] .. sm[" +
                               std::to_string(g.platform.sms - 1) + "])");
            static const Schema<GpuConfig> own = [] {
                Schema<GpuConfig> o;
                for (const std::string& k : sm_instance_keys())
                    o.fields.push_back({k, [k](const Ctx& c, const Node& v, const Loc& at, GpuConfig& g) {
                                            // at.key: "platform.sm[3].warp_slots"; the SM is the part before
                                            const std::string path = at.key.substr(0, at.key.size() - k.size() - 1);
                                            const std::string name = path.substr(path.rfind(".sm[") + 1) + "." + k;
                                            const GpuParam& p = *find_gpu_param(name);
                                            set_param(g, name, std::to_string(get_uint(c, v, at, p.lo, p.hi)));
                                        }});
                return o;
            }();
            if (!v.is_map() || v.size() == 0) c.fail(at, "expected a map of " + join_words(sm_instance_keys()) + ", got " + got(v));
            read_map(c, v, at, own, g);
        };
        // The rules across keys, each at the key it names.
        s.check = [](const Ctx& c, const Node& m, const Loc& at, GpuConfig& g) {
            for (const ConfigProblem& r : config_rules(g.platform)) c.fail(key_loc(m, at, r.param), r.message);
        };
    }
    return schemas.emplace(prefix, std::move(s)).first->second;
}

// The scenario's `platform` and `policy` maps, through a GpuConfig holding the scenario's.
Field<Scenario> gpu_section(const char* name, const char* prefix) {
    return {name, [prefix](const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
                GpuConfig g{s.platform, s.policy, {}};
                read_map(c, v, at, param_schema(prefix), g);
                s.platform = g.platform;
                s.policy = g.policy;
                if (*prefix == '\0' && v.is_map() && v["preset"]) s.preset = v["preset"].value();  // read: a known name
            }};
}

// ---- Programs

// Every key a program step can have; which ones an op takes is in op_defs().
struct StepKeys {
    std::string op;
    uint32_t repeat = 1;
    uint32_t cycles = 1;
    uint32_t level = uint32_t(ScalarLevel::warp);
    bool write = false;
    uint32_t space = uint32_t(Space::global);
    uint32_t bytes = 128;
    uint32_t id = 0;
    uint32_t count = 1;
    uint32_t warps = 0;  // if_warp: bit i selects warp i of the block
    std::vector<ProgramStep> body;
    unsigned depth = 0;  // loops around the step
};

std::vector<ProgramStep> read_steps(const Ctx& c, const Node& v, const Loc& at, unsigned depth);

const Schema<StepKeys>& step_schema() {
    using K = Keys<StepKeys>;
    static const Schema<StepKeys> s{{
        K::text("op", &StepKeys::op, true),
        K::integer("repeat", &StepKeys::repeat, 1, 1ull << 31),
        K::integer("cycles", &StepKeys::cycles, 1, 65535),
        K::choice("level", &StepKeys::level, {"kernel", "workgroup", "warp", "slice"}),
        K::flag("write", &StepKeys::write),
        K::choice("space", &StepKeys::space, {"global", "shared", "kernarg"}),
        K::integer("bytes", &StepKeys::bytes, 1, 65536),
        K::integer("id", &StepKeys::id, 0, 255),
        K::integer("count", &StepKeys::count, 1, 1ull << 31),
        K::custom("warps",
                  [](const Ctx& c, const Node& v, const Loc& at, StepKeys& k) {
                      if (!v.is_sequence() || v.size() == 0) c.fail(at, "expected a non-empty list of warp indices like [0, 2], got " + got(v));
                      k.warps = 0;
                      each_item(c, v, at, [&](const Node& x, const Loc& l) { k.warps |= 1u << get_uint(c, x, l, 0, 31); });
                  }),
        K::custom("body",
                  [](const Ctx& c, const Node& v, const Loc& at, StepKeys& k) {
                      const bool loop = k.op == "loop";  // an if_warp body is not a loop
                      if (loop && k.depth + 1 > kMaxLoopDepth)
                          c.fail(at, "loops nest at most " + std::to_string(kMaxLoopDepth) + " deep");
                      k.body = read_steps(c, v, at, k.depth + (loop ? 1 : 0));
                  }),
    }};
    return s;
}

struct OpDef {
    const char* name;
    std::vector<std::string> keys;  // besides op, and repeat (which every op but loop takes)
    Instruction (*encode)(const StepKeys&);
};

const std::vector<OpDef>& op_defs() {
    using I = Instruction;
    static const std::vector<OpDef> d = {
        {"end", {}, [](const StepKeys&) { return I{Opcode::end}; }},
        {"valu", {"cycles"}, [](const StepKeys& k) { return I{Opcode::valu, 0, uint16_t(k.cycles)}; }},
        {"salu", {"cycles", "level", "write"},
         [](const StepKeys& k) {
             return I{Opcode::salu, uint8_t(k.level | (k.write ? kScalarWriteFlag : 0)), uint16_t(k.cycles)};
         }},
        {"load", {"space", "bytes"}, [](const StepKeys& k) { return I{Opcode::load, uint8_t(k.space), 0, k.bytes}; }},
        {"store", {"space", "bytes"}, [](const StepKeys& k) { return I{Opcode::store, uint8_t(k.space), 0, k.bytes}; }},
        {"kernarg_load", {}, [](const StepKeys&) { return I{Opcode::kernarg_load}; }},
        {"barrier", {}, [](const StepKeys&) { return I{Opcode::barrier}; }},
        {"lock", {"id"}, [](const StepKeys& k) { return I{Opcode::lock, 0, uint16_t(k.id)}; }},
        {"unlock", {"id"}, [](const StepKeys& k) { return I{Opcode::unlock, 0, uint16_t(k.id)}; }},
        {"loop", {"count", "body"}, [](const StepKeys& k) { return I{Opcode::loop_begin, 0, 0, k.count}; }},
        {"if_warp", {"warps", "body"}, [](const StepKeys& k) { return I{Opcode::if_warp, 0, 0, k.warps}; }},
    };
    return d;
}

std::vector<ProgramStep> read_steps(const Ctx& c, const Node& v, const Loc& at, unsigned depth) {
    if (!v.is_sequence() || v.size() == 0) c.fail(at, "expected a non-empty list of steps, got " + got(v));
    // The keys each op takes (loop and if_warp: all of their keys required), by op_defs() index.
    static const std::vector<Schema<StepKeys>> op_schemas = [] {
        std::vector<Schema<StepKeys>> all;
        for (const OpDef& d : op_defs()) {
            const bool nest = d.name == std::string("loop") || d.name == std::string("if_warp");
            Schema<StepKeys>& schema = all.emplace_back();
            for (const auto& f : step_schema().fields)
                if (f.name == "op" || (f.name == "repeat" && !nest) || contains(d.keys, f.name))
                    schema.fields.push_back({f.name, f.read, f.required || nest});
        }
        return all;
    }();
    std::vector<ProgramStep> steps;
    each_item(c, v, at, [&](const Node& item, const Loc& here) {
        if (!item.is_map()) c.fail(here, "expected a step like {op: valu, cycles: 4}, got " + got(item));
        Loc op_at = key_loc(item, here, "op");
        if (!item["op"]) c.fail(op_at, "missing required key 'op'");
        const std::string op = get_string(c, item["op"], op_at);
        auto def = std::find_if(op_defs().begin(), op_defs().end(), [&](const OpDef& d) { return op == d.name; });
        if (def == op_defs().end()) {
            std::vector<std::string> ops;
            for (const auto& d : op_defs()) ops.push_back(d.name);
            c.fail(op_at, unknown_word("op", op, ops));
        }
        const bool loop = op == "loop", nest = loop || op == "if_warp";  // steps with a body
        StepKeys k;
        k.depth = depth;
        read_map(c, item, here, op_schemas[size_t(def - op_defs().begin())], k);
        if (!loop && k.repeat > 1 && depth + 1 > kMaxLoopDepth)  // the assembler makes it a loop
            c.fail(key_loc(item, here, "repeat"), "a repeated step is a loop, and loops nest at most " +
                                                       std::to_string(kMaxLoopDepth) + " deep");
        if (op == "end" && (depth > 0 || steps.size() + 1 != v.size()))
            c.fail(op_at, "'end' must be the last step of the program (or of an if_warp body, to end those warps there)");
        ProgramStep& s = steps.emplace_back();
        s.insn = def->encode(k);
        s.repeat = loop ? k.count : nest ? 1 : k.repeat;
        s.body = std::move(k.body);
        s.line = here.line;
    });
    return steps;
}

// ---- Kernels, queues, draws, expectations

// Raw packet field overrides: each field name and its width in bits.
using PacketFields = std::vector<std::pair<const char*, unsigned>>;
Schema<std::map<std::string, uint64_t>> make_packet_schema(const PacketFields& fields) {
    Schema<std::map<std::string, uint64_t>> p;
    for (const auto& [name, bits] : fields) {
        const uint64_t hi = bits == 64 ? ~0ull : (1ull << bits) - 1;
        p.fields.push_back({name, [name = std::string(name), hi](const Ctx& c, const Node& v, const Loc& at,
                                                                  std::map<std::string, uint64_t>& m) {
                                m[name] = get_uint(c, v, at, 0, hi);
                            }});
    }
    return p;
}

const Schema<std::map<std::string, uint64_t>>& packet_schema() {  // the kernel dispatch packet
    static const auto s = make_packet_schema(
        {{"header", 16}, {"type", 8}, {"barrier_bit", 1}, {"acquire_fence_scope", 2},
         {"release_fence_scope", 2}, {"dimensions", 2}, {"workgroup_size_x", 16},
         {"workgroup_size_y", 16}, {"workgroup_size_z", 16}, {"reserved0", 16},
         {"grid_size_x", 32}, {"grid_size_y", 32}, {"grid_size_z", 32},
         {"private_segment_size", 32}, {"group_segment_size", 32}, {"kernel_object", 64},
         {"kernarg_address", 64}, {"reserved2", 64}, {"completion_signal", 64}});
    return s;
}

const Schema<std::map<std::string, uint64_t>>& draw_packet_schema() {  // M4: the draw packet
    static const auto s = make_packet_schema(
        {{"header", 16}, {"type", 8}, {"barrier_bit", 1}, {"acquire_fence_scope", 2},
         {"release_fence_scope", 2}, {"format", 8}, {"reserved", 8}, {"vertex_tasks", 32},
         {"vertex_cycles", 32}, {"pixel_tasks_per_vertex_task", 32}, {"pixel_cycles", 32},
         {"reserved0", 32}, {"completion_signal", 64}});
    return s;
}

// A kernel's or a draw's fields, then the keys that make its launches, the same for both:
// `instances`, `interval_ns` and `doorbell`.
template <class S>
std::vector<Field<S>> launch_fields(std::vector<Field<S>> fields) {
    using K = Keys<S>;
    fields.push_back(K::custom("instances", [](const Ctx& c, const Node& v, const Loc& at, S& spec) {
        spec.instances = uint32_t(get_uint(c, v, at, 1, kMaxInstances));
        spec.instances_key = true;
    }));
    fields.push_back(K::real("interval_ns", &S::interval_ns, 0, kInf));
    fields.push_back(K::custom("doorbell", [](const Ctx& c, const Node& v, const Loc& at, S& spec) {
        spec.doorbell = get_uint(c, v, at, 0, ~0ull);
    }));
    return fields;
}

// A list of names (`after`).
std::vector<std::string> get_names(const Ctx& c, const Node& v, const Loc& at) {
    std::vector<std::string> names;
    each_item(c, v, at, [&](const Node& x, const Loc& l) { names.push_back(get_string(c, x, l)); });
    return names;
}

// What the hardware measured for a replayed trace's kernel or copy (ns, the replay's time base).
const Schema<MeasuredTimes>& measured_schema() {
    using K = Keys<MeasuredTimes>;
    constexpr uint64_t most = 1ull << 62;
    static const Schema<MeasuredTimes> s{{K::integer("launch_ns", &MeasuredTimes::launch_ns, 0, most),
                                          K::integer("launch_end_ns", &MeasuredTimes::launch_end_ns, 0, most),
                                          K::integer("start_ns", &MeasuredTimes::start_ns, 0, most),
                                          K::integer("end_ns", &MeasuredTimes::end_ns, 0, most),
                                          K::integer("floor_ns", &MeasuredTimes::floor_ns, 0, most),
                                          K::custom("inferred_after",
                                                    [](const Ctx& c, const Node& v, const Loc& at, MeasuredTimes& t) {
                                                        t.inferred_after = get_names(c, v, at);
                                                    }),
                                          K::integer("unmatched_waits", &MeasuredTimes::unmatched_waits, 0, 1u << 31)},
                                         [](const Ctx& c, const Node& m, const Loc& at, MeasuredTimes& t) {
                                             if (t.launch_end_ns < t.launch_ns)
                                                 c.fail(key_loc(m, at, "launch_end_ns"), "is before launch_ns");
                                             if (t.end_ns < t.start_ns) c.fail(key_loc(m, at, "end_ns"), "is before start_ns");
                                         }};
    return s;
}

// Reads a `measured` map into an optional member.
template <class S>
Field<S> measured_field() {
    return Keys<S>::custom("measured", [](const Ctx& c, const Node& v, const Loc& at, S& spec) {
        read_map(c, v, at, measured_schema(), spec.measured.emplace());
    });
}

const Schema<KernelSpec>& kernel_schema() {
    using K = Keys<KernelSpec>;
    using A = std::array<uint16_t, 4>;
    static const Schema<A> scalars{{
        Keys<A>::integer("kernel", [](A& a) -> uint16_t& { return a[size_t(ScalarLevel::kernel)]; }, 0, 1024),
        Keys<A>::integer("workgroup", [](A& a) -> uint16_t& { return a[size_t(ScalarLevel::workgroup)]; }, 0, 1024),
        Keys<A>::integer("warp", [](A& a) -> uint16_t& { return a[size_t(ScalarLevel::warp)]; }, 0, 1024),
        Keys<A>::integer("slice", [](A& a) -> uint16_t& { return a[size_t(ScalarLevel::slice)]; }, 0, 1024),
    }};
    static const std::vector<std::string> fences = {"none", "agent", "system"};
    static const Schema<KernelSpec> s{launch_fields<KernelSpec>({
        K::text("name", &KernelSpec::name, true),
        K::text("label", &KernelSpec::label),
        K::text("queue", &KernelSpec::queue),
        K::real("submit_ns", &KernelSpec::submit_ns, 0, kInf),
        K::dims("grid", &KernelSpec::grid, 1, 0xffffffffull),
        K::dims("block", &KernelSpec::block, 1, 1024),
        K::integer("vregs", &KernelSpec::vregs, 1, 256),
        K::integer("sregs", &KernelSpec::sregs, 0, 128),
        K::integer("shared_bytes", &KernelSpec::shared_bytes, 0, kMiB),
        K::integer("kernarg_bytes", &KernelSpec::kernarg_bytes, 0, 4096),
        K::integer("global_bytes", &KernelSpec::global_bytes, 0, 8 * kGiB),
        K::map("scalars", &KernelSpec::scalars, scalars),
        K::custom("warp_priorities",
                  [](const Ctx& c, const Node& v, const Loc& at, KernelSpec& k) {
                      k.warp_priorities.clear();
                      each_item(c, v, at, [&](const Node& x, const Loc& l) {
                          k.warp_priorities.push_back(uint8_t(get_uint(c, x, l, 0, 255)));
                      });
                  }),
        K::custom("after",
                  [](const Ctx& c, const Node& v, const Loc& at, KernelSpec& k) { k.after = get_names(c, v, at); }),
        K::custom("after_any",
                  [](const Ctx& c, const Node& v, const Loc& at, KernelSpec& k) {
                      k.after_any = get_names(c, v, at);
                      if (k.after_any.size() > 5) c.fail(at, "at most 5 kernels or signals (one barrier-OR packet)");
                  }),
        K::flag("barrier", &KernelSpec::barrier),
        K::choice("acquire_fence", &KernelSpec::acquire_fence, fences),
        K::choice("release_fence", &KernelSpec::release_fence, fences),
        K::custom("program",
                  [](const Ctx& c, const Node& v, const Loc& at, KernelSpec& k) {
                      k.program = read_steps(c, v, at, 0);
                      if (k.program.back().insn.op != Opcode::end) k.program.emplace_back().line = at.line;
                      if (assembled_size(k.program, kMaxProgramInstructions) > kMaxProgramInstructions)
                          c.fail(at, "the program assembles to more than " + std::to_string(kMaxProgramInstructions) +
                                         " instructions (loops and repeats count once, if_warp bodies in full)");
                  },
                  true),
        K::map("packet", &KernelSpec::packet, packet_schema()),
        K::real("publish_delay_ns", &KernelSpec::publish_delay_ns, 0, kInf),
        K::choice("publish_doorbell", &KernelSpec::publish_doorbell, {"after", "before"}),
        measured_field<KernelSpec>(),
    })};
    return s;
}

// ---- M2: the rules a program's locks must follow, so that no warp misuses a lock at run time

struct HeldLock {
    uint16_t id;
    int line;
    size_t index;  // in the step list that took it
};

// Every lock is taken and released in the same step list (the program, a loop body or an
// if_warp body), never twice, never across a barrier or the end.
void check_locks(const Ctx& c, const Scenario& s, const KernelSpec& k, uint32_t warps, const std::vector<ProgramStep>& steps,
                 const Loc& list, std::vector<HeldLock>& held, const char* where, bool some_warps = false) {
    const size_t outer = held.size();
    auto name = [](const HeldLock& h) { return "lock " + std::to_string(h.id) + " (taken at line " + std::to_string(h.line) + ")"; };
    for (size_t i = 0; i < steps.size(); ++i) {
        const ProgramStep& step = steps[i];
        const Loc at = list.item(i, step.line);
        const Instruction& in = step.insn;
        if (in.op == Opcode::lock || in.op == Opcode::unlock) {
            const char* op = in.op == Opcode::lock ? "lock" : "unlock";
            if (step.repeat > 1) c.fail(at.field("repeat", step.line), std::string("a ") + op + " step cannot repeat");
            auto it = std::find_if(held.begin(), held.end(), [&](const HeldLock& h) { return h.id == in.a; });
            if (in.op == Opcode::lock) {
                const uint64_t need = (uint64_t(in.a) + 1) * kLockWordBytes;
                if (need > k.shared_bytes)
                    c.fail(at.field("id", step.line), "lock " + std::to_string(in.a) + "'s word is at shared offset " +
                                                          std::to_string(need - kLockWordBytes) + ", past the kernel's shared_bytes (" +
                                                          std::to_string(k.shared_bytes) + "): give the kernel at least " +
                                                          std::to_string(need) + " shared_bytes");
                if (it != held.end()) c.fail(at, name(*it) + " is already held here: a warp cannot take a lock twice");
                held.push_back({in.a, step.line, i});
                continue;
            }
            if (it == held.end()) c.fail(at, "lock " + std::to_string(in.a) + " is not held here");
            if (size_t(it - held.begin()) < outer)
                c.fail(at, name(*it) + " was taken outside this " + where + ": release it at the level that took it");
            held.erase(it);
            continue;
        }
        if (!held.empty() && in.op == Opcode::barrier)
            c.fail(at, "a barrier while holding " + name(held.back()) + ": unlock first");
        if (in.op == Opcode::barrier && some_warps && s.policy.scalar == ScalarPolicy::multilevel)
            for (ScalarLevel l : {ScalarLevel::workgroup, ScalarLevel::kernel})
                if (writes_level(k.program, l))
                    c.fail(at, "a barrier in an if_warp body, in a kernel with a " + std::string(level_name(l)) +
                                   "-level write: the warps at the barrier and those at the write would wait for each other");
        // M3: a kernel- or workgroup-level write waits for every warp sharing the value.
        const bool shared_write = in.op == Opcode::salu && (in.mod & kScalarWriteFlag) &&
                                  (ScalarLevel(in.mod & 3) == ScalarLevel::kernel || ScalarLevel(in.mod & 3) == ScalarLevel::workgroup);
        if (shared_write && s.policy.scalar == ScalarPolicy::multilevel) {
            const std::string lv = level_name(ScalarLevel(in.mod & 3));
            if (!held.empty())
                c.fail(at, "a " + lv + "-level write while holding " + name(held.back()) +
                               ": it waits for every warp sharing the value; unlock first");
            if (some_warps)
                c.fail(at, "a " + lv + "-level write in an if_warp body: it waits for every warp sharing the value, "
                                       "so every warp must come to it");
        }
        if (!held.empty() && in.op == Opcode::end)
            c.fail(list.item(held.back().index, held.back().line), name(held.back()) + " is not released before the end of the program");
        if (in.op == Opcode::if_warp)
            for (uint32_t w = warps; w < 32; ++w)
                if (in.b >> w & 1)
                    c.fail(at.field("warps", step.line), "warp " + std::to_string(w) + " is not in a block of " +
                                                             std::to_string(warps) + " warps (indices 0 to " +
                                                             std::to_string(warps - 1) + ")");
        if (!step.body.empty())
            check_locks(c, s, k, warps, step.body, at.field("body", step.line), held,
                        in.op == Opcode::if_warp ? "if_warp body" : "loop body", some_warps || in.op == Opcode::if_warp);
    }
    if (held.size() > outer)
        c.fail(list.item(held[outer].index, held[outer].line),
               name(held[outer]) + " is not released before the end of the " + where);
}

// The rules that need the platform and the queues.
void check_kernel(const Ctx& c, const Node& m, const Loc& at, const Scenario& s, const KernelSpec& k) {
    const SmConfig sm = s.platform.largest_sm();  // each need alone against the most any SM has; then all at once
    std::vector<std::string> queues;
    for (const auto& q : s.workload.queues) queues.push_back(q.name);
    if (!contains(queues, k.queue)) c.fail(key_loc(m, at, "queue"), unknown_word("queue", k.queue, queues));
    const uint64_t threads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
    if (threads > 1024) c.fail(key_loc(m, at, "block"), "a block of " + std::to_string(threads) + " work-items is more than 1024");
    const uint64_t warps = (threads + sm.warp_size - 1) / sm.warp_size;
    if (warps > sm.warp_slots)
        c.fail(key_loc(m, at, "block"), "a block of " + std::to_string(threads) + " work-items needs " + std::to_string(warps) +
                                            " warps; an SM has " + std::to_string(sm.warp_slots) + " warp slots");
    if (const uint64_t blocks = block_count(k); blocks > s.platform.cp.max_blocks)
        c.fail(key_loc(m, at, "grid"), (blocks == UINT64_MAX ? std::string("more than 2^64") : std::to_string(blocks)) +
                                           " blocks, more than platform.cp.max_blocks (" +
                                           std::to_string(s.platform.cp.max_blocks) + ")");
    const bool multilevel = s.policy.scalar == ScalarPolicy::multilevel;
    const uint32_t vregs = vector_registers(k, multilevel);  // M3: per-warp scalars cost vector registers
    const uint64_t regs = uint64_t(vregs) * sm.warp_size * warps;
    if (regs > sm.registers)
        c.fail(key_loc(m, at, "vregs"), "a block needs " + std::to_string(vregs) + " vregs" +
                                            (vregs != k.vregs ? " (" + std::to_string(k.vregs) + " and " + std::to_string(vregs - k.vregs) +
                                                                    " for written uniform values under scalar: per-warp)"
                                                              : std::string()) +
                                            " x " + std::to_string(sm.warp_size) + " threads x " + std::to_string(warps) +
                                            " warps = " + std::to_string(regs) + " registers; an SM has " +
                                            std::to_string(sm.registers));
    if (multilevel) {  // M3: a block's registers must fit where the pool puts them, or it could never start
        static const char* names[] = {"kernel", "workgroup", "warp", "slice"};
        const uint64_t slices = (sm.warp_size + sm.slice_size - 1) / sm.slice_size;
        const uint64_t need[4] = {k.scalars[0], k.scalars[1], warps * k.scalars[2], slices * k.scalars[3]};
        const char* per[4] = {"the kernel needs", "a block needs", "a block's warps need", "a warp's slices need"};
        for (size_t l = 0; l < 4; ++l) {
            uint64_t room = sm.scalar_pool;
            std::string what = "platform.sm.scalar_pool";
            if (sm.scalar_split == ScalarSplit::preset && sm.scalar_quota[l] < room) {
                room = sm.scalar_quota[l];
                what = std::string("platform.sm.scalar_quota.") + names[l];
            }
            if (l == size_t(ScalarLevel::slice) && sm.slice_threshold < room) {
                room = sm.slice_threshold;
                what = "platform.sm.slice_threshold";
            }
            if (need[l] > room)
                c.fail(key_loc(m, at, std::string("scalars.") + names[l]),
                       std::string(per[l]) + " " + std::to_string(need[l]) + " " + names[l] +
                           "-level scalar registers at once, more than " + what + " (" + std::to_string(room) +
                           "): it could never start");
        }
        const uint64_t block = need[0] + need[1] + need[2] + need[3];
        if (block > sm.scalar_pool)
            c.fail(key_loc(m, at, "scalars"), "a block needs " + std::to_string(block) +
                                                  " scalar registers at once (kernel, workgroup, its warps, one warp's slices), "
                                                  "more than platform.sm.scalar_pool (" + std::to_string(sm.scalar_pool) + ")");
    }
    if (k.shared_bytes > sm.shared_memory)
        c.fail(key_loc(m, at, "shared_bytes"), "must be at most platform.sm.shared_memory (" + std::to_string(sm.shared_memory) + ")");
    bool fits = s.platform.sm_instance.empty();  // SMs of their own: one must hold a whole block
    for (uint32_t i = 0; i < s.platform.sms && !fits; ++i) {
        const SmConfig own = s.platform.sm_of(i);
        fits = warps <= own.warp_slots && regs <= own.registers && k.shared_bytes <= own.shared_memory;
    }
    if (!fits)
        c.fail(key_loc(m, at, "block"), "a block needs " + std::to_string(warps) + " warp slots, " + std::to_string(regs) +
                                            " registers and " + std::to_string(k.shared_bytes) +
                                            " bytes of shared memory at once, and no one SM has them all (platform.sm[i])");
    {  // HSA's rule for a dispatch's sizes, as the CP checks the packet (check_grid)
        const uint32_t grid[3] = {k.grid[0], k.grid[1], k.grid[2]};
        const uint16_t workgroup[3] = {uint16_t(k.block[0]), uint16_t(k.block[1]), uint16_t(k.block[2])};
        if (const PacketCheck g = check_grid(grid, workgroup, dispatch_dimensions(grid, workgroup)); !g)
            c.fail(key_loc(m, at, "grid"), std::string(1, g.field.back()) + ": " + g.detail +
                                               "; HSA requires a grid no smaller than its workgroup (block) in each dimension" +
                                               (m["grid"] ? "" : " (no grid given: the default is " + std::to_string(KernelSpec{}.grid[0]) + " work-items)"));
    }
    if (k.global_bytes > s.platform.memory.device_bytes / 2)
        c.fail(key_loc(m, at, "global_bytes"), std::to_string(k.global_bytes) + " is more than half of platform.memory.device_bytes (" +
                                                   std::to_string(s.platform.memory.device_bytes) + ")");
    if (k.warp_priorities.size() > warps)
        c.fail(key_loc(m, at, "warp_priorities"), "lists " + std::to_string(k.warp_priorities.size()) +
                                                      " warps but a block has " + std::to_string(warps));
    std::vector<HeldLock> held;
    check_locks(c, s, k, uint32_t(warps), k.program, key_loc(m, at, "program"), held, "program");
}

// Errors at the first repeated name; locs[i] is where element i is.
void check_unique(const Ctx& c, const Node& list, const std::vector<Loc>& locs, const std::vector<std::string>& names,
                  const char* what) {
    std::unordered_map<std::string, size_t> first;
    for (size_t i = 0; i < names.size(); ++i)
        if (auto [it, fresh] = first.emplace(names[i], i); !fresh)
            c.fail(key_loc(list[i], locs[i], "name"), "duplicate " + std::string(what) + " name '" + names[i] +
                                                           "' (first at line " + std::to_string(locs[it->second].line) + ")");
}

void read_kernels(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    std::vector<Loc> locs;
    std::vector<KernelSpec> ks = read_list(c, v, at, kernel_schema(), &locs);
    std::vector<std::string> names;
    for (size_t i = 0; i < ks.size(); ++i) {
        ks[i].line = locs[i].line;
        if (ks[i].queue.empty()) ks[i].queue = s.workload.queues.front().name;
        check_kernel(c, v[i], locs[i], s, ks[i]);
        names.push_back(ks[i].name);
    }
    check_unique(c, v, locs, names, "kernel");
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
    std::unordered_map<std::string, size_t> copies;  // a replayed trace's copies (read before the kernels)
    for (size_t i = 0; i < s.workload.copies.size(); ++i) {
        copies.emplace(s.workload.copies[i].name, i);
        if (index.count(s.workload.copies[i].name))
            c.fail(key_loc(v[index[s.workload.copies[i].name]], locs[index[s.workload.copies[i].name]], "name"),
                   "'" + s.workload.copies[i].name + "' is already a copy's name");
    }
    std::vector<std::string> signals;
    for (const HostSignalSpec& h : s.workload.signals) signals.push_back(h.name);
    for (size_t i = 0; i < ks.size(); ++i)
        if (contains(signals, ks[i].name))
            c.fail(key_loc(v[i], locs[i], "name"), "'" + ks[i].name + "' is already a signal's name");
    // `after`: known kernels (or host signals), no self reference, no cycle.
    std::vector<std::vector<std::pair<size_t, Loc>>> deps(ks.size());
    for (size_t i = 0; i < ks.size(); ++i)
        for (const char* key : {"after", "after_any"})
            each_item(c, v[i][key], key_loc(v[i], locs[i], key), [&](const Node& x, const Loc& l) {
                const std::string& name = x.value();
                const auto found = index.find(name);
                size_t j = found == index.end() ? names.size() : found->second;
                if (j == names.size() && (contains(signals, name) || copies.count(name))) return;  // a signal the host sets, a copy
                if (j == names.size()) {
                    std::vector<std::string> known = names;
                    known.insert(known.end(), signals.begin(), signals.end());
                    c.fail(l, unknown_word(signals.empty() ? "kernel" : "kernel or signal", name, known));
                }
                if (j == i) c.fail(l, "a kernel cannot wait for itself");
                if (ks[j].instances > 1)
                    c.fail(l, "'" + name + "' has " + std::to_string(ks[j].instances) +
                                  " instances, and 'after' waits for one completion signal: put '" + ks[i].name +
                                  "' on queue '" + ks[j].queue + "' after it with 'barrier: true' (it then waits for every "
                                  "earlier packet of that queue)");
                deps[i].emplace_back(j, l);
            });
    std::vector<int> state(ks.size(), 0);  // 0 unseen, 1 on the path, 2 done
    std::vector<size_t> path;
    std::function<void(size_t)> visit = [&](size_t i) {
        state[i] = 1;
        path.push_back(i);
        for (const auto& [j, l] : deps[i]) {
            if (state[j] == 1) {
                std::string cycle;
                for (auto p = std::find(path.begin(), path.end(), j); p != path.end(); ++p) cycle += names[*p] + " -> ";
                c.fail(l, "'after' makes a cycle: " + cycle + names[j]);
            }
            if (state[j] == 0) visit(j);
        }
        path.pop_back();
        state[i] = 2;
    };
    for (size_t i = 0; i < ks.size(); ++i)
        if (state[i] == 0) visit(i);
    s.workload.kernels = std::move(ks);
}

const Schema<QueueSpec>& queue_schema() {
    using K = Keys<QueueSpec>;
    static const Schema<QueueSpec> s{{K::text("name", &QueueSpec::name, true),
                                      K::integer("priority", &QueueSpec::priority, 0, 15),
                                      K::pow2("size", &QueueSpec::size, 4, 131072),
                                      K::choice("type", &QueueSpec::type, policy_names<QueueSpec::Type>())}};
    return s;
}

// A signal value: HSA's are 64-bit signed; whole numbers a double holds exactly.
int64_t get_signal_value(const Ctx& c, const Node& v, const Loc& at) {
    const double d = get_real(c, v, at, -9007199254740992.0, 9007199254740992.0, false);
    if (d != std::floor(d)) c.fail(at, "expected an integer, got " + v.value());
    return int64_t(d);
}

// Signals the host sets at a time of its own; kernels wait for them by name.
void read_signals(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    using K = Keys<HostSignalSpec>;
    static const Schema<HostSignalSpec> schema{{
        K::text("name", &HostSignalSpec::name, true),
        K::custom("initial", [](const Ctx& c, const Node& v, const Loc& at, HostSignalSpec& h) {
            h.initial = get_signal_value(c, v, at);
        }),
        K::real("set_ns", &HostSignalSpec::set_ns, 0, kInf),
        K::custom("value", [](const Ctx& c, const Node& v, const Loc& at, HostSignalSpec& h) {
            h.value = get_signal_value(c, v, at);
        }),
    }};
    std::vector<Loc> locs;
    std::vector<HostSignalSpec> hs = read_list(c, v, at, schema, &locs);
    std::vector<std::string> names;
    for (size_t i = 0; i < hs.size(); ++i) {
        hs[i].line = locs[i].line;
        names.push_back(hs[i].name);
    }
    check_unique(c, v, locs, names, "signal");
    s.workload.signals = std::move(hs);
}

// A replayed trace's copies and fills. Their `after` names copies here; names of kernels are
// checked once the kernels are read (check_replay).
void read_copies(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    using K = Keys<CopySpec>;
    static const Schema<CopySpec> schema{{
        K::text("name", &CopySpec::name, true),
        K::text("queue", &CopySpec::queue),
        K::real("submit_ns", &CopySpec::submit_ns, 0, kInf),
        K::real("duration_ns", &CopySpec::duration_ns, 0, double(kMaxCopyNs)),
        K::integer("bytes", &CopySpec::bytes, 0, ~0ull),
        K::flag("fill", &CopySpec::fill),
        K::custom("after", [](const Ctx& c, const Node& v, const Loc& at, CopySpec& k) { k.after = get_names(c, v, at); }),
        measured_field<CopySpec>(),
    }};
    std::vector<Loc> locs;
    std::vector<CopySpec> cs = read_list(c, v, at, schema, &locs);
    std::vector<std::string> names, queues;
    for (const QueueSpec& q : s.workload.queues) queues.push_back(q.name);
    for (size_t i = 0; i < cs.size(); ++i) {
        cs[i].line = locs[i].line;
        if (cs[i].queue.empty()) cs[i].queue = s.workload.queues.front().name;
        if (!contains(queues, cs[i].queue)) c.fail(key_loc(v[i], locs[i], "queue"), unknown_word("queue", cs[i].queue, queues));
        names.push_back(cs[i].name);
    }
    check_unique(c, v, locs, names, "copy");
    s.workload.copies = std::move(cs);
}

// A replayed trace's host calls (`host.calls`): what they name is checked once the kernels and
// copies are read (check_replay).
void read_calls(const Ctx& c, const Node& v, const Loc& at, Workload& w) {
    using K = Keys<HostCall>;
    static const Schema<HostCall> schema{{
        K::choice("call", &HostCall::kind, policy_names<HostCall::Kind>()),
        K::integer("thread", &HostCall::thread, 0, 1023),
        K::real("gap_ns", &HostCall::gap_ns, 0, kInf),
        K::real("duration_ns", &HostCall::duration_ns, 0, kInf),
        K::custom("work", [](const Ctx& c, const Node& v, const Loc& at, HostCall& h) { h.work = get_names(c, v, at); }),
        K::text("queue", &HostCall::queue),
    }};
    std::vector<Loc> locs;
    w.calls = read_list(c, v, at, schema, &locs);
    for (size_t i = 0; i < w.calls.size(); ++i) {
        HostCall& h = w.calls[i];
        h.line = locs[i].line;
        const bool works = h.kind == HostCall::Kind::launch || h.kind == HostCall::Kind::sync_work;
        if (works && h.work.empty()) c.fail(key_loc(v[i], locs[i], "work"), "a " + std::string(policy_name(h.kind)) + " call names its work");
        if (!works && !h.work.empty()) c.fail(key_loc(v[i], locs[i], "work"), "only launch and sync-work calls name work");
        if ((h.kind == HostCall::Kind::sync_queue) != !h.queue.empty())
            c.fail(key_loc(v[i], locs[i], "queue"), "a sync-queue call, and only it, names a queue");
    }
}

// Across a replayed trace's keys: what `after` of a copy and the host calls name exists, and a
// kernel or copy is launched by one call at most.
void check_replay(const Ctx& c, const Node& root, const Loc& at, Scenario& s) {
    Workload& w = s.workload;
    if (w.copies.empty() && w.calls.empty()) return;
    std::unordered_map<std::string, int> launched;  // kernels and copies -> the launch calls naming them
    for (const KernelSpec& k : w.kernels) launched.emplace(k.name, 0);
    for (const CopySpec& k : w.copies) launched.emplace(k.name, 0);
    std::vector<std::string> queues;
    for (const QueueSpec& q : w.queues) queues.push_back(q.name);
    const Node& copies = root["copies"];
    for (size_t i = 0; i < w.copies.size(); ++i)
        for (const std::string& name : w.copies[i].after)
            if (!launched.count(name) || name == w.copies[i].name)
                c.fail(key_loc(copies[i], at.field("copies", w.copies[i].line).item(i, w.copies[i].line), "after"),
                       "'" + name + "' is " + (name == w.copies[i].name ? "the copy itself" : "no kernel or copy"));
    const Node& calls = root["host"]["calls"];
    const Loc list = key_loc(root, at, "host.calls");
    for (size_t i = 0; i < w.calls.size(); ++i) {
        const HostCall& h = w.calls[i];
        const Loc here = list.item(i, h.line);
        for (const std::string& name : h.work) {
            auto it = launched.find(name);
            if (it == launched.end()) c.fail(key_loc(calls[i], here, "work"), "'" + name + "' is no kernel or copy");
            if (h.kind == HostCall::Kind::launch && ++it->second > 1)
                c.fail(key_loc(calls[i], here, "work"), "'" + name + "' is launched by an earlier call too");
        }
        if (!h.queue.empty() && !contains(queues, h.queue))
            c.fail(key_loc(calls[i], here, "queue"), unknown_word("queue", h.queue, queues));
    }
    if (w.replay == ReplayMode::closed && !w.calls.empty())
        for (const auto& [name, n] : launched)
            if (n == 0) c.fail(list, "'" + name + "' is launched by no call (every kernel and copy is, in a closed-loop replay)");
}

void read_queues(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    std::vector<Loc> locs;
    std::vector<QueueSpec> qs = read_list(c, v, at, queue_schema(), &locs);
    if (qs.empty()) c.fail(at, "needs at least one queue (leave 'queues' out for the default queue q0)");
    if (qs.size() > s.platform.cp.max_queues)
        c.fail(at, std::to_string(qs.size()) + " queues, but the command processor has " +
                       std::to_string(s.platform.cp.max_queues) + " (platform.cp.max_queues)");
    std::vector<std::string> names;
    for (const auto& q : qs) names.push_back(q.name);
    check_unique(c, v, locs, names, "queue");
    s.workload.queues = std::move(qs);
}

// M4: draws for the unified shading array. Names are unique among kernels and draws (the
// results and the trace name both by it).
void read_draws(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    using K = Keys<DrawSpec>;
    static const Schema<DrawSpec> schema{launch_fields<DrawSpec>({
        K::text("name", &DrawSpec::name, true),
        K::text("queue", &DrawSpec::queue),
        K::real("submit_ns", &DrawSpec::submit_ns, 0, kInf),
        // The ranges the command processor checks a draw packet against.
        K::integer("vertex_tasks", &DrawSpec::vertex_tasks, 1, DrawLimits{}.max_vertex_tasks),
        K::integer("vertex_cycles", &DrawSpec::vertex_cycles, 1, DrawLimits{}.max_task_cycles),
        K::integer("pixel_tasks_per_vertex_task", &DrawSpec::pixel_tasks_per_vertex_task, 0,
                   DrawLimits{}.max_pixel_tasks_per_vertex_task),
        K::integer("pixel_cycles", &DrawSpec::pixel_cycles, 1, DrawLimits{}.max_task_cycles),
        K::map("packet", &DrawSpec::packet, draw_packet_schema()),
    })};
    std::vector<Loc> locs;
    std::vector<DrawSpec> ds = read_list(c, v, at, schema, &locs);
    std::vector<std::string> queues, names;
    for (const auto& q : s.workload.queues) queues.push_back(q.name);
    const UsaConfig& u = s.platform.usa;
    for (size_t i = 0; i < ds.size(); ++i) {
        DrawSpec& d = ds[i];
        d.line = locs[i].line;
        if (d.queue.empty()) d.queue = s.workload.queues.front().name;
        if (!contains(queues, d.queue)) c.fail(key_loc(v[i], locs[i], "queue"), unknown_word("queue", d.queue, queues));
        for (const KernelSpec& k : s.workload.kernels)
            if (k.name == d.name)
                c.fail(key_loc(v[i], locs[i], "name"),
                       "'" + d.name + "' is already a kernel's name (line " + std::to_string(k.line) + ")");
        if (d.vertex_tasks > u.max_vertex_tasks)
            c.fail(key_loc(v[i], locs[i], "vertex_tasks"), std::to_string(d.vertex_tasks) +
                                                               " vertex tasks, more than platform.usa.max_vertex_tasks (" +
                                                               std::to_string(u.max_vertex_tasks) + ")");
        if (d.pixel_tasks_per_vertex_task > u.pixel_queue)
            c.fail(key_loc(v[i], locs[i], "pixel_tasks_per_vertex_task"),
                   std::to_string(d.pixel_tasks_per_vertex_task) + " pixel tasks per vertex task never fit the pixel queue of " +
                       std::to_string(u.pixel_queue) + " (platform.usa.pixel_queue)");
        if (s.policy.shading == ShadingBalance::static_split) {  // the split never changes: both types must have cores
            if (u.vertex_cores == 0)
                c.fail(locs[i], "with 'shading: static' and platform.usa.vertex_cores 0, no core ever runs its vertex tasks");
            if (d.pixel_tasks_per_vertex_task && u.vertex_cores == u.cores)
                c.fail(locs[i], "with 'shading: static' and every core vertex (platform.usa.vertex_cores " +
                                    std::to_string(u.vertex_cores) + "), no core ever runs its pixel tasks");
        }
        names.push_back(d.name);
    }
    check_unique(c, v, locs, names, "draw");
    s.workload.draws = std::move(ds);
}

// Whether the kernel (or draw) named has the `instances` key (its results summarize them).
bool has_instances(const Scenario& s, const std::string& kernel, const std::string& draw) {
    for (const auto& k : s.workload.kernels)
        if (!kernel.empty() && k.name == kernel) return k.instances_key;
    for (const auto& d : s.workload.draws)
        if (!draw.empty() && d.name == draw) return d.instances_key;
    return false;
}

// A path into results.json: dot-separated keys, a list's element by its name or index.
void check_path(const Ctx& c, const Loc& at, const std::string& path) {
    const std::string first = path.substr(0, path.find('.'));
    if (!contains(results_sections(), first))
        c.fail(at, "'" + path + "': " + unknown_word("section of results.json", first, results_sections()));
    if (path.back() == '.' || path.find("..") != std::string::npos) c.fail(at, "'" + path + "' has an empty key");
}

// `name.metric` of a kernel or a draw, or a results path.
ExpectOperand read_operand(const Ctx& c, const Loc& at, const std::string& text, const Scenario& s) {
    ExpectOperand o;
    o.text = text;
    const auto dot = text.find('.');
    const std::string head = text.substr(0, dot), rest = dot == std::string::npos ? "" : text.substr(dot + 1);
    for (const auto& k : s.workload.kernels)
        if (k.name == head) o.kernel = head;
    for (const auto& d : s.workload.draws)
        if (d.name == head) o.draw = head;
    if (!o.kernel.empty() || !o.draw.empty()) {
        const auto& own = o.kernel.empty() ? draw_metrics() : kernel_metrics();
        if (contains(own, rest)) {
            if ((rest == "slowdown" || rest == "alone_turnaround_ns") && !s.measure_alone)
                c.fail(at, "'" + text + "' needs 'measure_alone: true' (each kernel also run alone)");
            if (rest.rfind("instance", 0) == 0 && !has_instances(s, o.kernel, o.draw))
                c.fail(at, "'" + text + "' needs the " + (o.draw.empty() ? "kernel's" : "draw's") + " 'instances' key");
            o.metric = rest;
            return o;
        }
        if (!contains(results_sections(), head))  // else a results path whose section shares the name
            c.fail(at, "'" + text + "': " + unknown_word(o.kernel.empty() ? "draw metric" : "kernel metric", rest, own));
        o.kernel.clear();
        o.draw.clear();
    }
    if (!contains(results_sections(), head)) {  // a whole section is a path too: `sim_end_ns`
        std::vector<std::string> names;
        for (const auto& k : s.workload.kernels) names.push_back(k.name);
        for (const auto& d : s.workload.draws) names.push_back(d.name);
        c.fail(at, "'" + text + "' is neither NAME.METRIC of a kernel or a draw nor a path into results.json (" +
                       unknown_word("name", head, names) + ")");
    }
    check_path(c, at, text);
    o.path = text;
    return o;
}

// `compare: "A OP B"` or `"A OP F * B"`.
void read_compare(const Ctx& c, const Loc& at, Expectation& e, const Scenario& s) {
    std::istringstream in(e.compare);
    std::vector<std::string> t;
    for (std::string w; in >> w;) t.push_back(w);
    const char* form = "wants \"A OP B\" or \"A OP F * B\": A and B a kernel's or a draw's NAME.METRIC or a results path, "
                       "OP one of < <= > >=, F a number";
    static const std::vector<std::string> ops = {"<", "<=", ">", ">="};
    if ((t.size() != 3 && t.size() != 5) || !contains(ops, t[1]) || (t.size() == 5 && t[3] != "*"))
        c.fail(at, "'" + e.compare + "' " + form);
    if (t.size() == 5) {
        char* end = nullptr;
        e.factor = std::strtod(t[2].c_str(), &end);
        if (*end || t[2].empty() || !std::isfinite(e.factor)) c.fail(at, "'" + t[2] + "' is not a number: " + form);
    }
    e.op = t[1];
    const VariantCtx& v = c.variant();
    if (v.name.empty()) {
        e.lhs = read_operand(c, at, t[0], s);
        e.rhs = read_operand(c, at, t.back(), s);
        return;
    }
    // With variants, "fifo:hi.response_ns" reads variant fifo's results. An operand of the
    // variant being read is checked now; the other variant's when that one is read.
    auto operand = [&](const std::string& text) {
        const auto colon = text.find(':');
        if (colon == std::string::npos) return read_operand(c, at, text, s);
        const std::string name = text.substr(0, colon);
        if (!contains(v.names, name)) c.fail(at, "'" + text + "': " + unknown_word("variant", name, v.names));
        ExpectOperand o;
        if (name == v.name) o = read_operand(c, at, text.substr(colon + 1), s);
        o.variant = name;
        o.text = text;
        return o;
    };
    e.lhs = operand(t[0]);
    e.rhs = operand(t.back());
    if (e.lhs.variant.empty() != e.rhs.variant.empty())
        c.fail(at, "'" + e.compare + "': name a variant on both sides (\"fifo:hi.response_ns < 2 * prio:hi.response_ns\") or on neither");
    if (!e.lhs.variant.empty() && !e.variant.empty())
        c.fail(at, "'" + e.compare + "' compares variants: leave 'variant' out");
}

void read_expect(const Ctx& c, const Node& v, const Loc& at, Scenario& s) {
    using K = Keys<Expectation>;
    static const Schema<Expectation> schema{
        {K::text("kernel", &Expectation::kernel),
         K::text("draw", &Expectation::draw),
         K::integer("priority", [](Expectation& e) -> std::optional<uint32_t>& { return e.priority; }, 0, 255),
         K::text("metric", &Expectation::metric),
         K::real("min", [](Expectation& e) -> std::optional<double>& { return e.min; }, -kInf, kInf),
         K::real("max", [](Expectation& e) -> std::optional<double>& { return e.max; }, -kInf, kInf),
         K::text("compare", &Expectation::compare),
         K::text("variant", &Expectation::variant)},
        [](const Ctx& c, const Node& m, const Loc& at, Expectation& e) {
            if (!e.variant.empty() && c.variant().name.empty())
                c.fail(key_loc(m, at, "variant"), "names a variant, but the scenario has no 'variants'");
            if (!e.variant.empty() && !contains(c.variant().names, e.variant))
                c.fail(key_loc(m, at, "variant"), unknown_word("variant", e.variant, c.variant().names));
            if (!e.compare.empty()) {
                if (!e.metric.empty() || e.min || e.max || !e.kernel.empty() || !e.draw.empty() || e.priority)
                    c.fail(at, "'compare' stands alone: no 'metric', 'min', 'max', 'kernel', 'draw' or 'priority' with it");
                return;
            }
            if (e.metric.empty()) c.fail(at, "needs 'metric' (with 'min', 'max' or both) or 'compare'");
            if (!e.min && !e.max) c.fail(at, "needs 'min', 'max' or both");
            if (e.min && e.max && *e.min > *e.max)
                c.fail(key_loc(m, at, "max"), "max " + format_number(*e.max) + " is below min " + format_number(*e.min));
        }};
    std::vector<Loc> locs;
    std::vector<Expectation> es = read_list(c, v, at, schema, &locs);
    std::vector<std::string> kernels, draws;
    for (const auto& k : s.workload.kernels) kernels.push_back(k.name);
    for (const auto& d : s.workload.draws) draws.push_back(d.name);
    std::vector<Expectation> kept;  // those of the variant being read
    for (size_t i = 0; i < es.size(); ++i) {
        Expectation& e = es[i];
        e.line = locs[i].line;
        if (!e.variant.empty() && e.variant != c.variant().name) continue;  // checked when its variant is read
        if (!e.compare.empty()) {
            read_compare(c, key_loc(v[i], locs[i], "compare"), e, s);
            (e.lhs.variant.empty() ? kept : s.cross_expect).push_back(e);
            continue;
        }
        kept.push_back(e);
        Loc metric_at = key_loc(v[i], locs[i], "metric");
        if (!e.kernel.empty() && !contains(kernels, e.kernel))
            c.fail(key_loc(v[i], locs[i], "kernel"), unknown_word("kernel", e.kernel, kernels));
        if (!e.draw.empty() && !contains(draws, e.draw))
            c.fail(key_loc(v[i], locs[i], "draw"), unknown_word("draw", e.draw, draws));
        if (int(!e.kernel.empty()) + int(!e.draw.empty()) + int(bool(e.priority)) > 1)
            c.fail(locs[i], "name one of 'kernel', 'draw' or 'priority', not several");
        if (e.metric.find('.') != std::string::npos) {  // a path into results.json
            if (!e.kernel.empty() || !e.draw.empty() || e.priority)
                c.fail(metric_at, "'" + e.metric + "' is a path into results.json: leave 'kernel', 'draw' and 'priority' out");
            check_path(c, metric_at, e.metric);
            continue;
        }
        const auto& own = e.priority         ? priority_metrics()
                          : !e.draw.empty()   ? draw_metrics()
                          : e.kernel.empty() ? scenario_metrics()
                                             : kernel_metrics();
        if (!e.draw.empty() && !contains(own, e.metric)) c.fail(metric_at, unknown_word("draw metric", e.metric, own));
        if (!contains(own, e.metric)) {
            if (contains(draw_metrics(), e.metric) && !contains(kernel_metrics(), e.metric))
                c.fail(metric_at, "'" + e.metric + "' is a draw metric: name the draw with 'draw'");
            if (!e.priority && e.kernel.empty() && contains(kernel_metrics(), e.metric))
                c.fail(metric_at, "'" + e.metric + "' is a kernel metric: name the kernel with 'kernel'");
            if (!e.priority && contains(priority_metrics(), e.metric))
                c.fail(metric_at, "'" + e.metric + "' is a lock metric of a warp priority: name it with 'priority'");
            if (!e.kernel.empty() && contains(scenario_metrics(), e.metric))
                c.fail(metric_at, "'" + e.metric + "' is a scenario metric: leave 'kernel' out");
            c.fail(metric_at, unknown_word("metric", e.metric, own));
        }
        if ((e.metric == "slowdown" || e.metric == "alone_turnaround_ns") && !s.measure_alone)
            c.fail(metric_at, "'" + e.metric + "' needs 'measure_alone: true' (each kernel also run alone)");
        if (e.metric.rfind("instance", 0) == 0 && !has_instances(s, e.kernel, e.draw))
            c.fail(metric_at, "'" + e.metric + "' needs the " + (e.draw.empty() ? "kernel's" : "draw's") + " 'instances' key");
    }
    s.expect = std::move(kept);
}

const Schema<Scenario>& scenario_schema() {
    using K = Keys<Scenario>;
    static const Schema<Workload> host{{Keys<Workload>::real("api_overhead_ns", &Workload::api_overhead_ns, 0, 1e9),
                                        Keys<Workload>::real("launch_tail_ns", &Workload::launch_tail_ns, 0, 1e9),
                                        Keys<Workload>::real("store_ns", &Workload::store_ns, 0, 1e6),
                                        Keys<Workload>::real("quantum_ns", &Workload::quantum_ns, 0, 1e6),
                                        Keys<Workload>::choice("code", &Workload::code, policy_names<CodeLoad>()),
                                        Keys<Workload>::choice("serial_args", &Workload::serial_args, policy_names<SerialArgs>()),
                                        Keys<Workload>::choice("replay", &Workload::replay, policy_names<ReplayMode>()),
                                        Keys<Workload>::custom("calls", read_calls)}};
    // Order matters: kernels are checked against the platform and the queues, expectations
    // against the kernels.
    static const Schema<Scenario> s{{
        K::text("name", &Scenario::name, true),
        K::real("max_sim_ns", &Scenario::max_sim_ns, 0, kInf, true),
        K::flag("measure_alone", &Scenario::measure_alone),
        gpu_section("platform", ""),
        gpu_section("policy", "policy."),
        K::map("host", &Scenario::workload, host),
        K::custom("queues", read_queues),
        K::custom("signals", read_signals),
        K::custom("copies", read_copies),
        K::custom("kernels", read_kernels),
        K::custom("draws", read_draws),
        K::custom("expect", read_expect),
        // Read before the rest, by parse_scenario: each variant is the file with its `set`.
        K::custom("variants", [](const Ctx&, const Node&, const Loc&, Scenario&) {}),
    }, check_replay};
    return s;
}

// ---- --set KEY=VALUE

// Applies one override to the document; returns the key's canonical dotted path
// (kernels.NAME becomes kernels[i]). `bad` makes the error that names where the override is.
// `created`: gets the path of the first key the override had to make (a map or a key the
// document did not have), so an error found there is blamed on --set.
std::string apply_override(Node& root, const std::string& given, const Node& val,
                           const std::function<ScenarioError(const std::string&)>& bad,
                           std::vector<std::string>* created = nullptr) {
    // The names `gpuvp params` prints stand for the scenario's: gpu.policy.X is policy.X, gpu.X
    // platform.X (no scenario key is called gpu).
    const std::string key = given.rfind("gpu.policy.", 0) == 0 ? given.substr(4)
                            : given.rfind("gpu.", 0) == 0      ? "platform." + given.substr(4)
                                                               : given;
    bool made = false;
    std::vector<std::variant<std::string, size_t>> path;  // names and [indices]
    for (size_t i = 0; i < key.size();) {
        if (key[i] == '[') {
            size_t close = key.find(']', i);
            std::string digits = close == std::string::npos ? "" : key.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
                throw bad("bad index in the key path");
            path.emplace_back(size_t(std::stoul(digits)));
            i = close + 1;
            if (i < key.size() && key[i] != '.' && key[i] != '[') throw bad("expected '.' or '[' after ']'");
            if (i < key.size() && key[i] == '.') ++i;
        } else {
            size_t end = key.find_first_of(".[", i);
            if (end == std::string::npos) end = key.size();
            if (end == i) throw bad("empty name in the key path");
            path.emplace_back(key.substr(i, end - i));
            i = end;
            if (i < key.size() && key[i] == '.' && ++i == key.size()) throw bad("the key path ends with '.'");
        }
    }
    if (path.empty()) throw bad("empty key");
    Node* cur = &root;
    std::string canon;
    for (size_t i = 0; i < path.size(); ++i) {
        const bool last = i + 1 == path.size();
        const auto* name = std::get_if<std::string>(&path[i]);
        const std::string here = canon.empty() ? "the document" : "'" + canon + "'";
        if (cur->is_sequence()) {
            const bool by_name = name && (name->size() > 9 || name->find_first_not_of("0123456789") != std::string::npos);
            size_t idx = !name ? std::get<size_t>(path[i]) : by_name ? cur->size() : std::stoul(*name);
            for (size_t j = 0; by_name && j < cur->size(); ++j)
                if (const Node& n = (*cur)[j]["name"]; n.is_scalar() && n.value() == *name) {
                    idx = j;
                    break;
                }
            if (idx >= cur->size())
                throw bad(by_name ? here + " has no element named '" + *name + "'"
                                  : here + " has " + std::to_string(cur->size()) + " elements");
            canon += "[" + std::to_string(idx) + "]";
            if (last) (*cur)[idx] = val;
            else cur = &(*cur)[idx];
        } else if (cur->is_map() || cur->is_null()) {
            if (!name) throw bad(here + " is " + got(*cur) + ", not a list");
            std::string k = *name;
            // name[i] where name is not a list: one map key, as platform.sm[3] (an SM of its own)
            if (i + 1 < path.size() && std::holds_alternative<size_t>(path[i + 1]) && !(*cur)[*name].is_sequence())
                k += "[" + std::to_string(std::get<size_t>(path[++i])) + "]";
            const bool end = i + 1 == path.size();
            canon += (canon.empty() ? "" : ".") + k;
            Node* next = cur->find(k);
            if (!next && created && !made) {
                created->push_back(canon);
                made = true;
            }
            if (end) cur->set(k, val);
            else cur = next ? next : &cur->set(k, Node::map());
        } else {
            throw bad(here + " is " + got(*cur) + ", not a map or a list");
        }
    }
    return canon;
}

// A document that yaml::parse refused, as the file's error.
ScenarioError yaml_error(const std::string& file, const yaml::Error& e) {
    return e.syntax() ? ScenarioError(file, e.line(), "", std::string("YAML syntax error: ") + e.what())
                      : ScenarioError(file, 0, "", e.what());
}

// ---- --platform FILE

// The platform map of a platform file's document: the whole document, or the map under its one
// key `platform`. Its keys must be plain names (read_map would report another key at the
// merged map's place, not the file's).
Node platform_map(const Node& root, const std::string& file) {
    if (root.is_null()) return Node::map();
    const char* expected =
        "a platform map (the keys of a scenario's 'platform:', or 'platform:' holding them and 'host:' the host's)";
    if (!root.is_map()) throw ScenarioError(file, line_of(root, 1), "", std::string("expected ") + expected + ", got " + got(root));
    const Node* m = &root;
    std::string at;
    if (root["platform"]) {
        std::vector<std::string> others;
        for (const auto& kv : root)
            if (!kv.first.is_scalar() || (kv.first.value() != "platform" && kv.first.value() != "host"))
                others.push_back(kv.first.is_scalar() ? kv.first.value() : "?");
        if (!others.empty())
            throw ScenarioError(file, line_of(root, 1), "",
                                std::string("expected ") + expected + ", got 'platform' and " + join_words(others) +
                                    ": a platform file is not a scenario");
        m = &root["platform"];
        at = "platform";
        if (m->is_null()) return Node::map();
        if (!m->is_map()) throw ScenarioError(file, line_of(*m, 1), at, "expected a map, got " + got(*m));
    }
    std::function<void(const Node&, const std::string&)> keys = [&](const Node& map, const std::string& path) {
        for (const auto& kv : map) {
            if (!kv.first.is_scalar())
                throw ScenarioError(file, line_of(kv.first, 1), "platform" + path, "a key must be a plain name, got " + got(kv.first));
            if (kv.second.is_map()) keys(kv.second, path + "." + kv.first.value());
        }
    };
    keys(*m, "");
    return *m;
}

// Lays `src` (a platform file's map) over `dst` (the scenario's): a map over a map key by key,
// anything else in place of what `dst` had. The file's own nodes go in, so their lines are the
// file's. `from` gets each key the file set ("platform.sm.warp_slots").
void overlay(Node& dst, const Node& src, const std::string& path, std::vector<std::string>& from) {
    for (const auto& kv : src) {
        const std::string& name = kv.first.value();
        const std::string here = path + "." + name;
        Node* there = dst.find(name);
        if (kv.second.is_map() && there && there->is_map()) {
            overlay(*there, kv.second, here, from);
            continue;
        }
        dst.remove(name);
        dst.add(kv.first, kv.second);
        from.push_back(here);
    }
}

// The platform file (its document `root`) over the document's `platform` map: first, if it
// names a preset, the scenario's preset and its keys of the parameters the preset sets go (the
// file's preset, applied afresh, stands in for them); then its keys. Returns the keys that now
// come from it.
std::vector<std::string> apply_platform_file(Node& doc, const Node& root, const std::string& file_name) {
    const Node file = platform_map(root, file_name);
    if (!doc.is_map() || file.size() == 0) return {};
    if (!doc["platform"] || doc["platform"].is_null()) doc.set("platform", Node::map());
    Node& platform = *doc.find("platform");
    if (!platform.is_map()) return {};  // the scenario's own error, at its line
    if (file["preset"].is_scalar())
        if (const PlatformPreset* p = find_preset(file["preset"].value())) {
            platform.remove("preset");
            for (const PresetValue& v : p->values) {  // "sm.warp_slots": platform.sm.warp_slots
                Node* m = &platform;
                std::string name = v.param;
                for (size_t dot; m && (dot = name.find('.')) != std::string::npos;) {
                    m = m->find(name.substr(0, dot));
                    name = name.substr(dot + 1);
                }
                if (m && m->is_map()) m->remove(name);
            }
        }
    std::vector<std::string> from;
    overlay(platform, file, "platform", from);
    // `host:` beside `platform:` (what `gpuvp calibrate` fits of the host's runtime): over the
    // scenario's host map.
    if (root["platform"] && root["host"].is_map()) {
        if (!doc["host"] || doc["host"].is_null()) doc.set("host", Node::map());
        if (Node& host = *doc.find("host"); host.is_map()) overlay(host, root["host"], "host", from);
    }
    return from;
}

}  // namespace

void lay_platform(Node& doc, const PlatformSource& platform, yaml::Limits& limits) {
    Node root;
    try {
        root = yaml::parse(platform.text, limits);
    } catch (const yaml::Error& e) {
        throw yaml_error(platform.file, e);
    }
    apply_platform_file(doc, root, platform.file);
}

PlatformSource layer_platforms(const PlatformSource& under, const PlatformSource& over) {
    yaml::Limits limits = scenario_limits(over.text.size(), {}, under);
    Node doc = Node::map();
    lay_platform(doc, under, limits);
    lay_platform(doc, over, limits);
    return {under.file + " under " + over.file, yaml::write(doc)};
}

Overrides overrides_of(const std::vector<std::string>& sets) {
    Overrides o;
    for (const std::string& s : sets) {
        const size_t eq = s.find('=');
        o.emplace_back(s.substr(0, eq), eq == std::string::npos ? "" : s.substr(eq + 1));
    }
    return o;
}

yaml::Limits scenario_limits(uint64_t text_bytes, const Overrides& overrides, const std::optional<PlatformSource>& platform) {
    if (platform) text_bytes += platform->text.size();
    for (const auto& [key, value] : overrides) text_bytes += key.size() + value.size();
    yaml::Limits limits;
    limits.nodes = std::max(limits.nodes, text_bytes);
    return limits;
}

Scenario parse_scenario(const std::string& yaml_text, const std::string& file, const Overrides& overrides,
                        const std::optional<PlatformSource>& platform) {
    yaml::Limits limits = scenario_limits(yaml_text.size(), overrides, platform);
    Node root;
    try {
        root = yaml::parse(yaml_text, limits);
    } catch (const yaml::Error& e) {
        throw yaml_error(file, e);
    }
    // What the file is, before what it lacks: nothing at all, or no map of keys.
    if (root.is_null())
        throw ScenarioError(file, 0, "",
                            yaml_text.find_first_not_of(" \t\r\n") == std::string::npos
                                ? "the file is empty: a scenario or a profiler trace expected"
                                : "the file holds nothing but comments: a scenario or a profiler trace expected");
    if (!root.is_map())
        throw ScenarioError(file, line_of(root, 1), "",
                            "not a profiler trace or a scenario: a scenario is a YAML map of keys (name, kernels, ...), got " +
                                got(root));
    return read_document(std::move(root), file, overrides, platform, limits);
}

namespace {

// A variant as the file lists it: its name, and each key it sets with its value and place.
struct VariantSpec {
    std::string name;
    std::vector<std::tuple<std::string, Node, Loc>> set;
};

// The variants list, checked: 1 to 32 maps of a unique name and a `set` map.
std::vector<VariantSpec> variant_specs(const Ctx& top, const Node& root) {
    const Node& list = root["variants"];
    const Loc at = key_loc(root, Loc{"", 1}, "variants");
    if (!list.is_sequence() || list.size() < 1 || list.size() > 32)
        top.fail(at, "expected a list of 1 to 32 variants ({name: NAME, set: {KEY: VALUE}}), got " + got(list));
    std::vector<VariantSpec> specs;
    std::vector<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
        const Node& item = list[i];
        const Loc here = at.item(i, line_of(item, at.line));
        if (!item.is_map()) top.fail(here, "expected a map {name: NAME, set: {KEY: VALUE}}, got " + got(item));
        VariantSpec spec;
        for (const auto& kv : item) {
            const std::string k = kv.first.is_scalar() ? kv.first.value() : "?";
            const Loc key = here.field(k, line_of(kv.first, here.line));
            if (k == "name") {
                if (!kv.second.is_scalar()) top.fail(key, "expected a name, got " + got(kv.second));
                spec.name = kv.second.value();
                if (spec.name.empty() || spec.name.size() > 64 ||
                    spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                        std::string::npos)
                    top.fail(key, "'" + spec.name + "': a variant's name is 1 to 64 letters, digits, '_' and '-'");
                if (contains(names, spec.name)) top.fail(key, "a second variant named '" + spec.name + "'");
            } else if (k == "set") {
                if (!kv.second.is_map()) top.fail(key, "expected a map of KEY: VALUE as --set takes them, got " + got(kv.second));
                for (const auto& o : kv.second) {
                    const std::string path = o.first.is_scalar() ? o.first.value() : "?";
                    const Loc where = key.field(path, line_of(o.first, key.line));
                    const std::string first = path.substr(0, path.find_first_of(".["));
                    if (first == "variants" || first == "expect" || first == "name")
                        top.fail(where, "a variant cannot change '" + first + "'");
                    spec.set.emplace_back(path, o.second, where);
                }
            } else {
                top.fail(key, unknown_word("key", k, {"name", "set"}));
            }
        }
        if (spec.name.empty()) top.fail(here, "missing required key 'name'");
        names.push_back(spec.name);
        specs.push_back(std::move(spec));
    }
    return specs;
}

// A --set on a key a variant sets would be overridden by the variant: an error that says so.
void set_conflicts(const std::vector<VariantSpec>& specs, const Overrides& overrides,
                   const std::vector<std::string>& overridden, const std::string& file) {
    for (size_t i = 0; i < specs.size(); ++i)
        for (const auto& [path, value, where] : specs[i].set)
            for (size_t k = 0; k < overrides.size(); ++k)
                if (under(overridden[k], path) || under(path, overridden[k]) || under(overrides[k].first, path) ||
                    under(path, overrides[k].first))
                    throw ScenarioError("--set", 0, overrides[k].first,
                                        "variant '" + specs[i].name + "' sets '" + path + "' (" + file + ":" +
                                            std::to_string(where.line) + "), which wins: change it there, or with --set variants[" +
                                            std::to_string(i) + "].set." + path);
}

// The scenario of the variants: the first's, holding every variant. Each variant's reading kept
// the comparisons across variants, in file order, with its own operands checked: each side
// comes from the reading of the variant it names.
Scenario joined_variants(std::vector<Scenario> built) {
    Scenario s = built.front();
    for (size_t j = 0; j < s.cross_expect.size(); ++j) {
        Expectation& e = s.cross_expect[j];
        for (const Scenario& b : built) {
            if (b.variant == e.lhs.variant) e.lhs = b.cross_expect[j].lhs;
            if (b.variant == e.rhs.variant) e.rhs = b.cross_expect[j].rhs;
        }
    }
    for (Scenario& b : built) b.cross_expect.clear();
    s.variants = std::move(built);
    return s;
}

}  // namespace

Scenario read_document(Node root, const std::string& file, const Overrides& overrides,
                       const std::optional<PlatformSource>& platform, yaml::Limits& limits) {
    if (root.is_null()) root = Node::map();
    // The document as written, for each variant to start from (with its lines).
    const Node written = root.is_map() && root["variants"] ? root : Node();
    Node platform_root;  // the platform file's document
    if (platform) try {
            platform_root = yaml::parse(platform->text, limits);
        } catch (const yaml::Error& e) {
            throw yaml_error(platform->file, e);
        }
    PlatformBlame from_platform;  // the keys the platform file set
    auto apply_platform = [&](Node& doc) {
        if (!platform) return;
        from_platform.file = platform->file;
        from_platform.keys = apply_platform_file(doc, platform_root, platform->file);
    };
    std::vector<std::string> overridden, blamed;  // blamed: overridden and what the overrides made
    auto apply_set = [&](Node& doc) {  // the --set overrides
        overridden.clear();
        std::vector<std::string> created;
        for (const auto& [key, value] : overrides) {
            auto bad = [&, key = key](const std::string& msg) { return ScenarioError("--set", 0, key, msg); };
            Node val;
            try {
                val = yaml::parse(value, limits);
            } catch (const yaml::Error& e) {
                throw bad("bad value '" + value + "': " + e.what());
            }
            overridden.push_back(apply_override(doc, key, val, bad, &created));
        }
        blamed = overridden;
        blamed.insert(blamed.end(), created.begin(), created.end());
    };
    apply_platform(root);
    apply_set(root);
    auto read = [&](const Node& doc, VariantCtx variant) {
        const Ctx c(file, blamed, std::move(variant), from_platform);
        Scenario s;
        s.file = file;
        s.workload.queues.emplace_back().name = "q0";
        read_map(c, doc, Loc{"", line_of(doc, 1)}, scenario_schema(), s);
        return s;
    };
    if (!root.is_map() || !root["variants"]) return read(root, {});

    // variants: [{name, set: {KEY: VALUE, ...}}, ...]: each variant is the file with its `set`
    // applied as --set would, read and checked as a whole scenario of its own.
    const std::vector<VariantSpec> specs = variant_specs(Ctx(file, blamed, {}, from_platform), root);
    std::vector<std::string> names;
    for (const VariantSpec& spec : specs) names.push_back(spec.name);
    set_conflicts(specs, overrides, overridden, file);
    std::vector<Scenario> built;
    for (const VariantSpec& spec : specs) {
        Node doc = written;
        apply_platform(doc);
        apply_set(doc);
        doc.remove("variants");
        VariantCtx v{spec.name, names, {}};
        Overrides set;
        for (const auto& [path, value, where] : spec.set) {
            auto bad = [&, where = where](const std::string& msg) { return ScenarioError(file, where.line, where.key, msg); };
            v.set.emplace_back(apply_override(doc, path, value, bad), where);
            set.emplace_back(path, yaml::write_flow(value));
        }
        built.push_back(read(doc, std::move(v)));
        built.back().variant = spec.name;
        built.back().variant_set = std::move(set);
    }
    return joined_variants(std::move(built));
}

PlatformSource read_platform_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ScenarioError(path, 0, "", "is a directory, not a platform file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ScenarioError(path, 0, "", std::string("cannot open the platform file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return {path, text.str()};
}

Scenario load_scenario(const std::string& path, const Overrides& overrides, const std::string& platform_file) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ScenarioError(path, 0, "", "is a directory, not a scenario file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ScenarioError(path, 0, "", std::string("cannot open the scenario file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    std::optional<PlatformSource> platform;
    if (!platform_file.empty()) platform = read_platform_file(platform_file);
    return parse_scenario(text.str(), path, overrides, platform);
}

void drop_expectations(Scenario& s) {
    s.expect.clear();
    s.cross_expect.clear();
    for (Scenario& v : s.variants) drop_expectations(v);
}

}  // namespace gpuvp
