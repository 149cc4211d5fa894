// Scenario runs in child processes of their own (SystemC elaborates once per process), N at a
// time: what sweeps, regressions and a scenario's variants share.
#pragma once
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
    bool check_protocol = false;     // as RunOptions::check_protocol
    double timeout_seconds = 0;      // as RunOptions::timeout_seconds: the run stops there (exit 3)
};

// Runs every job, `parallel` at a time, and returns each one's exit code: the run's (0 ok, 1 an
// expectation or a kernel failed, 3 stopped at its timeout), 2 when it could not run, 128 + N
// when signal N killed it. `done(i, code)` is called
// as each job ends, in the order they end.
std::vector<int> run_batch(const std::vector<BatchJob>& jobs, unsigned parallel,
                           const std::function<void(size_t, int)>& done = {});

// The worse of two runs' exit codes, as a batch reports its worst: 0 ok, then 1 failed, 3
// stopped at its timeout, 2 could not run (128 + N, killed by signal N, counts as 2).
int worse_exit(int a, int b);

// Progress of a batch as a line ends it: "[3/10] 2 running, 1 failed, about 12 s left" (the
// time left from the mean so far), for `done` to print after what it says of the job.
std::string batch_progress(size_t done, size_t total, size_t failed, unsigned parallel, double elapsed_seconds);
// ", about N s left" at the mean pace so far: `done` of `total` after `elapsed_seconds`; empty
// before the first or after the last.
std::string time_left(size_t done, size_t total, double elapsed_seconds);

// Where a file named `typed` (as the user gave it, relative to where they ran the command or
// absolute) has its copy under `root`, a shared directory: root/ + the path made lexically normal,
// without its leading '/', each ".." as "__up__" (so that no copy lands outside root). An empty
// root (no shared directory) or an empty name (no file): `typed` itself.
std::string shared_copy(const std::string& root, const std::string& typed);

// Writes `text` to `path` through a temporary file beside it and a rename: a reader sees the whole
// file or none. False (errno set) when it cannot.
bool write_file_atomically(const std::string& path, const std::string& text);
// A whole file's bytes; false when it cannot be opened.
bool read_file(const std::string& path, std::string& text);

// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

}  // namespace gpuvp
