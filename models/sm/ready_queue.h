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
#include <gpuvp/models/common/time_queue.h>

#include <systemc>

#include <cstdint>
#include <vector>

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
        // Already due: in time order, after the equal times (usually at the end).
        if (count_ > mask_) grow();
        size_t i = count_++;
        while (i > 0 && at_(i - 1).at > at) {
            at_(i) = at_(i - 1);
            --i;
        }
        at_(i) = Entry{at, slot};
    }
    // Makes every entry up to `now` due (times never go back).
    void release(const sc_core::sc_time& now) {
        released_ = now;
        while (!waiting_.empty() && waiting_.front().at <= now) {
            if (count_ > mask_) grow();
            at_(count_++) = Entry{waiting_.front().at, waiting_.front().value};
            waiting_.pop();
        }
    }

    bool empty() const { return count_ == 0 && waiting_.empty(); }
    bool has_due() const { return count_ > 0; }
    // The first entry (not empty).
    Entry front() const { return count_ == 0 ? Entry{waiting_.front().at, waiting_.front().value} : ring_[head_]; }
    // Removes the first entry (not empty).
    void pop_front() {
        if (count_ == 0) {
            waiting_.pop();
        } else {
            head_ = (head_ + 1) & mask_;
            --count_;
        }
    }

private:
    Entry& at_(size_t i) { return ring_[(head_ + i) & mask_]; }  // i-th due entry
    void grow() {
        std::vector<Entry> bigger(ring_.size() * 2);
        for (size_t i = 0; i < count_; ++i) bigger[i] = at_(i);
        ring_.swap(bigger);
        head_ = 0;
        mask_ = ring_.size() - 1;
    }

    // The due list: a ring (a power-of-two size) of count_ entries from head_, in time order,
    // then order made ready.
    std::vector<Entry> ring_ = std::vector<Entry>(64);
    size_t mask_ = 63;  // ring_.size() - 1
    size_t head_ = 0, count_ = 0;
    TimeQueue<uint32_t> waiting_;
    sc_core::sc_time released_;
};

}  // namespace gpuvp
