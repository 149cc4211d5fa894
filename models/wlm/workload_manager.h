// The workload manager: takes a decoded dispatch from the command processor, fetches the
// kernel descriptor, works out the kernel's resources, writes every SM's ISU kernel context
// (PC, kernarg pointer and size) and registers the kernel in the GLC's kernel status table.
#pragma once
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/wlm/wlm_config.h>

#include <gpuvp/models/common/tlm_util.h>

#include <systemc>
#include <vector>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <deque>

namespace gpuvp {

class WorkloadManager : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<WorkloadManager> regs;       // from the CP (and debug)
    tlm_utils::simple_initiator_socket<WorkloadManager> mem;                 // descriptor fetch
    tlm_utils::multi_passthrough_initiator_socket<WorkloadManager> to_isu;   // every SM, SM 0 first
    tlm_utils::simple_initiator_socket<WorkloadManager> to_glc;
    tlm_utils::simple_initiator_socket<WorkloadManager> to_cp;               // a kernel that cannot run

    // `sms`: each SM's configuration (a kernel runs if one SM can hold a whole block).
    WorkloadManager(sc_core::sc_module_name name, const std::vector<SmConfig>& sms, const WlmConfig& config,
                    const Clock& clock, sc_core::sc_time bus, Observer* observer = nullptr);

private:
    LaunchDescriptor last_launch_{};  // the launch register's content
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    // Debug reads of the launch register give the last launch descriptor written (zeros before
    // the first); debug writes are refused (0 bytes): they must not start a launch.
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    void run();
    void launch(const LaunchDescriptor& l);
    void reject(const LaunchDescriptor& l, KernelError e);

    SmConfig sm_;                  // SM 0's (warp size; alike on every SM)
    std::vector<SmConfig> sms_;    // each SM's, for the fit of a block
    WlmConfig cfg_;
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    sc_core::sc_event inbox_event_;
    Inbox<LaunchDescriptor> inbox_{inbox_event_};
    PayloadPool payloads_;  // for its transactions (tlm_util.h)
};

}  // namespace gpuvp
