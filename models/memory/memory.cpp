#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/common/write_watch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace gpuvp {

Memory::Memory(sc_core::sc_module_name name, uint64_t bytes, sc_core::sc_time latency)
    : sc_module(name), socket("socket"), notify("notify"), size_(bytes),
      data_(static_cast<unsigned char*>(std::calloc(bytes, 1))), latency_(latency) {
    if (!data_) throw std::bad_alloc();
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
}

void Memory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (!check_plain_access(gp, size_)) return;
    const uint64_t a = gp.get_address(), end = a + gp.get_data_length();
    unsigned char* p = data_.get() + a;
    // Only a memory that notifies looks for the watcher's mark (device memory, on every warp's
    // access path, does not).
    WriteWatch* const watch = notify_address_ ? gp.get_extension<WriteWatch>() : nullptr;
    const bool watcher = watch != nullptr;
    if (gp.is_read()) {
        std::memcpy(gp.get_data_ptr(), p, gp.get_data_length());
        ++reads_;
        if (watcher) {
            if (std::none_of(watched_.begin(), watched_.end(), [&](const Range& r) { return r.begin == a && r.end == end; }))
                watched_.push_back({a, end});
            // A writer through a DMI pointer would not be seen: the grants over these bytes end
            // (a new one leaves watched bytes out), and the watch is acknowledged.
            if (dmi_granted_) socket->invalidate_direct_mem_ptr(a, end - 1);
            watch->armed = true;
        }
    } else {
        std::memcpy(p, gp.get_data_ptr(), gp.get_data_length());
        ++writes_;
    }
    delay += latency_;
    if (gp.is_write() && !watched_.empty()) {  // the write is done here now: tell the watcher
        for (size_t i = 0; i < watched_.size();) {
            const Range r = watched_[i];
            if (r.begin >= end || a >= r.end) {
                ++i;
                continue;
            }
            watched_.erase(watched_.begin() + long(i));
            if (watcher) continue;  // its own write
            uint64_t address = r.begin;
            sc_core::sc_time d = delay;  // posted: not the writer's to wait for
            tlm::tlm_generic_payload notice;
            transport(notify, notice, tlm::TLM_WRITE_COMMAND, *notify_address_, &address, 8, d);
        }
    }
    gp.set_dmi_allowed(watched_.empty() || !watched(a, end));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::watched(uint64_t begin, uint64_t end) const {
    return std::any_of(watched_.begin(), watched_.end(), [&](const Range& r) { return r.begin < end && begin < r.end; });
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload& gp) {
    uint64_t a = gp.get_address();
    if (a >= size_) return 0;
    unsigned n = static_cast<unsigned>(std::min<uint64_t>(gp.get_data_length(), size_ - a));
    if (gp.is_read()) std::memcpy(gp.get_data_ptr(), data_.get() + a, n);
    else if (gp.is_write()) std::memcpy(data_.get() + a, gp.get_data_ptr(), n);
    return n;
}

// The whole memory, but for watched bytes: no DMI over them (a write there must be seen), and a
// grant stops short of them.
bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    const uint64_t a = gp.get_address();
    uint64_t lo = 0, hi = size_ - 1;
    for (const Range& r : watched_) {
        if (a >= r.begin && a < r.end) {  // refused, over the watched range
            dmi.set_start_address(r.begin);
            dmi.set_end_address(r.end - 1);
            return false;
        }
        if (r.end <= a) lo = std::max(lo, r.end);
        else hi = std::min(hi, r.begin - 1);
    }
    if (a >= size_) return false;
    dmi.set_dmi_ptr(data_.get() + lo);
    dmi.set_start_address(lo);
    dmi.set_end_address(hi);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    dmi.set_read_latency(latency_);
    dmi.set_write_latency(latency_);
    dmi_granted_ = true;
    return true;
}

}  // namespace gpuvp
