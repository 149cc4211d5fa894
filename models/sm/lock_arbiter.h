// M2: the lock arbiters of one SM. Every block on the SM has its own arbiter (one per row of
// the block status table; they are banked in this module): a FIFO of (requester, holder)
// warp pairs, served in order. For each entry the arbiter reads the two warps' competitive
// priority registers (CPRs) from the SM and decides: a requester of higher priority (a lower
// CPR value) pre-empts the holder, which must release all its locks; an equal or lower one
// must wait (releasing the locks it holds). The SM carries the decision out.
//
//   regs   TLM target: the SM pushes LockRequests (and debuggers read the FIFOs)
//   to_sm  TLM initiator: CPR reads and LockDecisions, into the SM's registers
#pragma once
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/stats.h>
#include <gpuvp/models/common/timing.h>

#include <gpuvp/models/common/tlm_util.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace gpuvp {

class LockArbiter : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<LockArbiter> regs;  // its SM, debuggers
    tlm_utils::simple_initiator_socket<LockArbiter> to_sm;

    // `rows`: the SM's block status table rows; `decide_cycles`: one entry's arbitration.
    LockArbiter(sc_core::sc_module_name name, uint32_t sm, uint32_t rows, const Clock& clock, sc_core::sc_time bus,
                uint32_t decide_cycles, Observer* observer = nullptr);

    struct Stats {
        STATS_RECORD;
        uint64_t requests = 0, preempts = 0, waits = 0;
        uint64_t fifo_max = 0;  // the most entries one FIFO held at once
        template <class S, class V>
        static void fields(S& s, V& v) {
            v("requests", s.requests, Doc{"count", "requests the arbiter took"});
            v("preempts", s.preempts, Doc{"count", "decisions that pre-empted the holder"});
            v("waits", s.waits, Doc{"count", "decisions that made the requester wait"});
            v("fifo_max", s.fifo_max, Doc{"count", "the longest arbiter queue"});
        }
        Stats& operator+=(const Stats& o) {  // several arbiters together: counts summed, the longest queue
            requests += o.requests;
            preempts += o.preempts;
            waits += o.waits;
            fifo_max = std::max(fifo_max, o.fifo_max);
            return *this;
        }
    };
    const Stats& stats() const { return stats_; }

private:
    struct Row {
        std::deque<LockRequest> fifo;
        sc_core::sc_time free_at;  // the arbiter is busy with an entry until then
    };

    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    void run();
    void decide(Row& row, const sc_core::sc_time& now);
    uint8_t read_cpr(uint32_t row, uint16_t warp, sc_core::sc_time& delay);
    LockEvent event(LockEventKind k, const LockRequest& r, uint32_t cpr, const sc_core::sc_time& t) const;

    uint32_t sm_;
    Clock clock_;
    sc_core::sc_time bus_;
    uint32_t decide_cycles_;
    Observer* observer_;
    std::vector<Row> rows_;
    sc_core::sc_event wake_;
    Inbox<LockRequest> inbox_{wake_};
    std::vector<uint32_t> busy_rows_;  // rows with entries, in the order they got their first
    Stats stats_;
    PayloadPool payloads_;  // for its transactions (tlm_util.h)
};

}  // namespace gpuvp
