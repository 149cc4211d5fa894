// Sweeps in slices and resumed, files read from a shared directory's copies, and Slurm batches
// (sc_main/cluster/, docs/cluster.md) without a cluster: what runs where, what is written, what
// is said when something is wrong. The real Slurm is tests/cluster/check_slurm.py's.
#include "sc_main/batch/batch.h"
#include "sc_main/cluster/slurm.h"
#include "tests/files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;
namespace fs = std::filesystem;

using Result = gpuvp::test::CliResult;

// gpuvp with `args`, from the source folder (the scenarios' paths as the README gives them).
Result cli(const std::string& args) {
    return gpuvp::test::run_cli(std::string("cd ") + GPUVP_SOURCE_DIR + " && " + GPUVP_BINARY + " " + args);
}

int64_t mtime(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec : -1;
}

const std::string kSweep = "sweep scenarios/lock-contention.yaml --set policy.lock=spin,priority --set platform.sms=1,2,4 --quiet";

}  // namespace

TEST_CASE("a file's copy in a shared directory: under the root, never outside it", "[cluster]") {
    CHECK(gpuvp::shared_copy("/s/input", "scenarios/a.yaml") == "/s/input/scenarios/a.yaml");
    CHECK(gpuvp::shared_copy("/s/input", "./scenarios//a.yaml") == "/s/input/scenarios/a.yaml");
    CHECK(gpuvp::shared_copy("/s/input", "/home/u/a.yaml") == "/s/input/home/u/a.yaml");
    CHECK(gpuvp::shared_copy("/s/input", "../x/a.yaml") == "/s/input/__up__/x/a.yaml");
    CHECK(gpuvp::shared_copy("/s/input", "x/../../a.yaml") == "/s/input/__up__/a.yaml");
    // No shared directory, or no file: the name as given.
    CHECK(gpuvp::shared_copy("", "scenarios/a.yaml") == "scenarios/a.yaml");
    CHECK(gpuvp::shared_copy("/s/input", "").empty());
}

TEST_CASE("sweep --shard runs its slice of the points, --resume joins them as one run writes them", "[cluster][sweep]") {
    const std::string whole = temp_dir(), parts = temp_dir();
    const Result one = cli(kSweep + " --out " + whole + " -j 2");
    REQUIRE(one.exit_code == 1);  // (the spin points fail their expectations)
    // Two slices: points 0, 2, 4 and 1, 3, 5; each writes its points' folders, not the CSVs.
    const Result first = cli(kSweep + " --out " + parts + " --shard 1/2");
    CHECK(first.exit_code == 1);
    for (int i = 0; i < 6; ++i) {
        INFO("point " << i);
        CHECK(fs::exists(parts + "/point-" + std::to_string(i) + "/exit_code") == (i % 2 == 0));
    }
    CHECK(!fs::exists(parts + "/sweep.csv"));
    CHECK(!fs::exists(parts + "/report.html"));
    CHECK(slurp(parts + "/point-0/exit_code") == slurp(whole + "/point-0/exit_code"));
    CHECK(cli(kSweep + " --out " + parts + " --shard 2/2").exit_code == 1);
    // Joined: nothing runs again, the outputs are the single run's.
    const int64_t before = mtime(parts + "/point-3/results.json");
    const Result joined = cli(kSweep + " --out " + parts + " --resume");
    CHECK(joined.exit_code == 1);
    CHECK(mtime(parts + "/point-3/results.json") == before);
    for (const char* f : {"sweep.csv", "locks.csv", "report.html"}) {
        INFO(f);
        CHECK(slurp(parts + "/" + f) == slurp(whole + "/" + f));
    }
    // A point whose run did not end (no exit_code) runs on --resume; the others do not.
    fs::remove(parts + "/point-4/exit_code");
    const int64_t kept = mtime(parts + "/point-1/results.json"), redone = mtime(parts + "/point-4/results.json");
    CHECK(cli(kSweep + " --out " + parts + " --resume").exit_code == 1);
    CHECK(mtime(parts + "/point-1/results.json") == kept);
    CHECK(mtime(parts + "/point-4/results.json") != redone);
    CHECK(fs::exists(parts + "/point-4/exit_code"));
    CHECK(slurp(parts + "/sweep.csv") == slurp(whole + "/sweep.csv"));
    // Wrong slices and --resume without a folder are bad input.
    CHECK(cli(kSweep + " --shard 3/2").output.find("--shard wants K/N with 1 <= K <= N, got '3/2'") != std::string::npos);
    CHECK(cli(kSweep + " --resume").output.find("--resume needs --out DIR") != std::string::npos);
}

TEST_CASE("the root option reads the files from their copies, named as given", "[cluster]") {
    const std::string root = temp_dir(), out = temp_dir();
    fs::create_directories(root + "/scenarios");
    fs::copy_file(std::string(GPUVP_SOURCE_DIR) + "/scenarios/default.yaml", root + "/scenarios/default.yaml");
    // A name that is not there but under the root: read there, and named as given in the JUnit.
    const Result r = cli("regress nowhere/../scenarios/default.yaml --root " + root + " --quiet --junit " + out + "/j.xml");
    CHECK(r.exit_code == 0);
    CHECK(slurp(out + "/j.xml").find("file=\"nowhere/../scenarios/default.yaml\"") != std::string::npos);
    const Result s = cli("sweep /elsewhere/default.yaml --root " + root + " --set platform.sms=1,2 --quiet");
    CHECK(s.exit_code == 2);
    CHECK(s.output.find("SCENARIO: no such file '/elsewhere/default.yaml'") != std::string::npos);
    fs::create_directories(root + "/elsewhere");
    fs::copy_file(root + "/scenarios/default.yaml", root + "/elsewhere/default.yaml");
    CHECK(cli("sweep /elsewhere/default.yaml --root " + root + " --set platform.sms=1,2 --quiet").exit_code == 0);
}

