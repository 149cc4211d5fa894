// One run of a scenario: build the platform, simulate, and produce results.json, trace.json
// and the launch breakdown table. One elaboration per process: call it once per process.
#pragma once
#include "platform/scenario.h"

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
};

// A variant's own output, in a run of a scenario with `variants:`.
struct VariantOutput {
    std::string name;
    std::string results;  // its results.json text
    std::string trace;    // its trace.json text (empty without trace)
};

struct RunOutput {
    std::string results;  // results.json text (with variants: the first's, with every variant's)
    std::shared_ptr<const nlohmann::ordered_json> document;  // what `results` was written from (the report reads it)
    std::string trace;    // trace.json text (empty without trace)
    std::string vcd;      // the key signals as a VCD (empty unless RunOptions::vcd)
    std::string table;    // the launch-latency breakdown for people
    bool ok = false;                 // status "ok"
    bool expectations_passed = true;
    int exit_code = 0;               // 0 ok, 1 an expectation (or an unexpected kernel error) failed
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
// set, when something cannot be written.
bool write_run_output(const std::string& dir, const RunOutput& output, bool report, std::string* error);

// A value an expectation names: an operand of a comparison, read from a results.json.
// null when the results have no such number.
nlohmann::ordered_json results_value(const nlohmann::ordered_json& results, const ExpectOperand& operand);
// Whether a `compare` expectation holds for its two values (A OP F * B); false unless both are numbers.
bool compare_holds(const Expectation& e, const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

}  // namespace gpuvp
