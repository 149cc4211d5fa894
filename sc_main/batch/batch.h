// Child processes N at a time (SystemC elaborates once per process: every run of a sweep, a
// regression or a scenario's variants has a process of its own), their exit codes and progress,
// and a file's copy in a shared directory. What a child does is its caller's (run/jobs.h: a
// scenario's run); this folder knows no scenario.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace gpuvp {

// Runs child(i) for every i < count in a child process of its own, `parallel` at a time, and
// returns each one's exit code: child(i)'s return value, 2 when it threw, 128 + N when signal N
// killed it. `done(i, code)` is called as each child ends, in the order they end.
std::vector<int> run_children(size_t count, unsigned parallel, const std::function<int(size_t)>& child,
                              const std::function<void(size_t, int)>& done = {});

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

}  // namespace gpuvp