TEST_CASE("a Slurm batch and collect say what is wrong before anything is submitted", "[cluster]") {
    CHECK(cli(kSweep + " --slurm").output.find("--slurm needs --out DIR") != std::string::npos);
    CHECK(cli(kSweep + " --slurm --shard 1/2 --out " + temp_dir()).output.find("--slurm runs every slice itself") !=
          std::string::npos);
    CHECK(cli("regress scenarios --slurm").output.find("--slurm needs --out DIR") != std::string::npos);
    // Bad input in a point: refused before sbatch is asked (none may exist here).
    const Result bad = cli("sweep scenarios/default.yaml --set platform.sms=1,0 --slurm --out " + temp_dir());
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("platform.sms") != std::string::npos);
    CHECK(bad.output.find("sbatch") == std::string::npos);
    // collect: a folder without a batch, and a batch.json that is not one.
    const std::string empty = temp_dir();
    Result c = cli("collect " + empty);
    CHECK(c.exit_code == 2);
    CHECK(c.output.find(empty + " holds no Slurm batch (" + empty + "/slurm/batch.json)") != std::string::npos);
    fs::create_directories(empty + "/slurm");
    std::ofstream(empty + "/slurm/batch.json") << "{\"kind\": \"sweep\"}";
    c = cli("collect " + empty);
    CHECK(c.exit_code == 2);
    CHECK(c.output.find(empty + "/slurm/batch.json: ") != std::string::npos);
    CHECK(c.output.find("dir") != std::string::npos);  // the member it lacks
}

TEST_CASE("a batch reads back as written", "[cluster]") {
    gpuvp::SlurmBatch b;
    b.kind = "regress";
    b.dir = temp_dir();
    b.gpuvp = "/opt/gpuvp/bin/gpuvp";
    b.sbatch = {"--partition=gpu", "--time=00:30:00"};
    b.task = {"regress", "scenarios", "--root", b.dir + "/slurm/input"};
    b.items = 7;
    b.shards = 3;
    b.jobs = {"41", "57"};
    b.job_tasks = {{0, 1, 2}, {1}};
    b.text = {{"junit", "/home/u/j.xml"}, {"csv", ""}};
    b.lists = {{"paths", {"scenarios"}}};
    b.timeout_seconds = 2.5;
    b.flag = true;
    gpuvp::write_batch(b);
    gpuvp::SlurmBatch r;
    REQUIRE(gpuvp::read_batch(b.dir, r));
    CHECK(r.kind == b.kind);
    CHECK(r.dir == b.dir);
    CHECK(r.sbatch == b.sbatch);
    CHECK(r.task == b.task);
    CHECK(r.items == 7);
    CHECK(r.shards == 3);
    CHECK(r.jobs == b.jobs);
    CHECK(r.job_tasks == b.job_tasks);
    CHECK(r.text == b.text);
    CHECK(r.lists == b.lists);
    CHECK(r.timeout_seconds == 2.5);
    CHECK(r.flag);
    // Items to tasks: round-robin, as --shard slices.
    CHECK(gpuvp::task_of(r, 0) == 0);
    CHECK(gpuvp::task_of(r, 4) == 1);
    CHECK(gpuvp::task_of(r, 5) == 2);
    gpuvp::SlurmBatch none;
    CHECK(!gpuvp::read_batch(temp_dir(), none));
}

TEST_CASE("task states read from squeue's and sacct's lines: this job's tasks only", "[cluster]") {
    std::map<unsigned, gpuvp::TaskState> s{{0, {"57", ""}}, {1, {"57", ""}}, {2, {"41", ""}}, {3, {"57", ""}}};
    // squeue -h -r -t all -o "%i %T"
    gpuvp::read_task_states("57_0 RUNNING\n57_[3-9] PENDING\n41_2 COMPLETED\n", "57", s);
    CHECK(s[0].state == "RUNNING");
    CHECK(s[2].state.empty());  // task 2's latest job is 41: 57's lines do not touch it
    CHECK(s[3].state.empty());  // a pending range names no task
    // sacct -n -X -P -o JobID,State, for those the controller has forgotten
    gpuvp::read_task_states("57_1|CANCELLED by 1000\n57_3|TIMEOUT\n57_12|COMPLETED\n57|FAILED\n", "57", s);
    CHECK(s[1].state == "CANCELLED");
    CHECK(s[3].state == "TIMEOUT");
    CHECK(s.size() == 4);  // task 12 is not the batch's
    gpuvp::read_task_states("41_2|COMPLETED\n", "41", s);
    CHECK(s[2].state == "COMPLETED");
    gpuvp::read_task_states("", "57", s);  // nothing said: nothing changes
    CHECK(s[0].state == "RUNNING");
    // The reason a task's items have no result names the state and the log.
    gpuvp::SlurmBatch b;
    b.dir = "/shared/run";
    CHECK(gpuvp::missing_reason(b, s, 3) ==
          "no result: Slurm task 3 of job 57 ended TIMEOUT without one (its log: /shared/run/slurm/logs/57_3.out; "
          "gpuvp collect /shared/run --resubmit-failed runs it again)");
}
