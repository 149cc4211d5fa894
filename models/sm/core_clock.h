// The SMs' shared core clock: one SystemC process runs every SM. At each simulated time at
// which some SM has work (a warp ready, a block or a lock decision arriving, a watchdog look),
// it runs those SMs' cycles in SM order, then sleeps until the next such time. Idle SMs cost
// nothing; a busy GPU costs one SystemC wake-up per cycle with work, not one per SM.
//
// The order of SMs within one simulated time is their index order, the same in every run. An
// SM's memory accesses are b_transport calls from this process, so a target outside the GPU
// that waits inside b_transport holds up every SM behind it (gpuvp's own targets annotate
// their delay and never wait).
#pragma once
#include "models/common/time_queue.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace gpuvp {

class CoreClock : public sc_core::sc_module {
public:
    // Something the clock runs: an SM.
    class Client {
    public:
        virtual ~Client() = default;
        // One cycle at `now`; returns when it next has work (sc_max_time(): only when woken).
        virtual sc_core::sc_time cycle(const sc_core::sc_time& now) = 0;
    };

    explicit CoreClock(sc_core::sc_module_name name);

    // At elaboration: adds a client, first run at time 0. Returns its index (its place in the
    // order within a time).
    uint32_t attach(Client& client);
    // The client has work at `at` (not before the current time); an earlier wake-up stands.
    void wake(uint32_t client, const sc_core::sc_time& at);

    uint64_t cycles_run() const { return cycles_run_; }  // client cycles run so far

private:
    void run();

    std::vector<Client*> clients_;
    const sc_core::sc_time never_ = sc_core::sc_max_time();
    std::vector<sc_core::sc_time> due_;  // each client's next run; never_: none
    TimeQueue<uint32_t, true> queue_;  // clients by time, then index; stale entries (not their due_) are skipped
    std::vector<uint32_t> batch_;
    sc_core::sc_event wake_;
    uint64_t cycles_run_ = 0;
};

}  // namespace gpuvp
