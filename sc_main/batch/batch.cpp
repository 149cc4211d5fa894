#include "sc_main/batch/batch.h"
#include "sc_main/run/run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace gpuvp {

namespace {

pid_t start(const BatchJob& job) {
    std::fflush(nullptr);  // the child must not print the parent's buffered output again
    const pid_t pid = fork();
    if (pid != 0) return pid;
    int code = 2;
    try {
        RunOptions options;
        options.trace = job.trace;
        options.trace_limit = job.trace_limit;
        options.check_protocol = job.check_protocol;
        options.timeout_seconds = job.timeout_seconds;
        RunOutput o = run_variants(*job.scenario, options, 1);
        std::string error;
        bool written = write_run_output(job.dir, o, job.report, &error);
        if (written && job.table) {
            std::ofstream table(job.dir + "/table.txt", std::ios::binary);
            written = bool(table << o.table);
            if (!written) error = "cannot write " + job.dir + "/table.txt";
        }
        code = o.exit_code;
        if (!written) {
            std::fprintf(stderr, "gpuvp: %s: %s\n", job.scenario->file.c_str(), error.c_str());
            code = 2;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpuvp: %s: %s\n", job.scenario->file.c_str(), e.what());
    }
    _exit(code);
}

}  // namespace

std::vector<int> run_batch(const std::vector<BatchJob>& jobs, unsigned parallel,
                           const std::function<void(size_t, int)>& done) {
    std::vector<int> codes(jobs.size(), 2);
    std::map<pid_t, size_t> running;
    size_t next = 0;
    parallel = std::max(1u, parallel);
    while (next < jobs.size() || !running.empty()) {
        while (next < jobs.size() && running.size() < parallel) {
            const pid_t pid = start(jobs[next]);
            if (pid < 0) throw std::runtime_error("cannot start a child process");
            running[pid] = next++;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) break;
        auto it = running.find(pid);
        if (it == running.end()) continue;
        // Killed by a signal: 128 + the signal, as a shell reports it.
        codes[it->second] = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 2;
        if (done) done(it->second, codes[it->second]);
        running.erase(it);
    }
    return codes;
}

int worse_exit(int a, int b) {
    auto rank = [](int c) { return c == 0 ? 0 : c == 1 ? 1 : c == 3 ? 2 : 3; };
    a = a >= 128 ? 2 : a;
    b = b >= 128 ? 2 : b;
    return rank(b) > rank(a) ? b : a;
}

std::string batch_progress(size_t done, size_t total, size_t failed, unsigned parallel, double elapsed) {
    std::string s = "[" + std::to_string(done) + "/" + std::to_string(total) + "]";
    const size_t running = std::min<size_t>(std::max(1u, parallel), total - done);
    if (running) s += " " + std::to_string(running) + " running,";
    return s + " " + std::to_string(failed) + " failed" + time_left(done, total, elapsed);
}

std::string time_left(size_t done, size_t total, double elapsed) {
    if (done == 0 || done >= total) return "";
    char b[48];
    std::snprintf(b, sizeof b, ", about %.0f s left", elapsed / double(done) * double(total - done));
    return b;
}

std::string shared_copy(const std::string& root, const std::string& typed) {
    if (root.empty() || typed.empty()) return typed;
    std::filesystem::path out(root);
    for (const auto& part : std::filesystem::path(typed).lexically_normal().relative_path())
        out /= part == ".." ? std::filesystem::path("__up__") : part;
    return out.string();
}

bool write_file_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!(f << text) || !f.flush()) return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

bool read_file(const std::string& path, std::string& text) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream s;
    s << f.rdbuf();
    text = s.str();
    return true;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace gpuvp
