#include "sc_main/sweep/sweep.h"
#include "sc_main/batch/batch.h"
#include "sc_main/record/problems.h"
#include "sc_main/report/report.h"

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

std::string number(const fields::json& v) {
    if (!v.is_number()) return "";
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v.get<double>());
    return b;
}

}  // namespace

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
    std::vector<BatchJob> jobs;
    std::vector<size_t> job_point;
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
        job_point.push_back(i);
    }
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
        std::string where;
        for (size_t a = 0; a < axes.size(); ++a) where += (a ? " " : "") + axes[a].key + "=" + points[i][a];
        std::fprintf(stderr, "%s  %s %s\n",
                     batch_progress(ended, jobs.size(), failing, options.jobs,
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count())
                         .c_str(),
                     where.c_str(), code == 0 ? "pass" : code == 1 ? "FAIL" : code == 3 ? "timed out" : "error");
    });

    // The CSV and the table, in point order.
    std::ostringstream csv, table, locks, lock_table;
    for (const SweepAxis& a : axes) locks << csv_field(a.key) << ",";
    locks << "priority,warps,acquisitions,wait_mean_ns,wait_max_ns,task_end_mean_ns,task_end_max_ns,sync_failures,"
             "forced_releases,hold_limit_releases,retakes,redone_instructions\n";
    for (const SweepAxis& a : axes) lock_table << a.key << "  ";
    lock_table << "| warp priority | lock wait mean / max ns | task end mean / max ns | sync failures | forced releases | "
                  "hold-limit releases | redone instructions\n";
    bool any_locks = false;
    std::ostringstream draws, draw_table;  // M4
    for (const SweepAxis& a : axes) draws << csv_field(a.key) << ",";
    draws << "draw,status,arrived_ns,first_task_ns,vertex_done_ns,end_ns,complete_ns,turnaround_ns,"
             "usa_reassignments,usa_utilization,usa_vertex_cores,usa_pixel_cores,exit_code\n";
    for (const SweepAxis& a : axes) draw_table << a.key << "  ";
    draw_table << "| draw | end ns | turnaround ns | array: reassignments | utilization | final split V/P\n";
    bool any_draws = false;
    for (const SweepAxis& a : axes) csv << csv_field(a.key) << ",";
    csv << "kernel,status,dispatch_latency_ns,launch_latency_ns,response_ns,turnaround_ns,exit_code\n";
    for (const SweepAxis& a : axes) table << a.key << "  ";
    table << "| kernel | dispatch ns | launch ns | response ns | turnaround ns | status\n";
    bool any_kernel_rows = false;  // a draw-only sweep prints no empty kernel table
    out.points = mine.size();
    // Each point's record (a failing one's, and with an out dir every one's, for report.html)
    // and what failed at it.
    std::vector<std::optional<RunRecord>> records(points.size());
    std::vector<std::vector<std::string>> point_problems(points.size());
    for (size_t i : mine) {
        out.exit_code = worse_exit(out.exit_code, codes[i]);  // the worst point's
        std::ifstream f(point_dir(i) + "/results.json");
        std::stringstream text;
        text << f.rdbuf();
        fields::json r;  // (another process's file: parsed once, read as any results.json is)
        try {
            r = fields::json::parse(text.str());
        } catch (...) {
            r = fields::json::object();
        }
        if (codes[i] != 0 || !temporary) {
            try {
                records[i] = read_results(r);
            } catch (...) {  // no results: it did not run
            }
        }
        // What failed at this point (nothing for a point that passed: failures its scenario expects).
        std::vector<std::string>& problems = point_problems[i];
        if (codes[i] != 0) {
            if (records[i]) problems = run_problems(*records[i]).lines();
            if (codes[i] == 3) problems.insert(problems.begin(), "timed out (--timeout " + format_number(options.timeout_seconds) + " s)");
            if (!missing[i].empty()) problems.insert(problems.begin(), missing[i]);
            if (problems.empty())
                problems.push_back(codes[i] >= 128 ? "the run was killed by signal " + std::to_string(codes[i] - 128)
                                                   : "the run failed (exit " + std::to_string(codes[i]) + ")");
            std::string where;
            for (size_t a = 0; a < axes.size(); ++a) where += (a ? " " : "") + axes[a].key + "=" + points[i][a];
            for (const std::string& p : problems) out.failures.push_back(where + ": " + p);
            ++out.failed_points;
        }
        // A row's status: the kernel's, or FAIL and why when the point failed.
        auto status = [&](const std::string& own) {
            if (codes[i] == 0) return own;
            return "FAIL: " + (own != "ok" ? own : problems.front());
        };
        std::string axis_values;
        for (const std::string& v : points[i]) axis_values += csv_field(v) + ",";
        if (!r.contains("kernels")) {
            csv << axis_values << ",did not run,,,,," << codes[i] << "\n";
            for (const std::string& v : points[i]) table << v << "  ";
            table << "| - | did not run (exit " << codes[i] << ")\n";
            any_kernel_rows = true;
            continue;
        }
        // M2: one row per warp priority that took locks.
        if (r.contains("locks") && r["locks"].contains("by_priority"))
            for (const auto& [prio, p] : r["locks"]["by_priority"].items()) {
                any_locks = true;
                locks << axis_values << prio << "," << p["warps"] << "," << p["acquisitions"] << ","
                      << number(p["wait_ns"]["mean"]) << "," << number(p["wait_ns"]["max"]) << ","
                      << number(p["task_end_ns"]["mean"]) << "," << number(p["task_end_ns"]["max"]) << ","
                      << p["sync_failures"] << "," << p["forced_releases"] << "," << p["hold_limit_releases"] << ","
                      << p["retakes"] << "," << p["redone_instructions"] << "\n";
                for (const std::string& v : points[i]) lock_table << v << "  ";
                lock_table << "| " << prio << " | " << number(p["wait_ns"]["mean"]) << " / " << number(p["wait_ns"]["max"])
                           << " | " << number(p["task_end_ns"]["mean"]) << " / " << number(p["task_end_ns"]["max"])
                           << " | " << p["sync_failures"] << " | " << p["forced_releases"] << " | "
                           << p["hold_limit_releases"] << " | " << p["redone_instructions"] << "\n";
            }
        if (r.contains("usa") && r["usa"].contains("draws"))
            for (const auto& d : r["usa"]["draws"]) {
                any_draws = true;
                const auto& u = r["usa"];
                draws << axis_values << csv_field(d["name"]) << "," << csv_field(d["status"]) << ","
                      << number(d["arrived_ns"]) << "," << number(d["first_task_ns"]) << "," << number(d["vertex_done_ns"])
                      << "," << number(d["end_ns"]) << "," << number(d["complete_ns"]) << ","
                      << number(d["turnaround_ns"]) << "," << u["reassignments"] << "," << number(u["utilization"]) << ","
                      << u["cores"]["vertex"] << "," << u["cores"]["pixel"] << "," << codes[i] << "\n";
                for (const std::string& v : points[i]) draw_table << v << "  ";
                draw_table << "| " << d["name"].get<std::string>() << " | " << number(d["end_ns"]) << " | "
                           << number(d["turnaround_ns"]) << " | " << u["reassignments"] << " | "
                           << number(u["utilization"]) << " | " << u["cores"]["vertex"] << "/" << u["cores"]["pixel"]
                           << "\n";
            }
        for (const auto& k : r["kernels"]) {
            any_kernel_rows = true;
            csv << axis_values << csv_field(k["name"]) << "," << csv_field(k["status"]) << ","
                << number(k["dispatch_latency_ns"]) << "," << number(k["launch_latency_ns"]) << ","
                << number(k["response_ns"]) << "," << number(k["turnaround_ns"]) << "," << codes[i] << "\n";
            for (const std::string& v : points[i]) table << v << "  ";
            table << "| " << k["name"].get<std::string>() << " | " << number(k["dispatch_latency_ns"]) << " | "
                  << number(k["launch_latency_ns"]) << " | " << number(k["response_ns"]) << " | "
                  << number(k["turnaround_ns"]) << " | " << status(k["status"].get<std::string>()) << "\n";
        }
    }
    out.csv = csv.str();
    out.table = any_kernel_rows || !any_draws ? table.str() : "";
    if (any_locks) {
        out.locks_csv = locks.str();
        out.table += "\nLocks (M2), per warp priority:\n" + lock_table.str();
    }
    if (any_draws) {
        out.draws_csv = draws.str();
        out.table += std::string(out.table.empty() ? "" : "\n") + "Draws (M4), with the shading array's totals:\n" +
                     draw_table.str();
    }
    if (!temporary && out.joined) {
        std::ofstream(dir + "/sweep.csv", std::ios::binary) << out.csv;
        if (any_locks) std::ofstream(dir + "/locks.csv", std::ios::binary) << out.locks_csv;
        if (any_draws) std::ofstream(dir + "/draws.csv", std::ios::binary) << out.draws_csv;
        // The page: each metric against each axis, and the table, from the records read above.
        std::vector<SweepReportPoint> report_points;
        for (size_t i = 0; i < points.size(); ++i)
            report_points.push_back({points[i], codes[i], point_problems[i], records[i] ? &*records[i] : nullptr});
        std::ofstream(dir + "/report.html", std::ios::binary)
            << render_sweep_report(scenario(0).name, file, axes, report_points);
    } else if (temporary) {
        std::error_code ec;  // a point of a scenario with variants also wrote variants/
        std::filesystem::remove_all(dir, ec);
    }
    return out;
}

}  // namespace gpuvp
