// A scenario with `variants:` (A/B runs): each variant in a child process of its own, their
// results joined into one results.json, the comparisons across variants checked, and a table
// that sets the variants side by side. Also what `--out DIR` holds, for any run.
#include "sc_main/record/problems.h"
#include "sc_main/report/report.h"
#include "sc_main/run/jobs.h"
#include "sc_main/run/run.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpuvp {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return bool(f.flush());
}

std::string cell(const json& v) {
    if (!v.is_number()) return "-";
    const double d = v.get<double>();
    char b[32];
    // Fractions (a utilization) keep three decimals; times and counts one.
    std::snprintf(b, sizeof b, std::fabs(d) < 10 && d != std::floor(d) ? "%.3f" : "%.1f", d);
    return b;
}

std::string factor_text(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", f);
    return b;
}

std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

// The variants side by side: a row per number that tells them apart, a column per variant,
// each value with its ratio to the first variant's.
std::string comparison_table(const std::vector<std::string>& names, const std::vector<RunRecord>& results) {
    std::vector<std::pair<std::string, std::vector<json>>> rows;
    // `optional`: left out when every variant has the same value. A variant that could not run
    // has no values.
    auto row = [&](const std::string& label, const std::function<json(const RunRecord&)>& get, bool optional = false) {
        std::vector<json> values;
        bool any = false;
        for (const RunRecord& r : results) {
            const json v = r.unfinished ? json(nullptr) : get(r);
            any |= v.is_number();
            values.push_back(v);
        }
        bool differ = false;
        for (const json& v : values) differ |= v != values.front();
        if (any && (differ || !optional)) rows.emplace_back(label, values);
    };
    row("sim_end_ns", [](const RunRecord& r) { return json(r.sim_end_ns); });
    const RunRecord& first = results.front();
    size_t shown = 0;
    for (const KernelRecord& k : first.kernels) {
        if (++shown > 8) break;
        const std::string name = k.name;
        if (k.instances) {  // the instances' spread, not instance 0's figures
            struct Pick {
                const char* metric;
                Spread3 InstancesSummary::*figure;
                Omit<double> Spread3::*stat;
            };
            for (const Pick& m : {Pick{"response_p50", &InstancesSummary::response_ns, &Spread3::p50},
                                  Pick{"response_p99", &InstancesSummary::response_ns, &Spread3::p99},
                                  Pick{"turnaround_p50", &InstancesSummary::turnaround_ns, &Spread3::p50},
                                  Pick{"turnaround_p99", &InstancesSummary::turnaround_ns, &Spread3::p99}})
                row(name + ".instance_" + m.metric + "_ns", [&](const RunRecord& r) {
                    for (const KernelRecord& x : r.kernels)
                        if (x.name == name && x.instances)
                            if (const Omit<double>& v = (*x.instances).*m.figure.*m.stat) return json(*v);
                    return json(nullptr);
                });
            continue;
        }
        for (const char* m : {"response_ns", "turnaround_ns"})
            row(name + "." + m, [&](const RunRecord& r) {
                for (const KernelRecord& x : r.kernels)
                    if (x.name == name) return fields::to_json(std::string(m) == "response_ns" ? x.response_ns : x.turnaround_ns);
                return json(nullptr);
            });
    }
    for (const auto& [p, v] : first.locks.by_priority)
        row("priority " + p + " lock wait mean ns",
            [p = p](const RunRecord& r) {
                for (const auto& [q, x] : r.locks.by_priority)
                    if (q == p) return json(x.wait_ns.mean);
                return json(nullptr);
            },
            true);
    row("scalar allocation_stalls", [](const RunRecord& r) { return json(r.scalar.allocation_stalls); }, true);
    if (!first.unfinished && !first.usa.draws.empty()) {
        row("usa utilization", [](const RunRecord& r) { return json(r.usa.utilization); });
        row("last draw complete_ns", [](const RunRecord& r) {
            return r.usa.draws.empty() ? json(nullptr) : fields::to_json(r.usa.draws.back().complete_ns);
        });
    }
    size_t label_w = 10, col_w = 12;
    for (const auto& [label, values] : rows) label_w = std::max(label_w, label.size());
    for (const auto& n : names) col_w = std::max(col_w, n.size() + 2);
    col_w = std::max<size_t>(col_w, 20);
    std::ostringstream t;
    t << "Variants side by side (simulated ns; in brackets: against " << names.front() << ")\n";
    t << "  " << std::string(label_w, ' ');
    for (const auto& n : names) t << pad(n, col_w);
    t << "\n";
    for (const auto& [label, values] : rows) {
        t << "  " << label << std::string(label_w - label.size(), ' ');
        for (size_t i = 0; i < values.size(); ++i) {
            std::string c = cell(values[i]);
            if (i > 0 && values[i].is_number() && values[0].is_number() && values[0].get<double>() != 0) {
                char b[32];
                std::snprintf(b, sizeof b, " (%.2fx)", values[i].get<double>() / values[0].get<double>());
                c += b;
            }
            t << pad(c, col_w);
        }
        t << "\n";
    }
    return t.str();
}

}  // namespace

