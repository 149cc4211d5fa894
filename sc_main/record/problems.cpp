#include "sc_main/record/problems.h"
#include "sc_main/record/json_text.h"

namespace gpuvp {

namespace {

std::string number(double v) {
    std::string s;
    append_json_number(s, v);
    return s;
}

void run_lines(const RunRecord& run, const std::string& who, std::vector<RunProblem>& out) {
    for (const KernelRecord& k : run.kernels)
        if (!k.status.ok()) out.push_back({0, who + "kernel " + k.name + ": " + k.status.text()});
    for (const DrawRecord& d : run.usa.draws)
        if (!d.status.ok()) out.push_back({0, who + "draw " + d.name + ": " + d.status.text()});
    for (const ErrorRecord& e : run.errors)
        out.push_back({0, who + "queue " + e.queue + " packet " + std::to_string(e.packet) + ": " + e.error +
                      (e.field.empty() ? "" : " (" + e.field + ")") + (e.detail.empty() ? "" : ": " + e.detail)});
    if (run.hang)
        out.push_back({0, who + "the " + run.hang->cause + " stopped the run at " + number(run.hang->detected_ns) +
                      " ns: no progress since " + number(run.hang->no_progress_since_ns) + " ns, " +
                      std::to_string(run.hang->in_flight) + " kernels and draws not complete"});
    if (run.protocol)
        for (const ViolationRecord& v : run.protocol->violations)
            out.push_back({0, who + "protocol: " + v.checker + ": " + v.rule + ": " + v.detail});
    if (run.unfinished) out.push_back({0, who + "the run did not finish (exit " + std::to_string(run.exit_code) + ")"});
}

}  // namespace

RunProblems run_problems(const RunRecord& r) {
    RunProblems p;
    for (const ExpectationRecord& e : r.expectations) {
        if (e.passed) {
            ++p.expectations_passed;
            continue;
        }
        ++p.expectations_failed;
        std::string what;
        if (e.variant) what += "variant " + *e.variant + ": ";
        if (e.compare) {
            p.problems.push_back({e.line, what + "compare " + *e.compare + ": values " + e.value.dump()});
            continue;
        }
        if (e.kernel) what += "kernel " + *e.kernel + " ";
        if (e.draw) what += "draw " + *e.draw + " ";
        if (e.priority) what += "priority " + std::to_string(*e.priority) + " ";
        what += (e.metric ? *e.metric : std::string("?")) + " = " + e.value.dump() + ", wanted";
        if (e.min && *e.min) what += " >= " + number(**e.min);
        if (e.max && *e.max) what += " <= " + number(**e.max);
        p.problems.push_back({e.line, what});
    }
    // Failed kernels and draws: of each variant, named, when the scenario has variants.
    if (r.variants)
        for (const VariantEntry& v : *r.variants) run_lines(v.results, "variant " + v.name + ": ", p.problems);
    else
        run_lines(r, "", p.problems);
    return p;
}

int worse_exit(int a, int b) {
    auto rank = [](int c) { return c == 0 ? 0 : c == 1 ? 1 : c == 3 ? 2 : 3; };
    a = a >= 128 ? 2 : a;
    b = b >= 128 ? 2 : b;
    return rank(b) > rank(a) ? b : a;
}

}  // namespace gpuvp
