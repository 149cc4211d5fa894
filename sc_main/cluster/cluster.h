// `gpuvp sweep --slurm`, `gpuvp regress --slurm` and `gpuvp collect DIR` (docs/cluster.md): a
// sweep's points or a regression's cases handed to Slurm through a shared directory, waited for,
// and joined into the outputs a local run writes (slurm.h does the talking to Slurm).
#pragma once
#include "sc_main/cluster/slurm.h"
#include "sc_main/regress/regress.h"

#include <string>
#include <vector>

namespace gpuvp {

// A sweep's arguments, as `gpuvp sweep` took them.
struct SweepRequest {
    std::string file, platform, out_dir;
    std::vector<std::string> sets;  // KEY=VALUE, as given
    double timeout_seconds = 0;
    bool trace = false, quiet = false, no_expect = false;
};

// A regression's arguments, as `gpuvp regress` took them.
struct RegressRequest {
    std::vector<std::string> paths;
    std::string junit, csv, out_dir;
    double timeout_seconds = 0;
    bool check_protocol = false, quiet = false;
};

// This program's path (/proc/self/exe): what the tasks run unless --slurm-gpuvp names another.
std::string this_program();

// Each returns the command's exit code, having said on stderr what went wrong; bad input
// (ScenarioError, a batch of another kind in the directory) throws std::runtime_error.
int sweep_on_slurm(const SweepRequest& r, const SlurmOptions& o);
int regress_on_slurm(const RegressRequest& r, const SlurmOptions& o);
// `gpuvp collect DIR`: waits for the batch's tasks still queued or running (unless !wait: then
// says where they stand and returns 0), resubmits those that left no result when asked, and
// writes the joined outputs.
int collect(const std::string& dir, bool resubmit, bool wait, bool progress, bool quiet);

}  // namespace gpuvp
