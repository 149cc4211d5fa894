#include "sc_main/replay/calibrate.h"
#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/glc/glc_config.h>
#include "sc_main/record/replay_metrics.h"
#include "sc_main/record/run_record.h"
#include "sc_main/run/jobs.h"
#include "sc_main/scenario/trace_scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace gpuvp {

const std::vector<CalibrationParam>& calibration_params() {
    static const std::vector<CalibrationParam> params{
        {"host.api_overhead_ns", 0, 20000, "the runtime's work in a launch call before the packet is written", &Workload::api_overhead_ns},
        {"host.launch_tail_ns", 0, 20000, "the part of a launch call from its packets' writes to its return", &Workload::launch_tail_ns},
        {"host.store_ns", 0, 1000, "one store of the host CPU (kernel arguments, signal, packet)", &Workload::store_ns},
        {"platform.cp.wakeup_cycles", 0, 4000, "the CP's firmware waking to a doorbell"},
        {"platform.cp.decode_cycles", 0, 4000, "the CP decoding and checking a packet"},
        {"platform.cp.completion_cycles", 0, 4000, "a kernel's end to its completion signal's write"},
        {"platform.cp.fence_release_system_cycles", 0, 4000, "a kernel's system-scope release fence at its completion"},
        {"platform.wlm.setup_cycles", 0, 4000, "the WLM's set-up of a kernel"},
        {"platform.memory.link_latency_ns", 100, 2000, "the host link, both ways (the doorbell, the packet's read)"},
    };
    return params;
}

namespace {

namespace fs = std::filesystem;

// The calibration replays every launch with each kernel folded into one wave of blocks, busy
// as long as all its waves and the placements of the rest were: the front end sees the same
// kernels at the same times, the SMs run far fewer blocks.
void fold_to_one_wave(Scenario& s) {
    for (KernelSpec& k : s.workload.kernels) {
        if (!k.measured) continue;
        const uint64_t threads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
        const uint64_t per_sm = std::max<uint64_t>(1, blocks_per_sm(s.platform.sm, threads, k.vregs, k.shared_bytes));
        const uint64_t per_wave = per_sm * s.platform.sms;
        const uint64_t blocks = block_count(k);
        if (blocks <= per_wave) continue;
        const uint64_t waves = (blocks + per_wave - 1) / per_wave;
        const uint64_t cycles = program_cycles(k.program);
        // The placements of the blocks folded away are part of the kernel's time too (the GLC
        // places them per_sm at a time): the body keeps them.
        k.program = duration_program(cycles * waves + placement_cycles(s.platform.glc, blocks, per_sm) -
                                     placement_cycles(s.platform.glc, per_wave, per_sm));
        k.grid = {uint32_t(per_wave * k.block[0]), k.block[1], k.block[2]};
    }
}

// Per kernel (by index), whether it is among the launches `which` names.
bool in_set(const std::string& which, size_t i) {
    if (which == "fit") return i % 2 == 0;
    if (which == "held out") return i % 2 == 1;
    return true;
}

// The paired errors of the launches in `which`: the median of |simulated - measured|.
std::optional<double> paired_median(const std::vector<std::optional<double>>& errors, const std::string& which) {
    std::vector<double> v;
    for (size_t i = 0; i < errors.size(); ++i)
        if (in_set(which, i) && errors[i]) v.push_back(*errors[i]);
    return paired_error(v).median_abs;
}

FitFigures figures(const std::vector<KernelTimes>& side, const std::string& which) {
    FitFigures f;
    std::vector<double> gaps, idles;
    const auto gap = same_stream_gap_of(side);
    const auto idle = idle_launch_latency_of(side);
    for (size_t i = 0; i < side.size(); ++i) {
        if (!in_set(which, i)) continue;
        if (gap[i]) gaps.push_back(*gap[i]);
        if (idle[i]) idles.push_back(*idle[i]);
    }
    const Distribution g = distribution(gaps), d = distribution(idles);
    f.gap_median = g.median;
    f.idle_median = d.median;
    f.gaps = g.count;
    f.idles = d.count;
    return f;
}

// The simulated side's figures, with their paired errors against the measured side.
FitFigures simulated_figures(const ReplaySides& sides, const std::string& which) {
    FitFigures f = figures(sides.simulated, which);
    f.gap_error = paired_median(same_stream_gap_errors(sides), which);
    f.idle_error = paired_median(idle_launch_latency_errors(sides), which);
    return f;
}

// The fit's objective (ns): over the fit launches, the median of |simulated - measured| of the
// same-stream gap, launch by launch, plus that of the idle launch latency: the same launches on
// both sides, not two medians of whichever launches each side happens to count. A figure the
// measured side has for launches that did not run in the model counts 1 ms.
double objective(const ReplaySides& sides) {
    const FitFigures m = figures(sides.measured, "fit"), s = simulated_figures(sides, "fit");
    auto off = [](const std::optional<double>& measured, const std::optional<double>& error) {
        if (!measured) return 0.0;
        return error ? *error : 1e6;
    };
    return off(m.gap_median, s.gap_error) + off(m.idle_median, s.idle_error);
}

std::string value_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

// Keys and values as a platform file: `platform:` and `host:` maps, in flow style
// ("platform.cp.wakeup_cycles" -> platform: {cp: {wakeup_cycles: 600}}).
std::string platform_text(const std::vector<std::pair<std::string, double>>& values) {
    std::map<std::string, std::map<std::string, std::vector<std::pair<std::string, double>>>> tree;
    for (const auto& [key, value] : values) {
        const size_t a = key.find('.'), b = key.find('.', a + 1);
        if (b == std::string::npos) tree[key.substr(0, a)][""].emplace_back(key.substr(a + 1), value);
        else tree[key.substr(0, a)][key.substr(a + 1, b - a - 1)].emplace_back(key.substr(b + 1), value);
    }
    std::string y;
    for (const auto& [top, groups] : tree) {
        y += top + ":\n";
        for (const auto& [group, items] : groups) {
            if (group.empty()) {
                for (const auto& [name, value] : items) y += "  " + name + ": " + value_text(value) + "\n";
                continue;
            }
            std::string list;
            for (const auto& [name, value] : items) list += (list.empty() ? "" : ", ") + name + ": " + value_text(value);
            y += "  " + group + ": {" + list + "}\n";
        }
    }
    return y;
}

std::string platform_text(const std::vector<CalibrationParam>& params, const std::vector<double>& values) {
    std::vector<std::pair<std::string, double>> v;
    for (size_t i = 0; i < params.size(); ++i) v.emplace_back(params[i].key, values[i]);
    return platform_text(v);
}

}  // namespace

