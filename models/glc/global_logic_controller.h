// The global logic controller: holds the kernel status and SM status register tables,
// places blocks on SMs through a placement policy, and tells the command processor when a
// kernel's last block has finished. Under policy.scalar multilevel (M3) it also tells every SM
// when a kernel will get no more blocks (KernelDrained), so that the SM keeps the kernel's
// kernel-level scalars for blocks still to come and frees them after its last one.
#pragma once
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/sm_config.h>
#include <gpuvp/models/common/stats.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/glc/glc_config.h>
#include <gpuvp/models/glc/placement_policy.h>
#include <gpuvp/models/glc/tables.h>

#include <gpuvp/models/common/tlm_util.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

class GlobalLogicController : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<GlobalLogicController> regs;  // WLM, every SM
    tlm_utils::multi_passthrough_initiator_socket<GlobalLogicController> to_sm;  // bind SM 0 first
    tlm_utils::simple_initiator_socket<GlobalLogicController> to_cp;

    // `sms`: each SM's configuration, SM 0 first (their capacities fill the SM status table).
    // `scalar`: the SMs' scalar registers (M3); under multilevel the SMs are told when a
    // kernel will get no more blocks.
    GlobalLogicController(sc_core::sc_module_name name, const std::vector<SmConfig>& sms,
                          uint32_t max_kernels, const GlcConfig& config, const Clock& clock,
                          sc_core::sc_time bus, std::unique_ptr<PlacementPolicy> policy,
                          Observer* observer = nullptr, ScalarPolicy scalar = ScalarPolicy::per_warp);

    const GlcTables& tables() const { return tables_; }
    // Blocks sent to SMs that no status notice has counted yet, over every SM: the GLC's only
    // per-block state (bounded by what the SMs can hold).
    size_t blocks_in_flight() const {
        size_t n = 0;
        for (const SmView& v : views_) n += v.in_flight.size();
        return n;
    }
    uint64_t blocks_dispatched() const { return blocks_dispatched_; }

    // Blocks placed, by PlacementKind (results.json's glc.blocks_placed).
    struct Stats {
        STATS_RECORD;
        uint64_t whole_blocks = 0, first_sm = 0, second_sm = 0;
        template <class S, class V>
        static void fields(S& s, V& v) {
            v("whole_blocks", s.whole_blocks, Doc{"count", "blocks placed whole on one SM"});
            v("first_sm", s.first_sm, Doc{"count", "priority-warp: blocks started on one SM and continued on another"});
            v("second_sm", s.second_sm, Doc{"count", "priority-warp: the second parts of those"});
        }
    };
    const Stats& stats() const { return stats_; }

private:
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    void run();
    void apply(const KernelRegistration& r, const sc_core::sc_time& now);
    void apply(const SmNotice& n, const sc_core::sc_time& now);
    // Writes the placement's block descriptors, the i-th (from 1) i descriptor writes from now;
    // returns how many.
    uint64_t place(const Placement& p);
    // M3: no more blocks of the kernel will come; sent `after` from now (after its last descriptor).
    void drained(uint32_t slot, const sc_core::sc_time& after = sc_core::SC_ZERO_TIME);
    void sm_row_from_view(uint32_t sm);
    void kernel_row_changed(uint32_t slot, const sc_core::sc_time& t);
    void sm_row_changed(uint32_t sm, const sc_core::sc_time& t);

    struct Message {
        bool is_registration;
        KernelRegistration reg;
        SmNotice notice;
    };

    GlcConfig cfg_;
    Clock clock_;
    sc_core::sc_time bus_;
    std::unique_ptr<PlacementPolicy> policy_;
    Observer* observer_;
    bool drain_notices_;  // M3: multilevel scalars: the SMs are told when a kernel is drained
    GlcTables tables_;
    // Per SM: its last status notice and the blocks sent since (which that notice did not count).
    struct InFlight {
        uint64_t seq;
        uint32_t regs, slots, shared, priority;
    };
    struct SmView {
        SmRow reported;
        uint64_t sent = 0;
        std::deque<InFlight> in_flight;
    };
    std::vector<SmView> views_;
    sc_core::sc_event inbox_event_;
    Inbox<Message> inbox_{inbox_event_};
    std::vector<uint32_t> done_;  // kernel slots whose last block finished, to tell the CP
    uint64_t arrivals_ = 0, blocks_dispatched_ = 0;
    uint32_t warp_size_;
    Stats stats_;
    PayloadPool payloads_;  // for its transactions (tlm_util.h)
};

}  // namespace gpuvp
