// What became of a kernel or a draw: results.json's `status` ("ok", or what went wrong), typed.
// A state, tested by value, and its detail in words. Only the writers turn it into text
// (text()); a results.json read back goes through one reader from text to the state
// (from_text, the inverse of text()).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuvp {

struct LaunchStatus {
    using text_tag = void;  // fields.h: written and read as text()
    enum class State : uint8_t {
        ok,             // it ended ok
        failed,         // it ended with an error (a fault, its own packet rejected, ...): `detail` is it
        not_processed,  // its queue stopped before the CP took its packet: `detail` says by what
        unfinished,     // it did not complete: `detail` says how the run ended for it
    };
    // A kernel or draw with `instances`, not all of which ended ok: state and detail are then
    // the first such instance's.
    struct Instances {
        uint64_t not_ok = 0, count = 0;  // how many did not end ok, of how many
        uint64_t first = 0;              // the lowest-numbered of them
        bool operator==(const Instances& o) const { return not_ok == o.not_ok && count == o.count && first == o.first; }
    };
    State state = State::ok;
    std::string detail;  // after the state's own words: "not processed: " + detail, "did not complete" + detail
    std::optional<Instances> instances;

    LaunchStatus() = default;
    LaunchStatus(State s, std::string d) : state(s), detail(std::move(d)) {}

    bool ok() const { return state == State::ok && !instances; }
    bool unfinished() const { return state == State::unfinished; }
    // "; more" after the detail (what a lock watchdog found of the kernel's warps). A status
    // that was ok is then not: it fails with "ok; more".
    void note(const std::string& more);

    // "ok", "kernel fault: ...", "not processed: queue stopped by ... at packet 3", "did not
    // complete by max_sim_ns", "2 of 10 instances did not end ok; the first, instance 4: ...".
    std::string text() const;
    // The status text() writes `text` for (any other text is a failure with that text as its detail).
    static LaunchStatus from_text(std::string_view text);

    bool operator==(const LaunchStatus& o) const { return state == o.state && detail == o.detail && instances == o.instances; }
};

}  // namespace gpuvp
