#include "sc_main/record/replay_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace gpuvp {

namespace {

bool ran(const KernelTimes& k) { return k.start_ns && k.end_ns; }
// To whole picoseconds (no 3235.2000000000007).
double round_ps(double ns) { return std::round(ns * 1000) / 1000; }
double round6(double v) { return std::round(v * 1e6) / 1e6; }

}  // namespace

std::string_view base_name(std::string_view kernel) { return kernel.substr(0, kernel.rfind('#')); }

// Stream by stream (in name order), each in start order (scenario order on a tie).
namespace {

// The samples of each figure, handed to `sample(kernel, value)` in the order the figure finds
// them; a gap's also with its predecessor on the stream.
using Sink = std::function<void(const KernelTimes&, double)>;
using GapSink = std::function<void(const KernelTimes&, const KernelTimes& previous, double)>;

void each_same_stream_gap_after(const std::vector<KernelTimes>& kernels, const GapSink& sample) {
    std::map<std::string, std::vector<const KernelTimes*>> streams;
    for (const KernelTimes& k : kernels)
        if (ran(k)) streams[k.stream].push_back(&k);
    for (auto& [stream, ks] : streams) {
        std::stable_sort(ks.begin(), ks.end(), [](const KernelTimes* a, const KernelTimes* b) { return *a->start_ns < *b->start_ns; });
        for (size_t i = 1; i < ks.size(); ++i)
            if (ks[i]->launch_end_ns < *ks[i - 1]->end_ns)  // queued on the GPU when the previous ended
                sample(*ks[i], *ks[i - 1], round_ps(*ks[i]->start_ns - *ks[i - 1]->end_ns));
    }
}

void each_same_stream_gap(const std::vector<KernelTimes>& kernels, const Sink& sample) {
    each_same_stream_gap_after(kernels, [&](const KernelTimes& k, const KernelTimes&, double x) { sample(k, x); });
}

void each_idle_launch_latency(const std::vector<KernelTimes>& kernels, const Sink& sample) {
    std::vector<const KernelTimes*> order;
    for (const KernelTimes& k : kernels)
        if (ran(k)) order.push_back(&k);
    std::stable_sort(order.begin(), order.end(),
                     [](const KernelTimes* a, const KernelTimes* b) { return a->launch_ns < b->launch_ns; });
    std::vector<double> latest_end(order.size());  // over order[0..i]
    for (size_t i = 0; i < order.size(); ++i)
        latest_end[i] = std::max(i ? latest_end[i - 1] : -INFINITY, *order[i]->end_ns);
    std::set<std::string_view> loaded;
    size_t first = 0;  // of the kernels launched at the same time as order[i]
    for (size_t i = 0; i < order.size(); ++i) {
        const KernelTimes& k = *order[i];
        const double c = k.launch_ns;
        if (order[first]->launch_ns != c) first = i;
        if (loaded.insert(base_name(k.name)).second) continue;  // its name's first launch
        bool busy = first > 0 && latest_end[first - 1] > c;
        for (size_t j = first; j < order.size() && order[j]->launch_ns == c && !busy; ++j)
            busy = j != i && *order[j]->end_ns > c;
        if (!busy) sample(k, round_ps(*k.start_ns - c));
    }
}

std::vector<double> samples(const std::vector<KernelTimes>& kernels, void (*each)(const std::vector<KernelTimes>&, const Sink&)) {
    std::vector<double> v;
    each(kernels, [&](const KernelTimes&, double x) { v.push_back(x); });
    return v;
}

std::vector<std::optional<double>> by_kernel(const std::vector<KernelTimes>& kernels,
                                             void (*each)(const std::vector<KernelTimes>&, const Sink&)) {
    std::vector<std::optional<double>> v(kernels.size());
    each(kernels, [&](const KernelTimes& k, double x) { v[size_t(&k - kernels.data())] = x; });
    return v;
}

}  // namespace

