// gpuvp: the command line (CLI11). `gpuvp help` lists the commands, `gpuvp CMD --help` a
// command's options. Exit codes: 0 ok, 1 an expectation (or a kernel) failed, 2 bad input, 3 a
// run stopped at its --timeout.
#include <gpuvp/platform/gpu_config.h>
#include <gpuvp/platform/presets.h>
#include "sc_main/cluster/cluster.h"
#include "sc_main/regress/regress.h"
#include "sc_main/report/report.h"
#include "sc_main/record/problems.h"
#include "sc_main/record/short_names.h"
#include "sc_main/run/run.h"
#include "sc_main/replay/calibrate.h"
#include "sc_main/replay/kernel_solve.h"
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/scenario.h"
#include "sc_main/scenario/trace_scenario.h"
#include "sc_main/batch/batch.h"
#include "sc_main/sweep/sweep.h"

#include <CLI/CLI.hpp>
#include <systemc>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef GPUVP_VERSION
#error "GPUVP_VERSION is defined by CMakeLists.txt from project(gpuvp VERSION ...)"
#endif

namespace {

// No SystemC banner in the tool's output: the kernel prints it when it first starts, which
// can be before sc_main runs, so the setting is made during static initialisation.
const bool kQuietBanner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;

const char* kExitCodes =
    "Exit codes: 0 ok, 1 an expectation or a kernel failed, 2 bad input, 3 a run stopped at its --timeout.";

// What a command does once its arguments are parsed; returns the exit code.
using Action = std::function<int()>;

// The name a user types for `cmd`: "gpuvp" or "gpuvp run".
std::string command_line_name(const CLI::App* cmd) {
    return cmd->get_parent() ? cmd->get_parent()->get_name() + " " + cmd->get_name() : cmd->get_name();
}

// Bad input on the command line: what was wrong, and where the help is. Exit code 2.
int bad_input(const CLI::App* cmd, const std::string& why) {
    const std::string name = command_line_name(cmd);
    std::cerr << name << ": " << why << "\n";
    if (cmd->get_parent() && cmd->get_name() != "help")
        std::cerr << "Run '" << name << " --help' for the options of " << cmd->get_name() << ".\n";
    else
        std::cerr << "Run 'gpuvp help' for the commands, 'gpuvp help CMD' for the options of one.\n";
    return 2;
}

// An error the command met while working (a file it cannot write, a run that cannot start).
int failed(const std::string& why) {
    std::cerr << "gpuvp: " << why << "\n";
    return 2;
}

unsigned online_cores() { return unsigned(std::max(1l, sysconf(_SC_NPROCESSORS_ONLN))); }

// A whole decimal number, without sign or spaces, that fits in T and is at least `min`:
// CLI11's own conversion would take "+3", " 3" or "0x3".
template <typename T>
CLI::Validator whole_number(const std::string& what, T min) {
    return CLI::Validator(
        [what, min](std::string& v) -> std::string {
            const std::string bad = "wants " + what + ", got '" + v + "'";
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return bad;
            errno = 0;
            const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
            if (errno == ERANGE || n > std::numeric_limits<T>::max() || n < min) return bad;
            return "";
        },
        "");
}

// A number of seconds greater than 0, decimal ("90", "2.5"): a host-time limit.
CLI::Validator seconds_check() {
    return CLI::Validator(
        [](std::string& v) -> std::string {
            const std::string bad = "wants a number of seconds greater than 0, like 60 or 2.5, got '" + v + "'";
            if (v.empty() || v.find_first_not_of("0123456789.") != std::string::npos) return bad;
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            if (*end != '\0' || !(d > 0) || !std::isfinite(d)) return bad;
            return "";
        },
        "");
}

// Adds `--timeout SECONDS`: `what` says what it bounds.
void add_timeout(CLI::App& cmd, double& seconds, const std::string& what) {
    cmd.add_option("--timeout", seconds, what)->type_name("SECONDS")->check(seconds_check());
}

// Adds `--no-expect`: `what` (the run, every point) goes without the file's expectations.
void add_no_expect(CLI::App& cmd, bool& flag, const std::string& what) {
    cmd.add_flag("--no-expect", flag,
                 "check none of the file's expectations (expect:, and across variants) in " + what + ":\n"
                 "for a comparison of policies whose file expects one of them. Default: checked");
}

// A file (a folder too when `folder_ok`) that exists: checked while parsing, so that a name
// mistyped is a bad command line that points to the help.
// `root`: a --root option's value, read first (its option is added before the one this checks):
// the file is looked for at its copy under it.
CLI::Validator existing(bool folder_ok, std::shared_ptr<std::string> root = nullptr) {
    return CLI::Validator(
        [folder_ok, root](std::string& v) -> std::string {
            struct stat st;
            const std::string at = root ? gpuvp::shared_copy(*root, v) : v;
            if (stat(at.c_str(), &st) != 0) return (folder_ok ? "no such file or folder '" : "no such file '") + v + "'";
            if (!folder_ok && S_ISDIR(st.st_mode)) return "'" + v + "' is a folder, not a file";
            return "";
        },
        "");
}

CLI::Option* add_jobs(CLI::App& cmd, unsigned& jobs, const std::string& what) {
    jobs = online_cores();
    return cmd.add_option("-j", jobs, what + ".\nDefault: the number of online cores (" + std::to_string(jobs) + " here)")
        ->type_name("N")
        ->check(whole_number<unsigned>("a number of processes", 1));
}

CLI::Option* add_scenario(CLI::App& cmd, std::string& file, std::shared_ptr<std::string> root = nullptr) {
    return cmd.add_option("SCENARIO", file,
                          "the scenario file (YAML, docs/scenario.md), or a profiler trace to replay\n"
                          "(Kineto JSON; rocprofv3 CSV, JSON or rocpd database; nsys SQLite export; .gz read\n"
                          "directly; docs/replay.md)")
        ->required()
        ->type_name("FILE")
        ->check(existing(false, root));
}

// --root DIR: the files are read from their copies under DIR (what a Slurm task does).
CLI::Option* add_root(CLI::App& cmd, std::shared_ptr<std::string> root) {
    return cmd.add_option("--root", *root,
                          "read the scenario files (and --platform) from their copies under DIR, as\n"
                          "'--slurm' copies them to OUT/slurm/input, naming them as given. Default: as given")
        ->type_name("DIR")
        ->check(existing(true));
}

// The options that hand a sweep or a regression to Slurm (docs/cluster.md).
struct SlurmArgs {
    bool slurm = false, no_wait = false;
    std::vector<std::string> opts;
    size_t chunk = 0;
    std::string gpuvp;
};

void add_slurm(CLI::App& cmd, SlurmArgs& s, const std::string& items) {
    cmd.add_flag("--slurm", s.slurm,
                 "run the " + items + " as array tasks of Slurm (sbatch), through OUT, a directory every\n"
                 "node mounts at the same path: the inputs are copied there, each task runs its\n"
                 "slice, and the outputs are joined as a local run writes them. Needs --out");
    cmd.add_option("--slurm-opt", s.opts,
                   "more sbatch options, e.g. \"--partition=gpu --time=00:30:00\" (split at spaces;\n"
                   "repeatable). Default: none")
        ->type_name("OPTIONS")
        ->allow_extra_args(false);
    cmd.add_option("--slurm-chunk", s.chunk,
                   items + " per array task. Default: 1 (more when needed to stay within 1000 tasks)")
        ->type_name("N")
        ->check(whole_number<size_t>("a number of " + items, 1));
    cmd.add_option("--slurm-gpuvp", s.gpuvp,
                   "the gpuvp the nodes run: an installed prefix on shared storage, or the same\n"
                   "path on every node. Default: this program (" + gpuvp::this_program() + ")")
        ->type_name("PATH");
    cmd.add_flag("--no-wait", s.no_wait,
                 "with --slurm: return once the tasks are submitted; 'gpuvp collect OUT' joins\n"
                 "their outputs later. Default: wait, with progress, and join them");
}

// --set KEY=VALUE, repeated; `what` says what it does in this command.
CLI::Option* add_set(CLI::App& cmd, std::vector<std::string>& sets, const std::string& type, const std::string& what) {
    return cmd.add_option("--set", sets, what)
        ->type_name(type)
        ->allow_extra_args(false)  // one KEY=VALUE per --set: the next word is not taken for another
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                const size_t eq = v.find('=');
                return eq == std::string::npos || eq == 0 ? "wants KEY=VALUE, got '" + v + "'" : "";
            },
            ""));
}

