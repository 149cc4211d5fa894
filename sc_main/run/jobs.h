// Scenario runs in child processes of their own, N at a time (batch/batch.h): what sweeps,
// regressions, calibration and a scenario's variants share.
#pragma once
#include "sc_main/batch/batch.h"
#include "sc_main/record/trace_record.h"
#include "sc_main/scenario/scenario.h"

#include <functional>
#include <string>
#include <vector>

namespace gpuvp {

struct BatchJob {
    const Scenario* scenario;
    std::string dir;      // the run's output goes here, as `gpuvp run --out` writes it
    bool trace = false;   // with trace.json
    bool report = false;  // with report.html
    bool table = false;   // with table.txt: the breakdown `gpuvp run` prints
    uint64_t trace_limit = 250'000;  // as RunOptions::trace_limit
    trace::Detail trace_detail = trace::Detail::all;  // as RunOptions::trace_detail
    bool check_protocol = false;     // as RunOptions::check_protocol
    double timeout_seconds = 0;      // as RunOptions::timeout_seconds: the run stops there (exit 3)
};

// Runs every job, `parallel` at a time, and returns each one's exit code: the run's (0 ok, 1 an
// expectation or a kernel failed, 3 stopped at its timeout), 2 when it could not run, 128 + N
// when signal N killed it. `done(i, code)` is called as each job ends, in the order they end.
std::vector<int> run_batch(const std::vector<BatchJob>& jobs, unsigned parallel,
                           const std::function<void(size_t, int)>& done = {});

}  // namespace gpuvp
