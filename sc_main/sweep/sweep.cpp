#include "sc_main/sweep/sweep.h"
#include "sc_main/record/files.h"
#include "sc_main/record/problems.h"
#include "sc_main/report/report.h"
#include "sc_main/run/jobs.h"
#include "sc_main/sweep/tables.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace gpuvp {

std::vector<std::string> split_values(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    char quote = 0;  // inside '...' or "...": commas are part of the value
    for (char c : text) {
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
        }
        if (c == ',' && depth == 0 && !quote) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

namespace {

// A point's overrides: the fixed --sets, then its value on each axis.
Overrides point_overrides(const Overrides& fixed, const std::vector<SweepAxis>& axes, const std::vector<std::string>& point) {
    Overrides o = fixed;
    for (size_t a = 0; a < axes.size(); ++a) o.emplace_back(axes[a].key, point[a]);
    return o;
}

}  // namespace

void sweep_axes(const Overrides& sets, Overrides& fixed, std::vector<SweepAxis>& axes) {
    for (const auto& [key, value] : sets) {
        std::vector<std::string> values = split_values(value);
        if (values.size() > 1) axes.push_back({key, values});
        else fixed.emplace_back(key, value);
    }
}

size_t check_sweep(const std::string& file, const Overrides& fixed, const std::vector<SweepAxis>& axes,
                   const std::string& platform_file) {
    const std::vector<std::vector<std::string>> points = sweep_points(axes);
    for (const auto& p : points) {
        load_scenario(file, point_overrides(fixed, axes, p), platform_file);
    }
    return points.size();
}

int print_sweep(const SweepOutput& s, const std::string& file, const std::string& out_dir, bool quiet) {
    if (!quiet) {
        std::cout << s.table;
        std::cout << s.points << (s.points == 1 ? " point" : " points") << (s.joined ? ": " : " of this slice: ")
                  << s.points - s.failed_points << " passed, " << s.failed_points << " failed\n";
        if (!out_dir.empty() && s.joined)
            std::cout << "wrote " << out_dir << "/sweep.csv" << (s.locks_csv.empty() ? "" : ", locks.csv")
                      << (s.draws_csv.empty() ? "" : ", draws.csv") << ", report.html\n";
        else if (!out_dir.empty())
            std::cout << "wrote the slice's points to " << out_dir
                      << "/point-N/; the same command with --resume and without --shard writes sweep.csv and report.html "
                         "once every slice has run\n";
    }
    if (s.failed_points)  // what failed, on stderr, --quiet or not
        std::cerr << "gpuvp: " << file << ": " << s.failed_points << " of " << s.points << " points failed\n";
    for (const std::string& line : s.failures) std::cerr << "gpuvp: " << file << ": " << line << "\n";
    return s.exit_code;
}

std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes) {
    std::vector<std::vector<std::string>> points{{}};
    for (const SweepAxis& a : axes) {
        std::vector<std::vector<std::string>> next;
        for (const auto& p : points)
            for (const std::string& v : a.values) {
                next.push_back(p);
                next.back().push_back(v);
            }
        points = std::move(next);
    }
    return points;
}

namespace {

// "key=value key=value": where a point is.
std::string point_where(const std::vector<SweepAxis>& axes, const std::vector<std::string>& point) {
    std::string where;
    for (size_t a = 0; a < axes.size(); ++a) where += (a ? " " : "") + axes[a].key + "=" + point[a];
    return where;
}

// The record a point's run wrote in `dir` (none: it did not run, or did not finish).
std::optional<RunRecord> read_point(const std::string& dir) {
    std::string text;
    if (!read_file(dir + "/results.json", text)) return std::nullopt;
    try {  // (another process's file: read as any results.json is)
        return read_results(fields::json::parse(text));
    } catch (...) {
        return std::nullopt;
    }
}

// What failed at a point that exited with `code` (nothing for a point that passed: failures its
// scenario expects); `missing`: why collect found no result.
std::vector<std::string> point_problems(int code, const std::optional<RunRecord>& record, const std::string& missing,
                                        double timeout_seconds) {
    std::vector<std::string> problems;
    if (code == 0) return problems;
    if (record) problems = run_problems(*record).lines();
    if (code == 3) problems.insert(problems.begin(), "timed out (--timeout " + format_number(timeout_seconds) + " s)");
    if (!missing.empty()) problems.insert(problems.begin(), missing);
    if (problems.empty())
        problems.push_back(code >= 128 ? "the run was killed by signal " + std::to_string(code - 128)
                                       : "the run failed (exit " + std::to_string(code) + ")");
    return problems;
}

// Of `mine`, the points to run: those without an exit code from an earlier call (resume and
// collect take the code: `codes`); collect runs none (`missing` says why a point has no result).
std::vector<size_t> points_to_run(const std::vector<size_t>& mine, const SweepOptions& options, bool temporary,
                                  const std::function<std::string(size_t)>& point_dir, std::vector<int>& codes,
                                  std::vector<std::string>& missing) {
    std::vector<size_t> run;
    for (size_t i : mine) {
        if ((options.resume || options.missing) && !temporary) {
            std::ifstream f(point_dir(i) + "/exit_code");
            int code = 0;
            if (f >> code) {
                codes[i] = code;
                continue;
            }
        }
        if (options.missing) {
            missing[i] = options.missing(i);
            continue;
        }
        run.push_back(i);
    }
    return run;
}

// sweep.csv, locks.csv and draws.csv (where the sweep has locks or draws) and the page.
void write_sweep_files(const std::string& dir, const SweepOutput& out, const std::string& page) {
    std::ofstream(dir + "/sweep.csv", std::ios::binary) << out.csv;
    if (!out.locks_csv.empty()) std::ofstream(dir + "/locks.csv", std::ios::binary) << out.locks_csv;
    if (!out.draws_csv.empty()) std::ofstream(dir + "/draws.csv", std::ios::binary) << out.draws_csv;
    std::ofstream(dir + "/report.html", std::ios::binary) << page;
}

}  // namespace

