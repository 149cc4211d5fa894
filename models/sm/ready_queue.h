// The issue scheduler's ready list: warp slots by the time from which they may issue, and
// among equal times in the order they were made ready: exactly the order of a priority queue
// on (time, order made ready). Slots made ready for a later time wait in a time queue; at each
// cycle those now due join the end of the due list, which stays in order because every waiting
// time is later than the times already due. The due list, usually the longer (more warps
// ready than the issue width), then costs nothing to keep.
//
// Entries are not removed when a warp's readiness changes: the owner skips stale ones, as
// with a priority queue.
#pragma once
#include "models/common/time_queue.h"

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
            waiting_.push(at, slot);
            return;
        }
        auto it = due_.end();  // already due: in time order, after the equal times
        while (it != due_.begin() && std::prev(it)->at > at) --it;
        due_.insert(it, Entry{at, slot});
    }
    // Makes every entry up to `now` due (times never go back).
    void release(const sc_core::sc_time& now) {
        released_ = now;
        while (!waiting_.empty() && waiting_.front().at <= now) {
            due_.push_back(Entry{waiting_.front().at, waiting_.front().value});
            waiting_.pop();
        }
    }

    bool empty() const { return due_.empty() && waiting_.empty(); }
    bool has_due() const { return !due_.empty(); }
    // The first entry (not empty).
    Entry front() const { return due_.empty() ? Entry{waiting_.front().at, waiting_.front().value} : due_.front(); }
    // Removes the first entry (not empty).
    void pop_front() {
        if (due_.empty()) waiting_.pop();
        else due_.pop_front();
    }

private:
    std::deque<Entry> due_;  // time order, then order made ready
    TimeQueue<uint32_t> waiting_;
    sc_core::sc_time released_;
};

}  // namespace gpuvp
