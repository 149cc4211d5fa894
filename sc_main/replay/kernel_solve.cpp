#include "sc_main/replay/kernel_solve.h"
#include "sc_main/record/replay_metrics.h"
#include "sc_main/run/run.h"
#include <gpuvp/firmware/assembler.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace gpuvp {

namespace {

constexpr int kRounds = 4;            // rounds of probes after the first
constexpr size_t kProbesPerRound = 4;  // per shape
constexpr double kTolerance = 0.005;   // a probe within 0.5 % of a target (or 1 ns) settles it
constexpr double kRefineTolerance = 0.01;  // an overlapped kernel within 1 % of its measured time

using ShapeKey = std::tuple<std::array<uint32_t, 3>, std::array<uint32_t, 3>, uint32_t, uint32_t>;

ShapeKey shape_of(const BodyTarget& t) { return {t.grid, t.block, t.vregs, t.shared_bytes}; }

// One shape's probes: body cycles -> the kernel's duration alone (ns).
struct Shape {
    const BodyTarget* first = nullptr;  // its shape
    std::vector<size_t> targets;        // indices into the targets
    std::map<uint64_t, double> probes;
    bool failed = false;  // a probe gave no duration: the formula's bodies
};

// The body the probes interpolate for a duration of `d` ns (d above the floor).
double interpolate(const std::map<uint64_t, double>& probes, double d) {
    std::vector<std::pair<double, double>> p;  // (cycles, ns), the durations made rising
    for (const auto& [c, t] : probes) p.emplace_back(double(c), p.empty() ? t : std::max(t, p.back().second));
    for (size_t i = 1; i < p.size(); ++i)
        if (p[i].second >= d) {
            const auto &lo = p[i - 1], &hi = p[i];
            if (!(hi.second > lo.second)) return hi.first;
            return lo.first + (d - lo.second) * (hi.first - lo.first) / (hi.second - lo.second);
        }
    // Above every probe: on from the last two (the steepest so far), or from the floor.
    const auto& last = p.back();
    double slope = 0;
    if (p.size() >= 2) slope = (last.second - p[p.size() - 2].second) / (last.first - p[p.size() - 2].first);
    if (!(slope > 0) && last.first > p.front().first) slope = (last.second - p.front().second) / (last.first - p.front().first);
    if (!(slope > 0)) return last.first * 2;
    return last.first + (d - last.second) / slope;
}

uint64_t cycles_of(double c) { return uint64_t(std::clamp(std::llround(c), 1LL, 1LL << 62)); }

// A child process simulating `s`: it writes each kernel's duration (ns, first warp's start to
// end, NaN where it gave none) in scenario order to a pipe, which finish() reads.
struct Child {
    pid_t pid = -1;
    int fd = -1;
    size_t kernels = 0;
};

Child start(const Scenario& s) {
    Child child;
    int fd[2];
    if (pipe(fd) != 0) return child;
    std::fflush(nullptr);  // the child must not print the parent's buffered output again
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        std::vector<double> t(s.workload.kernels.size(), NAN);
        try {
            RunOptions quiet(false);
            const RunOutput o = run_scenario(s, quiet);
            for (size_t n = 0; n < o.record->kernels.size() && n < t.size(); ++n) {
                const auto& r = o.record->kernels[n];
                if (r.first_warp_start_ns && r.end_ns) t[n] = *r.end_ns - *r.first_warp_start_ns;
            }
        } catch (...) {
        }
        const char* p = reinterpret_cast<const char*>(t.data());
        size_t left = t.size() * sizeof(double);
        while (left) {
            const ssize_t n = write(fd[1], p, left);
            if (n <= 0) _exit(1);
            p += n;
            left -= size_t(n);
        }
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        return child;
    }
    return {pid, fd[0], s.workload.kernels.size()};
}

std::vector<double> finish(const Child& child) {
    std::vector<double> t(child.kernels, NAN);
    if (child.pid < 0) return t;
    char* p = reinterpret_cast<char*>(t.data());
    size_t left = t.size() * sizeof(double);
    while (left) {
        const ssize_t n = read(child.fd, p, left);
        if (n <= 0) break;
        p += n;
        left -= size_t(n);
    }
    if (left) std::fill(t.begin(), t.end(), NAN);
    close(child.fd);
    int status = 0;
    waitpid(child.pid, &status, 0);
    return t;
}

}  // namespace