// --platform FILE: a platform map laid over the scenario's `platform:` before the --sets.
CLI::Option* add_platform(CLI::App& cmd, std::string& file, std::shared_ptr<std::string> root = nullptr) {
    return cmd.add_option("--platform", file,
                          "lay a platform over the scenario's: FILE is YAML, the keys of a scenario's\n"
                          "'platform:' (a 'preset:' of a real GPU among them) or 'platform: {...}';\n"
                          "its preset replaces the scenario's, its keys override the scenario's, and\n"
                          "--set overrides both (docs/presets.md). Default: none")
        ->type_name("FILE")
        ->check(existing(false, root));
}

// The GPU a command runs: --platform FILE, or --preset NAME (a platform file saying only
// `preset: NAME`).
struct GpuArgs {
    std::string platform, preset;

    std::optional<gpuvp::PlatformSource> source() const {
        if (!preset.empty()) return gpuvp::PlatformSource{"--preset " + preset, "preset: " + preset + "\n"};
        if (!platform.empty()) return gpuvp::read_platform_file(platform);
        return std::nullopt;
    }
};

void add_gpu(CLI::App& cmd, GpuArgs& gpu) {
    CLI::Option* platform = add_platform(cmd, gpu.platform);
    std::string names;
    for (const std::string& n : gpuvp::preset_names()) names += (names.empty() ? "" : ", ") + n;
    cmd.add_option("--preset", gpu.preset,
                   "the platform preset of a real GPU (docs/presets.md), as --platform with a file\n"
                   "saying only 'preset: NAME': " +
                       names + ".\nDefault: the scenario's, or the trace's GPU")
        ->type_name("NAME")
        ->excludes(platform)
        ->check(CLI::Validator(
            [names](const std::string& v) {
                return gpuvp::find_preset(v) ? std::string() : "unknown preset '" + v + "' (one of " + names + ")";
            },
            ""));
}

const char* kSetHelp = "override a key of the scenario before it is checked: KEY is its dotted path\n"
                       "(policy.dispatch, kernels.k.grid, kernels[0].submit_ns), VALUE is YAML.\n"
                       "Repeatable, applied in order. Default: none";

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

bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// --- Input: a scenario file, or a profiler trace read as one --------------------------------

// The options of a trace's import (`run TRACE`, `validate TRACE`, `import`).
struct TraceArgs {
    int64_t device = -1;  // -1: the first GPU with kernels
    bool skip_unfit = false;
    bool no_solve = false;
    bool no_infer_waits = false;
};

void add_trace_options(CLI::App& cmd, TraceArgs& t) {
    cmd.add_option("--device", t.device,
                   "a profiler trace: the GPU to replay, by its device number in the trace.\n"
                   "Default: the first with kernels")
        ->type_name("N")
        ->check(whole_number<uint32_t>("a device number", 0));
    cmd.add_flag("--skip-unfit", t.skip_unfit,
                 "a profiler trace: leave out (and count) kernels the platform cannot hold\n"
                 "instead of stopping with an error. Default: an error");
    cmd.add_flag("--no-solve", t.no_solve,
                 "a profiler trace: take each kernel's body from the formula of docs/replay.md\n"
                 "instead of solving it against short simulations of the kernel alone (faster;\n"
                 "the kernels then take their measured time only roughly). Default: solve");
    cmd.add_flag("--no-infer-waits", t.no_infer_waits,
                 "a profiler trace: count the wait calls the trace gives no target for instead of\n"
                 "inferring their dependencies from the timeline. Default: infer");
}

// One line on stderr, rewritten in place, saying what a long step is doing (on a terminal, without
// --quiet; otherwise nothing): reading a trace, simulating, writing the outputs.
class StatusLine {
public:
    explicit StatusLine(bool on) : on_(on) {}
    bool on() const { return on_; }
    void show(const std::string& text) {
        if (!on_ || (shown_ && text == text_)) return;
        text_ = text;
        // Within the terminal's width (a line that wrapped could not be rewritten in place): its
        // start and its end, "…" between.
        std::string line = text;
        winsize ws{};
        const size_t room = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? size_t(ws.ws_col) - 3 : 77;
        if (const size_t chars = gpuvp::text_chars(line); chars > room) {
            const size_t keep_end = room / 2;
            line = gpuvp::text_head(line, room - 1 - keep_end) + "…" + gpuvp::text_tail(line, keep_end);
        }
        const size_t width = 2 + gpuvp::text_chars(line);
        std::fprintf(stderr, "\r  %s%s", line.c_str(), std::string(shown_ > width ? shown_ - width : 0, ' ').c_str());
        std::fflush(stderr);
        shown_ = width;
    }
    // Wipes the line (before anything else is written to the terminal).
    void clear() {
        if (!on_ || shown_ == 0) return;
        std::fprintf(stderr, "\r%s\r", std::string(shown_, ' ').c_str());
        std::fflush(stderr);
        shown_ = 0;
    }

private:
    bool on_;
    size_t shown_ = 0;  // characters on the line now
    std::string text_;  // what they say
};

// The import's options from the command line; `status` (when given) says which of its long
// steps it is in, for the trace `name`.
gpuvp::TraceImportOptions import_options(const TraceArgs& t, StatusLine* status = nullptr, const std::string& name = {}) {
    gpuvp::TraceImportOptions options;
    if (t.device >= 0) options.device = t.device;
    options.skip_unfit = t.skip_unfit;
    options.infer_waits = !t.no_infer_waits;
    if (!t.no_solve)
        options.solve = [status, name](const gpuvp::Scenario& platform, const std::vector<gpuvp::BodyTarget>& targets,
                                       gpuvp::SolveStats& stats) {
            if (status)
                status->show("importing " + name + ": solving the bodies of " + std::to_string(targets.size()) +
                             " kernels, each alone on the model");
            return gpuvp::solve_kernel_bodies(platform, targets, stats);
        };
    if (!t.no_solve)
        options.refine = [status, name](const gpuvp::Scenario& replay, gpuvp::RefineStats& stats) {
            if (status) status->show("importing " + name + ": refining the kernels that ran beside others, in whole replays");
            return gpuvp::refine_overlapped_bodies(replay, stats);
        };
    return options;
}

// A trace when the file's content is one (Kineto JSON; rocprofv3 CSV, JSON or rocpd; an nsys
// SQLite export; .gz read directly), else a scenario. Throws ScenarioError or TraceError.
// "61.2 MB": a size for people.
std::string megabytes(size_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f MB", double(bytes) / 1e6);
    return b;
}

