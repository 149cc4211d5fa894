// Messages that take effect at a later simulated time: a posted control write arrives after
// its bus delay, a doorbell after the link, an interrupt bit after irq_cycles. Kept in time
// order (same-time messages in posting order); posting notifies the owner's event for the
// message's time (an event keeps its earliest pending notification), or calls the owner's
// wake-up function with it; the owner asks for what is due and when the next one is, so no
// message is missed.
#pragma once
#include <systemc>

#include <deque>
#include <functional>
#include <iterator>
#include <utility>

namespace gpuvp {

template <class T>
class Inbox {
public:
    explicit Inbox(sc_core::sc_event& wake) : wake_(&wake) {}
    explicit Inbox(std::function<void(const sc_core::sc_time&)> wake) : wake_fn_(std::move(wake)) {}

    void post(const T& message, const sc_core::sc_time& at) {
        auto it = queue_.end();
        while (it != queue_.begin() && std::prev(it)->first > at) --it;
        queue_.insert(it, {at, message});
        if (wake_fn_) wake_fn_(at);
        else wake_->notify(at - sc_core::sc_time_stamp());  // an earlier pending notification stands
    }
    // Arrives after `delay` from now.
    void post_in(const T& message, const sc_core::sc_time& delay) { post(message, sc_core::sc_time_stamp() + delay); }

    bool due(const sc_core::sc_time& now) const { return !queue_.empty() && queue_.front().first <= now; }
    T pop() {
        T m = std::move(queue_.front().second);
        queue_.pop_front();
        return m;
    }
    bool empty() const { return queue_.empty(); }
    const sc_core::sc_time& next() const { return queue_.front().first; }  // not empty

    // For a process woken by the event: sleep until the next message is due or a new one is posted.
    void wait_for_next() const {
        if (queue_.empty()) sc_core::wait(*wake_);
        else sc_core::wait(queue_.front().first - sc_core::sc_time_stamp(), *wake_);
    }

private:
    sc_core::sc_event* wake_ = nullptr;
    std::function<void(const sc_core::sc_time&)> wake_fn_;
    std::deque<std::pair<sc_core::sc_time, T>> queue_;
};

}  // namespace gpuvp