namespace {

// A variant's results as its child wrote them; a child that died before it wrote them: an
// unfinished record that says so.
RunRecord read_variant(const Scenario& v, const std::string& dir, int code, bool& read) {
    read = false;
    try {  // (another process's file: read as any results.json is)
        RunRecord r = read_results(json::parse(slurp(dir + "/results.json")));
        read = true;
        return r;
    } catch (...) {
        RunRecord r;
        r.scenario = v.name;
        r.variant = VariantTag{v.variant, Named<std::string>(v.variant_set.begin(), v.variant_set.end())};
        r.status = "error";
        r.unfinished = true;
        r.exit_code = code;
        return r;
    }
}

// The comparisons across variants, each checked on the variants' results; `cross` gets a line
// each for the table.
std::vector<ExpectationRecord> cross_expectations(const Scenario& s, const std::vector<std::string>& names,
                                                  const std::vector<RunRecord>& results, std::ostringstream& cross) {
    auto index_of = [&](const std::string& name) {
        return size_t(std::find(names.begin(), names.end(), name) - names.begin());
    };
    std::vector<ExpectationRecord> out;
    for (const Expectation& e : s.cross_expect) {
        const json a = results_value(results[index_of(e.lhs.variant)], e.lhs);
        const json b = results_value(results[index_of(e.rhs.variant)], e.rhs);
        ExpectationRecord x;
        x.compare = e.compare;
        x.variants = std::vector<std::string>{e.lhs.variant, e.rhs.variant};
        x.value = json::array({a, b});
        x.passed = compare_holds(e, a, b);
        x.line = e.line;
        cross << "  " << (x.passed ? "pass" : "FAIL") << "  " << e.compare << "   (" << cell(a) << " against "
              << (e.factor == 1 ? "" : factor_text(e.factor) + " * ") << cell(b) << ")\n";
        out.push_back(std::move(x));
    }
    return out;
}

// results.json's record: the first variant's, with every variant's, every expectation (each
// variant's, then the comparisons) and the run's status.
std::shared_ptr<RunRecord> joined_record(const Scenario& s, const std::vector<std::string>& names,
                                         const std::vector<RunRecord>& results, const std::vector<int>& codes,
                                         std::vector<ExpectationRecord> cross, bool& ok, bool& passed) {
    auto all = std::make_shared<RunRecord>(results.front());
    ok = passed = true;
    std::vector<ExpectationRecord> expectations;
    std::vector<VariantEntry> variants;
    for (size_t i = 0; i < results.size(); ++i) {
        ok &= results[i].status == "ok";
        for (ExpectationRecord e : results[i].expectations) {
            passed &= e.passed;
            e.variant = names[i];
            expectations.push_back(std::move(e));
        }
        variants.push_back({names[i], Named<std::string>(s.variants[i].variant_set.begin(), s.variants[i].variant_set.end()),
                            codes[i], results[i]});
    }
    for (ExpectationRecord& x : cross) {
        passed &= x.passed;
        expectations.push_back(std::move(x));
    }
    const bool timed_out = std::find(codes.begin(), codes.end(), 3) != codes.end();
    all->status = timed_out ? "partial" : ok ? "ok" : "error";
    all->expectations = std::move(expectations);
    all->variants = std::move(variants);
    return all;
}

}  // namespace

