// Timing in one place: latencies are counted in cycles of the GPU clock and turned into
// sc_time here. The clock period is rounded to whole picoseconds (1500 MHz -> 667 ps).
#pragma once
#include <systemc>
#include <cmath>
#include <cstdint>

namespace gpuvp {

class Clock {
public:
    explicit Clock(double mhz = 1500.0)
        : period_ps_(static_cast<uint64_t>(1e6 / mhz + 0.5)) {}
    sc_core::sc_time cycles(uint64_t n) const {
        return sc_core::sc_time(static_cast<double>(n * period_ps_), sc_core::SC_PS);
    }
    uint64_t period_ps() const { return period_ps_; }
    // Next clock edge at or after t (blocks issue on edges).
    sc_core::sc_time edge_at_or_after(const sc_core::sc_time& t) const {
        uint64_t ps = static_cast<uint64_t>(t.value() / ps_per_tick());
        uint64_t e = (ps + period_ps_ - 1) / period_ps_ * period_ps_;
        return sc_core::sc_time(static_cast<double>(e), sc_core::SC_PS);
    }

private:
    static uint64_t ps_per_tick() {
        return static_cast<uint64_t>(sc_core::sc_get_time_resolution().to_seconds() * 1e12 + 0.5);
    }
    uint64_t period_ps_;
};

inline sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }
// Exact for whole picoseconds (to_seconds() * 1e9 is not: 1000 ns would print as 999.99...).
inline double to_ns(const sc_core::sc_time& t) {
    static const double ticks_per_ns = std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
    return static_cast<double>(t.value()) / ticks_per_ns;
}

}  // namespace gpuvp
