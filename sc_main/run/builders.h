// The sections of a run's record, each built by a small function from what one part of the
// platform reports once the simulation has stopped. Internal to sc_main/run/.
#pragma once
#include <gpuvp/models/checker/protocol_checker.h>
#include <gpuvp/platform/system.h>
#include "sc_main/record/run_record.h"
#include "sc_main/run/recorder.h"
#include "sc_main/scenario/scenario.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp::build {

inline double ns_of(const sc_core::sc_time& t) { return to_ns(t); }
// A difference of two times in ns, to whole picoseconds (no 3235.2000000000007).
inline double ns_diff(double a, double b) { return std::round((a - b) * 1000) / 1000; }
inline std::optional<double> opt_ns(const std::optional<sc_core::sc_time>& t) {
    return t ? std::optional<double>(ns_of(*t)) : std::nullopt;
}
inline std::string fmt_ns(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// What a stopped simulation leaves to read: the scenario, the platform that ran it, what the
// recorder saw, and where it stopped.
struct Ran {
    const Scenario& s;
    System& sys;
    Recorder& rec;
    sc_core::sc_time end;
    std::string queue_name(uint32_t q) const { return q < s.workload.queues.size() ? s.workload.queues[q].name : "q0"; }
    uint32_t queue_priority(uint32_t q) const { return q < s.workload.queues.size() ? s.workload.queues[q].priority : 0u; }
    QueueSpec::Type queue_type(uint32_t q) const {
        return q < s.workload.queues.size() ? s.workload.queues[q].type : QueueSpec::Type::multi;
    }
    // Whether launch i (the kernels, then the draws, then the copies) wrote `instances`.
    bool instanced(size_t i) const {
        const size_t kernels = s.workload.kernels.size(), draws = s.workload.draws.size();
        return i < kernels ? s.workload.kernels[i].instances_key : i < kernels + draws && s.workload.draws[i - kernels].instances_key;
    }
};

// Each launch's status (the kernels, then the draws, then the copies). `unfinished` is how the
// run ended for what did not complete ("{what}" in its detail: kernel, draw or copy).
std::vector<LaunchStatus> launch_statuses(const Ran& ran, const LaunchStatus& unfinished);
// The hang's state dump names completion signals by address: say whose they are.
void name_signals(std::vector<std::string>& state, const std::vector<LaunchRecord>& launches);

// The sections, each filling its members of `r`; run_scenario calls them in a fixed order
// (`kernels` adds the launch stages to the trace, before the trace's counts are read).
// `alone`: each kernel's turnaround run alone (with measure_alone).
void scenario_header(RunRecord& r, const Scenario& s);
void kernels(RunRecord& r, const Ran& ran, const std::vector<LaunchStatus>& statuses, const std::vector<double>& alone);
uint64_t sms(RunRecord& r, const Ran& ran);  // the warp-instructions of all of them
void queues(RunRecord& r, const Ran& ran);
void locks(RunRecord& r, const Ran& ran);
void scalar(RunRecord& r, const Ran& ran);
void usa(RunRecord& r, const Ran& ran, const std::vector<LaunchStatus>& statuses);
void memory(RunRecord& r, const Ran& ran);
ProtocolRecord protocol(const ProtocolLog& log);
void replay(RunRecord& r, const Scenario& s);  // a replayed trace's: the model against the hardware
// Each expectation of the scenario checked on `r` (comparisons across variants: run_variants).
std::vector<ExpectationRecord> expectations(const RunRecord& r, const Scenario& s);

}  // namespace gpuvp::build