// The reading of trace `name` on `line`, as its parser goes (nothing when the line is off).
gpuvp::ReadProgress reading(StatusLine& line, const std::string& name) {
    if (!line.on()) return {};
    return [&line, name](size_t read, size_t size) {
        line.show("reading " + name + ": " + std::to_string(read * 100 / std::max<size_t>(size, 1)) + " % of " +
                  megabytes(size));
    };
}

// A scenario file, or a profiler trace imported as one; `status` says how the reading goes.
gpuvp::Scenario load_input(const std::string& file, const gpuvp::Overrides& overrides, const GpuArgs& gpu,
                           const TraceArgs& t, gpuvp::TraceImportSummary* summary = nullptr, bool* trace = nullptr,
                           StatusLine* status = nullptr) {
    StatusLine quiet(false);
    StatusLine& line = status ? *status : quiet;
    struct Wipe {
        StatusLine& line;
        ~Wipe() { line.clear(); }
    } wipe{line};
    const std::optional<gpuvp::PlatformSource> platform = gpu.source();
    const std::string name = std::filesystem::path(file).filename().string();  // (the line stays short)
    line.show("reading " + name);
    const std::string text = gpuvp::read_trace_text(file);
    const gpuvp::TraceFormat format = gpuvp::trace_format(text);
    if (trace) *trace = format != gpuvp::TraceFormat::none;
    if (format == gpuvp::TraceFormat::none) {
        if (const std::string why = gpuvp::not_a_scenario(text); !why.empty())
            throw gpuvp::TraceError(file, gpuvp::TraceError::Where::none, 0, why);
        return gpuvp::parse_scenario(text, file, overrides, platform);
    }
    gpuvp::TraceImportOptions options = import_options(t, &line, name);
    options.platform = platform;
    gpuvp::ProfilerTrace profile = gpuvp::parse_profiler_trace(text, format, file, reading(line, name));
    line.show("importing " + name + ": " + std::to_string(profile.ops.size()) + " kernels and copies into a scenario");
    return gpuvp::load_trace_scenario(std::move(profile), options, overrides, summary);
}

// "1 event wait or sync", "8 event waits and syncs": Stream Wait Event and Event Sync records.
std::string event_waits(uint64_t n) {
    return std::to_string(n) + (n == 1 ? " event wait or sync" : " event waits and syncs");
}

// "3.2 s", "0.04 s": host seconds for people.
std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, s < 10 ? "%.2g s" : "%.0f s", s);
    return b;
}

// "a100-alexnet-step.json.gz: 79 kernels and 19 copies on 2 streams of device 0 (NVIDIA A100-...)"
std::string import_line(const std::string& file, const gpuvp::TraceImportSummary& s) {
    std::string line = file + ": " + std::to_string(s.kernels) + " kernels";
    if (s.copies) line += " and " + std::to_string(s.copies) + " copies";
    if (s.graphs)
        line += " and " + std::to_string(s.graphs) + " CUDA graph" + (s.graphs == 1 ? "" : "s") +
                " traced whole (each replayed as one piece of work)";
    line += " on " + std::to_string(s.streams) + " stream" + (s.streams == 1 ? "" : "s") + " of device " +
            std::to_string(s.device);
    if (!s.gpu.empty()) line += " (" + s.gpu + ")";
    line += ", " + std::to_string(s.calls) + " host calls on " + std::to_string(s.host_threads) + " thread" +
            (s.host_threads == 1 ? "" : "s");
    if (s.skipped_unfit) line += "; " + std::to_string(s.skipped_unfit) + " kernels left out (--skip-unfit)";
    if (s.shapes_defaulted) line += "; " + std::to_string(s.shapes_defaulted) + " kernels without grid or block took the defaults";
    if (s.other_devices) line += "; " + std::to_string(s.other_devices) + " kernels and copies of other GPUs not replayed";
    if (s.events_joined) line += "; " + event_waits(s.events_joined) + " joined to their record calls";
    if (s.events_unresolved) line += "; " + event_waits(s.events_unresolved) + " unresolved";
    if (s.inferred_waits) line += "; " + std::to_string(s.inferred_waits) + " waits inferred from the timeline";
    if (s.unmatched_waits) line += "; " + std::to_string(s.unmatched_waits) + " waits unmatched";
    if (s.dispatch_bound)
        line += "; " + std::to_string(s.dispatch_bound) + " kernel" + (s.dispatch_bound == 1 ? "" : "s") +
                " shorter than the model can dispatch (dispatch-bound)";
    line += "; imported in " + seconds(s.host_seconds);
    if (s.solved)
        line += ", " + seconds(s.solve.host_seconds) + " of it solving the bodies of " + std::to_string(s.solve.shapes) +
                " kernel shape" + (s.solve.shapes == 1 ? "" : "s") + " (" + std::to_string(s.solve.simulations) +
                " kernels simulated alone)";
    if (s.refined && s.refine.kernels)
        line += ", " + seconds(s.refine.host_seconds) + " refining the bodies of the " + std::to_string(s.refine.kernels) +
                " kernel" + (s.refine.kernels == 1 ? "" : "s") + " that overlapped others on the hardware (" +
                std::to_string(s.refine.replays) + " replay" + (s.refine.replays == 1 ? "" : "s") + ")";
    return line;
}

// On stderr, what the import could not replay as the trace has it.
void import_warnings(const std::string& file, const gpuvp::TraceImportSummary& s) {
    if (s.default_platform) std::cerr << "gpuvp: warning: " << file << ": " << gpuvp::kUnnamedGpu << "\n";
    if (s.unmatched_waits)
        std::cerr << "gpuvp: warning: " << file << ": " << s.unmatched_waits
                  << (s.unmatched_waits == 1 ? " wait call" : " wait calls")
                  << " (cudaStreamWaitEvent) without a record saying what it waits for, and none inferred from the "
                     "timeline: replayed without the wait (docs/replay.md, \"Inferred waits\")\n";
    if (s.events_unresolved)
        std::cerr << "gpuvp: warning: " << file << ": " << event_waits(s.events_unresolved)
                  << " unresolved (Stream Wait Event, Event Sync records): the trace does not say what the event "
                     "recorded and no record call could be joined; replayed without the wait (docs/replay.md, "
                     "\"Events\")\n";
}

// --- gpuvp run ------------------------------------------------------------------------------

struct RunArgs {
    std::string file, out_dir, vcd_file, log;
    GpuArgs gpu;
    std::vector<std::string> sets;
    bool no_trace = false, quiet = false, check_protocol = false, no_expect = false;
    uint64_t trace_limit = gpuvp::RunOptions{}.trace_limit;
    std::string trace_detail = gpuvp::trace::detail_name(gpuvp::RunOptions{}.trace_detail);
    double timeout = 0;
    unsigned jobs = 1;
    TraceArgs trace;
};

