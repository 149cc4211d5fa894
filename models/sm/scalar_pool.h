// M3: an SM's scalar register pool, shared by four levels (kernel, workgroup, warp, slice).
// It counts registers; the SM decides when a level's registers are needed and freed.
//
// Kernel-, workgroup- and warp-level registers are *reserved* for a block before it starts
// (so that blocks already running can always get theirs: a warp waiting for registers held by
// warps waiting for it at a sync would wait for ever) and *allocated* out of that reservation
// when an instruction first needs them. Slice-level registers live for one instruction and
// are allocated directly, within the slice threshold. Nothing is granted beyond the pool's
// capacity or a level's quota: the pool never overflows.
#pragma once
#include <gpuvp/models/common/isa.h>
#include <gpuvp/models/common/sm_config.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace gpuvp {

class ScalarPool {
public:
    using Levels = std::array<uint32_t, 4>;  // kernel, workgroup, warp, slice

    ScalarPool(uint32_t capacity, ScalarSplit split, Levels quotas, uint32_t slice_threshold)
        : capacity_(capacity), slice_threshold_(slice_threshold), split_(split), quota_(quotas) {}

    // Reserves `n` registers per level (kernel, workgroup and warp), all or none. Dynamic:
    // `keep` registers stay free for slices (one warp's), which the other levels could
    // otherwise take entirely.
    bool reserve(const Levels& n, uint32_t keep = 0) {
        uint64_t want = 0;
        for (size_t l = 0; l < 3; ++l) want += n[l];
        if (split_ != ScalarSplit::dynamic) keep = 0;
        if (total_held_ + want + keep > capacity_) return false;
        // Quotas are hard, but for the dynamic split, and for the kernel split when the kernels
        // on the SM need more than the pool at their minimums (one block each): then unheld
        // capacity moves as in the dynamic split, so no block waits for ever.
        if (!soft())
            for (size_t l = 0; l < 3; ++l)
                if (held_[l] + n[l] > quota_[l]) return false;
        for (size_t l = 0; l < 3; ++l) {  // level by level, so a later grow() sees what an earlier one gave
            if (soft()) grow(l, n[l]);
            held_[l] += n[l];
            total_held_ += n[l];
        }
        return true;
    }
    // Out of a reservation: registers now in use.
    void allocate_reserved(ScalarLevel level, uint32_t n) { note(size_t(level), n); }
    // A reservation ends (`allocated`: it had been allocated too).
    void release(ScalarLevel level, uint32_t n, bool allocated) {
        held_[size_t(level)] -= n;
        total_held_ -= n;
        if (allocated) {
            used_[size_t(level)] -= n;
            total_used_ -= n;
        }
    }

    // Slice level: allocated directly, within the threshold, the quota and the capacity.
    bool allocate_slice(uint32_t n) {
        const size_t l = size_t(ScalarLevel::slice);
        if (n == 0) return true;
        if (total_held_ + n > capacity_ || held_[l] + n > slice_threshold_) return false;
        if (held_[l] + n > quota_[l]) {
            if (!soft()) return false;
            grow(l, n);
        }
        held_[l] += n;
        total_held_ += n;
        note(l, n);
        return true;
    }
    void free_slice(uint32_t n) { release(ScalarLevel::slice, n, true); }

    // Split `kernel`: every level the kernel uses gets room for one instance (`least`), and the
    // rest of the pool goes in proportion to what the kernel would hold at once per level
    // (`demand`); levels it does not use get none.
    void set_quotas(const std::array<uint64_t, 4>& least, const std::array<uint64_t, 4>& demand) {
        uint64_t all = 0, base = 0;
        for (size_t l = 0; l < 4; ++l) {
            all += demand[l] > least[l] ? demand[l] - least[l] : 0;
            base += least[l];
        }
        crowded_ = base > capacity_;
        if (base + all == 0 || crowded_) return;  // nothing to go by, or too much: the quotas stay
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
        // Never below what a level already holds (blocks of other kernels still running): the
        // excess comes off the levels with the most unheld quota.
        uint32_t over = 0;
        for (size_t l = 0; l < 4; ++l)
            if (quota_[l] < held_[l]) {
                over += held_[l] - quota_[l];
                quota_[l] = held_[l];
            }
        while (over > 0) {
            size_t from = 4;
            for (size_t j = 0; j < 4; ++j)
                if (quota_[j] > held_[j] && (from == 4 || quota_[j] - held_[j] > quota_[from] - held_[from])) from = j;
            if (from == 4) break;  // cannot happen: total held <= capacity
            const uint32_t t = std::min(over, quota_[from] - held_[from]);
            quota_[from] -= t;
            over -= t;
        }
    }

    uint32_t used(ScalarLevel l) const { return used_[size_t(l)]; }  // allocated
    uint32_t held(ScalarLevel l) const { return held_[size_t(l)]; }  // reserved (allocated or not)
    uint32_t peak(ScalarLevel l) const { return peak_[size_t(l)]; }
    uint32_t quota(ScalarLevel l) const { return quota_[size_t(l)]; }
    uint32_t total_used() const { return total_used_; }
    uint32_t total_held() const { return total_held_; }
    uint32_t peak_total() const { return peak_total_; }
    uint32_t capacity() const { return capacity_; }
    uint64_t moves() const { return moves_; }  // dynamic: times capacity moved to a level
    const Levels& used_by_level() const { return used_; }

private:
    bool soft() const { return split_ == ScalarSplit::dynamic || (split_ == ScalarSplit::kernel && crowded_); }
    // Dynamic: a level about to exceed its quota gets capacity no level holds (unassigned
    // first, then other levels' unheld quota, the largest first). The caller checked that
    // the capacity suffices.
    void grow(size_t l, uint32_t n) {
        if (held_[l] + n <= quota_[l]) return;
        uint32_t need = held_[l] + n - quota_[l];
        const uint32_t assigned = quota_[0] + quota_[1] + quota_[2] + quota_[3];
        const uint32_t take = std::min(need, capacity_ > assigned ? capacity_ - assigned : 0u);
        quota_[l] += take;
        need -= take;
        while (need > 0) {
            size_t from = 4;
            for (size_t j = 0; j < 4; ++j)
                if (j != l && quota_[j] > held_[j] && (from == 4 || quota_[j] - held_[j] > quota_[from] - held_[from])) from = j;
            if (from == 4) break;
            const uint32_t t = std::min(need, quota_[from] - held_[from]);
            quota_[from] -= t;
            quota_[l] += t;
            need -= t;
        }
        ++moves_;
    }
    void note(size_t l, uint32_t n) {
        used_[l] += n;
        total_used_ += n;
        peak_[l] = std::max(peak_[l], used_[l]);
        peak_total_ = std::max(peak_total_, total_used_);
    }

    uint32_t capacity_, slice_threshold_;
    ScalarSplit split_;
    Levels quota_, held_{}, used_{}, peak_{};
    uint32_t total_held_ = 0, total_used_ = 0, peak_total_ = 0;
    uint64_t moves_ = 0;
    bool crowded_ = false;  // kernel split: the kernels' minimums exceed the pool
};

}  // namespace gpuvp
