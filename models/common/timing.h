// Timing in one place: latencies are counted in cycles of the GPU clock and turned into
// sc_time here. The clock period is rounded to whole picoseconds (1500 MHz -> 667 ps).
#pragma once
#include <systemc>

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gpuvp {

class Clock {
public:
    explicit Clock(double mhz = 1500.0)
        : period_ps_(static_cast<uint64_t>(1e6 / mhz + 0.5)) {
        if (ticks_per_ps() == 0)
            throw std::logic_error("gpuvp needs a SystemC time resolution of 1 ps or finer");
        tick_ = period_ps_ * ticks_per_ps();
        for (uint64_t n = 0; n < few_.size(); ++n) few_[n] = sc_core::sc_time::from_value(n * period_ps_ * ticks_per_ps());
    }
    sc_core::sc_time cycles(uint64_t n) const {  // hot: no floating point, no call for a few cycles
        return n < few_.size() ? few_[n] : sc_core::sc_time::from_value(n * period_ps_ * ticks_per_ps());
    }
    uint64_t period_ps() const { return period_ps_; }
    // Next clock edge at or after t (blocks issue on edges).
    sc_core::sc_time edge_at_or_after(const sc_core::sc_time& t) const {
        return sc_core::sc_time::from_value(cycle_at_or_after(t) * tick_);
    }
    // Edges are numbered from time 0: the number of the edge at or after t, and edge n's time.
    uint64_t cycle_at_or_after(const sc_core::sc_time& t) const { return (t.value() + tick_ - 1) / tick_; }
    sc_core::sc_time edge(uint64_t cycle) const { return sc_core::sc_time::from_value(cycle * tick_); }

private:
    // Time resolution ticks per picosecond (1 with SystemC's default resolution of 1 ps).
    static uint64_t ticks_per_ps() {
        static const uint64_t n = static_cast<uint64_t>(1e-12 / sc_core::sc_get_time_resolution().to_seconds() + 0.5);
        return n;
    }
    uint64_t period_ps_;
    uint64_t tick_ = 1;  // time resolution ticks per cycle
    std::array<sc_core::sc_time, 16> few_;  // cycles(0) .. cycles(15)
};

// SystemC's current time, as sc_core::sc_time_stamp() gives it, without a call into the library
// (for the paths that read it once per transaction).
inline const sc_core::sc_time& stamp() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

inline sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }
// Exact for whole picoseconds (to_seconds() * 1e9 is not: 1000 ns would print as 999.99...).
inline double to_ns(const sc_core::sc_time& t) {
    static const double ticks_per_ns = std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
    return static_cast<double>(t.value()) / ticks_per_ns;
}

}  // namespace gpuvp
