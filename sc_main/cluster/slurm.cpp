// Sweeps and regressions on Slurm: slurm.h.
#include "sc_main/cluster/slurm.h"
#include "sc_main/batch/batch.h"
#include "sc_main/record/files.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpuvp {

namespace fs = std::filesystem;

std::string slurm_dir(const std::string& dir) { return dir + "/slurm"; }

namespace {

std::string batch_file(const std::string& dir) { return slurm_dir(dir) + "/batch.json"; }

// A word for /bin/sh: in single quotes, a quote inside written '\''.
std::string sh_word(const std::string& s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

// "0,3,7-9": the tasks as sbatch --array wants them.
std::string array_list(const std::vector<unsigned>& tasks) {
    std::string o;
    for (size_t i = 0; i < tasks.size();) {
        size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
        o += (o.empty() ? "" : ",") + std::to_string(tasks[i]) + (j > i ? "-" + std::to_string(tasks[j]) : "");
        i = j + 1;
    }
    return o;
}

std::string job_script(const SlurmBatch& b) {
    std::ostringstream s;
    const std::string input = slurm_dir(b.dir) + "/input";
    s << "#!/bin/sh\n"
         "# A gpuvp "
      << b.kind << " array task, written by gpuvp (docs/cluster.md): task K runs slice K+1 of "
      << b.shards << ".\n"
         "GPUVP="
      << sh_word(b.gpuvp) << "\nDIR=" << sh_word(b.dir)
      << "\n"
         "K=$((SLURM_ARRAY_TASK_ID + 1))\n"
         "if [ ! -x \"$GPUVP\" ]; then\n"
         "    echo \"gpuvp: task $SLURM_ARRAY_TASK_ID on $(hostname): $GPUVP is not a program this node can run: install gpuvp "
         "where every node reaches it (a prefix on shared storage, or the same path on every node) and name it with "
         "--slurm-gpuvp\" >&2\n"
         "    exit 2\n"
         "fi\n"
         "if [ ! -d "
      << sh_word(input)
      << " ]; then\n"
         "    echo \"gpuvp: task $SLURM_ARRAY_TASK_ID on $(hostname): the shared directory $DIR is not here: --out must be "
         "on storage every node mounts at the same path\" >&2\n"
         "    exit 2\n"
         "fi\n\"$GPUVP\"";
    for (const std::string& w : b.task) s << " " << sh_word(w);
    s << " --shard \"$K/" << b.shards << "\"";
    if (b.kind == "regress") s << " --junit \"$DIR/slurm/shard-$K.xml\" --csv \"$DIR/slurm/shard-$K.csv\"";
    s << "\nrc=$?\n"
         "# A run that ended (its points passed, failed or timed out) is a task that did its work.\n"
         "case $rc in 0|1|3) exit 0 ;; *) exit $rc ;; esac\n";
    return s.str();
}

}  // namespace

// batch.json's members: the batch's, by the same names (one list for reading and writing).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SlurmBatch, kind, dir, gpuvp, sbatch, task, items, shards, jobs, job_tasks, text,
                                   lists, timeout_seconds, flag)

SlurmBatch parse_batch(const std::string& text, const std::string& name) {
    SlurmBatch b;
    try {
        b = nlohmann::json::parse(text).get<SlurmBatch>();
    } catch (const nlohmann::json::exception& e) {  // not JSON, a member missing or of another type
        throw SlurmError(name + ": " + e.what());
    }
    auto bad = [&](const std::string& why) { return SlurmError(name + ": " + why); };
    if (b.kind != "sweep" && b.kind != "regress") throw bad("kind: sweep or regress expected, found '" + b.kind + "'");
    if (b.shards == 0 || b.items == 0 || b.shards > b.items) throw bad("shards: 1 to items (" + std::to_string(b.items) + ") expected");
    if (b.job_tasks.size() != b.jobs.size()) throw bad("job_tasks: one list per job expected");
    for (const auto& tasks : b.job_tasks)
        for (unsigned t : tasks)
            if (t >= b.shards) throw bad("job_tasks: a task of the " + std::to_string(b.shards) + " expected, found " + std::to_string(t));
    for (const char* k : b.kind == "sweep" ? std::vector<const char*>{"file", "platform"} : std::vector<const char*>{"junit", "csv"})
        if (!b.text.count(k)) throw bad(std::string("text.") + k + ": missing");
    if (!b.lists.count(b.kind == "sweep" ? "sets" : "paths")) throw bad(std::string("lists.") + (b.kind == "sweep" ? "sets" : "paths") + ": missing");
    return b;
}

