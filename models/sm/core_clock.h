// The SMs' shared core clock: one SystemC process runs every SM. At each simulated time at
// which some SM has work (a warp ready, a block or a lock decision arriving, a watchdog look),
// it runs those SMs' cycles in SM order, then sleeps until the next such time. Idle SMs cost
// nothing; a busy GPU costs one SystemC wake-up per cycle with work, not one per SM.
//
// The order of SMs within one simulated time is their index order, the same in every run. An
// SM's memory accesses are b_transport calls from this process, so a target outside the GPU
// that waits inside b_transport holds up every SM behind it (gpuvp's own targets annotate
// their delay and never wait).
//
// Running ahead (run_ahead_until): while no other process has anything to do before the SMs'
// next cycle with work, the clock runs that cycle at once, without giving SystemC's kernel the
// time step: the SMs' time (now()) is then ahead of sc_time_stamp(), and every transaction
// they start carries the difference as its time annotation (TLM-2.0's temporal decoupling).
// No other process could have run in between, so every result is what it would be without.
#pragma once
#include <gpuvp/models/common/time_queue.h>
#include <gpuvp/models/common/timing.h>

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

    // Lets the clients run ahead of SystemC's time (above) up to, not including, `t`: the end of
    // the sc_start the caller is about to make (nothing is simulated past it). Time zero, the
    // default: never.
    void run_ahead_until(const sc_core::sc_time& t) { horizon_ = t; }
    // The time of the cycle the clients run now (at least sc_time_stamp()).
    const sc_core::sc_time& now() const { return now_; }
    // The time annotation of a transaction a client starts now: now() - sc_time_stamp().
    sc_core::sc_time annotation() const { return now_ - stamp(); }
    uint64_t steps_run_ahead() const { return ahead_; }  // times it ran ahead so far

private:
    void run();

    std::vector<Client*> clients_;
    const sc_core::sc_time never_ = sc_core::sc_max_time();
    // Pops the first due entry of soon_/queue_ at `now` (lower index first); false when none.
    bool next_due(const sc_core::sc_time& now, uint32_t& client);
    uint32_t take_soon();  // the first of soon_ (not empty), removed
    // Drops entries that are no longer their client's due time from the fronts.
    void drop_stale();

    std::vector<sc_core::sc_time> due_;  // each client's next run; never_: none
    // Where the clients wait, stale entries (not their due_) skipped. A busy client runs again
    // one cycle later: those wait in soon_, all for the same time soon_at_ and in index order
    // (a list appended to in client order costs nothing); everything else in queue_, by time, then index.
    std::vector<uint32_t> soon_;
    size_t soon_head_ = 0;
    sc_core::sc_time soon_at_;
    std::vector<uint32_t> next_soon_;
    sc_core::sc_time next_soon_at_;
    TimeQueue<uint32_t, true> queue_;
    std::vector<uint32_t> batch_;
    sc_core::sc_event wake_;
    uint64_t cycles_run_ = 0;
    sc_core::sc_time now_, horizon_;
    uint64_t ahead_ = 0;
};

}  // namespace gpuvp
