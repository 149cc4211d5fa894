// M3: an SM's scalar register pool, shared by four levels (kernel, workgroup, warp, slice).
// It counts registers; the SM decides when a level's registers are needed and freed. An
// allocation is granted only within the pool's capacity, the level's quota and (slice) the
// slice threshold; otherwise it is refused and the SM stalls the warp. Never overflows.
#pragma once
#include "models/common/isa.h"
#include "models/common/sm_config.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace gpuvp {

class ScalarPool {
public:
    ScalarPool(uint32_t capacity, ScalarSplit split, std::array<uint32_t, 4> quotas, uint32_t slice_threshold)
        : capacity_(capacity), slice_threshold_(slice_threshold), split_(split), quota_(quotas) {}

    bool allocate(ScalarLevel level, uint32_t n) {
        const size_t l = size_t(level);
        if (n == 0) return true;
        if (total_ + n > capacity_) return false;
        if (level == ScalarLevel::slice && used_[l] + n > slice_threshold_) return false;
        if (used_[l] + n > quota_[l]) {
            if (split_ != ScalarSplit::dynamic) return false;
            // Dynamic: move capacity no level uses (unassigned first, then other levels' unused
            // quota, the largest first) to this level.
            uint32_t need = used_[l] + n - quota_[l];
            const uint32_t unassigned = capacity_ - sum(quota_);
            const uint32_t take = std::min(need, unassigned);
            quota_[l] += take;
            need -= take;
            while (need > 0) {
                size_t from = 4;
                for (size_t j = 0; j < 4; ++j)
                    if (j != l && quota_[j] > used_[j] && (from == 4 || quota_[j] - used_[j] > quota_[from] - used_[from])) from = j;
                if (from == 4) return false;  // cannot happen: total_ + n <= capacity_
                const uint32_t t = std::min(need, quota_[from] - used_[from]);
                quota_[from] -= t;
                quota_[l] += t;
                need -= t;
            }
            ++moves_;
        }
        used_[l] += n;
        total_ += n;
        peak_[l] = std::max(peak_[l], used_[l]);
        peak_total_ = std::max(peak_total_, total_);
        return true;
    }

    void free(ScalarLevel level, uint32_t n) {
        used_[size_t(level)] -= n;
        total_ -= n;
    }

    // Split `kernel`: every level the kernel uses gets room for one instance (`least`), and the
    // rest of the pool goes in proportion to what the kernel would hold at once per level
    // (`demand`); levels it does not use get none.
    void set_quotas(const std::array<uint64_t, 4>& least, const std::array<uint64_t, 4>& demand) {
        uint64_t all = 0, base = 0;
        for (size_t l = 0; l < 4; ++l) {
            all += demand[l] > least[l] ? demand[l] - least[l] : 0;
            base += least[l];
        }
        if (base + all == 0 || base > capacity_) return;  // nothing to go by: the quotas stay
        const uint64_t rest = capacity_ - base;
        uint32_t given = 0;
        size_t most = 0;
        for (size_t l = 0; l < 4; ++l) {
            const uint64_t extra = demand[l] > least[l] ? demand[l] - least[l] : 0;
            quota_[l] = uint32_t(least[l] + (all ? rest * extra / all : 0));
            given += quota_[l];
            if (demand[l] > demand[most]) most = l;
        }
        quota_[most] += capacity_ - given;
    }

    uint32_t used(ScalarLevel l) const { return used_[size_t(l)]; }
    uint32_t peak(ScalarLevel l) const { return peak_[size_t(l)]; }
    uint32_t quota(ScalarLevel l) const { return quota_[size_t(l)]; }
    uint32_t total() const { return total_; }
    uint32_t peak_total() const { return peak_total_; }
    uint32_t capacity() const { return capacity_; }
    uint64_t moves() const { return moves_; }  // dynamic: quota moves between levels
    const std::array<uint32_t, 4>& used_by_level() const { return used_; }

private:
    static uint32_t sum(const std::array<uint32_t, 4>& a) { return a[0] + a[1] + a[2] + a[3]; }
    uint32_t capacity_, slice_threshold_;
    ScalarSplit split_;
    std::array<uint32_t, 4> quota_, used_{}, peak_{};
    uint32_t total_ = 0, peak_total_ = 0;
    uint64_t moves_ = 0;
};

}  // namespace gpuvp