DispatchBound dispatch_bound(const Scenario& s, const std::string& trace) {
    DispatchBound b;
    const double ghz = s.platform.clock_mhz / 1000;
    for (const KernelSpec& k : s.workload.kernels) {
        if (!k.measured) continue;
        const uint64_t threads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
        const uint64_t per_sm = std::max<uint64_t>(1, blocks_per_sm(s.platform.sm, threads, k.vregs, k.shared_bytes));
        const uint64_t blocks = block_count(k), placements = (blocks + per_sm - 1) / per_sm;
        if (placements < 2) continue;
        const double duration = double(k.measured->end_ns - k.measured->start_ns);
        const double cycles = (duration * ghz - double(blocks) * s.platform.glc.descriptor_cycles) / double(placements);
        if (!b.cycles || cycles < *b.cycles) b = {cycles, trace, k.name, placements, duration};
    }
    return b;
}

namespace {

// One calibration: the traces, where their simulations run, and the steps of the fit.
class Calibration {
public:
    Calibration(const std::vector<ProfilerTrace>& traces, const Overrides& overrides, const CalibrationOptions& options)
        : traces_(traces), overrides_(overrides), options_(options), params_(calibration_params()),
          dir_(options.work_dir.empty() ? (fs::temp_directory_path() / ("gpuvp-calibrate-" + std::to_string(getpid()))).string()
                                        : options.work_dir) {
        fs::create_directories(dir_);
        as_given_.platform = options.platform;  // the defaults, on that GPU
    }
    ~Calibration() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    // The values the first trace's scenario has before the fit.
    std::vector<double> defaults(const Scenario& base) const {
        std::vector<double> out;
        for (const CalibrationParam& p : params_) {
            if (p.host) out.push_back(base.workload.*p.host);
            else out.push_back(std::stod(get_param(GpuConfig{base.platform, base.policy, {}}, p.key.substr(9))));  // "platform."
        }
        return out;
    }

