// A sweep: one scenario run at every point of the product of `--set KEY=V1,V2,...` axes, each
// point in a child process of its own (SystemC elaborates once per process), N at a time.
#pragma once
#include "sc_main/record/sweep_record.h"
#include "sc_main/scenario/scenario.h"

#include <functional>
#include <string>
#include <vector>

namespace gpuvp {

struct SweepOptions {
    std::string out_dir;  // sweep.csv, locks.csv (if any warp took a lock), draws.csv (if any draw),
                          // report.html (render_sweep_report) and point-N/results.json;
                          // empty: nothing written
    unsigned jobs = 1;    // points run at once
    bool trace = false;   // trace.json for every point
    bool no_expect = false;  // the points without the file's expectations (drop_expectations)
    std::string platform_file;  // --platform FILE: laid over the scenario's platform at every point; empty: none
    double timeout_seconds = 0;  // each point's host-time limit (RunOptions::timeout_seconds); 0: none
    bool progress = false;       // a line on stderr as each point ends: done of total, running, failed, time left
    // Run only the points at positions shard-1, shard-1+shards, ... (regress's slices). With
    // shards > 1 nothing but the points' folders is written: `gpuvp collect DIR` joins them.
    unsigned shard = 1, shards = 1;
    // With out_dir: a point whose point-N/exit_code exists (written as each point ends) is not
    // run again; its results are read from its folder.
    bool resume = false;
    // A point without a result (no exit_code) is not run but reported, with this reason (what
    // became of its Slurm task): `gpuvp collect`. Empty: missing points run.
    std::function<std::string(size_t point)> missing;
    // Read the scenario and platform files from their copies under this folder (shared_copy),
    // naming them as given. Empty: as given.
    std::string root;
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
    bool joined = true;      // the CSVs, table and report cover every point (false for one shard of several)
    int exit_code = 0;  // 0 all ok, 1 a point failed an expectation or a kernel, 3 a point timed out, 2 a point could not run
};

// Splits "V1,V2,..." at the commas outside brackets, braces and quotes ("[1,2],[3,4]" is two
// values, "'a,b'" one).
std::vector<std::string> split_values(const std::string& text);

// The --sets of a sweep: each with several values (V1,V2,...) an axis, the others `fixed`.
void sweep_axes(const Overrides& sets, Overrides& fixed, std::vector<SweepAxis>& axes);

// The points: the product of the axes' values, the first axis slowest.
std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes);

// Loads (and so checks) every point; returns how many. Bad input throws ScenarioError.
size_t check_sweep(const std::string& file, const Overrides& fixed, const std::vector<SweepAxis>& axes,
                   const std::string& platform_file);

// What `gpuvp sweep` prints of `s`: the tables and the summary on stdout (not with `quiet`), what
// failed on stderr (always); `out_dir` as the user named it. Returns s.exit_code.
int print_sweep(const SweepOutput& s, const std::string& file, const std::string& out_dir, bool quiet);

// Every point is loaded (and so checked) before any runs: bad input throws ScenarioError.
SweepOutput run_sweep(const std::string& file, const Overrides& fixed, const std::vector<SweepAxis>& axes,
                      const SweepOptions& options);

}  // namespace gpuvp