std::string batch_text(const SlurmBatch& b) { return nlohmann::json(b).dump(2) + "\n"; }

bool read_batch(const std::string& dir, SlurmBatch& b) {
    std::string text;
    if (!read_file(batch_file(dir), text)) return false;
    b = parse_batch(text, batch_file(dir));
    return true;
}

void write_batch(const SlurmBatch& b) {
    std::error_code ec;
    fs::create_directories(slurm_dir(b.dir) + "/logs", ec);
    if (!write_file_atomically(batch_file(b.dir), batch_text(b)))
        throw SlurmError("cannot write " + batch_file(b.dir) + ": " + std::strerror(errno));
}

void copy_inputs(const SlurmBatch& b, const std::vector<std::string>& files) {
    for (const std::string& f : files) {
        const std::string to = shared_copy(slurm_dir(b.dir) + "/input", f);
        std::error_code ec;
        fs::create_directories(fs::path(to).parent_path(), ec);
        if (ec || !fs::copy_file(f, to, fs::copy_options::overwrite_existing, ec))
            throw SlurmError("cannot copy " + f + " to " + to + ": " + ec.message());
    }
}

int run_program(const std::vector<std::string>& argv, std::string& out, std::string& err) {
    out.clear();
    err.clear();
    int o[2], e[2];
    if (pipe(o) != 0) return 127;
    if (pipe(e) != 0) {
        close(o[0]);
        close(o[1]);
        return 127;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(o[1], 1);
        dup2(e[1], 2);
        close(o[0]);
        close(o[1]);
        close(e[0]);
        close(e[1]);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "gpuvp: cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(o[1]);
    close(e[1]);
    if (pid < 0) {
        close(o[0]);
        close(e[0]);
        return 127;
    }
    pollfd fds[2] = {{o[0], POLLIN, 0}, {e[0], POLLIN, 0}};
    std::string* to[2] = {&out, &err};
    int open = 2;
    char buf[4096];
    while (open > 0 && poll(fds, 2, -1) >= 0)
        for (int k = 0; k < 2; ++k)
            if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
                const ssize_t n = read(fds[k].fd, buf, sizeof buf);
                if (n > 0) to[k]->append(buf, size_t(n));
                else {
                    close(fds[k].fd);
                    fds[k].fd = -1;
                    --open;
                }
            }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string submit_tasks(SlurmBatch& b, const std::vector<unsigned>& tasks) {
    const std::string script = slurm_dir(b.dir) + "/job.sh";
    std::error_code ec;
    fs::create_directories(slurm_dir(b.dir) + "/logs", ec);
    if (!write_file_atomically(script, job_script(b)))
        throw SlurmError("cannot write " + script + ": " + std::strerror(errno));
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec, ec);
    std::vector<std::string> argv{"sbatch", "--parsable", "--array=" + array_list(tasks), "--job-name=gpuvp-" + b.kind,
                                  "--output=" + slurm_dir(b.dir) + "/logs/%A_%a.out"};
    argv.insert(argv.end(), b.sbatch.begin(), b.sbatch.end());
    argv.push_back(script);
    std::string out, err;
    const int rc = run_program(argv, out, err);
    // --parsable: "JOBID" or "JOBID;CLUSTER"
    const std::string id = out.substr(0, out.find_first_of(";\n"));
    if (rc != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
        std::string words = err.empty() ? out : err;
        while (!words.empty() && words.back() == '\n') words.pop_back();
        throw SlurmError("sbatch refused the job array (exit " + std::to_string(rc) + "): " +
                                 (words.empty() ? "no message" : words));
    }
    b.jobs.push_back(id);
    b.job_tasks.push_back(tasks);
    write_batch(b);
    return id;
}

