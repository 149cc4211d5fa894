// The device<->host link (a PCIe-like interconnect): every transaction crossing it pays the
// link's round-trip latency on top of whatever the far side charges.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace gpuvp {

class Link : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Link> in;
    tlm_utils::simple_initiator_socket<Link> out;

    Link(sc_core::sc_module_name name, sc_core::sc_time round_trip);
    uint64_t transactions() const { return transactions_; }

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
        in->invalidate_direct_mem_ptr(start, end);
    }

    sc_core::sc_time latency_;
    uint64_t transactions_ = 0;
};

}  // namespace gpuvp
