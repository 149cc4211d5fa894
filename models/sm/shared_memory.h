// An SM's shared memory (the group segment): real bytes, handed to blocks as contiguous
// ranges (first fit; freed ranges merge with their neighbours). A block's range is cleared
// when it is allocated, so its lock words (M2) start free. Timing is the SM's business.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

namespace gpuvp {

class SharedMemory {
public:
    explicit SharedMemory(uint32_t bytes) : bytes_(bytes) {
        if (bytes) holes_.push_back(Hole{0, bytes});
    }
    uint32_t size() const { return uint32_t(bytes_.size()); }
    uint32_t largest_hole() const {
        uint32_t n = 0;
        for (const Hole& h : holes_) n = std::max(n, h.size);
        return n;
    }

    // The base of a cleared range of `n` bytes, or nothing if no hole is that large.
    std::optional<uint32_t> allocate(uint32_t n) {
        if (n == 0) return 0u;
        for (auto it = holes_.begin(); it != holes_.end(); ++it) {
            if (it->size < n) continue;
            const uint32_t base = it->base;
            if (it->size == n) holes_.erase(it);
            else *it = Hole{base + n, it->size - n};
            clear(base, n);
            return base;
        }
        return std::nullopt;
    }

    void free(uint32_t base, uint32_t n) {
        if (n == 0) return;
        auto next = std::lower_bound(holes_.begin(), holes_.end(), base,
                                     [](const Hole& h, uint32_t b) { return h.base < b; });
        if (next != holes_.end() && base + n == next->base) {  // merge with the hole after
            n += next->size;
            next = holes_.erase(next);
        }
        if (next != holes_.begin()) {  // and with the one before
            auto prev = std::prev(next);
            if (prev->base + prev->size == base) {
                prev->size += n;
                return;
            }
        }
        holes_.insert(next, Hole{base, n});
    }

    uint32_t read32(uint32_t address) const {
        uint32_t v;
        std::memcpy(&v, &bytes_[address], 4);
        return v;
    }
    void write32(uint32_t address, uint32_t v) {
        std::memcpy(&bytes_[address], &v, 4);
        dirty_begin_ = std::min(dirty_begin_, address);
        dirty_end_ = std::max(dirty_end_, address + 4);
    }
    const unsigned char* data() const { return bytes_.data(); }

private:
    struct Hole {
        uint32_t base, size;
    };
    // Clears [base, base + n): only the part ever written can hold anything but zeros.
    void clear(uint32_t base, uint32_t n) {
        const uint32_t from = std::max(base, dirty_begin_), to = std::min(base + n, dirty_end_);
        if (from < to) std::memset(&bytes_[from], 0, to - from);
    }

    std::vector<unsigned char> bytes_;
    std::vector<Hole> holes_;  // by base, never touching each other
    // Every byte outside [dirty_begin_, dirty_end_) has been zero since the start.
    uint32_t dirty_begin_ = UINT32_MAX, dirty_end_ = 0;
};

}  // namespace gpuvp