std::vector<double> alone_durations(const Scenario& platform, const std::vector<KernelSpec>& kernels, unsigned jobs) {
    std::vector<double> out(kernels.size(), NAN);
    if (kernels.empty()) return out;
    jobs = std::clamp<unsigned>(jobs, 1, unsigned(kernels.size()));
    // Each kernel to the job with the fewest blocks so far, the largest first.
    std::vector<size_t> order(kernels.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto blocks = [&](size_t i) { return block_count(kernels[i]); };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks(a) > blocks(b); });
    std::vector<std::vector<size_t>> job(jobs);
    std::vector<uint64_t> load(jobs, 0);
    for (size_t i : order) {
        const size_t j = size_t(std::min_element(load.begin(), load.end()) - load.begin());
        job[j].push_back(i);
        load[j] += blocks(i);
    }
    std::vector<Child> children;
    for (const std::vector<size_t>& mine : job) {
        Scenario s = platform;
        s.expect.clear();
        s.cross_expect.clear();
        s.variants.clear();
        s.measure_alone = false;
        s.policy.dispatch = DispatchPolicy::fifo;
        s.max_sim_ns = 1e18;
        s.workload.queues = {QueueSpec{}};
        s.workload.queues[0].name = "solve";
        s.workload.kernels.clear();
        s.workload.draws.clear();
        s.workload.signals.clear();
        s.workload.copies.clear();
        s.workload.calls.clear();
        for (size_t i : mine) {
            KernelSpec k = kernels[i];
            k.name = "k" + std::to_string(i);
            k.queue = "solve";
            k.submit_ns = 0;
            k.barrier = true;  // each alone on the GPU
            k.after.clear();
            k.after_any.clear();
            k.measured.reset();
            s.workload.kernels.push_back(std::move(k));
        }
        children.push_back(start(s));
    }
    for (size_t j = 0; j < job.size(); ++j) {
        const std::vector<double> t = finish(children[j]);
        for (size_t n = 0; n < job[j].size(); ++n) out[job[j][n]] = t[n];
    }
    return out;
}

std::vector<uint64_t> refine_overlapped_bodies(const Scenario& replay, RefineStats& stats, int rounds) {
    const auto began = std::chrono::steady_clock::now();
    const std::vector<KernelSpec>& ks = replay.workload.kernels;
    std::vector<KernelTimes> measured;
    std::vector<size_t> index;  // measured[j] is ks[index[j]]
    for (size_t i = 0; i < ks.size(); ++i)
        if (const auto& m = ks[i].measured) {
            measured.push_back({ks[i].name, ks[i].queue, double(m->launch_ns), double(m->launch_end_ns),
                                double(m->start_ns), double(m->end_ns), std::nullopt, ks[i].label});
            index.push_back(i);
        }
    const std::vector<bool> over = overlapped_kernels(measured);
    std::vector<size_t> refined;  // indices into measured
    for (size_t j = 0; j < over.size(); ++j)
        if (over[j] && *measured[j].end_ns > *measured[j].start_ns) refined.push_back(j);
    stats.kernels = refined.size();
    if (refined.empty()) return {};
    std::vector<uint64_t> cycles;
    for (const KernelSpec& k : ks) cycles.push_back(program_cycles(k.program));
    Scenario s = replay;
    for (int round = 0; round < rounds; ++round) {
        for (size_t j : refined) s.workload.kernels[index[j]].program = duration_program(cycles[index[j]]);
        const std::vector<double> t = finish(start(s));
        ++stats.replays;
        bool settled = true;
        for (size_t j : refined) {
            const double d = *measured[j].end_ns - *measured[j].start_ns, sim = t[index[j]];
            uint64_t& c = cycles[index[j]];
            if (std::isnan(sim) || !(sim > 0) || std::fabs(sim / d - 1) <= kRefineTolerance) continue;
            const uint64_t next = cycles_of(double(c) * d / sim);
            if (next != c) settled = false;
            c = next;
        }
        if (settled) break;
    }
    stats.host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return cycles;
}

