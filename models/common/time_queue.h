// Values waiting for a simulated time (an sc_time, or `Time`: a cycle count), earliest first, and among equal times in the order they
// were added (or, with `ValueOrder`, in the order of the values). For schedulers with a few dozen values waiting at once (the warps of an SM, the
// SMs of a GPU): one contiguous array kept in order, so adding is a binary search and a short
// move (of the entries before it or after it, whichever are fewer), and taking the earliest
// costs nothing.
#pragma once
#include <systemc>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpuvp {

template <class T, bool ValueOrder = false, class Time = sc_core::sc_time>
class TimeQueue {
public:
    struct Entry {
        Time at;
        T value;
    };

    void push(const Time& at, const T& value) {
        // After every entry not later (not after, with ValueOrder); the shorter side moves (into the free room
        // before the head, if there is some).
        const Entry added{at, value};
        auto before = [](const Entry& a, const Entry& e) {
            if constexpr (ValueOrder) return a.at < e.at || (a.at == e.at && a.value < e.value);
            else return a.at < e.at;
        };
        const auto first = entries_.begin() + std::ptrdiff_t(head_);
        if (first == entries_.end() || !before(added, entries_.back())) {  // after all: the common case of a clock
            entries_.push_back(added);
            return;
        }
        // The first entry it goes before: the first few are looked at in turn (a short wait goes near the front), then a
        // binary search.
        auto it = first;
        const auto scan_end = entries_.end() - first > 8 ? first + 8 : entries_.end();
        while (it != scan_end && !before(added, *it)) ++it;
        if (it == scan_end && it != entries_.end()) it = std::upper_bound(it, entries_.end(), added, before);
        size_t at_index = size_t(it - entries_.begin());
        if (at_index - head_ < entries_.size() - at_index) {  // nearer the front: the entries before it move down
            if (head_ == 0) {  // make room before the head again
                entries_.insert(entries_.begin(), kRoom, Entry{});
                head_ = kRoom;
                at_index += kRoom;
            }
            for (size_t i = head_; i < at_index; ++i) entries_[i - 1] = entries_[i];  // a few: no memmove call
            --head_;
            entries_[at_index - 1] = added;
            return;
        }
        entries_.insert(it, added);
    }
    bool empty() const { return head_ == entries_.size(); }
    const Entry& front() const { return entries_[head_]; }  // not empty
    void pop() {                                            // not empty
        if (++head_ == entries_.size()) {  // empty: room before the head again
            entries_.resize(kRoom);
            head_ = kRoom;
        } else if (head_ >= 64 && 2 * head_ >= entries_.size()) {  // reclaim most of the room before the head
            entries_.erase(entries_.begin(), entries_.begin() + std::ptrdiff_t(head_ - kRoom));
            head_ = kRoom;
        }
    }

private:
    static constexpr size_t kRoom = 16;  // kept before the head, for entries earlier than most
    std::vector<Entry> entries_ = std::vector<Entry>(kRoom);  // [head_, end) waiting, in order
    size_t head_ = kRoom;
};

}  // namespace gpuvp