int run_main(const CLI::App& cmd, const RunArgs& a) {
    std::map<std::string, int> log;
    if (cmd.count("--log")) {
        log = {{"*", sc_core::SC_NONE}};  // blocks not named stay quiet
        std::string why;
        if (!parse_log(a.log, log, why)) return bad_input(&cmd, why);
    }
    gpuvp::Scenario scenario;
    gpuvp::TraceImportSummary imported;
    bool trace = false;
    StatusLine status(!a.quiet && isatty(2) != 0);
    try {
        scenario = load_input(a.file, gpuvp::overrides_of(a.sets), a.gpu, a.trace, &imported, &trace, &status);
    } catch (const gpuvp::ScenarioError& e) {
        return failed(e.what());
    } catch (const gpuvp::TraceError& e) {
        return failed(e.what());
    }
    if (a.no_expect) gpuvp::drop_expectations(scenario);
    if (trace && !a.quiet) std::cout << import_line(a.file, imported) << "\n";
    if (trace) import_warnings(a.file, imported);
    if (!a.vcd_file.empty() && !scenario.variants.empty())
        return bad_input(&cmd, "--vcd records one run: it takes a scenario without 'variants'");

    gpuvp::RunOutput out;
    try {
        gpuvp::RunOptions options;
        options.trace = !a.no_trace && !a.out_dir.empty();
        options.trace_limit = a.trace_limit;
        gpuvp::trace::detail_from(a.trace_detail, options.trace_detail);  // (checked by the option)
        options.check_protocol = a.check_protocol;
        options.timeout_seconds = a.timeout;
        if (!log.empty()) options.log = log;
        options.vcd = !a.vcd_file.empty();
        if (status.on()) {  // a progress line on a terminal, rewritten in place
            options.progress = [&status, started = std::chrono::steady_clock::now()](const gpuvp::Progress& p) {
                char b[200];
                int n = std::snprintf(b, sizeof b, "simulated %.1f us, kernels %zu/%zu done", p.sim_ns / 1000,
                                      p.kernels_done, p.kernels);
                n = std::clamp(n, 0, int(sizeof b) - 1);
                if (p.draws) n += std::snprintf(b + n, sizeof b - size_t(n), ", draws %zu/%zu", p.draws_done, p.draws);
                n = std::clamp(n, 0, int(sizeof b) - 1);
                // The work known ahead: the share of kernels and draws done, and the time left at that pace.
                const double all = double(p.kernels + p.draws), done = double(p.kernels_done + p.draws_done);
                if (all > 0 && done > 0 && done < all) {
                    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                    std::snprintf(b + n, sizeof b - size_t(n), " (%.0f %%, about %.0f s left)", 100 * done / all,
                                  elapsed * (all - done) / done);
                }
                status.show(b);
            };
            options.step = [&status](const char* step) { status.show(std::string("simulated; building ") + step); };
        }
        out = gpuvp::run_variants(scenario, options, a.jobs);
    } catch (const std::exception& e) {
        status.clear();
        return failed(a.file + ": " + e.what());
    }
    status.clear();
    if (!a.quiet) {
        std::cout << out.table;
        if (out.record) {  // (with variants: each variant's and the comparisons across them)
            const auto& es = out.record->expectations;
            const size_t passed = size_t(std::count_if(es.begin(), es.end(), [](const auto& e) { return e.passed; }));
            std::cout << "expectations: "
                      << (a.no_expect  ? std::string("not checked (--no-expect)")
                          : es.empty() ? std::string("none")
                                       : std::to_string(passed) + " of " + std::to_string(es.size()) + " passed")
                      << "\n";
        }
    }
    if (!a.vcd_file.empty()) {
        if (!write_file(a.vcd_file, out.vcd)) return failed("cannot write " + a.vcd_file);
        if (!a.quiet) std::cout << "wrote " << a.vcd_file << "\n";
    }
    if (!a.out_dir.empty()) {
        if (!make_dirs(a.out_dir)) return failed("cannot create " + a.out_dir + ": " + std::strerror(errno));
        std::string error;
        std::vector<std::string> written;
        auto size = [&](const std::string& f) {  // the run's own files' (the variants' are smaller)
            return f == "trace.json" ? " (" + megabytes(out.trace.size()) + ")"
                   : f == "results.json" ? " (" + megabytes(out.results.size()) + ")"
                                         : std::string();
        };
        const bool wrote = gpuvp::write_run_output(a.out_dir, out, true, &error, &written, [&](const std::string& f) {
            status.show("writing " + a.out_dir + "/" + f + size(f));
        });
        status.clear();
        if (!wrote) return failed(error);
        if (!a.quiet) {
            std::cout << "wrote " << a.out_dir << "/:";
            for (size_t i = 0; i < written.size(); ++i) std::cout << (i ? ", " : " ") << written[i];
            std::cout << "\n";
        }
        if (out.trace_record)  // (a variant's trace: its child says so)
            if (const std::string note = gpuvp::trace_note(*out.trace_record); !note.empty())
                std::cerr << "gpuvp: " << a.out_dir << "/trace.json: " << note << "\n";
    }
    if (out.exit_code != 0) {  // what failed, on stderr, --quiet or not
        std::vector<gpuvp::RunProblem> problems;
        if (out.timed_out)
            problems.push_back({0, "stopped after " + gpuvp::format_number(a.timeout) +
                                       " s of host time (--timeout), at " + gpuvp::format_number(out.sim_end_ns) +
                                       " ns simulated: the results say what it reached (status partial)"});
        if (out.record)
            for (gpuvp::RunProblem& p : gpuvp::run_problems(*out.record).problems) problems.push_back(std::move(p));
        if (problems.empty()) problems.push_back({0, "the run failed (status " + (out.record ? out.record->status : "unknown") + ")"});
        for (const gpuvp::RunProblem& p : problems)  // file:line for an expectation, as editors jump to it
            std::cerr << "gpuvp: " << a.file << (p.line ? ":" + std::to_string(p.line) + ": expectation failed" : "") << ": "
                      << p.text << "\n";
        if (!a.out_dir.empty()) std::cerr << "gpuvp: the results are in " << a.out_dir << "/results.json\n";
    }
    return out.exit_code;
}

Action setup_run(CLI::App& cmd) {
    auto a = std::make_shared<RunArgs>();
    add_scenario(cmd, a->file);
    cmd.add_option("--out", a->out_dir,
                   "write results.json, report.html and (unless --no-trace) trace.json into DIR,\n"
                   "created if missing; with variants also variants/NAME/. Default: no files")
        ->type_name("DIR");
    add_gpu(cmd, a->gpu);
    add_set(cmd, a->sets, "KEY=VALUE", kSetHelp);
    cmd.add_flag("--no-trace", a->no_trace,
                 "write no trace.json and record no register-table updates.\nDefault: traced when --out is given");
    cmd.add_option("--trace-limit", a->trace_limit,
                   "keep at most N trace events; later ones are dropped and counted\n"
                   "(results.json trace.dropped). Default: " +
                       std::to_string(a->trace_limit))
        ->type_name("N")
        ->check(whole_number<uint64_t>("a count of events", 0));
    add_no_expect(cmd, a->no_expect, "the run");
    cmd.add_option("--trace-detail", a->trace_detail,
                   "what the trace records: launches (kernels, draws, copies, barriers, launch\n"
                   "stages), blocks (and shading tasks), warps (and lock events), all (and\n"
                   "register-table writes). At the limit launches are kept first, then blocks\n"
                   "and warps, then register-table writes.\n"
                   "Default: " + a->trace_detail)
        ->type_name("LEVEL")
        ->check(CLI::IsMember({"launches", "blocks", "warps", "all"}));
    cmd.add_option("--vcd", a->vcd_file,
                   "also write the key signals (irq, doorbells, SM busy and blocks, shading array)\n"
                   "as a value change dump for a waveform viewer; not with variants. Default: none")
        ->type_name("FILE");
    add_jobs(cmd, a->jobs, "variants run at once, for a scenario with variants (unused without)");
    add_timeout(cmd, a->timeout,
                "stop the run after SECONDS of host time (each variant's, with variants): what it\n"
                "reached is written with status 'partial' and the exit code is 3. Default: no limit");
    cmd.add_flag("--check-protocol", a->check_protocol,
                 "put a TLM-2.0 base-protocol checker on every connection; a violation fails\n"
                 "the run (exit 1). Results otherwise unchanged. Default: off");
    cmd.add_option("--log", a->log,
                   "print the GPU's sc_report log of the blocks named (cp, wlm, glc, usa, sm, sm[i],\n"
                   "arbiter, arbiter[i]; a LEVEL alone: every block) at LEVEL none, low, medium,\n"
                   "high, full or debug; other blocks stay quiet. Default: no log")
        ->type_name("[BLOCK=]LEVEL,...");
    cmd.add_flag("--quiet", a->quiet,
                 "print no tables on stdout and no progress line on stderr.\n"
                 "Default: the tables, and a progress line when stderr is a terminal");
    add_trace_options(cmd, a->trace);
    return [&cmd, a] { return run_main(cmd, *a); };
}