std::vector<double> same_stream_gaps(const std::vector<KernelTimes>& kernels) { return samples(kernels, each_same_stream_gap); }
std::vector<double> idle_launch_latencies(const std::vector<KernelTimes>& kernels) {
    return samples(kernels, each_idle_launch_latency);
}
std::vector<std::optional<double>> same_stream_gap_of(const std::vector<KernelTimes>& kernels) {
    return by_kernel(kernels, each_same_stream_gap);
}
std::vector<std::optional<double>> idle_launch_latency_of(const std::vector<KernelTimes>& kernels) {
    return by_kernel(kernels, each_idle_launch_latency);
}

std::vector<bool> overlapped_kernels(const std::vector<KernelTimes>& kernels) {
    std::vector<size_t> order;  // the kernels that ran, by start, then end
    for (size_t i = 0; i < kernels.size(); ++i)
        if (ran(kernels[i])) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const KernelTimes &x = kernels[a], &y = kernels[b];
        return *x.start_ns != *y.start_ns ? *x.start_ns < *y.start_ns : *x.end_ns < *y.end_ns;
    });
    std::vector<bool> over(kernels.size(), false);
    double latest_end = -std::numeric_limits<double>::infinity();  // of the kernels before, by start
    for (size_t p = 0; p < order.size(); ++p) {
        const KernelTimes& k = kernels[order[p]];
        if (latest_end > *k.start_ns) over[order[p]] = true;  // an earlier one runs on into it
        if (p + 1 < order.size() && *kernels[order[p + 1]].start_ns < *k.end_ns) over[order[p]] = true;  // a later one starts in it
        latest_end = std::max(latest_end, *k.end_ns);
    }
    return over;
}

std::vector<double> kernel_duration_ratios(const ReplaySides& sides, std::optional<bool> overlapped) {
    std::vector<double> ratios;
    std::vector<bool> over;
    if (overlapped) over = overlapped_kernels(sides.measured);
    for (size_t i = 0; i < std::min(sides.measured.size(), sides.simulated.size()); ++i) {
        const KernelTimes &m = sides.measured[i], &s = sides.simulated[i];
        if (!ran(m) || !ran(s) || (overlapped && over[i] != *overlapped)) continue;
        const double measured = *m.end_ns - *m.start_ns;
        if (measured > 0) ratios.push_back(round6((*s.end_ns - *s.start_ns) / measured));
    }
    return ratios;
}

std::vector<size_t> dispatch_bound_kernels(const std::vector<KernelTimes>& measured) {
    std::vector<size_t> bound;
    for (size_t i = 0; i < measured.size(); ++i) {
        const KernelTimes& k = measured[i];
        if (ran(k) && k.floor_ns && *k.end_ns - *k.start_ns < *k.floor_ns) bound.push_back(i);
    }
    return bound;
}

std::vector<std::optional<double>> same_stream_gap_errors(const ReplaySides& sides) {
    const std::vector<KernelTimes>& m = sides.measured;
    std::vector<std::optional<double>> v(m.size());
    each_same_stream_gap_after(m, [&](const KernelTimes& k, const KernelTimes& previous, double measured) {
        const size_t i = size_t(&k - m.data()), p = size_t(&previous - m.data());
        if (i >= sides.simulated.size() || p >= sides.simulated.size()) return;
        const KernelTimes &s = sides.simulated[i], &sp = sides.simulated[p];
        if (ran(s) && ran(sp)) v[i] = round_ps(*s.start_ns - *sp.end_ns - measured);
    });
    return v;
}

std::vector<std::optional<double>> idle_launch_latency_errors(const ReplaySides& sides) {
    const std::vector<KernelTimes>& m = sides.measured;
    std::vector<std::optional<double>> v(m.size());
    each_idle_launch_latency(m, [&](const KernelTimes& k, double measured) {
        const size_t i = size_t(&k - m.data());
        if (i >= sides.simulated.size()) return;
        const KernelTimes& s = sides.simulated[i];
        if (ran(s)) v[i] = round_ps(*s.start_ns - s.launch_ns - measured);
    });
    return v;
}

PairedError paired_error(const std::vector<double>& errors) {
    std::vector<double> a;
    for (double x : errors) a.push_back(std::fabs(x));
    const Distribution d = distribution(std::move(a));
    return {d.median, d.p90, d.count};
}

