#include <gpuvp/models/memory/link.h>

namespace gpuvp {

Link::Link(sc_core::sc_module_name name, sc_core::sc_time round_trip)
    : sc_module(name), in("in"), out("out"), latency_(round_trip) {
    in.register_b_transport(this, &Link::b_transport);
    in.register_transport_dbg(this, &Link::transport_dbg);
    in.register_get_direct_mem_ptr(this, &Link::get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &Link::invalidate_direct_mem_ptr);
}

void Link::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++transactions_;
    delay += latency_;
    out->b_transport(gp, delay);
}

bool Link::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    bool ok = out->get_direct_mem_ptr(gp, dmi);
    dmi.set_read_latency(dmi.get_read_latency() + latency_);
    dmi.set_write_latency(dmi.get_write_latency() + latency_);
    return ok;
}

}  // namespace gpuvp
