// gpuvp: the command line. Parses arguments, loads the scenario, runs it, writes results.
//   gpuvp run SCENARIO.yaml [--out DIR] [--set KEY=VALUE]... [--no-trace] [--trace-limit N] [--vcd FILE] [-j N] [--check-protocol] [--quiet]
//   gpuvp validate SCENARIO.yaml [--set KEY=VALUE]...
//   gpuvp sweep SCENARIO.yaml --set KEY=V1,V2,... [--set ...]... [--out DIR] [-j N] [--trace] [--quiet]
//   gpuvp regress PATH... [--junit FILE] [--csv FILE] [--out DIR] [-j N] [--shard K/N] [--check-protocol] [--quiet]
//   gpuvp merge OUT.xml|OUT.csv FILE...
// Exit codes: 0 ok, 1 an expectation (or a kernel) failed, 2 bad input.
#include "platform/regress.h"
#include "platform/report.h"
#include "platform/run.h"
#include "platform/scenario.h"
#include "platform/sweep.h"

#include <systemc>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace {

// No SystemC banner in the tool's output: the kernel prints it when it first starts, which
// can be before sc_main runs, so the setting is made during static initialisation.
const bool kQuietBanner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;

const char* kUsage =
    "usage: gpuvp run SCENARIO.yaml [--out DIR] [--set KEY=VALUE]... [--no-trace] [--trace-limit N] [--vcd FILE] [-j N] [--check-protocol] [--log [BLOCK=]LEVEL,...] [--quiet]\n"
    "       gpuvp validate SCENARIO.yaml [--set KEY=VALUE]...\n"
    "       gpuvp sweep SCENARIO.yaml --set KEY=V1,V2,... [--set KEY=VALUE]... [--out DIR] [-j N] [--trace] [--quiet]\n"
    "       gpuvp regress PATH... [--junit FILE] [--csv FILE] [--out DIR] [-j N] [--shard K/N] [--check-protocol] [--quiet]\n"
    "       gpuvp merge OUT.xml|OUT.csv FILE...\n"
    "       gpuvp params    (the GPU's parameters: hierarchical name, type, default, range)\n"
    "exit codes: 0 ok, 1 an expectation or a kernel failed, 2 bad input\n";

int usage(const std::string& why) {
    std::cerr << "gpuvp: " << why << "\n" << kUsage;
    return 2;
}

// "--log cp=medium,sm[2]=debug" (or "--log high": every block): the GPU's sc_report verbosity
// per block, LEVEL one of none, low, medium, high, full, debug.
bool parse_log(const std::string& spec, std::map<std::string, int>& log, std::string& why) {
    static const std::map<std::string, int> levels{{"none", sc_core::SC_NONE}, {"low", sc_core::SC_LOW},
                                                   {"medium", sc_core::SC_MEDIUM}, {"high", sc_core::SC_HIGH},
                                                   {"full", sc_core::SC_FULL}, {"debug", sc_core::SC_DEBUG}};
    std::stringstream items(spec);
    std::string item;
    while (std::getline(items, item, ',')) {
        const size_t eq = item.find('=');
        const std::string block = eq == std::string::npos ? "*" : item.substr(0, eq);
        const std::string level = eq == std::string::npos ? item : item.substr(eq + 1);
        auto it = levels.find(level);
        if (block.empty() || it == levels.end()) {
            why = "--log wants [BLOCK=]LEVEL,... with LEVEL none, low, medium, high, full or debug, got '" + item + "'";
            return false;
        }
        log[block] = it->second;
    }
    if (log.empty()) {
        why = "--log wants [BLOCK=]LEVEL,...";
        return false;
    }
    return true;
}

bool make_dirs(const std::string& path) {
    std::string p;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            if (!p.empty() && mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return false;
        }
        if (i < path.size()) p += path[i];
    }
    return true;
}

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return bool(f);
}

// gpuvp regress PATH... : every scenario under the paths, a process each, N at a time.
int regress_main(const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    std::string junit, csv;
    gpuvp::RegressOptions o;
    o.jobs = unsigned(std::max(1l, sysconf(_SC_NPROCESSORS_ONLN)));
    o.progress = isatty(2);
    bool quiet = false;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--junit" || a == "--csv" || a == "--out" || a == "-j" || a == "--shard") {
            if (i + 1 == args.size()) return usage(a + " needs a value");
            const std::string& v = args[++i];
            if (a == "--junit") junit = v;
            else if (a == "--csv") csv = v;
            else if (a == "--out") o.out_dir = v;
            else if (a == "-j") {
                o.jobs = unsigned(std::strtoul(v.c_str(), nullptr, 10));
                if (o.jobs == 0 || v.find_first_not_of("0123456789") != std::string::npos)
                    return usage("-j wants a number of processes, got '" + v + "'");
            } else {
                try {
                    gpuvp::parse_shard(v, o.shard, o.shards);
                } catch (const std::exception& e) {
                    return usage(e.what());
                }
            }
        } else if (a == "--quiet") {
            quiet = true;
            o.progress = false;
        } else if (a == "--check-protocol") {
            o.check_protocol = true;
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else {
            paths.push_back(a);
        }
    }
    if (paths.empty()) return usage("regress wants at least one scenario file or folder");
    if (!o.out_dir.empty() && !make_dirs(o.out_dir)) {
        std::cerr << "error: cannot create " << o.out_dir << ": " << std::strerror(errno) << "\n";
        return 2;
    }
    try {
        const gpuvp::RegressOutput r = gpuvp::run_regress(paths, o);
        if (!quiet) std::cout << r.table;
        if (!junit.empty() && !write_file(junit, r.junit)) {
            std::cerr << "error: cannot write " << junit << "\n";
            return 2;
        }
        if (!csv.empty() && !write_file(csv, r.csv)) {
            std::cerr << "error: cannot write " << csv << "\n";
            return 2;
        }
        return r.exit_code;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
}

