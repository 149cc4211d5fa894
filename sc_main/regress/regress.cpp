#include "sc_main/regress/regress.h"
#include "sc_main/record/files.h"
#include "sc_main/record/problems.h"
#include "sc_main/run/jobs.h"
#include "sc_main/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gpuvp {

namespace fs = std::filesystem;

std::vector<std::string> regress_files(const std::vector<std::string>& paths, const std::string& root) {
    std::vector<std::string> files;
    std::set<std::string> seen;
    auto add = [&](const std::string& f) {
        if (seen.insert(fs::weakly_canonical(f).string()).second) files.push_back(f);
    };
    for (const std::string& p : paths) {
        const std::string at = shared_copy(root, p);
        std::error_code ec;
        if (fs::is_directory(at, ec)) {
            std::vector<std::string> here;
            for (const auto& e : fs::directory_iterator(at, ec))
                if (e.is_regular_file() && e.path().extension() == ".yaml")
                    here.push_back((fs::path(p) / e.path().filename()).string());
            std::sort(here.begin(), here.end());
            for (const auto& f : here) add(f);
        } else if (fs::exists(at, ec)) {
            add(p);
        } else {
            throw std::runtime_error(p + ": no such file or folder");
        }
    }
    return files;
}

void parse_shard(const std::string& text, unsigned& shard, unsigned& shards) {
    const auto slash = text.find('/');
    auto number = [&](const std::string& s) -> unsigned long {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("--shard wants K/N with 1 <= K <= N, got '" + text + "'");
        return std::stoul(s);
    };
    if (slash == std::string::npos) number("");
    const unsigned long k = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
    if (k < 1 || k > n) throw std::invalid_argument("--shard wants K/N with 1 <= K <= N, got '" + text + "'");
    shard = unsigned(k);
    shards = unsigned(n);
}

namespace {

std::string fixed(double v, int decimals) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

std::string xml(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';  // not allowed in XML 1.0
            else o += c;
        }
    }
    return o;
}

std::string stem(const std::string& file) { return fs::path(file).stem().string(); }

}  // namespace

