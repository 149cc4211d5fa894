// A scenario: the platform, the policies, the work and what to expect. Loaded from YAML
// (the only place in the project that reads YAML is sc_main/scenario/scenario.cpp).
#pragma once
#include <gpuvp/platform/system_config.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp {

// One side of a comparison: a kernel's or a draw's metric, or a path into results.json.
struct ExpectOperand {
    std::string variant;       // with `variants:`, "fifo:hi.response_ns": the variant whose results it reads
    std::string kernel, draw;  // with `metric`
    std::string metric;
    std::string path;          // or this: `usa.utilization`, `sms.0.busy_fraction`
    std::string text;          // as written
};

struct Expectation {
    std::string variant;              // with `variants:`: checked in this variant only; empty: in each
    std::string kernel;               // a kernel's metric; empty: a metric of the whole run
    std::string draw;                 // or a draw's metric (M4)
    std::optional<uint32_t> priority; // or a lock metric of the warps with this priority (M2)
    std::string metric;               // a metric's name, or a path into results.json (with a '.')
    std::optional<double> min, max;
    // Or a comparison, `compare: "A OP [F *] B"` with OP one of < <= > >=.
    std::string compare;
    ExpectOperand lhs, rhs;
    std::string op;
    double factor = 1;
    int line = 0;
};

// `--set KEY=VALUE` overrides, applied to the YAML before it is checked.
using Overrides = std::vector<std::pair<std::string, std::string>>;

// The overrides of `--set` words "KEY=VALUE", in order (a word without '=': KEY, empty VALUE).
Overrides overrides_of(const std::vector<std::string>& sets);

// `--platform FILE`: a platform map in a file of its own (the keys of a scenario's `platform:`,
// `preset` included; or the whole file `platform: {...}`), laid over the scenario's
// `platform:` before the --set overrides. Its preset replaces the scenario's, and with the
// preset's values those of the scenario's own keys (docs/presets.md, "Precedence").
struct PlatformSource {
    std::string file;  // its path, as errors name it
    std::string text;  // its YAML
};

// The platform, policies and workload are the SystemConfig it builds a System from.
struct Scenario : SystemConfig {
    std::string name;
    std::string file;
    std::string preset;  // `platform.preset`, the platform preset its values started from; empty: none
    std::vector<Expectation> expect;
    double max_sim_ns = 1e9;  // a run that has not finished by then stops with an error
    bool measure_alone = false;  // also run every kernel alone, for its slowdown

    // `variants:`: the same scenario run several ways (A/B), each a full scenario of its own.
    std::string variant;                    // the variant this is; empty: the file as written
    Overrides variant_set;                  // its `set:` overrides, as written
    std::vector<Scenario> variants;         // every variant in file order; this scenario is the first
    std::vector<Expectation> cross_expect;  // comparisons across variants ("fifo:x < 2 * prio:x")
};

// Bad input: names the file, the line and the key. Exit code 2.
class ScenarioError : public std::runtime_error {
public:
    ScenarioError(const std::string& file, int line, const std::string& key, const std::string& msg)
        : std::runtime_error(format(file, line, key, msg)), file_(file), line_(line), key_(key) {}
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& key() const { return key_; }

private:
    static std::string format(const std::string& f, int l, const std::string& k, const std::string& m) {
        std::string s = f;
        if (l > 0) s += ":" + std::to_string(l);
        s += ": ";
        if (!k.empty()) s += k + ": ";
        return s + m;
    }
    std::string file_;
    int line_;
    std::string key_;
};


// Reads and checks a scenario file, with its platform laid over by `platform_file` (a path;
// empty: none) and then the overrides. Throws ScenarioError on any bad input: in the platform
// file, one naming that file, the line and the key.
Scenario load_scenario(const std::string& path, const Overrides& overrides = {}, const std::string& platform_file = {});
// The same from YAML text (`file` names it in errors).
Scenario parse_scenario(const std::string& yaml_text, const std::string& file, const Overrides& overrides = {},
                        const std::optional<PlatformSource>& platform = std::nullopt);
// The scenario without its expectations (`--no-expect`): its `expect:` entries, its variants'
// and the comparisons across variants.
void drop_expectations(Scenario& s);
// A platform file's text (for parse_scenario); a ScenarioError naming it if it cannot be read.
PlatformSource read_platform_file(const std::string& path);
// One platform file of two: `over`'s keys (and preset) laid over `under`'s, as each is laid
// over a scenario (what `gpuvp calibrate` fits, over the GPU --platform or --preset names).
// Throws ScenarioError naming the file in error.
PlatformSource layer_platforms(const PlatformSource& under, const PlatformSource& over);

// The metrics an `expect` entry may name: of one kernel (with `kernel:`), or of the whole run.
const std::vector<std::string>& kernel_metrics();
const std::vector<std::string>& scenario_metrics();
const std::vector<std::string>& priority_metrics();  // with `priority:` (M2)
const std::vector<std::string>& draw_metrics();      // with `draw:` (M4)
// The sections of results.json a metric path may start with.
const std::vector<std::string>& results_sections();

}  // namespace gpuvp
