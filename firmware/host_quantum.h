// The host model's quantum keeper (temporal decoupling: docs/integration.md, "Temporal
// decoupling (quantum)"). A tlm_utils::tlm_quantumkeeper whose quantum is given at
// construction: it never reads tlm::tlm_global_quantum (no hidden global; nothing in gpuvp
// sets that one). One keeper per SystemC thread: its local time is how far that thread has
// run ahead of sc_time_stamp().
//
// Quantum 0 is no decoupling: every annotate() waits at once, as a plain wait() would.
#pragma once
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <cstdint>

namespace gpuvp {

class HostQuantum : public tlm_utils::tlm_quantumkeeper {
public:
    explicit HostQuantum(const sc_core::sc_time& quantum = sc_core::SC_ZERO_TIME) : quantum_(quantum) { reset(); }

    const sc_core::sc_time& quantum() const { return quantum_; }

    // Time the thread spent on something no other process can observe yet (a store the
    // CPU's write buffer takes, the runtime's own work): added to the local time, which is
    // waited out once it reaches the quantum (with quantum 0: at once, even when it is 0).
    void annotate(const sc_core::sc_time& t) {
        inc(t);
        if (need_sync()) sync();
    }
    // The delay a b_transport returned (it started from get_local_time()) becomes the local
    // time; waited out as annotate() would.
    void annotate_delay(const sc_core::sc_time& delay) {
        set(delay);
        if (need_sync()) sync();
    }
    // Before anything another process can observe, or that reads what another process
    // writes: waits out the local time. No wait when there is none.
    void flush() {
        if (m_local_time != sc_core::SC_ZERO_TIME) sync();
    }
    // A wait for time (a poll's period): the local time and `t` in one wait.
    void wait_for(const sc_core::sc_time& t) {
        inc(t);
        sync();
    }
    // Until `at`, local time included: nothing if the thread is already there (it then keeps
    // its local time), else one wait for the rest.
    void wait_until(const sc_core::sc_time& at) {
        if (at <= get_current_time()) return;
        set(at - sc_core::sc_time_stamp());
        sync();
    }
    // A wait for an event: the local time is waited out first.
    void wait(const sc_core::sc_event& e) {
        flush();
        ++syncs_;
        sc_core::wait(e);
        reset();
    }

    // One wait for the local time (counted), then the next quantum starts.
    void sync() override {
        ++syncs_;
        tlm_utils::tlm_quantumkeeper::sync();
    }
    // The waits this keeper made: sync()s and event waits (each a context switch).
    uint64_t syncs() const { return syncs_; }

protected:
    // The per-keeper quantum, from now: not tlm_global_quantum's, and not aligned to its
    // multiples.
    sc_core::sc_time compute_local_quantum() override { return quantum_; }

private:
    sc_core::sc_time quantum_;
    uint64_t syncs_ = 0;
};

}  // namespace gpuvp