namespace {

// Each file's folder under --out: <stem>, or the first free <stem>-<n> when an earlier file of
// the whole list took that name (the same folder whichever slice runs the file).
std::vector<std::string> case_names(const std::vector<std::string>& all) {
    std::vector<std::string> names;
    std::set<std::string> taken;
    for (const auto& f : all) {
        std::string name = stem(f);
        for (int n = 1; taken.count(name); ++n) name = stem(f) + "-" + std::to_string(n);
        taken.insert(name);
        names.push_back(name);
    }
    return names;
}

// Each case's scenario, loaded; a file that does not load is an error case, named, not run.
std::vector<std::unique_ptr<Scenario>> load_cases(RegressOutput& out, const std::vector<std::string>& files,
                                                  const std::string& root) {
    out.cases.resize(files.size());
    std::vector<std::unique_ptr<Scenario>> scenarios(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        RegressCase& c = out.cases[i];
        c.file = files[i];
        try {
            scenarios[i] = std::make_unique<Scenario>(load_scenario(shared_copy(root, files[i])));
            scenarios[i]->file = files[i];
            c.name = scenarios[i]->name;
        } catch (const std::exception& e) {
            c.status = "error";
            c.problems.push_back(e.what());
        }
    }
    return scenarios;
}

// A case's outcome from its exit code and the results its run wrote in `dir`.
void read_case(RegressCase& c, int code, const std::string& dir, const RegressOptions& options) {
    c.exit_code = code;
    std::optional<RunRecord> r;  // (another process's file: read as any results.json is)
    std::ifstream f(dir + "/results.json");
    try {
        r = read_results(fields::json::parse(f));
    } catch (...) {  // none, or cut short: the run did not finish
    }
    if (r) {
        RunProblems p = run_problems(*r);
        c.problems = p.lines();
        c.expectations_passed = p.expectations_passed;
        c.expectations_failed = p.expectations_failed;
        c.sim_end_ns = r->sim_end_ns;
        c.host_seconds = r->host_seconds.value_or(0.0);
    }
    if (c.exit_code == 0) c.problems.clear();  // failures the scenario expects
    c.status = c.exit_code == 0 ? "pass" : c.exit_code == 1 ? "fail" : c.exit_code == 3 ? "timeout" : "error";
    if (c.exit_code == 3)
        c.problems.insert(c.problems.begin(), "timed out: stopped after " + format_number(options.timeout_seconds) +
                                                  " s of host time (--timeout); the results say what it reached");
    if (c.status == "error" && !r)
        c.problems.push_back(c.exit_code >= 128 ? "the run was killed by signal " + std::to_string(c.exit_code - 128)
                                                : "the run did not finish (exit " + std::to_string(c.exit_code) + ")");
}

// The table, the CSV, the JUnit XML and the exit code of the cases run (`of`: the whole list's size).
void summarise(RegressOutput& out, const RegressOptions& options, size_t of) {
    size_t width = 8;
    for (const auto& c : out.cases) width = std::max(width, c.file.size());
    std::ostringstream t, csv;
    t << "scenario" << std::string(width - 8, ' ') << "  status  expectations  simulated ns    host s\n";
    csv << "file,name,status,expectations_passed,expectations_failed,sim_end_ns,host_seconds,exit_code\n";
    int passed = 0, failed = 0, timeouts = 0, errors = 0;
    for (const auto& c : out.cases) {
        (c.status == "pass" ? passed : c.status == "fail" ? failed : c.status == "timeout" ? timeouts : errors)++;
        const std::string ex = std::to_string(c.expectations_passed) + "/" +
                               std::to_string(c.expectations_passed + c.expectations_failed);
        const std::string sim = c.status == "error" ? "-" : fixed(c.sim_end_ns, 1);
        const std::string host = c.status == "error" ? "-" : fixed(c.host_seconds, 3);
        t << c.file << std::string(width - c.file.size(), ' ') << "  " << c.status << std::string(8 - c.status.size(), ' ')
          << std::string(12 - std::min<size_t>(12, ex.size()), ' ') << ex << std::string(14 - std::min<size_t>(14, sim.size()), ' ')
          << sim << std::string(10 - std::min<size_t>(10, host.size()), ' ') << host << "\n";
        if (c.status != "pass") {  // a passing scenario's failed kernels were expected
            for (const auto& p : c.problems) {
                t << "    " << p << "\n";
                out.failures.push_back(c.file + ": " + c.status + ": " + p);
            }
            if (c.problems.empty()) out.failures.push_back(c.file + ": " + c.status + " (exit " + std::to_string(c.exit_code) + ")");
        }
        csv << csv_field(c.file) << "," << csv_field(c.name) << "," << c.status << "," << c.expectations_passed << ","
            << c.expectations_failed << "," << fixed(c.sim_end_ns, 3) << "," << fixed(c.host_seconds, 6) << ","
            << c.exit_code << "\n";
    }
    t << out.cases.size() << (out.cases.size() == 1 ? " scenario" : " scenarios");
    if (options.shards > 1) t << " (shard " << options.shard << " of " << options.shards << ", of " << of << ")";
    t << ": " << passed << " passed, " << failed << " failed, ";
    if (timeouts) t << timeouts << " timed out, ";
    t << errors << (errors == 1 ? " error\n" : " errors\n");
    out.table = t.str();
    out.csv = csv.str();
    out.junit = junit_xml(out.cases);
    out.exit_code = errors ? 2 : failed || timeouts ? 1 : 0;
}

}  // namespace

