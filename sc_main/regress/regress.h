// A regression: every scenario under some paths run, each in a process of its own, N at a
// time, with a summary table, JUnit XML for CI and a CSV; `--shard K/N` runs a deterministic
// slice of the list so a suite can run as an array job, and merge_* joins the slices' files.
#pragma once
#include <string>
#include <vector>

namespace gpuvp {

struct RegressOptions {
    unsigned jobs = 1;
    unsigned shard = 1, shards = 1;  // run the scenarios at positions shard-1, shard-1+shards, ...
    std::string out_dir;             // each scenario's results.json in out_dir/<file stem>/; empty: a temporary folder
    bool progress = false;           // a line on stderr as each scenario ends
    bool check_protocol = false;     // a TLM-2.0 base-protocol checker on every connection of each run
    double timeout_seconds = 0;      // each scenario's host-time limit (RunOptions::timeout_seconds); 0: none
    // Read the files and folders from their copies under this folder (shared_copy), naming them
    // as given (a Slurm task reads a shared directory's copies). Empty: as given.
    std::string root;
};

struct RegressCase {
    std::string file;   // the path as found
    std::string name;   // the scenario's name ("" if it did not load)
    std::string status; // pass, fail (an expectation or a kernel or draw failed), timeout (stopped at the
                        // timeout: a failure) or error (bad input, no run)
    int expectations_passed = 0, expectations_failed = 0;
    double sim_end_ns = 0, host_seconds = 0;
    int exit_code = 2;
    std::vector<std::string> problems;  // what failed, a line each
};

struct RegressOutput {
    std::vector<RegressCase> cases;
    std::string table;  // the summary for people
    std::string junit;  // JUnit XML
    std::string csv;    // a row per scenario
    // What did not pass, a line each: "FILE: STATUS: PROBLEM" (or "FILE: STATUS (exit N)" when
    // the case has no problem line); `gpuvp regress` prints them on stderr.
    std::vector<std::string> failures;
    int exit_code = 0;  // 0 all passed, 1 something failed, 2 bad input somewhere
};

// The scenario files under the paths: a folder means its *.yaml (not its subfolders), sorted;
// a file is taken as it is. Each file once. Throws std::runtime_error for a path that does not exist.
// With `root`, each path is looked up at its copy under root (shared_copy) and named as given.
std::vector<std::string> regress_files(const std::vector<std::string>& paths, const std::string& root = "");

// Parses "K/N" (1 <= K <= N). Throws std::invalid_argument with a sentence.
void parse_shard(const std::string& text, unsigned& shard, unsigned& shards);

// Throws std::runtime_error when the paths hold no scenario file.
RegressOutput run_regress(const std::vector<std::string>& paths, const RegressOptions& options);

std::string junit_xml(const std::vector<RegressCase>& cases);

// Joins the JUnit files (or the CSV files) of shards into one, sorted by file path: what one
// run over a single folder gives (CSV files that are not regress CSVs keep the order given).
// Throws std::invalid_argument for a file that is not one of ours, a CSV header that differs,
// or a scenario in two files.
struct NamedText {
    std::string name;  // for errors: the file's path
    std::string text;
};
std::string merge_junit(const std::vector<NamedText>& files);
std::string merge_csv(const std::vector<NamedText>& files);

}  // namespace gpuvp
