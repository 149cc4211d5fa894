// A RAM target: b_transport with a fixed access latency, transport_dbg and DMI. Optionally it
// notifies writes to watched bytes (models/common/write_watch.h, docs/models/memory.md).
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace gpuvp {

class Memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Memory> socket;
    // Write notifications go out here (bound by a platform whose memory has a watcher).
    tlm_utils::simple_initiator_socket_optional<Memory> notify;

    Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency);

    // Turns watching on: a read carrying a WriteWatch arms a watch on its bytes, and the next
    // timed write to them not carrying one sends the watched range's address (8 bytes) to
    // `address` through `notify`, as a posted write issued when the write is done at this
    // memory (the write's delay plus `latency`). The read's WriteWatch is marked armed, DMI
    // grants over the watched bytes are taken back (invalidate_direct_mem_ptr), and no new one
    // covers them while the watch is armed.
    void notify_writes_to(uint64_t address) { notify_address_ = address; }
    size_t watched() const { return watched_.size(); }  // armed watches

    uint64_t size() const { return size_; }
    unsigned char* data() { return data_.get(); }
    const sc_core::sc_time& latency() const { return latency_; }
    uint64_t reads() const { return reads_; }
    uint64_t writes() const { return writes_; }

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    bool watched(uint64_t begin, uint64_t end) const;  // any of [begin, end) under a watch

    struct Free { void operator()(unsigned char* p) const { std::free(p); } };
    uint64_t size_;
    std::unique_ptr<unsigned char, Free> data_;  // calloc: untouched pages cost nothing
    sc_core::sc_time latency_;
    uint64_t reads_ = 0, writes_ = 0;
    std::optional<uint64_t> notify_address_;
    struct Range {
        uint64_t begin, end;
    };
    std::vector<Range> watched_;
    bool dmi_granted_ = false;  // a DMI pointer was given out: arming a watch takes it back
};

}  // namespace gpuvp
