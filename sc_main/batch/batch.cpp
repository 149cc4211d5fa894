#include "sc_main/batch/batch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace gpuvp {

namespace {

pid_t start(size_t i, const std::function<int(size_t)>& child) {
    std::fflush(nullptr);  // the child must not print the parent's buffered output again
    const pid_t pid = fork();
    if (pid != 0) return pid;
    int code = 2;
    try {
        code = child(i);
    } catch (...) {  // (a child that can say what went wrong says so itself): exit 2
    }
    _exit(code);
}

}  // namespace

std::vector<int> run_children(size_t count, unsigned parallel, const std::function<int(size_t)>& child,
                              const std::function<void(size_t, int)>& done) {
    std::vector<int> codes(count, 2);
    std::map<pid_t, size_t> running;
    size_t next = 0;
    parallel = std::max(1u, parallel);
    while (next < count || !running.empty()) {
        while (next < count && running.size() < parallel) {
            const pid_t pid = start(next, child);
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

}  // namespace gpuvp
