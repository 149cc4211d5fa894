#include "models/sm/core_clock.h"


namespace gpuvp {

using sc_core::sc_time;

CoreClock::CoreClock(sc_core::sc_module_name name) : sc_module(name) {
    SC_HAS_PROCESS(CoreClock);
    SC_THREAD(run);
}

uint32_t CoreClock::attach(Client& client) {
    const uint32_t i = uint32_t(clients_.size());
    clients_.push_back(&client);
    due_.push_back(sc_core::SC_ZERO_TIME);
    queue_.push(sc_core::SC_ZERO_TIME, i);
    return i;
}

void CoreClock::wake(uint32_t client, const sc_time& at) {
    if (at >= due_[client]) return;
    due_[client] = at;
    queue_.push(at, client);
    wake_.notify(at - sc_core::sc_time_stamp());  // an earlier pending notification stands
}

void CoreClock::run() {
    for (;;) {
        const sc_time now = sc_core::sc_time_stamp();
        // Every client due now, in client order (the queue's order within a time); a wake-up for now posted while they run is for
        // the next delta cycle, as a notified event's is.
        batch_.clear();
        while (!queue_.empty() && queue_.front().at <= now) {
            const uint32_t c = queue_.front().value;
            if (due_[c] == queue_.front().at) {
                due_[c] = never_;
                batch_.push_back(c);
            }
            queue_.pop();
        }
        for (uint32_t c : batch_) {
            const sc_time next = clients_[c]->cycle(now);
            if (next < due_[c]) {
                due_[c] = next;
                queue_.push(next, c);
            }
        }
        cycles_run_ += batch_.size();
        // Sleep until the earliest time with a client still due then.
        while (!queue_.empty() && due_[queue_.front().value] != queue_.front().at) queue_.pop();
        if (queue_.empty()) wait(wake_);
        else wait(queue_.front().at - now, wake_);
    }
}

}  // namespace gpuvp
