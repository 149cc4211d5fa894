// What an expectation names, found in a run's record, and the expectations checked.
#include "sc_main/record/metrics.h"
#include "sc_main/run/builders.h"
#include "sc_main/run/run.h"

namespace gpuvp {

using json = nlohmann::ordered_json;

namespace {

// A metric of a kernel's or a draw's entry: its member, or (`instances_ok`, `instances_failed`,
// `instance_turnaround_max_ns`, ...) one of its `instances` summary. null if it has none.
template <class Entry>
json entry_metric(const Entry& entry, const std::string& metric) {
    if (auto v = fields::lookup(entry, {metric}, 0)) return *v;
    if (!entry.instances) return json(nullptr);
    const InstancesSummary& in = *entry.instances;
    if (metric == "instances_ok") return in.ok;
    if (metric == "instances_failed") return in.failed;
    const std::string head = "instance_", tail = "_ns";
    if (metric.size() > head.size() + tail.size() && metric.compare(0, head.size(), head) == 0 &&
        metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0) {
        const std::string mid = metric.substr(head.size(), metric.size() - head.size() - tail.size());  // turnaround_max
        const size_t cut = mid.rfind('_');
        if (cut != std::string::npos)
            if (auto v = fields::lookup(in, {mid.substr(0, cut) + "_ns", mid.substr(cut + 1)}, 0)) return *v;
    }
    return json(nullptr);
}

}  // namespace

json results_value(const RunRecord& r, const ExpectOperand& o) {
    if (o.path.empty()) {  // NAME.METRIC of a kernel or a draw
        if (!o.kernel.empty())
            for (const KernelRecord& k : r.kernels)
                if (k.name == o.kernel) return entry_metric(k, o.metric);
        if (!o.draw.empty())
            for (const DrawRecord& d : r.usa.draws)
                if (d.name == o.draw) return entry_metric(d, o.metric);
        return json(nullptr);
    }
    return fields::lookup(r, fields::split_path(o.path), 0).value_or(json(nullptr));
}

// The value an expectation (not a comparison) bounds.
json expectation_value(const RunRecord& r, const Expectation& e) {
    if (e.metric.find('.') != std::string::npos) {
        ExpectOperand path;
        path.path = e.metric;
        return results_value(r, path);
    }
    json value = nullptr;
    if (e.priority) {
        const std::string p = std::to_string(*e.priority);
        for (const auto& [cpr, locks] : r.locks.by_priority)
            if (cpr == p)
                for (const PriorityMetric& m : kPriorityMetrics)
                    if (e.metric == m.name) value = m.value(locks);
    } else if (!e.draw.empty()) {
        for (const DrawRecord& d : r.usa.draws)
            if (d.name == e.draw) value = entry_metric(d, e.metric);
    } else if (e.kernel.empty()) {
        for (const RunMetric& m : kRunMetrics)
            if (e.metric == m.name) value = m.value(r);
    } else {
        for (const KernelRecord& k : r.kernels)
            if (k.name == e.kernel) value = entry_metric(k, e.metric);
    }
    return value;
}

bool compare_holds(const Expectation& e, const json& a, const json& b) {
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.get<double>(), y = e.factor * b.get<double>();
    return e.op == "<" ? x < y : e.op == "<=" ? x <= y : e.op == ">" ? x > y : x >= y;
}

namespace build {

std::vector<ExpectationRecord> expectations(const RunRecord& r, const Scenario& s) {
    std::vector<ExpectationRecord> expectations;
    for (const Expectation& e : s.expect) {
        ExpectationRecord x;
        if (!e.compare.empty()) {  // A OP F * B
            const json a = results_value(r, e.lhs), b = results_value(r, e.rhs);
            x.compare = e.compare;
            x.value = json::array({a, b});
            x.passed = compare_holds(e, a, b);
        } else {
            if (!e.kernel.empty()) x.kernel = e.kernel;
            if (!e.draw.empty()) x.draw = e.draw;
            if (e.priority) x.priority = *e.priority;
            x.metric = e.metric;
            x.min = e.min;
            x.max = e.max;
            x.value = expectation_value(r, e);
            x.passed = x.value.is_number() && (!e.min || x.value.get<double>() >= *e.min) &&
                       (!e.max || x.value.get<double>() <= *e.max);
        }
        x.line = e.line;
        expectations.push_back(std::move(x));
    }
    return expectations;
}

}  // namespace build

}  // namespace gpuvp
