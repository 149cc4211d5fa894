// One run of a scenario: build the platform, simulate, and produce results.json, trace.json
// and the launch breakdown table. One elaboration per process: call it once per process.
#pragma once
#include "sc_main/record/run_record.h"
#include "sc_main/record/trace_record.h"
#include "sc_main/scenario/scenario.h"

#include <nlohmann/json.hpp>
#include <systemc>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

// How far a run has come, for a progress line.
struct Progress {
    double sim_ns = 0;
    size_t kernels_done = 0, kernels = 0, draws_done = 0, draws = 0;
};

struct RunOptions {
    RunOptions(bool trace_events = true) : trace(trace_events) {}
    bool trace = true;
    uint64_t trace_limit = 250'000;  // trace events kept at most: about 0.5 KB of host memory each (docs/limits.md)
    trace::Detail trace_detail = trace::Detail::all;  // the events recorded (`--trace-detail`)
    bool vcd = false;                // also a VCD of the key signals (RunOutput::vcd)
    // A TLM-2.0 base-protocol checker on every connection of the platform; what they see goes
    // to results.json `protocol`, and a violation fails the run.
    bool check_protocol = false;
    // The GPU's sc_report log, per block (GpuConfig::log); by default nothing (`gpuvp run --log`).
    std::map<std::string, int> log{{"*", sc_core::SC_NONE}};
    // Called about every `progress_seconds` of host time while the run goes on, and once at its
    // end. The run then goes in slices of simulated time; the results are the same.
    std::function<void(const Progress&)> progress;
    double progress_seconds = 0.25;
    // Called as the run, its simulation over, builds each of its outputs ("the results", "the
    // trace"), for a progress line.
    std::function<void(const char* step)> step;
    // Host seconds the run may take (0: no limit; `gpuvp run --timeout`). Past it the run stops
    // at the end of its current slice of simulated time: its results say what it reached, with
    // status `partial`, and its exit code is 3. The run goes in slices as with `progress`.
    double timeout_seconds = 0;
};

// A variant's own output, in a run of a scenario with `variants:`.
struct VariantOutput {
    std::string name;
    std::string results;  // its results.json text
    std::shared_ptr<const RunRecord> record;  // what it was written from (null: the child died first)
    std::string trace;    // its trace.json text (empty without trace)
    std::shared_ptr<const TraceRecord> trace_record;  // what `trace` was written from (null without)
};

struct RunOutput {
    std::string results;  // results.json text (with variants: the first's, with every variant's)
    std::shared_ptr<const RunRecord> record;  // what `results` was written from
    std::string trace;    // trace.json text (empty without trace)
    std::shared_ptr<const TraceRecord> trace_record;  // what `trace` was written from (null without trace)
    std::string vcd;      // the key signals as a VCD (empty unless RunOptions::vcd)
    std::string table;    // the launch-latency breakdown for people
    bool ok = false;                 // status "ok"
    bool timed_out = false;          // stopped at RunOptions::timeout_seconds: status "partial"
    bool expectations_passed = true;
    int exit_code = 0;               // 0 ok, 1 an expectation (or an unexpected kernel error) failed, 3 timed out
    double host_seconds = 0;
    double sim_end_ns = 0;
    uint64_t warp_instructions = 0;
    uint64_t kernels = 0;
    uint64_t lock_acquisitions = 0;  // M2
    uint64_t shading_tasks = 0;      // M4: vertex and pixel tasks the shading array ran
    std::vector<VariantOutput> variants;  // with `variants:`, each variant's, in file order
};

// One run of one scenario, in this process. A scenario with variants: see run_variants.
RunOutput run_scenario(const Scenario& scenario, const RunOptions& options = {});

// A scenario's run whatever it holds: with `variants:`, each variant runs in a child process
// (`parallel` at a time) and their results are joined, with the comparisons across variants
// checked; otherwise run_scenario.
RunOutput run_variants(const Scenario& scenario, const RunOptions& options = {}, unsigned parallel = 1);

// What `--out DIR` holds: results.json, trace.json (when traced), variants/NAME/ with each
// variant's results.json and trace.json, and report.html when `report`. False, with `error`
// set, when something cannot be written. `written`: the files written, as paths within DIR.
// `writing`: called with each file's path within DIR before it is written (report.html: before the
// page is drawn), for a progress line.
bool write_run_output(const std::string& dir, const RunOutput& output, bool report, std::string* error,
                      std::vector<std::string>* written = nullptr,
                      const std::function<void(const std::string&)>& writing = {});

// A value an expectation names: an operand of a comparison, found in a run's record as
// results.json holds it. null when the results have no such value.
nlohmann::ordered_json results_value(const RunRecord& results, const ExpectOperand& operand);
// The value a bound (not a comparison) checks: a metric of the run, a kernel, a draw or a warp
// priority, or a path.
nlohmann::ordered_json expectation_value(const RunRecord& results, const Expectation& e);
// Whether a `compare` expectation holds for its two values (A OP F * B); false unless both are numbers.
bool compare_holds(const Expectation& e, const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

// The table `gpuvp run` prints: the launch breakdown, draws, the protocol summary, a hang.
std::string console_table(const RunRecord& r);

}  // namespace gpuvp
