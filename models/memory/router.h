// An address decoder: any number of initiators in, a list of address ranges out. A range may
// move addresses (out_address = address - base + target_base). An address no range holds is
// answered with TLM_ADDRESS_ERROR_RESPONSE. DMI and debug transport pass through, translated.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp {

class Router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Router> in;
    tlm_utils::multi_passthrough_initiator_socket<Router> out;

    explicit Router(sc_core::sc_module_name name);

    // The next `out` binding serves [base, base + size), seen there from target_base on.
    void map(uint64_t base, uint64_t size, uint64_t target_base = 0, std::string what = "");
    // Moves the range of `out` port `port` while the simulation runs (a BAR reprogrammed, a
    // window moved). Every initiator is first told to drop its DMI pointers into the old
    // addresses (invalidate_direct_mem_ptr on each `in` binding); later accesses and DMI
    // requests decode with the new range.
    void remap(unsigned port, uint64_t base, uint64_t size, uint64_t target_base = 0);

private:
    struct Range {
        uint64_t base, size, target_base;
        std::string what;
    };
    const Range* decode(uint64_t address, unsigned length, unsigned& port) const;
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);
    void end_of_elaboration() override;

    std::vector<Range> ranges_;  // index = out port
};

}  // namespace gpuvp