// gpuvp merge OUT FILE... : the shards' JUnit (.xml) or CSV (.csv) files into one.
int merge_main(const std::vector<std::string>& args) {
    if (args.size() < 3) return usage("merge wants an output file and at least one file to merge");
    const std::string& out = args[1];
    const bool xml = out.size() > 4 && out.compare(out.size() - 4, 4, ".xml") == 0;
    const bool csv = out.size() > 4 && out.compare(out.size() - 4, 4, ".csv") == 0;
    if (!xml && !csv) return usage("merge writes a .xml (JUnit) or a .csv file, not '" + out + "'");
    std::vector<gpuvp::NamedText> texts;
    for (size_t i = 2; i < args.size(); ++i) {
        const std::string& in = args[i];
        if (in.size() < 4 || in.compare(in.size() - 4, 4, xml ? ".xml" : ".csv") != 0)
            return usage("merge into " + out + " takes " + (xml ? ".xml" : ".csv") + " files, not '" + in + "'");
        std::ifstream f(args[i], std::ios::binary);
        if (!f) {
            std::cerr << "error: cannot read " << args[i] << "\n";
            return 2;
        }
        std::ostringstream s;
        s << f.rdbuf();
        texts.push_back({in, s.str()});
    }
    try {
        if (!write_file(out, xml ? gpuvp::merge_junit(texts) : gpuvp::merge_csv(texts))) {
            std::cerr << "error: cannot write " << out << "\n";
            return 2;
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        std::cout << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    if (command == "regress") return regress_main(args);
    if (command == "merge") return merge_main(args);
    if (command == "params") {
        if (args.size() > 1) return usage("params takes no arguments");
        std::cout << gpuvp::gpu_params_markdown();
        return 0;
    }
    if (command != "run" && command != "validate" && command != "sweep")
        return usage("unknown command '" + command + "'");
    std::string file, out_dir, vcd_file;
    gpuvp::Overrides overrides;
    bool trace = true, quiet = false, check_protocol = false;
    uint64_t trace_limit = gpuvp::RunOptions{}.trace_limit;
    unsigned jobs = std::max(1l, sysconf(_SC_NPROCESSORS_ONLN));
    bool sweep_trace = false, jobs_given = false, log_given = false;
    std::map<std::string, int> log;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--out" || a == "--set" || a == "--trace-limit" || a == "-j" || a == "--vcd" || a == "--log") {
            if (i + 1 == args.size()) return usage(a + " needs a value");
            const std::string& v = args[++i];
            if (a == "--log") {
                log_given = true;
                log = {{"*", sc_core::SC_NONE}};  // blocks not named stay quiet
                std::string why;
                if (!parse_log(v, log, why)) return usage(why);
            } else if (a == "--out") {
                out_dir = v;
            } else if (a == "--vcd") {
                vcd_file = v;
            } else if (a == "-j") {
                jobs_given = true;
                jobs = unsigned(std::strtoul(v.c_str(), nullptr, 10));
                if (jobs == 0 || v.find_first_not_of("0123456789") != std::string::npos)
                    return usage("-j wants a number of processes, got '" + v + "'");
            } else if (a == "--trace-limit") {
                char* end = nullptr;
                errno = 0;
                trace_limit = std::strtoull(v.c_str(), &end, 10);
                if (v.empty() || *end || v[0] == '-' || errno == ERANGE)
                    return usage("--trace-limit wants a count of events, got '" + v + "'");
            } else {
                auto eq = v.find('=');
                if (eq == std::string::npos || eq == 0) return usage("--set wants KEY=VALUE, got '" + v + "'");
                overrides.emplace_back(v.substr(0, eq), v.substr(eq + 1));
            }
        } else if (a == "--no-trace") {
            trace = false;
        } else if (a == "--check-protocol") {
            check_protocol = true;
        } else if (a == "--trace") {
            sweep_trace = true;
        } else if (a == "--quiet") {
            quiet = true;
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else if (file.empty()) {
            file = a;
        } else {
            return usage("one scenario at a time (got '" + file + "' and '" + a + "')");
        }
    }
    if (file.empty()) return usage("no scenario file given");
    if (command != "sweep" && sweep_trace) return usage("--trace is an option of sweep");
    if (command == "validate" && jobs_given) return usage("-j is an option of run and sweep");
    if (command != "run" && !vcd_file.empty()) return usage("--vcd is an option of run");
    if (command != "run" && check_protocol) return usage("--check-protocol is an option of run and regress");
    if (command != "run" && log_given) return usage("--log is an option of run");

    if (command == "sweep") {
        // Each --set with several values (V1,V2,...) is an axis; the others hold for every point.
        gpuvp::Overrides fixed;
        std::vector<gpuvp::SweepAxis> axes;
        for (const auto& [key, value] : overrides) {
            auto values = gpuvp::split_values(value);
            if (values.size() > 1) axes.push_back({key, values});
            else fixed.emplace_back(key, value);
        }
        if (axes.empty()) return usage("sweep wants at least one --set KEY=V1,V2,...");
        if (!out_dir.empty() && !make_dirs(out_dir)) {
            std::cerr << "error: cannot create " << out_dir << ": " << std::strerror(errno) << "\n";
            return 2;
        }
        try {
            gpuvp::SweepOutput s = gpuvp::run_sweep(file, fixed, axes, gpuvp::SweepOptions{out_dir, jobs, sweep_trace});
            if (!quiet) std::cout << s.table;
            if (!out_dir.empty() && !quiet)
                std::cout << "wrote " << out_dir << "/sweep.csv" << (s.locks_csv.empty() ? "" : ", locks.csv")
                          << (s.draws_csv.empty() ? "" : ", draws.csv") << "\n";
            return s.exit_code;
        } catch (const gpuvp::ScenarioError& e) {
            std::cerr << "error: " << e.what() << "\n";
            return 2;
        } catch (const std::exception& e) {
            std::cerr << "error: " << file << ": " << e.what() << "\n";
            return 2;
        }
    }

    gpuvp::Scenario scenario;
    try {
        scenario = gpuvp::load_scenario(file, overrides);
    } catch (const gpuvp::ScenarioError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    if (!vcd_file.empty() && !scenario.variants.empty())
        return usage("--vcd records one run: it takes a scenario without 'variants'");
    if (command == "validate") {
        uint64_t launches = 0, draw_launches = 0;  // with `instances`, a packet each
        for (const auto& k : scenario.workload.kernels) launches += k.instances;
        for (const auto& d : scenario.workload.draws) draw_launches += d.instances;
        auto of = [](uint64_t n, size_t entries) {
            return n == entries ? std::string() : " (" + std::to_string(n) + " launches)";
        };
        std::cout << file << ": ok (" << scenario.workload.kernels.size() << " kernels"
                  << of(launches, scenario.workload.kernels.size()) << ", " << scenario.workload.draws.size() << " draws"
                  << of(draw_launches, scenario.workload.draws.size()) << ", " << scenario.workload.queues.size() << " queues"
                  << (scenario.variants.empty() ? "" : ", " + std::to_string(scenario.variants.size()) + " variants")
                  << ")\n";
        return 0;
    }

    gpuvp::RunOutput out;
    try {
        gpuvp::RunOptions options;
        options.trace = trace && !out_dir.empty();
        options.trace_limit = trace_limit;
        options.check_protocol = check_protocol;
        if (log_given) options.log = log;
        options.vcd = !vcd_file.empty();
        if (!quiet && isatty(2))  // a progress line on a terminal, rewritten in place
            options.progress = [](const gpuvp::Progress& p) {
                std::fprintf(stderr, "\r  simulated %.1f us, kernels %zu/%zu done", p.sim_ns / 1000, p.kernels_done,
                             p.kernels);
                if (p.draws) std::fprintf(stderr, ", draws %zu/%zu", p.draws_done, p.draws);
                std::fprintf(stderr, "   ");
            };
        out = gpuvp::run_variants(scenario, options, jobs);
    } catch (const std::exception& e) {
        std::cerr << "error: " << file << ": " << e.what() << "\n";
        return 2;
    }
    if (!quiet && isatty(2)) std::fprintf(stderr, "\n");
    if (!quiet) std::cout << out.table;
    if (!vcd_file.empty() && !write_file(vcd_file, out.vcd)) {
        std::cerr << "error: cannot write " << vcd_file << "\n";
        return 2;
    }
    if (!out_dir.empty()) {
        if (!make_dirs(out_dir)) {
            std::cerr << "error: cannot create " << out_dir << ": " << std::strerror(errno) << "\n";
            return 2;
        }
        std::string error;
        if (!gpuvp::write_run_output(out_dir, out, true, &error)) {
            std::cerr << "error: " << error << "\n";
            return 2;
        }
    }
    if (!out.expectations_passed) std::cerr << "gpuvp: an expectation failed (see results.json, expectations)\n";
    return out.exit_code;
}
