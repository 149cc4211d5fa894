// gpuvp sweep --slurm, gpuvp regress --slurm and gpuvp collect: cluster.h.
#include "sc_main/cluster/cluster.h"
#include <gpuvp/platform/gpu_config.h>
#include "sc_main/batch/batch.h"
#include "sc_main/record/files.h"
#include "sc_main/record/problems.h"
#include "sc_main/sweep/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace gpuvp {

namespace fs = std::filesystem;

std::string this_program() {
    char b[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", b, sizeof b - 1);
    return n > 0 ? std::string(b, size_t(n)) : "gpuvp";
}

namespace {

std::string input_dir(const SlurmBatch& b) { return slurm_dir(b.dir) + "/input"; }

// A new batch of `items` in `out_dir`, as the options ask.
SlurmBatch new_batch(const std::string& kind, const std::string& out_dir, const SlurmOptions& o, size_t items) {
    SlurmBatch b;
    b.kind = kind;
    b.dir = fs::absolute(out_dir).lexically_normal().string();
    while (b.dir.size() > 1 && b.dir.back() == '/') b.dir.pop_back();
    b.gpuvp = o.gpuvp.empty() ? this_program() : fs::absolute(o.gpuvp).lexically_normal().string();
    for (const std::string& opt : o.sbatch) {
        std::istringstream w(opt);
        for (std::string word; w >> word;) b.sbatch.push_back(word);
    }
    const size_t chunk = o.chunk ? o.chunk : std::max<size_t>(1, (items + 999) / 1000);
    b.items = items;
    b.shards = unsigned(std::max<size_t>(1, (items + chunk - 1) / chunk));
    return b;
}

// Whether item i (a point, a case) has its result in the shared directory.
bool item_done(const SlurmBatch& b, size_t i) {
    std::error_code ec;
    if (b.kind == "sweep") return fs::exists(b.dir + "/point-" + std::to_string(i) + "/exit_code", ec);
    return fs::exists(slurm_dir(b.dir) + "/shard-" + std::to_string(task_of(b, i) + 1) + ".xml", ec);
}

const char* items_noun(const SlurmBatch& b) { return b.kind == "sweep" ? "points" : "scenarios"; }

size_t done_count(const SlurmBatch& b) {
    size_t n = 0;
    for (size_t i = 0; i < b.items; ++i) n += item_done(b, i);
    return n;
}

// The tasks with an item that has no result, and that are not queued or running now.
std::vector<unsigned> tasks_to_run(const SlurmBatch& b, const std::map<unsigned, TaskState>& states) {
    std::vector<bool> need(b.shards, false);
    for (size_t i = 0; i < b.items; ++i)
        if (!item_done(b, i)) need[task_of(b, i)] = true;
    std::vector<unsigned> tasks;
    for (unsigned t = 0; t < b.shards; ++t) {
        const auto it = states.find(t);
        if (need[t] && (it == states.end() || !state_active(it->second.state))) tasks.push_back(t);
    }
    return tasks;
}

// Splits a CSV line at the commas outside quotes (quotes kept off, "" read as ").
std::vector<std::string> csv_cells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cells.back() += '"';
            ++i;
        } else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            cells.emplace_back();
        else
            cells.back() += c;
    }
    return cells;
}