    // A sixth of the budget: values drawn at random in the ranges (seeded). The rest: a pattern
    // search from the best so far, each parameter in turn a step either side (the two at once),
    // the step halved when neither side is better, until every step is below 1 or the budget is
    // spent. The best values found; `result` gets the evaluations and the errors.
    std::vector<double> search(const std::vector<double>& defaults, CalibrationResult& result) {
        best_ = defaults;
        consider({defaults}, result);
        const unsigned budget = std::max(1u, options_.evaluations);
        std::mt19937_64 rng(options_.seed);
        const unsigned batch = std::max(1u, options_.jobs);
        while (result.evaluations < budget / 6) {
            std::vector<std::vector<double>> sets;
            for (unsigned i = 0; i < batch && result.evaluations + sets.size() < budget / 6; ++i) {
                std::vector<double> v;
                for (const CalibrationParam& p : params_)
                    v.push_back(std::round(std::uniform_real_distribution<double>(p.lo, p.hi)(rng)));
                sets.push_back(v);
            }
            consider(sets, result);
        }
        std::vector<double> step;
        for (const CalibrationParam& p : params_) step.push_back((p.hi - p.lo) / 4);
        for (size_t p = 0; result.evaluations < budget; p = (p + 1) % params_.size()) {
            if (std::all_of(step.begin(), step.end(), [](double s) { return s < 1; })) break;
            if (step[p] < 1) continue;
            std::vector<std::vector<double>> sets;
            for (double sign : {-1.0, 1.0}) {
                std::vector<double> v = best_;
                v[p] = std::clamp(std::round(best_[p] + sign * step[p]), params_[p].lo, params_[p].hi);
                if (v[p] != best_[p]) sets.push_back(v);
            }
            if (sets.size() > budget - result.evaluations) sets.resize(budget - result.evaluations);
            const double before = best_error_;
            if (!sets.empty()) consider(sets, result);
            if (best_error_ >= before) step[p] /= 2;
        }
        result.error_after = best_error_;
        for (size_t p = 0; p < params_.size(); ++p) result.values.emplace_back(params_[p].key, best_[p]);
        return best_;
    }

    // The GLC's cost of a placement: the default unless the traces' durations bound it lower;
    // then the fitted platform and its dispatch-bound kernels (the formula's floor).
    void decision_cost(const Scenario& base, CalibrationResult& result) const {
        result.decision_cycles = base.platform.glc.decision_cycles;
        for (size_t t = 0; t < traces_.size(); ++t) {
            const DispatchBound b =
                dispatch_bound(t == 0 ? base : load_trace_scenario(traces_[t], as_given_, overrides_), traces_[t].file);
            if (b.cycles && (!result.bound.cycles || *b.cycles < *result.bound.cycles)) result.bound = b;
        }
        if (result.bound.cycles && *result.bound.cycles < result.decision_cycles) {
            result.decision_cycles = std::max(0.0, std::floor(*result.bound.cycles));
            result.values.emplace_back("platform.glc.decision_cycles", result.decision_cycles);
        }
        result.platform_text = fitted(platform_text(result.values)).text;
        for (const ProfilerTrace& t : traces_) {
            TraceImportOptions import;
            import.platform = fitted(platform_text(result.values));
            TraceImportSummary sum;
            load_trace_scenario(t, import, overrides_, &sum);
            result.kernels += sum.kernels;
            result.dispatch_bound_kernels += sum.dispatch_bound;
        }
    }

    // The table: the first trace's fit and held-out launches, every other trace whole, each with
    // the defaults and the fitted values.
    void table(const std::vector<double>& defaults, const std::vector<double>& best, CalibrationResult& result) {
        for (size_t t = 0; t < traces_.size(); ++t) {
            const auto sides = simulate(t, {defaults, best});
            for (const char* which : t == 0 ? std::vector<const char*>{"fit", "held out"} : std::vector<const char*>{"all"}) {
                CalibrationRow row;
                row.trace = traces_[t].file;
                row.launches = which;
                row.measured = figures(sides[0].measured, which);
                row.before = simulated_figures(sides[0], which);
                row.after = simulated_figures(sides[1], which);
                result.rows.push_back(row);
            }
        }
    }