std::vector<BodySolution> solve_kernel_bodies(const Scenario& platform, const std::vector<BodyTarget>& targets,
                                              SolveStats& stats, unsigned jobs) {
    const auto began = std::chrono::steady_clock::now();
    std::map<ShapeKey, Shape> shapes;
    for (size_t i = 0; i < targets.size(); ++i) {
        Shape& s = shapes[shape_of(targets[i])];
        if (!s.first) s.first = &targets[i];
        s.targets.push_back(i);
    }
    stats.shapes = shapes.size();
    auto kernel = [](const BodyTarget& t, uint64_t cycles) {
        KernelSpec k;
        k.grid = t.grid;
        k.block = t.block;
        k.vregs = t.vregs;
        k.shared_bytes = t.shared_bytes;
        k.global_bytes = 0;
        k.program = duration_program(cycles);
        return k;
    };
    // One round: every shape's asked bodies, simulated.
    auto run = [&](const std::vector<std::pair<Shape*, uint64_t>>& asked) {
        std::vector<KernelSpec> ks;
        for (const auto& [s, c] : asked) ks.push_back(kernel(*s->first, c));
        const std::vector<double> t = alone_durations(platform, ks, jobs);
        stats.simulations += ks.size();
        for (size_t i = 0; i < asked.size(); ++i) {
            if (std::isnan(t[i])) asked[i].first->failed = true;
            else asked[i].first->probes[asked[i].second] = t[i];
        }
    };
    // The first round: the floor, and the formula's bodies for the shortest and longest targets.
    std::vector<std::pair<Shape*, uint64_t>> asked;
    for (auto& [key, s] : shapes) {
        std::vector<uint64_t> c{1};
        auto [lo, hi] = std::minmax_element(s.targets.begin(), s.targets.end(), [&](size_t a, size_t b) {
            return targets[a].duration_ns < targets[b].duration_ns;
        });
        for (uint64_t e : {targets[*lo].estimate, targets[*hi].estimate})
            if (std::find(c.begin(), c.end(), e) == c.end()) c.push_back(e);
        for (uint64_t x : c) asked.emplace_back(&s, x);
    }
    run(asked);
    // Then the bodies the probes interpolate for the targets they do not yet settle.
    for (int round = 0; round < kRounds; ++round) {
        asked.clear();
        for (auto& [key, s] : shapes) {
            if (s.failed) continue;
            const double floor = s.probes.at(1);
            std::vector<uint64_t> wanted;
            for (size_t i : s.targets) {
                const double d = targets[i].duration_ns;
                if (d < floor) continue;
                const uint64_t c = cycles_of(interpolate(s.probes, d));
                auto p = s.probes.find(c);
                if (p != s.probes.end()) {
                    if (std::fabs(p->second - d) <= std::max(1.0, kTolerance * d)) continue;
                    // Its neighbours probed too: no whole body comes closer.
                    if (s.probes.count(c - 1) && s.probes.count(c + 1)) continue;
                }
                wanted.push_back(c);
            }
            std::sort(wanted.begin(), wanted.end());
            wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
            std::vector<uint64_t> pick;
            if (wanted.size() <= kProbesPerRound) pick = wanted;
            else
                for (size_t j = 0; j < kProbesPerRound; ++j)  // spread over them
                    pick.push_back(wanted[j * (wanted.size() - 1) / (kProbesPerRound - 1)]);
            for (uint64_t c : pick)
                if (!s.probes.count(c)) asked.emplace_back(&s, c);
                else if (s.probes.count(c + 1) == 0) asked.emplace_back(&s, c + 1);
                else if (c > 1 && s.probes.count(c - 1) == 0) asked.emplace_back(&s, c - 1);
        }
        if (asked.empty()) break;
        run(asked);
    }
    std::vector<BodySolution> out(targets.size());
    for (auto& [key, s] : shapes)
        for (size_t i : s.targets) {
            BodySolution& b = out[i];
            if (s.failed || !s.probes.count(1)) {  // the formula's
                b.cycles = targets[i].estimate;
                continue;
            }
            b.floor_ns = s.probes.at(1);
            const double d = targets[i].duration_ns;
            b.cycles = d < b.floor_ns ? 1 : cycles_of(interpolate(s.probes, d));
        }
    stats.host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return out;
}

}  // namespace gpuvp