void read_task_states(const std::string& text, const std::string& job, std::map<unsigned, TaskState>& states) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::replace(line.begin(), line.end(), '|', ' ');
        std::istringstream words(line);
        std::string id, state;
        if (!(words >> id >> state)) continue;
        const size_t u = id.find('_');
        if (u == std::string::npos || id.substr(0, u) != job) continue;
        const std::string task = id.substr(u + 1);
        // ("[4-9]": a range still pending, listed by squeue and sacct as one line)
        if (task.empty() || task.size() > 9 || task.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto it = states.find(unsigned(std::stoul(task)));
        if (it != states.end() && it->second.job == job) it->second.state = state;
    }
}

std::map<unsigned, TaskState> task_states(const SlurmBatch& b) {
    std::map<unsigned, TaskState> states;
    for (size_t k = 0; k < b.jobs.size(); ++k)
        for (unsigned t : b.job_tasks[k]) states[t] = {b.jobs[k], ""};
    for (const std::string& job : b.jobs) {
        std::string out, err;
        // -t all: finished tasks too, while the controller still holds them (MinJobAge)
        if (run_program({"squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%i %T"}, out, err) == 0)
            read_task_states(out, job, states);
        bool forgotten = false;
        for (const auto& [t, s] : states) forgotten |= s.job == job && s.state.empty();
        // Those the controller has forgotten, from the accounting (a cluster without it: sacct fails, no state)
        if (forgotten && run_program({"sacct", "-n", "-X", "-P", "-j", job, "-o", "JobID,State"}, out, err) == 0)
            read_task_states(out, job, states);
    }
    return states;
}

bool state_active(const std::string& s) {
    for (const char* a : {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING",
                          "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "STOPPED"})
        if (s == a) return true;
    return false;
}

bool wait_tasks(const SlurmBatch& b, const std::function<size_t()>& done, bool progress, std::string& error) {
    const auto started = std::chrono::steady_clock::now();
    std::string last;
    int failures = 0;
    for (;;) {
        // Any task of the batch's jobs still queued or running (squeue without -t lists only those).
        size_t pending = 0, running = 0, active = 0;
        bool ok = true;
        for (const std::string& job : b.jobs) {
            std::string out, err;
            if (run_program({"squeue", "-h", "-r", "-j", job, "-o", "%T"}, out, err) != 0) {
                // A job the controller has forgotten is done; anything else is trouble.
                if (err.find("Invalid job id") != std::string::npos) continue;
                ok = false;
                error = err.empty() ? "squeue failed" : err.substr(0, err.find('\n'));
                break;
            }
            std::istringstream lines(out);
            std::string state;
            while (lines >> state) {
                ++active;
                pending += state == "PENDING";
                running += state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING";
            }
        }
        if (!ok) {
            if (++failures >= 30) return false;  // a minute of squeue failing
        } else
            failures = 0;
        const size_t finished = done();
        if (progress) {
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::ostringstream line;
            line << "[" << finished << "/" << b.items << "] " << pending << " pending, " << running << " running"
                 << time_left(finished, b.items, elapsed);
            if (line.str() != last) {
                std::fprintf(stderr, "%s\n", line.str().c_str());
                last = line.str();
            }
        }
        if (ok && active == 0) return true;
        std::this_thread::sleep_for(std::chrono::seconds(2));
    }
}

std::string missing_reason(const SlurmBatch& b, const std::map<unsigned, TaskState>& states, unsigned task) {
    const auto it = states.find(task);
    const std::string job = it == states.end() ? "?" : it->second.job;
    const std::string state = it == states.end() ? "" : it->second.state;
    return "no result: Slurm task " + std::to_string(task) + " of job " + job + " ended " +
           (state.empty() ? "" : state + " ") + "without one (its log: " + slurm_dir(b.dir) + "/logs/" + job + "_" +
           std::to_string(task) + ".out; gpuvp collect " + b.dir + " --resubmit-failed runs it again)";
}

}  // namespace gpuvp