    const TraceImportOptions& as_given() const { return as_given_; }

private:
    // A trace's import on the fitted values (as a platform file: the kernels' bodies are computed
    // on the fitted platform), over the GPU --platform or --preset names.
    PlatformSource fitted(const std::string& text) const {
        const PlatformSource values{"(calibration)", text};
        return options_.platform ? layer_platforms(*options_.platform, values) : values;
    }

    // One simulation per set of values (a process each), `jobs` at a time: each trace's
    // simulated side.
    std::vector<ReplaySides> simulate(size_t trace, const std::vector<std::vector<double>>& sets) {
        std::vector<Scenario> scenarios;
        for (const auto& values : sets) {
            TraceImportOptions import;
            import.platform = fitted(platform_text(params_, values));
            Scenario s = load_trace_scenario(traces_[trace], import, overrides_);
            fold_to_one_wave(s);
            scenarios.push_back(std::move(s));
        }
        std::vector<BatchJob> jobs;
        std::vector<std::string> dirs;
        for (const Scenario& s : scenarios) {
            dirs.push_back(dir_ + "/run-" + std::to_string(run_++));
            fs::create_directories(dirs.back());
            BatchJob j;
            j.scenario = &s;
            j.dir = dirs.back();
            jobs.push_back(j);
        }
        const std::vector<int> codes = run_batch(jobs, options_.jobs);
        std::vector<ReplaySides> sides;
        for (size_t i = 0; i < jobs.size(); ++i) {
            std::ifstream f(dirs[i] + "/results.json", std::ios::binary);
            if (!f || codes[i] > 1)
                throw std::runtime_error("the replay of " + traces_[trace].file + " did not run (exit " + std::to_string(codes[i]) + ")");
            std::stringstream text;
            text << f.rdbuf();
            sides.push_back(replay_sides(read_results(fields::json::parse(text.str())).kernels));
            fs::remove_all(dirs[i]);
        }
        return sides;
    }

    // The first trace simulated on each set: the best so far kept.
    void consider(const std::vector<std::vector<double>>& sets, CalibrationResult& result) {
        const auto sides = simulate(0, sets);
        for (size_t i = 0; i < sets.size(); ++i) {
            const double e = objective(sides[i]);
            if (result.evaluations == 0) best_error_ = result.error_before = e;
            if (e < best_error_) {
                best_error_ = e;
                best_ = sets[i];
            }
            ++result.evaluations;
            if (options_.progress) options_.progress(result.evaluations, best_error_);
        }
    }

    const std::vector<ProfilerTrace>& traces_;
    const Overrides& overrides_;
    const CalibrationOptions& options_;
    const std::vector<CalibrationParam>& params_;
    const std::string dir_;
    TraceImportOptions as_given_;
    unsigned run_ = 0;
    std::vector<double> best_;
    double best_error_ = 0;
};

}  // namespace

CalibrationResult calibrate(const std::vector<ProfilerTrace>& traces, const Overrides& overrides,
                            const CalibrationOptions& options) {
    if (traces.empty()) throw std::runtime_error("no trace to calibrate on");
    Calibration c(traces, overrides, options);
    const Scenario base = load_trace_scenario(traces[0], c.as_given(), overrides);
    const std::vector<double> defaults = c.defaults(base);
    CalibrationResult result;
    const std::vector<double> best = c.search(defaults, result);
    c.decision_cost(base, result);
    c.table(defaults, best, result);
    return result;
}

std::vector<std::string> calibration_warnings(const CalibrationResult& result) {
    std::vector<std::string> out;
    for (const auto& [key, value] : result.values)
        for (const CalibrationParam& p : calibration_params()) {
            if (p.key != key || (value != p.lo && value != p.hi)) continue;
            const bool top = value == p.hi;
            out.push_back(key + " = " + value_text(value) + " is at the " + (top ? "top" : "bottom") + " of its range (" +
                          value_text(p.lo) + ".." + value_text(p.hi) + "): " +
                          (top ? "the traces spend more time there than the range allows, or a cost the model does not "
                                 "have shows up as this one"
                               : "the traces leave no time for it beside the model's other costs, or another latency is "
                                 "fitted too high") +
                          "; read the fit with that in mind, and compare the held-out launches");
        }
    return out;
}

