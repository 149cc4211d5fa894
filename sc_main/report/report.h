// report.html: one self-contained page (no network) that shows a run at a glance: the
// timeline per SM, the launch stages per kernel, lock waits by priority, the scalar pools,
// the shading array's core types over time, for a replayed trace the model against the
// hardware, and for a scenario with variants the A/B comparison side by side. Built from a run's
// record and its trace records. A sweep's report.html (render_sweep_report): each metric against
// each axis of the sweep, from its points' records.
#pragma once
#include "sc_main/record/sweep_record.h"

#include <string>
#include <vector>

namespace gpuvp {

struct RunRecord;
struct TraceRecord;

// The page for `results` (with its `variants` when the scenario has them). `traces[i]` is
// variant i's trace (traces[0] the run's own without variants); a null pointer, or fewer traces
// than variants, where a run has no trace.
std::string render_report(const RunRecord& results, const std::vector<const TraceRecord*>& traces);

// A trace for the page: its record, or the trace.json text it was written as (a variant's, from
// its child process; parsed once), or neither (a run without a trace).
struct ReportTrace {
    const TraceRecord* record = nullptr;
    const std::string* text = nullptr;
};

// Writes DIR/report.html from `results` and `traces` (traces[i] variant i's, in results'
// `variants` order; without variants the run's own), as write_run_output wrote them: the page the
// files would give. False, with `error` set, when it cannot be written.
bool write_report(const std::string& dir, const RunRecord& results, const std::vector<ReportTrace>& traces,
                  std::string* error = nullptr);
// Writes DIR/report.html from DIR/results.json and DIR/trace.json or DIR/variants/<name>/trace.json
// (those present), each parsed once. False, with `error` set ("DIR/results.json: what is
// wrong"), when it cannot.
bool write_report(const std::string& dir, std::string* error = nullptr);

// --- a sweep's page (`gpuvp sweep --out DIR`: DIR/report.html)

// The page of a sweep of scenario `name` (from `file`): for each kernel, lock priority, draw and
// the run, each metric against each axis (a line per combination of the other axes' values,
// failing points marked), and the table of every point and kernel (sweep.csv's rows).
std::string render_sweep_report(const std::string& name, const std::string& file,
                                const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points);

}  // namespace gpuvp