double nearest_rank(const std::vector<double>& sorted, double p) {
    const size_t rank = size_t(std::ceil(p / 100 * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

Distribution distribution(std::vector<double> samples) {
    Distribution d;
    d.count = samples.size();
    if (samples.empty()) return d;
    std::sort(samples.begin(), samples.end());
    d.median = nearest_rank(samples, 50);
    d.p90 = nearest_rank(samples, 90);
    d.max = samples.back();
    return d;
}

// A sweep over the kernels' starts and ends: between two consecutive times, every kernel running
// overlaps another stream exactly when kernels of two streams or more run.
std::optional<double> cross_stream_overlap(const std::vector<KernelTimes>& kernels) {
    std::map<std::string_view, size_t> stream_ids;
    struct Edge {
        double t;
        int step;  // +1 a start, -1 an end
        size_t stream;
    };
    std::vector<Edge> edges;
    double total = 0;
    for (const KernelTimes& k : kernels) {
        if (!ran(k) || !(*k.end_ns > *k.start_ns)) continue;
        const size_t id = stream_ids.emplace(k.stream, stream_ids.size()).first->second;
        edges.push_back({*k.start_ns, +1, id});
        edges.push_back({*k.end_ns, -1, id});
        total += *k.end_ns - *k.start_ns;
    }
    if (!(total > 0)) return std::nullopt;
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    std::vector<size_t> running(stream_ids.size(), 0);
    size_t kernels_running = 0, streams_running = 0;
    double overlapped = 0;
    for (size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        size_t& n = running[e.stream];
        if (e.step > 0) streams_running += n++ == 0;
        else streams_running -= --n == 0;
        kernels_running = size_t(ptrdiff_t(kernels_running) + e.step);
        if (i + 1 < edges.size() && streams_running >= 2) overlapped += double(kernels_running) * (edges[i + 1].t - e.t);
    }
    return round6(overlapped / total);
}

std::optional<double> makespan(const std::vector<KernelTimes>& kernels) {
    std::optional<double> first, last;
    for (const KernelTimes& k : kernels) {
        if (!ran(k)) continue;
        first = std::min(first.value_or(k.launch_ns), k.launch_ns);
        last = std::max(last.value_or(*k.end_ns), *k.end_ns);
    }
    if (!first) return std::nullopt;
    return round_ps(*last - *first);
}

ReplayRecord replay_summary(const ReplaySides& sides) {
    ReplayRecord r;
    r.kernels = sides.measured.size();
    r.dispatch_bound_kernels = dispatch_bound_kernels(sides.measured).size();
    auto present = [](const std::vector<std::optional<double>>& v) {
        std::vector<double> out;
        for (const auto& x : v)
            if (x) out.push_back(*x);
        return out;
    };
    r.same_stream_gap_ns = {distribution(same_stream_gaps(sides.measured)), distribution(same_stream_gaps(sides.simulated)),
                            paired_error(present(same_stream_gap_errors(sides)))};
    r.idle_launch_latency_ns = {distribution(idle_launch_latencies(sides.measured)),
                                distribution(idle_launch_latencies(sides.simulated)),
                                paired_error(present(idle_launch_latency_errors(sides)))};
    r.kernel_duration_ratio = distribution(kernel_duration_ratios(sides));
    r.kernel_duration_ratio_alone = distribution(kernel_duration_ratios(sides, false));
    r.kernel_duration_ratio_overlapped = distribution(kernel_duration_ratios(sides, true));
    r.makespan_ns = {makespan(sides.measured), makespan(sides.simulated)};
    if (r.makespan_ns.measured && r.makespan_ns.simulated && *r.makespan_ns.measured > 0)
        r.makespan_ratio = round6(*r.makespan_ns.simulated / *r.makespan_ns.measured);
    r.cross_stream_overlap = {cross_stream_overlap(sides.measured), cross_stream_overlap(sides.simulated)};
    return r;
}

}  // namespace gpuvp
