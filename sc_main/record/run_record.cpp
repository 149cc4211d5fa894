#include "sc_main/record/run_record.h"
#include "sc_main/record/metrics.h"

#include <algorithm>
#include <cmath>

namespace gpuvp {

const std::array<LaunchStage, 13> kLaunchStages = {{
    {"host", "submit -> doorbell: runtime work, kernel arguments, packet body and header", std::nullopt},
    {"doorbell_to_fetch", "doorbell -> packet read: link crossing, CP wake-up, packet fetch", Stage::packet_fetched},
    {"decode", "packet checks and the acquire fence", Stage::packet_decoded},
    {"queue_wait", "the barrier bit or a free kernel slot, if the packet had to wait", Stage::launched},
    {"descriptor_fetch", "CP -> WLM and the kernel descriptor read", Stage::descriptor_fetched},
    {"wlm_setup", "resources and every ISU's kernel context", Stage::isu_written},
    {"register", "the kernel's row in the GLC", Stage::kernel_registered},
    {"block_dispatch", "placement and the first block descriptor", Stage::first_block_dispatched},
    {"warp_launch", "the first warp takes a slot", Stage::first_warp_started},
    {"instruction_fetch", "the ISU's first fetch through the L1I", Stage::first_fetch_returned},
    {"kernarg_prefetch", "M5: the wait for the kernel-argument prefetch beyond the first fetch",
     Stage::kernarg_prefetch_returned},
    {"first_issue", "the first instruction issues", Stage::first_instruction_issued},
    {"kernarg_load", "the kernel arguments reach the warp", Stage::kernarg_load_done},
}};

std::string results_text(const RunRecord& r) {
    std::string out;
    fields::append_json(out, r, 0);
    out += '\n';
    return out;
}

RunRecord read_results(const fields::json& document) {
    RunRecord r;
    r.unfinished = document.is_object() && document.contains("unfinished");
    fields::from_json(document, r, "");
    return r;
}

ReplaySides replay_sides(const std::vector<KernelRecord>& kernels) {
    ReplaySides sides;
    std::optional<double> zero, measured_zero;  // each side's earliest launch call's start
    for (const KernelRecord& k : kernels) {
        if (!k.measured) continue;
        const MeasuredTimes& m = *k.measured;
        sides.measured.push_back({k.name, k.queue, double(m.launch_ns), double(m.launch_end_ns), double(m.start_ns),
                                  double(m.end_ns), m.floor_ns ? std::optional<double>(double(*m.floor_ns)) : std::nullopt,
                                  k.label.value_or("")});
        const double launch = k.call_start_ns ? *k.call_start_ns : k.submit_ns;
        const double launch_end = k.call_end_ns ? *k.call_end_ns : k.doorbell_ns.value_or(launch);
        sides.simulated.push_back({k.name, k.queue, launch, launch_end, k.first_warp_start_ns, k.end_ns, std::nullopt,
                                   k.label.value_or("")});
        zero = std::min(zero.value_or(launch), launch);
        measured_zero = std::min(measured_zero.value_or(double(m.launch_ns)), double(m.launch_ns));
    }
    auto shift = [](std::vector<KernelTimes>& side, double by) {
        auto at = [&](double t) { return std::round((t - by) * 1000) / 1000; };  // to whole ps
        for (KernelTimes& k : side) {
            k.launch_ns = at(k.launch_ns);
            k.launch_end_ns = at(k.launch_end_ns);
            if (k.start_ns) k.start_ns = at(*k.start_ns);
            if (k.end_ns) k.end_ns = at(*k.end_ns);
        }
    };
    if (zero) shift(sides.simulated, *zero);
    if (measured_zero) shift(sides.measured, *measured_zero);
    return sides;
}

std::string stats_markdown() {
    std::vector<fields::Listed> members;
    fields::list<RunRecord>(members, "", {});
    std::string out = "| member | type | unit | meaning |\n|---|---|---|---|\n";
    for (const fields::Listed& m : members)
        out += "| `" + m.path + "` | " + m.type + " | " + m.doc.unit + " | " + m.meaning + " |\n";
    out += "\nMetrics an expectation names without a path (`metric:` alone):\n\n| metric | meaning |\n|---|---|\n";
    for (const RunMetric& m : kRunMetrics) out += "| `" + std::string(m.name) + "` | " + m.meaning + " |\n";
    out += "\nWith `kernel: NAME`, of that kernel (its entry in `kernels[]`):\n\n| metric | meaning |\n|---|---|\n";
    for (const EntryMetric& m : entry_metrics<KernelRecord>()) out += "| `" + m.name + "` | " + m.meaning + " |\n";
    out += "\nWith `draw: NAME` (M4), of that draw (its entry in `usa.draws[]`):\n\n| metric | meaning |\n|---|---|\n";
    for (const EntryMetric& m : entry_metrics<DrawRecord>()) out += "| `" + m.name + "` | " + m.meaning + " |\n";
    out += "\nWith `priority: P` (M2), of the warps of that priority (`locks.by_priority.P`):\n\n| metric | meaning |\n|---|---|\n";
    for (const PriorityMetric& m : kPriorityMetrics) out += "| `" + std::string(m.name) + "` | " + m.meaning + " |\n";
    return out;
}

}  // namespace gpuvp
