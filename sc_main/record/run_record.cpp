#include "sc_main/record/run_record.h"
#include "sc_main/record/metrics.h"

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