std::string calibration_yaml(const CalibrationResult& r, const std::vector<std::string>& trace_files) {
    std::ostringstream y;
    y << "# gpuvp calibrate";
    for (const std::string& f : trace_files) y << " " << f;
    y << "\n# fitted on the even launches of the first trace, " << r.evaluations << " evaluations; objective "
      << value_text(r.error_before) << " ns before, " << value_text(r.error_after) << " ns after (docs/replay.md)\n";
    y << r.platform_text;
    return y.str();
}

std::string calibration_table(const CalibrationResult& r) {
    std::ostringstream t;
    char line[512];
    auto ns = [](const std::optional<double>& v) -> std::string {
        if (!v) return "-";
        char b[32];
        std::snprintf(b, sizeof b, "%.0f", *v);
        return b;
    };
    auto err = [&](const std::optional<double>& s, const std::optional<double>& m) -> std::string {
        if (!s || !m) return "-";
        char b[32];
        std::snprintf(b, sizeof b, "%+.0f", *s - *m);
        return b;
    };
    t << "fitted values:\n";
    for (const auto& [key, value] : r.values) t << "  " << key << " = " << value_text(value) << "\n";
    t << "the GLC's cost of a placement: glc.decision_cycles = " << value_text(r.decision_cycles);
    if (r.bound.cycles) {
        char b[64];
        std::snprintf(b, sizeof b, "%.1f", *r.bound.cycles);
        t << (r.decision_cycles < *r.bound.cycles ? " (the default; " : " (fitted to ") << "the traces bound it at " << b
          << " cycles or fewer: " << r.bound.kernel << " of " << r.bound.trace.substr(r.bound.trace.find_last_of('/') + 1)
          << ", " << r.bound.placements << " placements in " << value_text(std::round(r.bound.duration_ns)) << " ns)";
    } else {
        t << " (the default; no kernel of the traces needs two placements: no bound)";
    }
    t << "; kernels measured shorter than their placements at that cost (dispatch-bound): " << r.dispatch_bound_kernels
      << " of " << r.kernels << "\n";
    t << "objective (ns, median |simulated - measured| per launch of the gap + of the idle latency, fit launches): "
      << value_text(r.error_before) << " before, " << value_text(r.error_after) << " after, " << r.evaluations
      << " evaluations\n\n";
    // One row: the columns' texts, then the measured sample count.
    auto row_line = [&](const std::string& trace, const std::string& launches, const char* figure, const std::string& m,
                        const std::string& before, const std::string& after, const std::string& err_before,
                        const std::string& err_after, const std::string& n) {
        std::snprintf(line, sizeof line, "%-40s %-9s %-22s %8s %8s %8s %8s %8s %6s\n", trace.c_str(), launches.c_str(), figure,
                      m.c_str(), before.c_str(), after.c_str(), err_before.c_str(), err_after.c_str(), n.c_str());
        t << line;
    };
    row_line("trace", "launches", "figure (ns)", "measured", "before", "after", "err bef", "err aft", "n");
    for (const CalibrationRow& row : r.rows) {
        const std::string name = row.trace.substr(row.trace.find_last_of('/') + 1);
        const std::string gaps = std::to_string(row.measured.gaps), idles = std::to_string(row.measured.idles);
        row_line(name, row.launches, "same-stream gap median", ns(row.measured.gap_median), ns(row.before.gap_median),
                 ns(row.after.gap_median), err(row.before.gap_median, row.measured.gap_median),
                 err(row.after.gap_median, row.measured.gap_median), gaps);
        row_line("", "", "idle launch median", ns(row.measured.idle_median), ns(row.before.idle_median),
                 ns(row.after.idle_median), err(row.before.idle_median, row.measured.idle_median),
                 err(row.after.idle_median, row.measured.idle_median), idles);
        // Launch by launch: the median |simulated - measured| of each figure (no measured column).
        row_line("", "", "gap |error|, paired", "-", ns(row.before.gap_error), ns(row.after.gap_error), "-", "-", gaps);
        row_line("", "", "idle |error|, paired", "-", ns(row.before.idle_error), ns(row.after.idle_error), "-", "-", idles);
    }
    return t.str();
}

}  // namespace gpuvp