RegressOutput run_regress(const std::vector<std::string>& paths, const RegressOptions& options) {
    const std::vector<std::string> all = regress_files(paths, options.root), names = case_names(all);
    std::vector<std::string> files, file_names;  // this slice's
    for (size_t i = 0; i < all.size(); ++i)
        if (i % options.shards == options.shard - 1) {
            files.push_back(all[i]);
            file_names.push_back(names[i]);
        }
    RegressOutput out;
    const std::vector<std::unique_ptr<Scenario>> scenarios = load_cases(out, files, options.root);

    std::string dir = options.out_dir;
    char tmpl[] = "/tmp/gpuvp-regress-XXXXXX";
    const bool temporary = dir.empty();
    if (temporary && !mkdtemp(tmpl)) throw std::runtime_error("cannot make a temporary folder");
    if (temporary) dir = tmpl;
    std::vector<BatchJob> jobs;
    std::vector<size_t> job_case;
    for (size_t i = 0; i < files.size(); ++i) {
        if (!scenarios[i]) continue;
        const std::string case_dir = dir + "/" + file_names[i];
        std::error_code ec;
        fs::create_directories(case_dir, ec);
        // Stale files must not stand in for this run's.
        for (const char* f : {"/results.json", "/trace.json", "/report.html"}) fs::remove(case_dir + f, ec);
        if (!fs::is_directory(case_dir, ec)) {
            out.cases[i].status = "error";
            out.cases[i].problems.push_back("cannot make the folder " + case_dir);
            continue;
        }
        // A kept folder holds what `gpuvp run --out` writes; a temporary one only the results.
        BatchJob job{scenarios[i].get(), case_dir, !temporary, !temporary, false};
        job.check_protocol = options.check_protocol;
        job.timeout_seconds = options.timeout_seconds;
        jobs.push_back(job);
        job_case.push_back(i);
    }
    size_t ended = 0, failing = 0;
    const auto started = std::chrono::steady_clock::now();
    const std::vector<int> codes = run_batch(jobs, options.jobs, [&](size_t j, int code) {
        ++ended;
        failing += code != 0;
        if (options.progress)
            std::cerr << batch_progress(ended, jobs.size(), failing, options.jobs,
                                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count())
                      << "  " << files[job_case[j]] << " "
                      << (code == 0 ? "pass" : code == 1 ? "fail" : code == 3 ? "timeout" : "error") << std::endl;
    });
    for (size_t j = 0; j < jobs.size(); ++j) {
        read_case(out.cases[job_case[j]], codes[j], jobs[j].dir, options);
        if (temporary) {
            std::error_code ec;
            fs::remove_all(jobs[j].dir, ec);
        }
    }
    if (temporary) rmdir(dir.c_str());
    if (all.empty()) throw std::runtime_error("no scenario files (*.yaml) under the paths given");
    summarise(out, options, all.size());
    return out;
}

std::string junit_xml(const std::vector<RegressCase>& cases) {
    int failures = 0, errors = 0;
    double time = 0;
    std::ostringstream body;
    for (const auto& c : cases) {
        time += c.host_seconds;
        body << "    <testcase classname=\"gpuvp.scenarios\" name=\"" << xml(stem(c.file)) << "\" file=\"" << xml(c.file)
             << "\" time=\"" << fixed(c.host_seconds, 6) << "\"";
        if (c.status == "pass") {
            body << "/>\n";
            continue;
        }
        std::string lines;
        for (const auto& p : c.problems) lines += p + "\n";
        const bool error = c.status == "error";
        (error ? errors : failures)++;
        std::string message = error ? (c.problems.empty() ? "did not run" : c.problems.front())
                                    : std::to_string(c.expectations_failed) + " of " +
                                          std::to_string(c.expectations_passed + c.expectations_failed) +
                                          " expectations failed";
        if (!error && (c.expectations_failed == 0 || c.status == "timeout"))  // failed by a kernel or a draw no
            message = c.problems.empty() ? "failed" : c.problems.front();  // expectation allowed for, or timed out
        body << ">\n      <" << (error ? "error" : "failure") << " type=\"" << (error ? "error" : "failure")
             << "\" message=\"" << xml(message) << "\">" << xml(lines) << "</" << (error ? "error" : "failure")
             << ">\n    </testcase>\n";
    }
    std::ostringstream x;
    const std::string counts = "tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                               "\" errors=\"" + std::to_string(errors) + "\"";
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"gpuvp regress\" " << counts << " time=\"" << fixed(time, 6) << "\">\n";
    x << "  <testsuite name=\"gpuvp regress\" " << counts << " skipped=\"0\" time=\"" << fixed(time, 6) << "\">\n";
    x << body.str();
    x << "  </testsuite>\n</testsuites>\n";
    return x.str();
}

