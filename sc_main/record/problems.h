// What failed in a run, a line each, as `gpuvp run` prints it on stderr and `regress` and
// `sweep` show it beside a case or a point: each failed expectation (its line in the scenario
// file, what it bounds, the value found and the bound), each kernel and draw not ok, each
// rejected packet, the watchdog's stop, protocol violations, a variant that did not finish.
#pragma once
#include "sc_main/record/run_record.h"

#include <string>
#include <vector>

namespace gpuvp {

struct RunProblem {
    int line = 0;      // a failed expectation's line in the scenario file; 0 for the rest
    std::string text;  // "kernel k response_ns = 812.5, wanted <= 500.0", "kernel k: memory fault at 0x..."
    // As one line: "expectation (line 39): kernel k ..." or the text alone.
    std::string line_text() const { return line ? "expectation (line " + std::to_string(line) + "): " + text : text; }
};

struct RunProblems {
    std::vector<RunProblem> problems;
    int expectations_passed = 0, expectations_failed = 0;
    std::vector<std::string> lines() const {  // each as line_text()
        std::vector<std::string> out;
        for (const RunProblem& p : problems) out.push_back(p.line_text());
        return out;
    }
};

RunProblems run_problems(const RunRecord& r);

// The worse of two runs' exit codes, as a batch reports its worst: 0 ok, then 1 failed, 3
// stopped at its timeout, 2 could not run (128 + N, killed by signal N, counts as 2).
int worse_exit(int a, int b);

}  // namespace gpuvp
