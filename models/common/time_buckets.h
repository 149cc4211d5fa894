// Values waiting for a simulated time, one bucket per distinct time, each bucket in the order
// its values were added. For schedulers whose waiting values fall on few distinct times (the
// next few clock edges): adding costs a short scan of the buckets, taking the earliest bucket
// costs nothing, and no bucket's storage is allocated twice.
#pragma once
#include <systemc>

#include <cstddef>
#include <utility>
#include <vector>

namespace gpuvp {

template <class T>
class TimeBuckets {
public:
    void add(const sc_core::sc_time& at, const T& value) {
        size_t i = buckets_.size();  // latest first: the earliest is at the back
        while (i > 0 && buckets_[i - 1].at < at) --i;
        if (i > 0 && buckets_[i - 1].at == at) {
            buckets_[i - 1].values.push_back(value);
            return;
        }
        Bucket b{at, {}};
        if (!spare_.empty()) {
            b.values = std::move(spare_.back());
            spare_.pop_back();
        }
        b.values.push_back(value);
        buckets_.insert(buckets_.begin() + std::ptrdiff_t(i), std::move(b));
    }

    bool empty() const { return buckets_.empty(); }
    // The earliest time and its values, in the order added (not empty).
    const sc_core::sc_time& first_at() const { return buckets_.back().at; }
    std::vector<T>& first() { return buckets_.back().values; }
    // Removes the earliest bucket (not empty).
    void pop_first() {
        std::vector<T>& v = buckets_.back().values;
        v.clear();
        spare_.push_back(std::move(v));
        buckets_.pop_back();
    }

private:
    struct Bucket {
        sc_core::sc_time at;
        std::vector<T> values;
    };
    std::vector<Bucket> buckets_;  // latest first
    std::vector<std::vector<T>> spare_;
};

}  // namespace gpuvp