// The outputs a local run writes, from the shared directory: the sweep's CSVs and report (its
// points' folders are already there), or the regression's JUnit and CSV joined from its slices.
// Items without a result are named, with what became of their task.
int join(const SlurmBatch& b, const std::string& shown_dir, bool quiet) {
    const std::map<unsigned, TaskState> states = task_states(b);
    if (b.kind == "sweep") {
        Overrides fixed;
        std::vector<SweepAxis> axes;
        sweep_axes(overrides_of(b.lists.at("sets")), fixed, axes);
        SweepOptions o;
        o.out_dir = b.dir;
        o.root = input_dir(b);
        o.platform_file = b.text.at("platform");
        o.timeout_seconds = b.timeout_seconds;
        o.trace = b.flag;
        o.missing = [&](size_t i) { return missing_reason(b, states, task_of(b, i)); };
        const SweepOutput s = run_sweep(b.text.at("file"), fixed, axes, o);
        return print_sweep(s, b.text.at("file"), shown_dir, quiet);
    }
    // regress: each slice's JUnit and CSV, joined as `gpuvp merge` joins them
    std::vector<NamedText> xml, csv;
    std::vector<bool> have(b.shards, false);
    for (unsigned t = 0; t < b.shards; ++t) {
        const std::string base = slurm_dir(b.dir) + "/shard-" + std::to_string(t + 1);
        NamedText x{base + ".xml", ""}, c{base + ".csv", ""};
        if (!read_file(x.name, x.text) || !read_file(c.name, c.text)) continue;
        have[t] = true;
        xml.push_back(std::move(x));
        csv.push_back(std::move(c));
    }
    int exit_code = 0;
    size_t cases = 0, passed = 0;
    std::vector<std::string> problems;
    if (!csv.empty()) {
        const std::string joined_csv = merge_csv(csv), joined_xml = merge_junit(xml);
        const std::string& junit = b.text.at("junit");
        const std::string& csv_out = b.text.at("csv");
        if (!junit.empty() && !write_file_atomically(junit, joined_xml)) throw SlurmError("cannot write " + junit);
        if (!csv_out.empty() && !write_file_atomically(csv_out, joined_csv)) throw SlurmError("cannot write " + csv_out);
        std::istringstream lines(joined_csv);
        std::string line;
        std::getline(lines, line);  // the header
        while (std::getline(lines, line)) {
            const std::vector<std::string> c = csv_cells(line);
            if (c.size() < 3) continue;
            ++cases;
            const std::string& status = c[2];
            if (status == "pass") {
                ++passed;
                continue;
            }
            exit_code = worse_exit(exit_code, status == "fail" ? 1 : status == "timeout" ? 3 : 2);
            problems.push_back(c[0] + ": " + status);
        }
    }
    // The cases of the slices without a result.
    const std::vector<std::string> files = regress_files(b.lists.at("paths"), input_dir(b));
    for (size_t i = 0; i < files.size(); ++i)
        if (!have[task_of(b, i)]) {
            ++cases;
            exit_code = worse_exit(exit_code, 2);
            problems.push_back(files[i] + ": " + missing_reason(b, states, task_of(b, i)));
        }
    if (!quiet) {
        std::cout << cases << (cases == 1 ? " scenario: " : " scenarios: ") << passed << " passed, " << cases - passed
                  << " did not\n";
        std::string wrote;
        for (const char* k : {"junit", "csv"})
            if (!b.text.at(k).empty() && !csv.empty()) wrote += (wrote.empty() ? "" : ", ") + b.text.at(k);
        if (!wrote.empty()) std::cout << "wrote " << wrote << "\n";
    }
    for (const std::string& p : problems) std::cerr << "gpuvp: " << p << "\n";
    return exit_code;
}

// Submits what the batch still needs (all of it when new), then waits and joins, or returns.
int go(SlurmBatch b, const std::vector<std::string>& inputs, const SlurmOptions& o, const std::string& shown_dir,
       bool quiet) {
    SlurmBatch old;
    if (read_batch(b.dir, old)) {
        if (old.kind != b.kind || old.task != b.task || old.items != b.items)
            throw SlurmError(shown_dir + " holds another batch (" + slurm_dir(shown_dir) +
                                     "/batch.json): give this one another --out");
        b = old;  // the same batch, interrupted: on from where it is
        std::cerr << "gpuvp: " << shown_dir << " holds this batch already: " << done_count(b) << " of " << b.items
                  << " have their result; the rest runs\n";
    } else {
        copy_inputs(b, inputs);
        write_batch(b);
    }
    const std::vector<unsigned> tasks = tasks_to_run(b, task_states(b));
    if (!tasks.empty()) {
        const std::string id = submit_tasks(b, tasks);
        std::cerr << "gpuvp: submitted job " << id << ": " << tasks.size() << " array task" << (tasks.size() == 1 ? "" : "s")
                  << " of " << b.items << " " << items_noun(b) << " (logs: "
                  << slurm_dir(shown_dir) << "/logs/)\n";
    }
    if (!o.wait) {
        std::cerr << "gpuvp: 'gpuvp collect " << shown_dir << "' joins the outputs once the tasks have run\n";
        return 0;
    }
    std::cerr << "gpuvp: waiting for the tasks (Ctrl-C leaves them running: 'gpuvp collect " << shown_dir
              << "' joins them later)\n";
    std::string error;
    if (!wait_tasks(b, [&] { return done_count(b); }, o.progress, error)) {
        std::cerr << "gpuvp: squeue: " << error << "; the tasks go on: 'gpuvp collect " << shown_dir
                  << "' joins them once they have run\n";
        return 2;
    }
    return join(b, shown_dir, quiet);
}

}  // namespace

