// A sweep: one scenario run at every point of the product of `--set KEY=V1,V2,...` axes, each
// point in a child process of its own (SystemC elaborates once per process), N at a time.
#pragma once
#include "sc_main/scenario/scenario.h"

#include <string>
#include <vector>

namespace gpuvp {

struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
};

struct SweepOptions {
    std::string out_dir;  // sweep.csv, locks.csv (if any warp took a lock), draws.csv (if any draw),
                          // report.html (render_sweep_report) and point-N/results.json;
                          // empty: nothing written
    unsigned jobs = 1;    // points run at once
    bool trace = false;   // trace.json for every point
    std::string platform_file;  // --platform FILE: laid over the scenario's platform at every point; empty: none
    double timeout_seconds = 0;  // each point's host-time limit (RunOptions::timeout_seconds); 0: none
    bool progress = false;       // a line on stderr as each point ends: done of total, running, failed, time left
};

struct SweepOutput {
    std::string csv;        // one row per point and kernel
    std::string locks_csv;  // M2: one row per point and warp priority; empty when no warp took a lock
    std::string draws_csv;  // M4: one row per point and draw, with the shading array's totals; empty without draws
    std::string table;  // the same for people
    // What failed, a line per problem of each failing point ("platform.sms=4: kernel k: ..."),
    // in point order; empty when every point passed.
    std::vector<std::string> failures;
    size_t points = 0, failed_points = 0;
    int exit_code = 0;  // 0 all ok, 1 a point failed an expectation or a kernel, 3 a point timed out, 2 a point could not run
};

// Splits "V1,V2,..." at the commas outside brackets, braces and quotes ("[1,2],[3,4]" is two
// values, "'a,b'" one).
std::vector<std::string> split_values(const std::string& text);

// Every point is loaded (and so checked) before any runs: bad input throws ScenarioError.
SweepOutput run_sweep(const std::string& file, const Overrides& fixed, const std::vector<SweepAxis>& axes,
                      const SweepOptions& options);

}  // namespace gpuvp
