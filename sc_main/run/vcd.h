// A value change dump (IEEE 1364 VCD) of a run's key signals, for waveform viewers (GTKWave):
// signals are declared first, then each change is recorded with its simulated time.
#pragma once
#include <systemc>

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace gpuvp {

class Vcd {
public:
    // Declares a signal of `width` bits in `scope` (dot-separated modules, e.g. "gpu.sm0");
    // its value starts at 0, or unknown (x) until its first change. Returns its handle.
    uint32_t add(const std::string& scope, const std::string& name, unsigned width, bool unknown = false);
    // Records a new value at t (nothing when the value does not change).
    void change(uint32_t signal, uint64_t value, const sc_core::sc_time& t);
    // The whole file: header, initial values, changes in time order (ties in recorded order).
    std::string text() const;
    bool empty() const { return signals_.empty(); }

private:
    struct Signal {
        std::string scope, name, id;
        unsigned width;
        bool unknown;        // x at time 0
        uint64_t value = 0;  // the last recorded
        bool known = false;  // a value has been recorded (or it starts at 0)
        size_t last = SIZE_MAX;  // its last change in changes_
        uint64_t before_last = 0;
        bool known_before_last = false;
    };
    struct Change {
        uint64_t ps;
        uint32_t signal;
        uint64_t value;
        bool dropped = false;  // undone within its own timestamp
    };
    std::vector<Signal> signals_;
    std::vector<Change> changes_;
};

}  // namespace gpuvp