int sweep_on_slurm(const SweepRequest& r, const SlurmOptions& o) {
    if (r.out_dir.empty()) throw SlurmError("--slurm needs --out DIR: a directory every node mounts at the same path");
    Overrides fixed;
    std::vector<SweepAxis> axes;
    sweep_axes(overrides_of(r.sets), fixed, axes);
    const size_t points = check_sweep(r.file, fixed, axes, r.platform);  // (bad input throws, before anything is submitted)
    SlurmBatch b = new_batch("sweep", r.out_dir, o, points);
    b.task = {"sweep", r.file, "--root", input_dir(b)};
    for (const std::string& s : r.sets) b.task.insert(b.task.end(), {"--set", s});
    if (!r.platform.empty()) b.task.insert(b.task.end(), {"--platform", r.platform});
    if (r.timeout_seconds > 0) b.task.insert(b.task.end(), {"--timeout", format_number(r.timeout_seconds)});
    if (r.trace) b.task.push_back("--trace");
    if (r.no_expect) b.task.push_back("--no-expect");
    b.task.insert(b.task.end(), {"--out", b.dir, "--resume", "--quiet", "-j", "1"});
    b.text = {{"file", r.file}, {"platform", r.platform}};
    b.lists = {{"sets", r.sets}};
    b.timeout_seconds = r.timeout_seconds;
    b.flag = r.trace;
    std::vector<std::string> inputs{r.file};
    if (!r.platform.empty()) inputs.push_back(r.platform);
    return go(b, inputs, o, r.out_dir, r.quiet);
}

int regress_on_slurm(const RegressRequest& r, const SlurmOptions& o) {
    if (r.out_dir.empty()) throw SlurmError("--slurm needs --out DIR: a directory every node mounts at the same path");
    const std::vector<std::string> files = regress_files(r.paths);
    if (files.empty()) throw SlurmError("no scenario file under the paths given");
    SlurmBatch b = new_batch("regress", r.out_dir, o, files.size());
    b.task = {"regress"};
    b.task.insert(b.task.end(), r.paths.begin(), r.paths.end());
    b.task.insert(b.task.end(), {"--root", input_dir(b), "--out", b.dir, "--quiet", "-j", "1"});
    if (r.timeout_seconds > 0) b.task.insert(b.task.end(), {"--timeout", format_number(r.timeout_seconds)});
    if (r.check_protocol) b.task.push_back("--check-protocol");
    auto absolute = [](const std::string& p) { return p.empty() ? p : fs::absolute(p).lexically_normal().string(); };
    b.text = {{"junit", absolute(r.junit)}, {"csv", absolute(r.csv)}};
    b.lists = {{"paths", r.paths}};
    b.timeout_seconds = r.timeout_seconds;
    b.flag = r.check_protocol;
    return go(b, files, o, r.out_dir, r.quiet);
}

int collect(const std::string& dir, bool resubmit, bool wait, bool progress, bool quiet) {
    SlurmBatch b;
    if (!read_batch(dir, b))
        throw SlurmError(dir + " holds no Slurm batch (" + slurm_dir(dir) +
                                 "/batch.json): collect joins the --out of 'gpuvp sweep --slurm' or 'gpuvp regress --slurm'");
    const std::map<unsigned, TaskState> states = task_states(b);
    size_t active = 0;
    for (const auto& [t, s] : states) active += state_active(s.state);
    if (!wait) {
        std::cout << done_count(b) << " of " << b.items << " " << items_noun(b)
                  << " have their result; " << active << " of " << b.shards << " array tasks queued or running\n";
        if (active > 0) return 0;
    }
    std::string error;
    if (active > 0 && !wait_tasks(b, [&] { return done_count(b); }, progress, error)) {
        std::cerr << "gpuvp: squeue: " << error << "\n";
        return 2;
    }
    if (resubmit) {
        const std::vector<unsigned> tasks = tasks_to_run(b, task_states(b));
        if (!tasks.empty()) {
            const std::string id = submit_tasks(b, tasks);
            std::cerr << "gpuvp: submitted job " << id << ": the " << tasks.size() << " array task"
                      << (tasks.size() == 1 ? "" : "s") << " that left no result\n";
            if (!wait_tasks(b, [&] { return done_count(b); }, progress, error)) {
                std::cerr << "gpuvp: squeue: " << error << "\n";
                return 2;
            }
        }
    }
    return join(b, dir, quiet);
}

}  // namespace gpuvp