SweepOutput run_sweep(const std::string& file, const Overrides& fixed, const std::vector<SweepAxis>& axes,
                      const SweepOptions& options) {
    const std::vector<std::vector<std::string>> points = sweep_points(axes);
    const std::string platform = shared_copy(options.root, options.platform_file);
    // Point i's scenario, loaded (and so checked) on first use.
    std::vector<std::optional<Scenario>> scenarios(points.size());
    auto scenario = [&](size_t i) -> const Scenario& {
        if (!scenarios[i]) {
            scenarios[i] = load_scenario(shared_copy(options.root, file),
                                         point_overrides(fixed, axes, points[i]), platform);
            scenarios[i]->file = file;
            if (options.no_expect) drop_expectations(*scenarios[i]);
        }
        return *scenarios[i];
    };

    std::string dir = options.out_dir;
    char tmpl[] = "/tmp/gpuvp-sweep-XXXXXX";
    const bool temporary = dir.empty();
    if (temporary) {
        if (!mkdtemp(tmpl)) throw std::runtime_error("cannot make a temporary folder");
        dir = tmpl;
    }
    auto point_dir = [&](size_t i) { return dir + "/point-" + std::to_string(i); };

    // This call's points (a shard's), and of those the ones that ended before (resumed).
    SweepOutput out;
    out.joined = options.shards <= 1;
    std::vector<size_t> mine;
    for (size_t i = 0; i < points.size(); ++i)
        if (i % options.shards == options.shard - 1) mine.push_back(i);
    std::vector<int> codes(points.size(), 2);
    std::vector<std::string> missing(points.size());  // why a point has no result (collect)
    const std::vector<size_t> job_point = points_to_run(mine, options, temporary, point_dir, codes, missing);
    std::vector<BatchJob> jobs;
    // The points to run, every one loaded (and so checked: bad input throws) before any runs; a
    // slice loads its own points only.
    try {
        for (size_t i : job_point) scenario(i);
    } catch (...) {
        if (temporary) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
        throw;
    }
    for (size_t i : job_point) {
        mkdir(point_dir(i).c_str(), 0755);
        jobs.push_back({&*scenarios[i], point_dir(i), options.trace, false, false});
        jobs.back().timeout_seconds = options.timeout_seconds;
    }
    size_t ended = 0, failing = 0;
    const auto started = std::chrono::steady_clock::now();
    run_batch(jobs, options.jobs, [&](size_t j, int code) {
        const size_t i = job_point[j];
        codes[i] = code;
        // The point's exit code beside its results, written last: a point with one has ended.
        if (!temporary) write_file_atomically(point_dir(i) + "/exit_code", std::to_string(code) + "\n");
        ++ended;
        failing += code != 0;
        if (!options.progress) return;
        std::fprintf(stderr, "%s  %s %s\n",
                     batch_progress(ended, jobs.size(), failing, options.jobs,
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count())
                         .c_str(),
                     point_where(axes, points[i]).c_str(), code == 0 ? "pass" : code == 1 ? "FAIL" : code == 3 ? "timed out" : "error");
    });

    // The CSVs and the table, in point order, from each point's record (a failing one's, and
    // with an out dir every one's, kept for report.html), and what failed at each point.
    SweepTables tables(axes);
    out.points = mine.size();
    std::vector<std::optional<RunRecord>> records(points.size());
    std::vector<std::vector<std::string>> problems_at(points.size());
    for (size_t i : mine) {
        out.exit_code = worse_exit(out.exit_code, codes[i]);  // the worst point's
        std::optional<RunRecord> record = read_point(point_dir(i));
        const std::vector<std::string>& problems = problems_at[i] =
            point_problems(codes[i], record, missing[i], options.timeout_seconds);
        if (codes[i] != 0) {
            for (const std::string& p : problems) out.failures.push_back(point_where(axes, points[i]) + ": " + p);
            ++out.failed_points;
        }
        tables.add(points[i], record ? &*record : nullptr, codes[i], problems);
        if (codes[i] != 0 || !temporary) records[i] = std::move(record);
    }
    out.csv = tables.kernels_csv();
    out.locks_csv = tables.locks_csv();
    out.draws_csv = tables.draws_csv();
    out.table = tables.table();
    if (!temporary && out.joined) {
        std::vector<SweepPoint> report_points;
        for (size_t i = 0; i < points.size(); ++i)
            report_points.push_back({points[i], codes[i], problems_at[i], records[i] ? &*records[i] : nullptr});
        write_sweep_files(dir, out, render_sweep_report(scenario(0).name, file, axes, report_points));
    } else if (temporary) {
        std::error_code ec;  // a point of a scenario with variants also wrote variants/
        std::filesystem::remove_all(dir, ec);
    }
    return out;
}

}  // namespace gpuvp
