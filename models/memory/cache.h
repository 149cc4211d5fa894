// A set-associative cache with data: LRU replacement, write-through, no write-allocate.
// A line being filled remembers when its data arrives, so a second miss to it waits for the
// same fill (an MSHR hit) instead of seeing the data early. Memory behind a write-through
// cache is always current, so debug transport goes straight through.
#pragma once
#include <gpuvp/models/common/memory_config.h>

#include <gpuvp/models/common/divide.h>
#include <gpuvp/models/common/host_aligned.h>
#include <gpuvp/models/common/stats.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

namespace gpuvp {

class Cache : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Cache> upstream;
    tlm_utils::simple_initiator_socket<Cache> downstream;

    Cache(sc_core::sc_module_name name, const CacheConfig& config);

    struct Stats {
        STATS_RECORD;
        uint64_t read_hits = 0, read_misses = 0, mshr_hits = 0, writes = 0, errors = 0;
        template <class S, class V>
        static void fields(S& s, V& v) {  // (errors: reads that failed below; the run reports the failure itself)
            v("read_hits", s.read_hits, Doc{"count", "reads that hit"});
            v("read_misses", s.read_misses, Doc{"count", "reads that missed"});
            v("mshr_hits", s.mshr_hits, Doc{"count", "reads that joined a miss in flight"});
            v("writes", s.writes, Doc{"count", "writes"});
        }
    };
    const Stats& stats() const { return stats_; }
    // True if the line holding `address` is present (for tests).
    bool contains(uint64_t address) const;
    void invalidate_all();

private:
    struct Line {  // a way's state beside its tag
        uint64_t last_use = 0;
        sc_core::sc_time ready_at;  // absolute time its fill completes
    };
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    // The way holding the line (its index in `index`), or nullptr with `index` at its set's
    // first way.
    Line* find(uint64_t line_address, unsigned& index);
    uint64_t line_number(uint64_t address) const { return quotient(address, cfg_.line_bytes); }
    unsigned set_of(uint64_t line_number) const { return unsigned(remainder(line_number, sets_)); }
    // Reads one whole line into the cache; `line` points to its bytes (valid until the cache
    // next changes). Returns the delay after `delay` at which it is usable.
    tlm::tlm_response_status read_line(uint64_t line_address, const unsigned char*& line, sc_core::sc_time& delay);

    CacheConfig cfg_;
    unsigned sets_;
    // Tags apart from the rest, so a look-up reads one short run: line number + 1, 0 for an
    // invalid way.
    std::vector<uint64_t> tags_;       // sets_ * ways
    std::vector<Line> lines_;          // same order
    std::vector<unsigned char, HostLineAllocator<unsigned char>> data_;  // line data, same order
    // Buffers for one line (a cache is never re-entered by its own downstream traffic).
    std::vector<unsigned char, HostLineAllocator<unsigned char>> fill_;
    tlm::tlm_generic_payload miss_gp_;  // for line fills
    uint64_t use_clock_ = 0;
    sc_core::sc_time hit_;
    Stats stats_;
};

}  // namespace gpuvp