// --- gpuvp validate -------------------------------------------------------------------------

struct ValidateArgs {
    std::string file;
    GpuArgs gpu;
    std::vector<std::string> sets;
    TraceArgs trace;
};

int validate_main(const ValidateArgs& a) {
    gpuvp::Scenario scenario;
    gpuvp::TraceImportSummary imported;
    bool trace = false;
    TraceArgs checked = a.trace;
    checked.no_solve = true;  // a check of the input: the bodies' solve simulates
    try {
        scenario = load_input(a.file, gpuvp::overrides_of(a.sets), a.gpu, checked, &imported, &trace);
    } catch (const gpuvp::ScenarioError& e) {
        return failed(e.what());
    } catch (const gpuvp::TraceError& e) {
        return failed(e.what());
    }
    if (trace) std::cout << import_line(a.file, imported) << "\n";
    if (trace) import_warnings(a.file, imported);
    uint64_t launches = 0, draw_launches = 0;  // with `instances`, a packet each
    for (const auto& k : scenario.workload.kernels) launches += k.instances;
    for (const auto& d : scenario.workload.draws) draw_launches += d.instances;
    auto of = [](uint64_t n, size_t entries) {
        return n == entries ? std::string() : " (" + std::to_string(n) + " launches)";
    };
    std::cout << a.file << ": ok (" << scenario.workload.kernels.size() << " kernels"
              << of(launches, scenario.workload.kernels.size()) << ", " << scenario.workload.draws.size() << " draws"
              << of(draw_launches, scenario.workload.draws.size()) << ", " << scenario.workload.queues.size() << " queues"
              << (scenario.variants.empty() ? "" : ", " + std::to_string(scenario.variants.size()) + " variants")
              << ")\n";
    return 0;
}

Action setup_validate(CLI::App& cmd) {
    auto a = std::make_shared<ValidateArgs>();
    add_scenario(cmd, a->file);
    add_gpu(cmd, a->gpu);
    add_set(cmd, a->sets, "KEY=VALUE", kSetHelp);
    add_trace_options(cmd, a->trace);
    return [a] { return validate_main(*a); };
}

// --- gpuvp calibrate ------------------------------------------------------------------------

struct CalibrateArgs {
    std::vector<std::string> files;
    std::string out;
    GpuArgs gpu;
    std::vector<std::string> sets;
    unsigned evaluations = gpuvp::CalibrationOptions{}.evaluations;
    uint64_t seed = 1;
    unsigned jobs = 1;
};

int calibrate_main(const CalibrateArgs& a) {
    std::vector<gpuvp::ProfilerTrace> traces;
    try {
        for (const std::string& f : a.files) traces.push_back(gpuvp::read_profiler_trace(f));
    } catch (const gpuvp::TraceError& e) {
        return failed(e.what());
    }
    gpuvp::CalibrationOptions options;
    try {
        options.platform = a.gpu.source();
    } catch (const gpuvp::ScenarioError& e) {
        return failed(e.what());
    }
    options.evaluations = a.evaluations;
    options.seed = a.seed;
    options.jobs = a.jobs;
    if (isatty(2))
        options.progress = [&](unsigned n, double best) {
            std::fprintf(stderr, "\r  evaluation %u/%u, best %.0f ns off   ", n, a.evaluations, best);
        };
    gpuvp::CalibrationResult r;
    try {
        r = gpuvp::calibrate(traces, gpuvp::overrides_of(a.sets), options);
    } catch (const gpuvp::ScenarioError& e) {
        return failed(e.what());
    } catch (const gpuvp::TraceError& e) {
        return failed(e.what());
    } catch (const std::exception& e) {
        return failed(e.what());
    }
    if (isatty(2)) std::fprintf(stderr, "\n");
    std::cout << gpuvp::calibration_table(r);
    for (const std::string& w : gpuvp::calibration_warnings(r)) std::cerr << "gpuvp calibrate: " << w << "\n";
    if (!a.out.empty()) {
        if (!write_file(a.out, gpuvp::calibration_yaml(r, a.files))) return failed("cannot write " + a.out);
        std::cout << "wrote " << a.out << " (use it with gpuvp run TRACE --platform " << a.out << ")\n";
    }
    return 0;
}

Action setup_calibrate(CLI::App& cmd) {
    auto a = std::make_shared<CalibrateArgs>();
    cmd.add_option("TRACE", a->files,
                   "profiler traces: fitted on the first (its even launches; the odd ones held out),\n"
                   "the others only measured with the result")
        ->required()
        ->type_name("FILE...")
        ->check(existing(false));
    cmd.add_option("-o,--output", a->out, "write the fitted values as a platform file for --platform. Default: none")
        ->type_name("FILE");
    add_gpu(cmd, a->gpu);
    add_set(cmd, a->sets, "KEY=VALUE", kSetHelp);
    cmd.add_option("--evaluations", a->evaluations, "simulations at most. Default: " + std::to_string(a->evaluations))
        ->type_name("N")
        ->check(whole_number<unsigned>("a number of simulations", 1));
    cmd.add_option("--seed", a->seed, "the search's seed. Default: 1")->type_name("N")->check(whole_number<uint64_t>("a seed", 0));
    add_jobs(cmd, a->jobs, "simulations at once");
    return [a] { return calibrate_main(*a); };
}

// --- gpuvp import ---------------------------------------------------------------------------

struct ImportArgs {
    std::string file, out;
    GpuArgs gpu;
    TraceArgs trace;
    bool open_loop = false;
    std::string name;
};

int import_main(const ImportArgs& a) {
    std::string yaml;
    gpuvp::TraceImportSummary summary;
    StatusLine status(isatty(2) != 0);
    try {
        const std::string name = std::filesystem::path(a.file).filename().string();
        status.show("reading " + name);
        const std::string text = gpuvp::read_trace_text(a.file);
        const gpuvp::TraceFormat format = gpuvp::trace_format(text);
        if (format == gpuvp::TraceFormat::none) {
            status.clear();
            return failed(a.file + ": " + gpuvp::kNotATrace);
        }
        gpuvp::TraceImportOptions options = import_options(a.trace, &status, name);
        options.platform = a.gpu.source();
        options.mode = a.open_loop ? gpuvp::ReplayMode::open : gpuvp::ReplayMode::closed;
        options.name = a.name;
        gpuvp::ProfilerTrace profile = gpuvp::parse_profiler_trace(text, format, a.file, reading(status, name));
        status.show("importing " + name + ": " + std::to_string(profile.ops.size()) + " kernels and copies into a scenario");
        yaml = gpuvp::trace_scenario_yaml(std::move(profile), options, &summary);
        status.clear();
    } catch (const gpuvp::TraceError& e) {
        status.clear();
        return failed(e.what());
    } catch (const gpuvp::ScenarioError& e) {
        status.clear();
        return failed(e.what());
    }
    if (!write_file(a.out, yaml)) return failed("cannot write " + a.out);
    std::cout << import_line(a.file, summary) << "\nwrote " << a.out << "\n";
    import_warnings(a.file, summary);
    return 0;
}

