#include <gpuvp/models/memory/cache.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gpuvp {

Cache::Cache(sc_core::sc_module_name name, const CacheConfig& config)
    : sc_module(name), upstream("upstream"), downstream("downstream"), cfg_(config),
      hit_(sc_core::sc_time(config.hit_latency_ns, sc_core::SC_NS)) {
    if (cfg_.line_bytes == 0 || cfg_.ways == 0 || cfg_.bytes < cfg_.line_bytes * cfg_.ways)
        throw std::invalid_argument(std::string(this->name()) + ": cache smaller than one set");
    sets_ = cfg_.bytes / (cfg_.line_bytes * cfg_.ways);
    lines_.resize(size_t(sets_) * cfg_.ways);
    tags_.assign(lines_.size(), 0);
    data_.resize(lines_.size() * cfg_.line_bytes);
    fill_.resize(cfg_.line_bytes);
    upstream.register_b_transport(this, &Cache::b_transport);
    upstream.register_transport_dbg(this, &Cache::transport_dbg);
}

Cache::Line* Cache::find(uint64_t line_address, unsigned& index) {
    const uint64_t tag = line_number(line_address) + 1;
    const unsigned first = set_of(tag - 1) * cfg_.ways;
    const uint64_t* ways = &tags_[first];
    for (unsigned w = 0; w < cfg_.ways; ++w)
        if (ways[w] == tag) {
            index = first + w;
            return &lines_[index];
        }
    index = first;
    return nullptr;
}

bool Cache::contains(uint64_t address) const {
    unsigned i;
    return const_cast<Cache*>(this)->find(address - remainder(address, cfg_.line_bytes), i) != nullptr;
}

void Cache::invalidate_all() {
    std::fill(tags_.begin(), tags_.end(), 0);
}

tlm::tlm_response_status Cache::read_line(uint64_t line_address, const unsigned char*& line, sc_core::sc_time& delay) {
    const sc_core::sc_time stamp = gpuvp::stamp();
    const sc_core::sc_time now = stamp + delay;
    unsigned index;
    if (Line* l = find(line_address, index)) {
        l->last_use = ++use_clock_;
        sc_core::sc_time usable = now + hit_;
        if (l->ready_at > usable) {
            ++stats_.mshr_hits;
            usable = l->ready_at;
        } else {
            ++stats_.read_hits;
        }
        line = &data_[size_t(index) * cfg_.line_bytes];
        delay = usable - stamp;
        return tlm::TLM_OK_RESPONSE;
    }
    ++stats_.read_misses;
    // Victim: an invalid way, else the least recently used (chosen before the fill goes out,
    // which cannot change this cache, so its line can start coming into the host's cache).
    const unsigned first = index;  // find's miss: the set's first way
    unsigned victim = first;
    for (unsigned i = first; i < first + cfg_.ways; ++i) {
        if (tags_[i] == 0) { victim = i; break; }
        if (lines_[i].last_use < lines_[victim].last_use) victim = i;
    }
    __builtin_prefetch(&data_[size_t(victim) * cfg_.line_bytes], 1);
    sc_core::sc_time d = delay + hit_;  // the tag check before the miss goes out
    unsigned char* buf = fill_.data();
    if (auto status = transport(downstream, miss_gp_, tlm::TLM_READ_COMMAND, line_address, buf, cfg_.line_bytes, d);
        status != tlm::TLM_OK_RESPONSE) {
        ++stats_.errors;
        return status;
    }
    Line& l = lines_[victim];
    tags_[victim] = line_number(line_address) + 1;
    l.last_use = ++use_clock_;
    l.ready_at = gpuvp::stamp() + d;  // (a downstream target may have waited)
    std::memcpy(&data_[size_t(victim) * cfg_.line_bytes], buf, cfg_.line_bytes);
    line = &data_[size_t(victim) * cfg_.line_bytes];
    delay = d;
    return tlm::TLM_OK_RESPONSE;
}

void Cache::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (reject_unsupported(gp)) return;
    const uint64_t a = gp.get_address();
    const unsigned len = gp.get_data_length();
    const unsigned lb = cfg_.line_bytes;
    if (gp.is_write()) {
        // Write-through: memory takes it; a present line is updated, a missing one not allocated.
        ++stats_.writes;
        downstream->b_transport(gp, delay);
        gp.set_dmi_allowed(false);  // the cache must see every access
        if (!gp.is_response_ok()) return;
        for (uint64_t la = a - remainder(a, lb); la < a + len; la += lb) {
            unsigned index;
            if (find(la, index)) {
                uint64_t lo = std::max(la, a), hi = std::min(la + lb, a + len);
                std::memcpy(&data_[size_t(index) * lb + (lo - la)], gp.get_data_ptr() + (lo - a), hi - lo);
            }
        }
        return;
    }
    if (!gp.is_read()) {
        downstream->b_transport(gp, delay);
        return;
    }
    // The lines of a read are requested together; the read completes with the slowest.
    sc_core::sc_time slowest = delay;
    for (uint64_t la = a - remainder(a, lb); la < a + len; la += lb) {
        sc_core::sc_time d = delay;
        const unsigned char* line = nullptr;
        if (auto status = read_line(la, line, d); status != tlm::TLM_OK_RESPONSE) {
            gp.set_response_status(status);
            return;
        }
        uint64_t lo = std::max(la, a), hi = std::min(la + lb, a + len);
        std::memcpy(gp.get_data_ptr() + (lo - a), line + (lo - la), hi - lo);
        slowest = std::max(slowest, d);
    }
    delay = slowest;
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Cache::transport_dbg(tlm::tlm_generic_payload& gp) {
    unsigned n = downstream->transport_dbg(gp);
    if (gp.is_write()) {  // keep present lines equal to memory
        const uint64_t a = gp.get_address();
        const unsigned lb = cfg_.line_bytes;
        for (uint64_t la = a - remainder(a, lb); la < a + n; la += lb) {
            unsigned index;
            if (find(la, index)) {
                uint64_t lo = std::max(la, a), hi = std::min(la + lb, a + n);
                std::memcpy(&data_[size_t(index) * lb + (lo - la)], gp.get_data_ptr() + (lo - a), hi - lo);
            }
        }
    }
    return n;
}

}  // namespace gpuvp
