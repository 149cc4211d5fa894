// report.html: one self-contained page (no network) that shows a run at a glance: the
// timeline per SM, the launch stages per kernel, lock waits by priority, the scalar pools,
// the shading array's core types over time, for a replayed trace the model against the
// hardware, and for a scenario with variants the A/B comparison side by side. Built from a run's
// record and its trace records. A sweep's report.html (render_sweep_report): each metric against
// each axis of the sweep, from its points' records.
#pragma once
#include <string>
#include <vector>

namespace gpuvp {

struct RunRecord;
struct TraceRecord;
struct RunOutput;
struct SweepAxis;  // sc_main/sweep/sweep.h: a key and its values

// The page for `results` (with its `variants` when the scenario has them). `traces[i]` is
// variant i's trace (traces[0] the run's own without variants); a null pointer, or fewer traces
// than variants, where a run has no trace.
std::string render_report(const RunRecord& results, const std::vector<const TraceRecord*>& traces);

// Writes DIR/report.html. Without `run`: from DIR/results.json and DIR/trace.json or
// DIR/variants/<name>/trace.json (those present), each parsed once. With `run` (the output
// write_run_output wrote those files from): from its record and trace records in memory, the
// same page. False, with `error` set ("DIR/results.json: what is wrong"), when it cannot.
bool write_report(const std::string& dir, std::string* error = nullptr, const RunOutput* run = nullptr);

// --- a sweep's page (`gpuvp sweep --out DIR`: DIR/report.html)

// One point of the sweep.
struct SweepReportPoint {
    std::vector<std::string> values;    // one per axis
    int exit_code = 0;                  // 0 passed, 1 failed, 2 could not run, 3 timed out
    std::vector<std::string> problems;  // why it failed (empty when it passed)
    const RunRecord* results = nullptr; // its results.json as read; null: it did not run
};

// The page of a sweep of scenario `name` (from `file`): for each kernel, lock priority, draw and
// the run, each metric against each axis (a line per combination of the other axes' values,
// failing points marked), and the table of every point and kernel (sweep.csv's rows).
std::string render_sweep_report(const std::string& name, const std::string& file,
                                const std::vector<SweepAxis>& axes, const std::vector<SweepReportPoint>& points);

}  // namespace gpuvp