Action setup_import(CLI::App& cmd) {
    auto a = std::make_shared<ImportArgs>();
    cmd.add_option("TRACE", a->file,
                   "a profiler trace: PyTorch profiler / Kineto JSON (CUDA or ROCm); rocprofv3's\n"
                   "kernel_trace.csv, results.json or rocpd database; Nsight Systems' SQLite export\n"
                   "(nsys export --type sqlite); .gz read directly (docs/replay.md)")
        ->required()
        ->type_name("FILE")
        ->check(existing(false));
    cmd.add_option("-o,--output", a->out, "the scenario file to write (YAML)")->required()->type_name("SCENARIO.yaml");
    add_gpu(cmd, a->gpu);
    add_trace_options(cmd, a->trace);
    cmd.add_flag("--open-loop", a->open_loop,
                 "write host.replay: open (each launch at its measured time, whatever the GPU does).\n"
                 "Default: closed (the host's calls in order, waiting where the trace's host waited)");
    cmd.add_option("--name", a->name, "the scenario's name. Default: the trace's file name")->type_name("NAME");
    return [a] { return import_main(*a); };
}

// --- gpuvp sweep ----------------------------------------------------------------------------

struct SweepArgs {
    std::string file, out_dir, platform, shard;
    std::vector<std::string> sets;
    bool trace = false, quiet = false, resume = false, no_expect = false;
    unsigned jobs = 1;
    double timeout = 0;
    std::shared_ptr<std::string> root = std::make_shared<std::string>();
    SlurmArgs slurm;
};

gpuvp::SlurmOptions slurm_options(const SlurmArgs& s, bool quiet) {
    gpuvp::SlurmOptions o;
    o.sbatch = s.opts;
    o.chunk = s.chunk;
    o.wait = !s.no_wait;
    o.gpuvp = s.gpuvp;
    o.progress = !quiet && isatty(2) != 0;
    return o;
}

int sweep_main(const CLI::App& cmd, const SweepArgs& a) {
    // Each --set with several values (V1,V2,...) is an axis; the others hold for every point.
    gpuvp::Overrides fixed;
    std::vector<gpuvp::SweepAxis> axes;
    gpuvp::sweep_axes(gpuvp::overrides_of(a.sets), fixed, axes);
    if (axes.empty()) return bad_input(&cmd, "sweep wants at least one --set KEY=V1,V2,...");
    gpuvp::SweepOptions o;
    o.out_dir = a.out_dir;
    o.jobs = a.jobs;
    o.trace = a.trace;
    o.no_expect = a.no_expect;
    o.platform_file = a.platform;
    o.timeout_seconds = a.timeout;
    o.progress = !a.quiet && isatty(2) != 0;
    if (!a.shard.empty()) {
        if (a.slurm.slurm) return bad_input(&cmd, "--slurm runs every slice itself: leave --shard to its tasks");
        try {
            gpuvp::parse_shard(a.shard, o.shard, o.shards);
        } catch (const std::exception& e) {
            return bad_input(&cmd, e.what());
        }
    }
    if ((a.resume || a.slurm.slurm) && a.out_dir.empty())
        return bad_input(&cmd, std::string(a.slurm.slurm ? "--slurm" : "--resume") + " needs --out DIR");
    if (!a.out_dir.empty() && !make_dirs(a.out_dir))
        return failed("cannot create " + a.out_dir + ": " + std::strerror(errno));
    o.resume = a.resume;
    o.root = *a.root;
    try {
        if (a.slurm.slurm)
            return gpuvp::sweep_on_slurm({a.file, a.platform, a.out_dir, a.sets, a.timeout, a.trace, a.quiet, a.no_expect},
                                         slurm_options(a.slurm, a.quiet));
        return gpuvp::print_sweep(gpuvp::run_sweep(a.file, fixed, axes, o), a.file, a.out_dir, a.quiet);
    } catch (const gpuvp::ScenarioError& e) {
        return failed(e.what());
    } catch (const gpuvp::SlurmError& e) {
        return failed(e.what());
    } catch (const std::exception& e) {
        return failed(a.file + ": " + e.what());
    }
}

Action setup_sweep(CLI::App& cmd) {
    auto a = std::make_shared<SweepArgs>();
    add_root(cmd, a->root);  // (first: the files' checks look under it)
    add_scenario(cmd, a->file, a->root);
    add_platform(cmd, a->platform, a->root);
    add_set(cmd, a->sets, "KEY=VALUE",
            "with several values (commas at the top level): an axis of the sweep, every\n"
            "point runs once with each value; with one value: holds for every point.\n"
            "KEY is a dotted path, each value YAML. Repeatable; at least one axis.\n"
            "Points: the product of the axes, the first varying slowest")
        ->option_text("KEY=V1,V2,...");
    cmd.add_option("--out", a->out_dir,
                   "write sweep.csv (a row per point and kernel), locks.csv and draws.csv\n"
                   "(when any point has locks or draws), report.html (each metric against each\n"
                   "axis) and point-N/results.json into DIR, created if missing. Default: nothing kept")
        ->type_name("DIR");
    add_jobs(cmd, a->jobs, "points run at once, each in a child process");
    add_timeout(cmd, a->timeout,
                "stop each point's run after SECONDS of host time: the point is reported as timed\n"
                "out (exit 3 when no point did worse). Default: no limit");
    cmd.add_flag("--trace", a->trace, "with --out, also write each point's trace.json. Default: no traces");
    add_no_expect(cmd, a->no_expect, "every point");
    cmd.add_flag("--quiet", a->quiet, "print no tables on stdout. Default: the points, locks and draws tables");
    cmd.add_option("--shard", a->shard,
                   "run only the K-th of N slices of the points (1 <= K <= N), writing their\n"
                   "point-N/ folders; the same command with --resume and without --shard then\n"
                   "writes the CSVs and report.html. Default: every point")
        ->type_name("K/N");
    cmd.add_flag("--resume", a->resume,
                 "with --out: a point whose point-N/exit_code is there (it ended) is not run\n"
                 "again; its results are read. Default: every point runs");
    add_slurm(cmd, a->slurm, "points");
    return [&cmd, a] { return sweep_main(cmd, *a); };
}

// --- gpuvp regress --------------------------------------------------------------------------

struct RegressArgs {
    std::vector<std::string> paths;
    std::string junit, csv, shard;
    gpuvp::RegressOptions options;
    bool quiet = false;
    std::shared_ptr<std::string> root = std::make_shared<std::string>();
    SlurmArgs slurm;
};