namespace {

std::string attribute(const std::string& tag, const std::string& name) {
    const std::string key = " " + name + "=\"";
    const auto a = tag.find(key);
    if (a == std::string::npos) return "";
    const auto b = tag.find('"', a + key.size());
    return b == std::string::npos ? "" : tag.substr(a + key.size(), b - a - key.size());
}

}  // namespace

std::string merge_junit(const std::vector<NamedText>& files) {
    struct Case {
        std::string file, text;
        double time;
        bool failure, error;
    };
    std::vector<Case> cases;
    for (const NamedText& f : files) {
        const std::string& s = f.text;
        if (s.find("<testsuites name=\"gpuvp regress\"") == std::string::npos || s.find("</testsuites>") == std::string::npos)
            throw std::invalid_argument(f.name + " is not a JUnit file of gpuvp regress");
        for (size_t at = s.find("<testcase "); at != std::string::npos; at = s.find("<testcase ", at + 1)) {
            const auto open_end = s.find('>', at);
            if (open_end == std::string::npos) throw std::invalid_argument(f.name + ": a testcase is cut short");
            size_t end = open_end + 1;
            if (s[open_end - 1] != '/') {
                const auto close = s.find("</testcase>", open_end);
                if (close == std::string::npos) throw std::invalid_argument(f.name + ": a testcase is not closed");
                end = close + std::string("</testcase>").size();
            }
            const std::string tag = s.substr(at, open_end + 1 - at);
            const std::string text = s.substr(at, end - at);
            cases.push_back({attribute(tag, "file"), text, std::atof(attribute(tag, "time").c_str()),
                             text.find("<failure") != std::string::npos, text.find("<error") != std::string::npos});
        }
    }
    std::stable_sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
    for (size_t i = 1; i < cases.size(); ++i)
        if (cases[i].file == cases[i - 1].file)
            throw std::invalid_argument("scenario " + cases[i].file + " is in two of the files (a shard given twice?)");
    int failures = 0, errors = 0;
    double time = 0;
    std::string body;
    for (const auto& c : cases) {
        failures += c.failure;
        errors += c.error;
        time += c.time;
        body += "    " + c.text + "\n";
    }
    const std::string counts = "tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                               "\" errors=\"" + std::to_string(errors) + "\"";
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuvp regress\" " + counts + " time=\"" +
           fixed(time, 6) + "\">\n  <testsuite name=\"gpuvp regress\" " + counts + " skipped=\"0\" time=\"" + fixed(time, 6) +
           "\">\n" + body + "  </testsuite>\n</testsuites>\n";
}

std::string merge_csv(const std::vector<NamedText>& files) {
    std::string header;
    std::vector<std::string> rows;
    for (const NamedText& f : files) {
        std::istringstream in(f.text);
        std::string first, line;
        if (!std::getline(in, first) || first.empty()) throw std::invalid_argument(f.name + " is empty");
        if (header.empty()) header = first;
        else if (first != header)
            throw std::invalid_argument(f.name + " has another header: '" + first + "' against '" + header + "'");
        while (std::getline(in, line))
            if (!line.empty()) rows.push_back(line);
    }
    if (header.rfind("file,", 0) == 0) {  // regress CSVs: sorted by file, as one run over a folder gives them
        auto file = [](const std::string& row) { return row.substr(0, row.find(',')); };
        std::stable_sort(rows.begin(), rows.end(), [&](const std::string& a, const std::string& b) { return file(a) < file(b); });
        for (size_t i = 1; i < rows.size(); ++i)
            if (file(rows[i]) == file(rows[i - 1]))
                throw std::invalid_argument("scenario " + file(rows[i]) + " is in two of the files (a shard given twice?)");
    }
    std::string out = header + "\n";
    for (const auto& r : rows) out += r + "\n";
    return out;
}

}  // namespace gpuvp
