#include <gpuvp/models/sm/core_clock.h>


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
    wake_.notify(at - stamp());  // an earlier pending notification stands
}

bool CoreClock::next_due(const sc_time& now, uint32_t& client) {
    for (;;) {
        const bool from_soon = soon_head_ < soon_.size() && soon_at_ <= now;
        const bool from_queue = !queue_.empty() && queue_.front().at <= now;
        if (!from_soon && !from_queue) return false;
        // Both hold times <= now and nothing earlier than now is left, so both are at now: the
        // lower index first.
        if (from_soon && (!from_queue || soon_[soon_head_] < queue_.front().value)) {
            client = take_soon();
            if (due_[client] == soon_at_) return true;
        } else {
            client = queue_.front().value;
            const bool current = due_[client] == queue_.front().at;
            queue_.pop();
            if (current) return true;
        }
    }
}

uint32_t CoreClock::take_soon() {
    const uint32_t c = soon_[soon_head_++];
    if (soon_head_ == soon_.size()) {
        soon_.clear();
        soon_head_ = 0;
    }
    return c;
}

void CoreClock::drop_stale() {
    while (soon_head_ < soon_.size() && due_[soon_[soon_head_]] != soon_at_) take_soon();
    while (!queue_.empty() && due_[queue_.front().value] != queue_.front().at) queue_.pop();
}

void CoreClock::run() {
    now_ = sc_core::sc_time_stamp();
    for (;;) {
        const sc_time now = now_;
        // Every client due now, in client order; a wake-up for now posted while they run is for
        // the next delta cycle, as a notified event's is.
        batch_.clear();
        if (!soon_.empty() && soon_at_ <= now && (queue_.empty() || queue_.front().at > now)) {
            // Only the list is due (a busy GPU's usual case): it is the batch, stale entries aside.
            for (size_t i = soon_head_; i < soon_.size(); ++i)
                if (const uint32_t c = soon_[i]; due_[c] == soon_at_) {
                    due_[c] = never_;
                    batch_.push_back(c);
                }
            soon_.clear();
            soon_head_ = 0;
        }
        for (uint32_t c; next_due(now, c);) {
            due_[c] = never_;
            batch_.push_back(c);
        }
        // The clients run in index order, so those next due at one same time (the first such
        // time seen, usually the next cycle) can be appended to a list in order.
        next_soon_.clear();
        for (uint32_t c : batch_) {
            const sc_time next = clients_[c]->cycle(now);
            if (next >= due_[c]) continue;  // woken earlier meanwhile: that stands
            due_[c] = next;
            if (next_soon_.empty()) next_soon_at_ = next;
            if (next == next_soon_at_) next_soon_.push_back(c);
            else queue_.push(next, c);
        }
        cycles_run_ += batch_.size();
        // soon_ is empty now (every entry was due and taken) unless it waits for a later time;
        // then the new list joins the queue.
        if (soon_.empty()) {
            soon_.swap(next_soon_);
            soon_at_ = next_soon_at_;
        } else {
            for (uint32_t c : next_soon_) queue_.push(next_soon_at_, c);
        }
        // Sleep until the earliest time with a client still due then.
        drop_stale();
        const bool any_soon = soon_head_ < soon_.size(), any_queued = !queue_.empty();
        if (!any_soon && !any_queued) {
            // Nothing to do until woken: SystemC's time first catches up with the cycle just run
            // (nothing else runs before then), so the simulation ends where it would have.
            if (now_ > sc_core::sc_time_stamp()) wait(now_ - sc_core::sc_time_stamp());
            wait(wake_);
            now_ = sc_core::sc_time_stamp();
            continue;
        }
        sc_time at = any_soon ? soon_at_ : queue_.front().at;
        if (any_soon && any_queued && queue_.front().at < at) at = queue_.front().at;
        // Run ahead when nothing else is pending before then (not at the same time either:
        // SystemC orders same-time processes), and not past the horizon.
        const sc_time& systemc_now = stamp();
        // (sc_time_to_pending_activity() is zero while anything is pending at the current time:
        // another process runnable, a delta notification.) Not after sc_stop(): the simulation
        // ends at this time step, as it would have.
        if (at > now && at < horizon_ && sc_core::sc_get_simulator_status() == sc_core::SC_SIM_OK &&
            at - systemc_now < sc_core::sc_time_to_pending_activity()) {
            now_ = at;
            ++ahead_;
            continue;
        }
        // One event for both: an earlier wake-up already pending stands (wait(time, event) would
        // cost a second, timeout event).
        wake_.notify(at - systemc_now);
        wait(wake_);
        now_ = sc_core::sc_time_stamp();
    }
}

}  // namespace gpuvp
