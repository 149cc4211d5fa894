// One run of a scenario: build the platform, simulate, and produce results.json, trace.json
// and the launch breakdown table. One elaboration per process: call it once per process.
#pragma once
#include "platform/scenario.h"

#include <functional>
#include <string>

namespace gpuvp {

// How far a run has come, for a progress line.
struct Progress {
    double sim_ns = 0;
    size_t kernels_done = 0, kernels = 0, draws_done = 0, draws = 0;
};

struct RunOptions {
    bool trace = true;
    uint64_t trace_limit = 250'000;  // trace events kept at most: about 0.8 GB of host memory at most
    bool vcd = false;                // also a VCD of the key signals (RunOutput::vcd)
    // Called about every `progress_seconds` of host time while the run goes on, and once at its
    // end. The run then goes in slices of simulated time; the results are the same.
    std::function<void(const Progress&)> progress;
    double progress_seconds = 0.25;
};

struct RunOutput {
    std::string results;  // results.json text
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
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace gpuvp
