// Small helpers for initiators: one call = one base-protocol b_transport or transport_dbg.
#pragma once
#include <tlm>
#include <systemc>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

// A plain payload: no byte enables, no streaming, no DMI hint, the minimal payload option,
// response not yet set. Every field is set, so a reused payload carries nothing over (but an
// extension a target might set: gpuvp's targets set none).
inline void prepare(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t address, void* data,
                    unsigned length) {
    gp.set_command(cmd);
    gp.set_address(address);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(length);
    gp.set_streaming_width(length);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_byte_enable_length(0);
    gp.set_gp_option(tlm::TLM_MIN_PAYLOAD);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// With a payload the caller keeps for its accesses: making a payload allocates its extension
// array, which costs more than a cache hit. The caller must not be re-entered while it waits.
template <class Socket>
tlm::tlm_response_status transport(Socket&& socket, tlm::tlm_generic_payload& gp, tlm::tlm_command cmd,
                                   uint64_t address, void* data, unsigned length, sc_core::sc_time& delay) {
    prepare(gp, cmd, address, data, length);
    socket->b_transport(gp, delay);
    return gp.get_response_status();
}

template <class Socket>
tlm::tlm_response_status transport(Socket&& socket, tlm::tlm_command cmd, uint64_t address,
                                   void* data, unsigned length, sc_core::sc_time& delay) {
    tlm::tlm_generic_payload gp;
    return transport(socket, gp, cmd, address, data, length, delay);
}

// The payloads an initiator module reuses, for initiators with more than one process or whose
// b_transport calls may wait (the SM and the caches keep a single payload instead). Making a
// payload allocates its extension array: a malloc and a free per transaction otherwise. A
// transaction leases one for its duration; a process that waits inside b_transport keeps its
// lease while another process of the module leases another. gpuvp's one extension, the
// WriteWatch (write_watch.h), is taken off before its lease ends, and every lease starts with
// `prepare`.
class PayloadPool {
public:
    class Lease {
    public:
        explicit Lease(PayloadPool& pool) : pool_(pool) {
            if (pool.free_.empty()) {
                gp_ = std::make_unique<tlm::tlm_generic_payload>();
            } else {
                gp_ = std::move(pool.free_.back());
                pool.free_.pop_back();
            }
        }
        ~Lease() { pool_.free_.push_back(std::move(gp_)); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        tlm::tlm_generic_payload& operator*() { return *gp_; }

    private:
        PayloadPool& pool_;
        std::unique_ptr<tlm::tlm_generic_payload> gp_;
    };

private:
    std::vector<std::unique_ptr<tlm::tlm_generic_payload>> free_;
};

template <class Socket>
tlm::tlm_response_status transport(Socket&& socket, PayloadPool& pool, tlm::tlm_command cmd, uint64_t address,
                                   void* data, unsigned length, sc_core::sc_time& delay) {
    PayloadPool::Lease gp(pool);
    return transport(socket, *gp, cmd, address, data, length, delay);
}

template <class Socket, class T>
tlm::tlm_response_status write_msg(Socket&& socket, uint64_t address, const T& msg, sc_core::sc_time& delay) {
    T copy = msg;
    return transport(socket, tlm::TLM_WRITE_COMMAND, address, &copy, sizeof copy, delay);
}

// With the initiator's payload (`tlm_generic_payload&`) or its pool (`PayloadPool&`).
template <class Socket, class Payloads, class T>
tlm::tlm_response_status write_msg(Socket&& socket, Payloads& payloads, uint64_t address, const T& msg,
                                   sc_core::sc_time& delay) {
    T copy = msg;
    return transport(socket, payloads, tlm::TLM_WRITE_COMMAND, address, &copy, sizeof copy, delay);
}

template <class Socket>
unsigned debug_transport(Socket&& socket, tlm::tlm_command cmd, uint64_t address, void* data, unsigned length) {
    tlm::tlm_generic_payload gp;
    prepare(gp, cmd, address, data, length);
    return socket->transport_dbg(gp);
}

// What no gpuvp target supports: byte enables and streaming. Sets the error response and
// returns true when the payload asks for them.
inline bool reject_unsupported(tlm::tlm_generic_payload& gp) {
    if (gp.get_byte_enable_ptr()) {
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return true;
    }
    if (gp.get_streaming_width() < gp.get_data_length()) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return true;
    }
    return false;
}

// A memory's checks: what reject_unsupported refuses, then the range. Sets the response and
// returns false when the request is not to be carried out (an error, or TLM_IGNORE_COMMAND).
inline bool check_plain_access(tlm::tlm_generic_payload& gp, uint64_t size) {
    if (reject_unsupported(gp)) return false;
    uint64_t a = gp.get_address(), n = gp.get_data_length();
    if (a >= size || n > size - a) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return false;
    }
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return false;
    }
    return true;
}

inline std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

}  // namespace gpuvp
