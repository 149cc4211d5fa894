// A sweep's axes and its points' outcomes, as the sweep's page and its CSV files read them.
#pragma once
#include <string>
#include <vector>

namespace gpuvp {

struct RunRecord;

// One axis: a scenario key and the values the sweep gives it (`--set KEY=V1,V2,...`).
struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
};

// One point of the sweep.
struct SweepPoint {
    std::vector<std::string> values;    // one per axis
    int exit_code = 0;                  // 0 passed, 1 failed, 2 could not run, 3 timed out
    std::vector<std::string> problems;  // why it failed (empty when it passed)
    const RunRecord* results = nullptr; // its results.json as read; null: it did not run
};

}  // namespace gpuvp
