// The issue scheduler's ready list: warp slots by the time from which they may issue, and
// among equal times in the order they were made ready. It gives exactly the order of a
// priority queue on (time, order made ready), at a constant cost in the usual case: slots
// made ready for a later time wait in one bucket per time; at each cycle the buckets now due
// join the end of the due list, which stays in order because every waiting time is later than
// the times already due.
//
// Entries are not removed when a warp's readiness changes: the owner skips stale ones, as
// with a priority queue.
#pragma once
#include "models/common/time_buckets.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <iterator>

namespace gpuvp {

class ReadyQueue {
public:
    struct Entry {
        sc_core::sc_time at;
        uint32_t slot;
    };

    void push(const sc_core::sc_time& at, uint32_t slot) {
        if (at > released_) {
            waiting_.add(at, slot);
            return;
        }
        auto it = due_.end();  // already due: in time order, after the equal times
        while (it != due_.begin() && std::prev(it)->at > at) --it;
        due_.insert(it, Entry{at, slot});
    }
    // Makes every entry up to `now` due (times never go back).
    void release(const sc_core::sc_time& now) {
        released_ = now;
        while (!waiting_.empty() && waiting_.first_at() <= now) {
            for (uint32_t s : waiting_.first()) due_.push_back(Entry{waiting_.first_at(), s});
            waiting_.pop_first();
        }
    }

    bool empty() const { return due_.empty() && waiting_.empty(); }
    bool has_due() const { return !due_.empty(); }
    // The first entry (not empty).
    Entry front() { return due_.empty() ? Entry{waiting_.first_at(), waiting_.first().front()} : due_.front(); }
    // Removes the first entry (not empty).
    void pop_front() {
        if (!due_.empty()) {
            due_.pop_front();
            return;
        }
        std::vector<uint32_t>& v = waiting_.first();
        v.erase(v.begin());
        if (v.empty()) waiting_.pop_first();
    }

private:
    std::deque<Entry> due_;  // time order, then order made ready
    TimeBuckets<uint32_t> waiting_;
    sc_core::sc_time released_;
};

}  // namespace gpuvp
