// Messages that take effect at a later simulated time: a posted control write arrives after
// its bus delay, a doorbell after the link, an interrupt bit after irq_cycles. Kept in time
// order (same-time messages in posting order); posting notifies the owner's event for the
// message's time (an event keeps its earliest pending notification), or calls the owner's
// wake-up function with it; the owner asks for what is due and when the next one is, so no
// message is missed.
#pragma once
#include <gpuvp/models/common/timing.h>

#include <systemc>

#include <cstddef>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

namespace gpuvp {

template <class T>
class Inbox {
public:
    explicit Inbox(sc_core::sc_event& wake) : wake_(&wake) {}
    explicit Inbox(std::function<void(const sc_core::sc_time&)> wake) : wake_fn_(std::move(wake)) {}

    void post(const T& message, const sc_core::sc_time& at) {
        const auto first = queue_.begin() + std::ptrdiff_t(head_);
        auto it = queue_.end();
        while (it != first && std::prev(it)->first > at) --it;
        if (it == queue_.end()) queue_.push_back({at, message});  // the usual case: after all
        else queue_.insert(it, {at, message});
        ++waiting_;
        if (wake_fn_) wake_fn_(at);
        else wake_->notify(at - stamp());  // an earlier pending notification stands
    }
    // Arrives after `delay` from now.
    void post_in(const T& message, const sc_core::sc_time& delay) { post(message, stamp() + delay); }

    bool due(const sc_core::sc_time& now) const { return !empty() && queue_[head_].first <= now; }
    T pop() {
        T m = std::move(queue_[head_].second);
        --waiting_;
        if (++head_ == queue_.size()) {  // empty: the array is reused from its start
            queue_.clear();
            head_ = 0;
        } else if (head_ >= 64 && 2 * head_ >= queue_.size()) {  // most of it taken: drop that part
            queue_.erase(queue_.begin(), queue_.begin() + std::ptrdiff_t(head_));
            head_ = 0;
        }
        return m;
    }
    bool empty() const { return waiting_ == 0; }
    const sc_core::sc_time& next() const { return queue_[head_].first; }  // not empty

    // For a process woken by the event: sleep until the next message is due or a new one is
    // posted. The event itself is notified for the next message's time (an earlier pending
    // notification stands): one event, not a timeout beside it.
    void wait_for_next() const {
        if (!empty()) wake_->notify(next() - stamp());
        sc_core::wait(*wake_);
    }

private:
    sc_core::sc_event* wake_ = nullptr;
    std::function<void(const sc_core::sc_time&)> wake_fn_;
    // [head_, end): waiting, in time order; what is before head_ has been taken (a vector, not a
    // deque: no allocation per message once it has grown).
    std::vector<std::pair<sc_core::sc_time, T>> queue_;
    size_t head_ = 0;
    size_t waiting_ = 0;  // queue_.size() - head_, kept (the SMs ask for every cycle)
};

}  // namespace gpuvp
