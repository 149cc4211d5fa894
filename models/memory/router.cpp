#include <gpuvp/models/memory/router.h>

#include <algorithm>
#include <stdexcept>

namespace gpuvp {

Router::Router(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
    in.register_b_transport(this, &Router::b_transport);
    in.register_transport_dbg(this, &Router::transport_dbg);
    in.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
}

void Router::map(uint64_t base, uint64_t size, uint64_t target_base, std::string what) {
    if (size == 0 || base + (size - 1) < base)
        throw std::logic_error(std::string(name()) + ": range " + what + " is empty or wraps around");
    for (const Range& r : ranges_)
        if (base <= r.base + (r.size - 1) && r.base <= base + (size - 1))
            throw std::logic_error(std::string(name()) + ": range " + what + " overlaps " + r.what);
    ranges_.push_back({base, size, target_base, std::move(what)});
}

void Router::remap(unsigned port, uint64_t base, uint64_t size, uint64_t target_base) {
    if (port >= ranges_.size()) throw std::logic_error(std::string(name()) + ": no range " + std::to_string(port));
    Range moved = ranges_[port];
    if (size == 0 || base + (size - 1) < base)
        throw std::logic_error(std::string(name()) + ": range " + moved.what + " is empty or wraps around");
    for (unsigned i = 0; i < ranges_.size(); ++i) {
        const Range& r = ranges_[i];
        if (i != port && base <= r.base + (r.size - 1) && r.base <= base + (size - 1))
            throw std::logic_error(std::string(name()) + ": range " + moved.what + " would overlap " + r.what);
    }
    const Range old = moved;
    ranges_[port] = {base, size, target_base, moved.what};
    for (unsigned i = 0; i < in.size(); ++i) in[i]->invalidate_direct_mem_ptr(old.base, old.base + (old.size - 1));
}

const Router::Range* Router::decode(uint64_t a, unsigned length, unsigned& port) const {
    for (unsigned i = 0; i < ranges_.size(); ++i) {
        const Range& r = ranges_[i];
        if (a >= r.base && a - r.base < r.size && length <= r.size - (a - r.base)) {
            port = i;
            return &r;
        }
    }
    return nullptr;
}

void Router::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    uint64_t a = gp.get_address();
    unsigned port;
    const Range* r = decode(a, gp.get_data_length(), port);
    if (!r) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_address(a - r->base + r->target_base);
    out[port]->b_transport(gp, delay);
    gp.set_address(a);
}

unsigned Router::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned length = gp.get_data_length();
    unsigned port;
    const Range* r = decode(a, 1, port);
    if (!r) return 0;
    // Clipped at the end of the range, as a memory clips at its end.
    gp.set_data_length(unsigned(std::min<uint64_t>(length, r->size - (a - r->base))));
    gp.set_address(a - r->base + r->target_base);
    unsigned n = out[port]->transport_dbg(gp);
    gp.set_address(a);
    gp.set_data_length(length);
    return n;
}

void Router::end_of_elaboration() {
    if (ranges_.size() != out.size())
        throw std::logic_error(std::string(name()) + ": " + std::to_string(out.size()) + " out bindings but " +
                               std::to_string(ranges_.size()) + " mapped ranges");
}

bool Router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    uint64_t a = gp.get_address();
    unsigned port;
    const Range* r = decode(a, 1, port);
    if (!r) return false;
    gp.set_address(a - r->base + r->target_base);
    bool ok = out[port]->get_direct_mem_ptr(gp, dmi);
    gp.set_address(a);
    // Back into this side's addresses, clipped to the range.
    uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
    uint64_t lo = r->target_base, hi = r->target_base + r->size - 1;
    if (start < lo) {
        dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (lo - start));
        start = lo;
    }
    if (end > hi) end = hi;
    dmi.set_start_address(start - r->target_base + r->base);
    dmi.set_end_address(end - r->target_base + r->base);
    return ok;
}

void Router::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
    const Range& r = ranges_.at(id);
    uint64_t lo = std::max<uint64_t>(start, r.target_base);
    uint64_t hi = std::min<uint64_t>(end, r.target_base + r.size - 1);
    if (lo > hi) return;
    for (unsigned i = 0; i < in.size(); ++i)
        in[i]->invalidate_direct_mem_ptr(lo - r.target_base + r.base, hi - r.target_base + r.base);
}

}  // namespace gpuvp