// Every scenario under the paths, a process each, N at a time.
int regress_main(const CLI::App& cmd, RegressArgs a) {
    gpuvp::RegressOptions& o = a.options;
    o.progress = isatty(2) && !a.quiet;
    if (!a.shard.empty()) {
        try {
            gpuvp::parse_shard(a.shard, o.shard, o.shards);
        } catch (const std::exception& e) {
            return bad_input(&cmd, e.what());
        }
    }
    if (a.slurm.slurm && !a.shard.empty()) return bad_input(&cmd, "--slurm runs every slice itself: leave --shard to its tasks");
    if (a.slurm.slurm && o.out_dir.empty()) return bad_input(&cmd, "--slurm needs --out DIR");
    if (!o.out_dir.empty() && !make_dirs(o.out_dir))
        return failed("cannot create " + o.out_dir + ": " + std::strerror(errno));
    o.root = *a.root;
    try {
        if (a.slurm.slurm)
            return gpuvp::regress_on_slurm({a.paths, a.junit, a.csv, o.out_dir, o.timeout_seconds, o.check_protocol, a.quiet},
                                           slurm_options(a.slurm, a.quiet));
        const gpuvp::RegressOutput r = gpuvp::run_regress(a.paths, o);
        if (!a.quiet) std::cout << r.table;
        for (const std::string& line : r.failures) std::cerr << "gpuvp: " << line << "\n";  // --quiet or not
        if (!a.junit.empty() && !write_file(a.junit, r.junit)) return failed("cannot write " + a.junit);
        if (!a.csv.empty() && !write_file(a.csv, r.csv)) return failed("cannot write " + a.csv);
        return r.exit_code;
    } catch (const std::exception& e) {
        return failed(e.what());
    }
}

Action setup_regress(CLI::App& cmd) {
    auto a = std::make_shared<RegressArgs>();
    add_root(cmd, a->root);  // (first: the paths' checks look under it)
    cmd.add_option("PATH", a->paths,
                   "scenario files, and folders whose *.yaml files run (sorted, subfolders not\n"
                   "searched); at least one")
        ->required()
        ->check(existing(true, a->root))
        ->type_name("");
    cmd.add_option("--junit", a->junit, "write the results as JUnit XML for CI. Default: none")->type_name("FILE");
    cmd.add_option("--csv", a->csv, "write the results as CSV, a row per scenario. Default: none")->type_name("FILE");
    cmd.add_option("--out", a->options.out_dir,
                   "keep each scenario's output (results.json, trace.json, report.html) in\n"
                   "DIR/<file stem>/, created if missing. Default: nothing kept, no traces")
        ->type_name("DIR");
    add_jobs(cmd, a->options.jobs, "scenarios run at once, each in a child process");
    add_timeout(cmd, a->options.timeout_seconds,
                "stop each scenario's run after SECONDS of host time: the case is reported as\n"
                "'timeout' (a failure). Default: no limit");
    cmd.add_option("--shard", a->shard,
                   "run only the K-th of N slices of the list (1 <= K <= N); gpuvp merge joins\n"
                   "the slices' files. Default: the whole list")
        ->type_name("K/N");
    cmd.add_flag("--check-protocol", a->options.check_protocol,
                 "run each scenario with a TLM-2.0 base-protocol checker on every connection;\n"
                 "a violation fails the scenario. Default: off");
    cmd.add_flag("--quiet", a->quiet,
                 "print no summary table on stdout and no progress lines on stderr.\n"
                 "Default: the table, and progress lines when stderr is a terminal");
    add_slurm(cmd, a->slurm, "scenarios");
    return [&cmd, a] { return regress_main(cmd, *a); };
}

// --- gpuvp collect --------------------------------------------------------------------------

struct CollectArgs {
    std::string dir;
    bool resubmit = false, no_wait = false, quiet = false;
};

// A Slurm batch's outputs, joined once its tasks have run.
int collect_main(const CollectArgs& a) {
    try {
        return gpuvp::collect(a.dir, a.resubmit, !a.no_wait, !a.quiet && isatty(2) != 0, a.quiet);
    } catch (const std::exception& e) {  // (a ScenarioError, a SlurmError: each names its file)
        return failed(e.what());
    }
}

Action setup_collect(CLI::App& cmd) {
    auto a = std::make_shared<CollectArgs>();
    cmd.add_option("DIR", a->dir, "the --out of 'gpuvp sweep --slurm' or 'gpuvp regress --slurm'")
        ->required()
        ->type_name("")
        ->check(existing(true));
    cmd.add_flag("--resubmit-failed", a->resubmit,
                 "submit again the array tasks that ended without their results (failed, timed\n"
                 "out, cancelled, lost with a node), and wait for them: what has a result does\n"
                 "not run again. Default: report them");
    cmd.add_flag("--no-wait", a->no_wait,
                 "say how many points or scenarios have their result and return while tasks\n"
                 "are queued or running. Default: wait for them, then join");
    cmd.add_flag("--quiet", a->quiet, "print no tables on stdout and no progress. Default: as sweep and regress print");
    return [a] { return collect_main(*a); };
}

// --- gpuvp merge ----------------------------------------------------------------------------

struct MergeArgs {
    std::string out;
    std::vector<std::string> inputs;
};

// The shards' JUnit (.xml) or CSV (.csv) files into one.
int merge_main(const CLI::App& cmd, const MergeArgs& a) {
    const std::string& out = a.out;
    const bool xml = out.size() > 4 && out.compare(out.size() - 4, 4, ".xml") == 0;
    const bool csv = out.size() > 4 && out.compare(out.size() - 4, 4, ".csv") == 0;
    if (!xml && !csv) return bad_input(&cmd, "merge writes a .xml (JUnit) or a .csv file, not '" + out + "'");
    std::vector<gpuvp::NamedText> texts;
    for (const std::string& in : a.inputs) {
        if (in.size() < 4 || in.compare(in.size() - 4, 4, xml ? ".xml" : ".csv") != 0)
            return bad_input(&cmd, "merge into " + out + " takes " + (xml ? ".xml" : ".csv") + " files, not '" + in + "'");
        std::ifstream f(in, std::ios::binary);
        if (!f) return failed("cannot read " + in);
        std::ostringstream s;
        s << f.rdbuf();
        texts.push_back({in, s.str()});
    }
    try {
        if (!write_file(out, xml ? gpuvp::merge_junit(texts) : gpuvp::merge_csv(texts)))
            return failed("cannot write " + out);
    } catch (const std::exception& e) {
        return failed(e.what());
    }
    return 0;
}

Action setup_merge(CLI::App& cmd) {
    auto a = std::make_shared<MergeArgs>();
    cmd.add_option("OUT", a->out,
                   "the merged file: .xml merges JUnit files of gpuvp regress (testcases\n"
                   "sorted by file), .csv merges CSV files with the same header")
        ->required()
        ->type_name("");
    cmd.add_option("FILE", a->inputs, "the files to merge, named like OUT (.xml or .csv); at least one")
        ->required()
        ->check(existing(false))
        ->type_name("");
    return [&cmd, a] { return merge_main(cmd, *a); };
}

// --- gpuvp params ---------------------------------------------------------------------------

Action setup_params(CLI::App&) {
    return [] {
        std::cout << gpuvp::gpu_params_markdown();
        return 0;
    };
}

// --- gpuvp presets --------------------------------------------------------------------------

Action setup_presets(CLI::App&) {
    return [] {
        std::cout << gpuvp::presets_markdown();
        return 0;
    };
}

// --- gpuvp stats ----------------------------------------------------------------------------

Action setup_stats(CLI::App&) {
    return [] {
        std::cout << gpuvp::stats_markdown();
        return 0;
    };
}

// --- gpuvp report ---------------------------------------------------------------------------

