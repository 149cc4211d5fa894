// A RAM target: b_transport with a fixed access latency, transport_dbg and DMI.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>

namespace gpuvp {

class Memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Memory> socket;

    Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency);

    uint64_t size() const { return size_; }
    unsigned char* data() { return data_.get(); }
    const sc_core::sc_time& latency() const { return latency_; }
    uint64_t reads() const { return reads_; }
    uint64_t writes() const { return writes_; }

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);

    struct Free { void operator()(unsigned char* p) const { std::free(p); } };
    uint64_t size_;
    std::unique_ptr<unsigned char, Free> data_;  // calloc: untouched pages cost nothing
    sc_core::sc_time latency_;
    uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace gpuvp
