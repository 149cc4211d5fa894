// An SM's shared memory (the group segment): real bytes, handed to blocks as contiguous
// ranges (first fit; freed ranges merge with their neighbours). A block's range is cleared
// when it is allocated, so its lock words (M2) start free. Timing is the SM's business.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

namespace gpuvp {

class SharedMemory {
public:
    explicit SharedMemory(uint32_t bytes) : bytes_(bytes) {
        if (bytes) holes_[0] = bytes;
    }
    uint32_t size() const { return uint32_t(bytes_.size()); }
    uint32_t largest_hole() const {
        uint32_t n = 0;
        for (const auto& h : holes_) n = std::max(n, h.second);
        return n;
    }

    // The base of a cleared range of `n` bytes, or nothing if no hole is that large.
    std::optional<uint32_t> allocate(uint32_t n) {
        if (n == 0) return 0u;
        for (auto it = holes_.begin(); it != holes_.end(); ++it) {
            if (it->second < n) continue;
            const uint32_t base = it->first, left = it->second - n;
            holes_.erase(it);
            if (left) holes_[base + n] = left;
            std::memset(&bytes_[base], 0, n);
            return base;
        }
        return std::nullopt;
    }

    void free(uint32_t base, uint32_t n) {
        if (n == 0) return;
        auto next = holes_.lower_bound(base);
        if (next != holes_.end() && base + n == next->first) {  // merge with the hole after
            n += next->second;
            next = holes_.erase(next);
        }
        if (next != holes_.begin()) {  // and with the one before
            auto prev = std::prev(next);
            if (prev->first + prev->second == base) {
                prev->second += n;
                return;
            }
        }
        holes_[base] = n;
    }

    uint32_t read32(uint32_t address) const {
        uint32_t v;
        std::memcpy(&v, &bytes_[address], 4);
        return v;
    }
    void write32(uint32_t address, uint32_t v) { std::memcpy(&bytes_[address], &v, 4); }
    unsigned char* data() { return bytes_.data(); }
    const unsigned char* data() const { return bytes_.data(); }

private:
    std::vector<unsigned char> bytes_;
    std::map<uint32_t, uint32_t> holes_;  // base -> size, never touching each other
};

}  // namespace gpuvp