int report_main(const CLI::App& cmd, const std::string& dir) {
    if (!is_dir(dir)) return bad_input(&cmd, dir + ": no such folder");
    if (!std::ifstream(dir + "/results.json")) {
        if (std::ifstream(dir + "/sweep.csv"))  // a sweep's folder: the sweep writes its page from its points
            return bad_input(&cmd, dir + " is a sweep's folder (sweep.csv): 'gpuvp sweep SCENARIO --set ... --out " + dir +
                                       " --resume', with the sweep's own arguments, writes its report.html again "
                                       "from the points there without running them");
        return bad_input(&cmd, dir + " holds no results.json: write one with 'gpuvp run SCENARIO --out " + dir + "'");
    }
    std::string error;
    if (!gpuvp::write_report(dir, &error)) return failed(error);  // (results.json unreadable: what and where)
    std::cout << "wrote " << dir << "/report.html\n";
    return 0;
}

Action setup_report(CLI::App& cmd) {
    auto dir = std::make_shared<std::string>();
    cmd.add_option("DIR", *dir,
                   "a folder that 'gpuvp run --out DIR' wrote: its results.json, trace.json and\n"
                   "variants/NAME/trace.json (those present) make the page")
        ->required()
        ->type_name("");
    return [&cmd, dir] { return report_main(cmd, *dir); };
}

// --- gpuvp help -----------------------------------------------------------------------------

// The list of commands (`topic` empty), or one command's arguments as `gpuvp CMD --help` gives them.
int show_help(const CLI::App& gpuvp, const std::string& topic) {
    if (topic.empty()) {
        std::cout << gpuvp.get_formatter()->make_help(&gpuvp, gpuvp.get_name(), CLI::AppFormatMode::Normal);
        return 0;
    }
    for (const CLI::App* c : gpuvp.get_subcommands({}))
        if (c->get_name() == topic) {
            std::cout << c->help(gpuvp.get_name());
            return 0;
        }
    return bad_input(gpuvp.get_subcommand("help"), "no command '" + topic + "'");
}

// CLI11 takes a command's name for that command wherever it stands, so `gpuvp help CMD` is
// read by sc_main before CLI11 parses: here only `gpuvp help` and its --help arrive.
Action setup_help(CLI::App& cmd) {
    cmd.add_option("CMD", "the command to describe, as 'gpuvp CMD --help' does. Default: the list of commands")
        ->type_name("");
    return [&cmd] { return show_help(*cmd.get_parent(), ""); };
}

// The commands, in the order `gpuvp help` lists them. A command is a name, a line for the
// list, and a setup that declares its arguments on its CLI::App and returns what it does.
struct Command {
    const char* name;
    const char* summary;
    Action (*setup)(CLI::App& cmd);
};

const Command kCommands[] = {
    {"run", "run one scenario or replay a profiler trace: the launch breakdown on stdout, results, trace and\n"
            "report with --out", setup_run},
    {"validate", "check a scenario file (or a profiler trace) without running it, and count its kernels, draws and queues",
     setup_validate},
    {"import", "turn a profiler trace (Kineto, rocprofv3, rocpd, nsys SQLite) into a scenario file", setup_import},
    {"calibrate", "fit the front end's latencies to what profiler traces measured; a platform file", setup_calibrate},
    {"sweep", "run a scenario at every point of a grid of --set values; a table and a CSV", setup_sweep},
    {"regress", "run every scenario under some paths: a summary table, JUnit XML and CSV", setup_regress},
    {"merge", "join the JUnit or CSV files of regress shards into one", setup_merge},
    {"collect", "wait for a sweep or regression handed to Slurm (--slurm) and join its outputs", setup_collect},
    {"params", "print every GPU parameter: hierarchical name, type, default, range (Markdown)", setup_params},
    {"presets", "print every platform preset of a real GPU: its values and their sources (Markdown)", setup_presets},
    {"stats", "print every member of results.json and every expectation metric: type, unit, meaning (Markdown)",
     setup_stats},
    {"report", "write DIR/report.html again from the files 'gpuvp run --out DIR' left there", setup_report},
    {"help", "list the commands, or with CMD describe that command's arguments", setup_help},
};

// A parse error of CLI11 (unknown option, missing value, a value its check refused, ...), or
// its request for help or the version: the exit code, CLI11's own codes mapped to ours.
int parse_error(const CLI::App& gpuvp, const CLI::ParseError& e, const std::vector<std::string>& args) {
    if (e.get_exit_code() == 0) return gpuvp.exit(e);  // --help, --version: printed on stdout
    const std::vector<CLI::App*> chosen = gpuvp.get_subcommands();
    const CLI::App* cmd = chosen.empty() ? &gpuvp : chosen.front();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        // CLI11 lists what it did not take, last first; name the first one as it was typed.
        const std::vector<std::string> left = gpuvp.remaining(true);
        for (const std::string& a : args)
            if (std::find(left.begin(), left.end(), a) != left.end()) {
                const bool option = a.size() > 1 && a[0] == '-';
                return bad_input(cmd, (option ? "unknown option '" : "unexpected argument '") + a + "'");
            }
    }
    return bad_input(cmd, e.what());
}

}  // namespace

// SystemC's reports (the --log lines, SystemC's own warnings) on stderr, apart from the tables
// on stdout; everything else as SystemC's own handler does it.
void report_to_stderr(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (actions & sc_core::SC_DISPLAY) std::cerr << sc_core::sc_report_compose_message(report) << std::endl;
    sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
}

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(report_to_stderr);
    CLI::App gpuvp("gpuvp: a SystemC/TLM-2.0 virtual platform of a GPU's dispatch front end.", "gpuvp");
    gpuvp.set_help_flag("-h,--help", "print this help and exit");
    gpuvp.set_version_flag("--version", "gpuvp " GPUVP_VERSION, "print the version and exit");
    gpuvp.footer(kExitCodes);
    gpuvp.get_formatter()->column_width(32);
    gpuvp.get_formatter()->label("SUBCOMMAND", "COMMAND");
    gpuvp.get_formatter()->label("Positionals", "Arguments");
    gpuvp.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // the last one given wins
    gpuvp.require_subcommand(1);
    std::map<const CLI::App*, Action> actions;
    for (const Command& c : kCommands) {
        CLI::App* cmd = gpuvp.add_subcommand(c.name, c.summary)->group("Commands");
        actions[cmd] = c.setup(*cmd);
    }

    if (argc < 2) {
        std::cerr << gpuvp.get_formatter()->make_help(&gpuvp, gpuvp.get_name(), CLI::AppFormatMode::Normal);
        return bad_input(&gpuvp, "no command given");
    }
    // A word where the command goes that names none: said as such, not as an unexpected argument.
    const std::string first = argv[1];
    if (!first.empty() && first[0] == '-' && !gpuvp.get_option_no_throw(first.substr(0, first.find('='))))
        return bad_input(&gpuvp, "unknown option '" + first + "'");  // not CLI11's "a subcommand is required"
    if (first.empty() || first[0] != '-') {
        const auto commands = gpuvp.get_subcommands({});
        if (std::none_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->get_name() == first; }))
            return bad_input(&gpuvp, "unknown command '" + first + "'");
    }
    if (first == "help" && argc > 2 && argv[2][0] != '-') {
        if (argc > 3)
            return bad_input(gpuvp.get_subcommand("help"), "one command at a time, not '" + std::string(argv[3]) + "' too");
        return show_help(gpuvp, argv[2]);
    }
    try {
        gpuvp.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return parse_error(gpuvp, e, std::vector<std::string>(argv + 1, argv + argc));
    }
    return actions.at(gpuvp.get_subcommands().front())();
}