RunOutput run_variants(const Scenario& s, const RunOptions& options, unsigned parallel) {
    if (s.variants.empty()) return run_scenario(s, options);
    const auto started = std::chrono::steady_clock::now();
    char tmpl[] = "/tmp/gpuvp-variants-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("cannot make a temporary folder");
    const std::string tmp = tmpl;
    std::vector<BatchJob> jobs;
    for (size_t i = 0; i < s.variants.size(); ++i) {
        const std::string dir = tmp + "/" + std::to_string(i);
        fs::create_directories(dir);
        jobs.push_back({&s.variants[i], dir, options.trace, false, true, options.trace_limit, options.trace_detail,
                        options.check_protocol, options.timeout_seconds});
    }
    size_t ended = 0;
    const std::vector<int> codes = run_batch(jobs, parallel, [&](size_t i, int code) {
        if (options.progress)
            std::fprintf(stderr, "  variant %s done (%zu/%zu)%s\n", s.variants[i].variant.c_str(), ++ended, jobs.size(),
                         code == 0 ? "" : code == 1 ? ": failed" : code == 3 ? ": stopped at --timeout" : ": error");
    });

    RunOutput out;
    std::vector<RunRecord> results;
    std::vector<std::string> names;
    std::ostringstream table;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const Scenario& v = s.variants[i];
        names.push_back(v.variant);
        bool read = false;
        RunRecord r = read_variant(v, jobs[i].dir, codes[i], read);
        // A child that failed (2, or killed) may have left a trace half written: none then.
        out.variants.push_back({v.variant, results_text(r), read ? std::make_shared<const RunRecord>(r) : nullptr,
                                codes[i] <= 1 || codes[i] == 3 ? slurp(jobs[i].dir + "/trace.json") : "",
                                nullptr});  // (the report reads the text: another process's file)
        if (codes[i] == 2 || codes[i] >= 128)
            std::fprintf(stderr, "gpuvp: %s: variant %s %s\n", s.file.c_str(), v.variant.c_str(),
                         codes[i] >= 128 ? ("was killed by signal " + std::to_string(codes[i] - 128)).c_str()
                                         : "could not run (exit 2)");
        table << "== variant " << v.variant;
        for (size_t k = 0; k < v.variant_set.size(); ++k)
            table << (k ? ", " : ": ") << v.variant_set[k].first << "=" << v.variant_set[k].second;
        table << "\n" << slurp(jobs[i].dir + "/table.txt");
        results.push_back(std::move(r));
    }
    std::error_code ec;
    fs::remove_all(tmp, ec);

    std::ostringstream cross;
    bool ok = true, passed = true;
    const std::shared_ptr<RunRecord> all =
        joined_record(s, names, results, codes, cross_expectations(s, names, results, cross), ok, passed);
    all->host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    out.results = results_text(*all);
    out.trace = out.variants.front().trace;
    out.ok = ok;
    out.expectations_passed = passed;
    // 0, 1 an expectation (or a kernel) failed, 3 a variant stopped at its timeout, 2 a variant
    // could not run or was killed (which wins).
    out.timed_out = std::find(codes.begin(), codes.end(), 3) != codes.end();
    out.exit_code = passed ? 0 : 1;
    for (int c : codes) out.exit_code = worse_exit(out.exit_code, c);
    out.host_seconds = *all->host_seconds;
    out.sim_end_ns = all->unfinished ? 0.0 : all->sim_end_ns;
    out.record = all;
    table << comparison_table(names, results);
    if (!s.cross_expect.empty()) table << "Comparisons across variants\n" << cross.str();
    out.table = table.str();
    return out;
}

bool write_run_output(const std::string& dir, const RunOutput& o, bool report, std::string* error,
                      std::vector<std::string>* written, const std::function<void(const std::string&)>& writing) {
    auto fail = [&](const std::string& what) {
        if (error) *error = "cannot write " + what;
        return false;
    };
    auto write = [&](const std::string& name, const std::string& text) {
        if (writing) writing(name);
        if (!write_text(dir + "/" + name, text)) return false;
        if (written) written->push_back(name);
        return true;
    };
    std::error_code ec;
    fs::create_directories(dir, ec);
    // What an earlier run left must not stand in for this one's.
    fs::remove(dir + "/trace.json", ec);
    fs::remove(dir + "/report.html", ec);
    for (const VariantOutput& v : o.variants) fs::remove_all(dir + "/variants/" + v.name, ec);
    if (!write("results.json", o.results)) return fail(dir + "/results.json");
    if (!o.trace.empty() && !write("trace.json", o.trace)) return fail(dir + "/trace.json");
    for (const VariantOutput& v : o.variants) {
        const std::string vd = "variants/" + v.name;
        fs::create_directories(dir + "/" + vd, ec);
        if (!write(vd + "/results.json", v.results)) return fail(dir + "/" + vd + "/results.json");
        if (!v.trace.empty() && !write(vd + "/trace.json", v.trace)) return fail(dir + "/" + vd + "/trace.json");
    }
    if (!report) return true;
    if (writing) writing("report.html");
    if (!o.record) {  // (a hand-made output: from the files)
        if (!write_report(dir, error)) return false;
        if (written) written->push_back("report.html");
        return true;
    }
    // The page from what those files were written from: each variant's trace record, or the text
    // its child process wrote; without variants the run's own.
    std::vector<ReportTrace> traces;
    if (!o.record->variants || o.record->variants->empty()) traces.push_back({o.trace_record.get(), &o.trace});
    else
        for (const VariantEntry& e : *o.record->variants) {
            ReportTrace t;
            for (const VariantOutput& v : o.variants)
                if (v.name == e.name) {
                    t = {v.trace_record.get(), &v.trace};
                    break;
                }
            traces.push_back(t);
        }
    if (!write_report(dir, *o.record, traces, error)) return false;
    if (written) written->push_back("report.html");
    return true;
}

}  // namespace gpuvp
