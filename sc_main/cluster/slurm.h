// Sweeps and regressions on a Slurm cluster (docs/cluster.md): the points (or cases) go to Slurm
// as one job array, each array task running its slice (`--shard K/N`) of the same command through
// a shared directory; the submitter waits, with progress from squeue, or returns at once, and
// `gpuvp collect DIR` joins the slices later. What a batch is stays in DIR/slurm/batch.json, so
// that a collect, a resubmission of the tasks that left no result, or the same command run again
// after an interruption, carries on from DIR.
#pragma once
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp {

// What went wrong with a batch (sbatch refused it, batch.json cannot be read, DIR holds another
// batch): the words say it all, no file prefix needed.
struct SlurmError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What `--slurm` was asked for on the command line.
struct SlurmOptions {
    std::vector<std::string> sbatch;  // --slurm-opt: more sbatch options, as words
    size_t chunk = 0;                 // points (cases) per array task; 0: one, or as many as keep 1000 tasks
    bool wait = true;                 // wait for the tasks and join their outputs; false: return once submitted
    std::string gpuvp;                // the program the tasks run (the nodes must reach it at this path)
    bool progress = false;            // a line on stderr as the counts change while waiting
};

// A batch handed to Slurm, as DIR/slurm/batch.json holds it.
struct SlurmBatch {
    std::string kind;                  // "sweep" or "regress"
    std::string dir;                   // the shared directory, absolute (the --out DIR)
    std::string gpuvp;                 // the program the tasks run
    std::vector<std::string> sbatch;   // the user's sbatch options
    std::vector<std::string> task;     // a task's gpuvp arguments; the job script adds --shard K/N (and, for
                                       // regress, the shard's --junit and --csv)
    size_t items = 0;                  // points or cases
    unsigned shards = 1;               // array tasks: item i is in task i % shards
    std::vector<std::string> jobs;     // the job ids submitted, oldest first
    std::vector<std::vector<unsigned>> job_tasks;  // each job's array tasks
    std::map<std::string, std::string> text;                 // what the command needs again to join (file, platform, junit, ...)
    std::map<std::string, std::vector<std::string>> lists;   // (sets, paths)
    double timeout_seconds = 0;
    bool flag = false;                 // sweep: --trace; regress: --check-protocol
};

// DIR/slurm, and the files in it.
std::string slurm_dir(const std::string& dir);
// batch.json's text, and a batch from it; throws SlurmError naming `name` and what is wrong (not
// JSON, a member missing or of the wrong type, a value out of its range).
std::string batch_text(const SlurmBatch& b);
SlurmBatch parse_batch(const std::string& text, const std::string& name);
// The batch in DIR, or none (false) when DIR holds no batch.json; throws SlurmError naming the
// file and what is wrong when it cannot be read.
bool read_batch(const std::string& dir, SlurmBatch& out);
void write_batch(const SlurmBatch& b);

// Copies each file (named as the user gave it) to its place under DIR/slurm/input (shared_copy).
// Throws std::runtime_error naming a file it cannot copy.
void copy_inputs(const SlurmBatch& b, const std::vector<std::string>& files);

// Writes the job script and submits the array tasks `tasks` (0-based) as one job array; returns
// the job id (also added to b.jobs and batch.json). Throws std::runtime_error with sbatch's own
// words when it refuses.
std::string submit_tasks(SlurmBatch& b, const std::vector<unsigned>& tasks);

// An array task's last submission: its job, and its state as Slurm knows it ("PENDING",
// "RUNNING", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", ...; "" when Slurm no longer holds it).
struct TaskState {
    std::string job, state;
};
// Each array task's, by task index, from its latest job: from squeue, or, for a task the
// controller no longer holds (MinJobAge after it ended), from sacct where the cluster keeps
// accounting.
std::map<unsigned, TaskState> task_states(const SlurmBatch& b);
// Sets the state of each task of `job` in `states` from lines "JOB_TASK STATE" (squeue -o "%i %T")
// or "JOB_TASK|STATE" (sacct -P -o JobID,State; "CANCELLED by 1000": the first word). Other
// jobs' lines, ranges still pending ("JOB_[4-9]") and tasks not in `states` are left out.
void read_task_states(const std::string& text, const std::string& job, std::map<unsigned, TaskState>& states);
// Whether a state is one a task leaves by itself (pending, running, ...).
bool state_active(const std::string& state);

// Waits until no task of the batch is active. `done()` counts the items with a result;
// `progress`: a line on stderr each time the counts change. Returns false
// when squeue keeps failing (its words in `error`).
bool wait_tasks(const SlurmBatch& b, const std::function<size_t()>& done, bool progress, std::string& error);

// Why the items of task `task` left no result: its state and its log.
std::string missing_reason(const SlurmBatch& b, const std::map<unsigned, TaskState>& states, unsigned task);

// The array task that holds item i.
inline unsigned task_of(const SlurmBatch& b, size_t item) { return unsigned(item % b.shards); }

// Runs a program (argv[0] looked up in PATH) and returns its exit code (127: it could not
// start), its standard output and error in `out` and `err`.
int run_program(const std::vector<std::string>& argv, std::string& out, std::string& err);

}  // namespace gpuvp
