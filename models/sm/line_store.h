// The bytes behind the warps' instruction buffers, one copy per distinct line. Each warp has
// an instruction buffer of two lines (what it executes and the line after it), filled by its
// own fetches through the L1I, as in the hardware. The warps of a kernel fetch the same lines
// with the same bytes, so the SM keeps each distinct (address, bytes) once and a buffer refers
// to it: what a warp executes is exactly what its fetch returned, and the host touches one
// copy of a hot loop instead of one per warp. An image lives while a buffer refers to it.
#pragma once
#include <gpuvp/models/common/host_aligned.h>

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace gpuvp {

class LineStore {
public:
    static constexpr uint32_t kNone = ~0u;

    explicit LineStore(uint32_t line_bytes) : line_bytes_(line_bytes) {}

    // An image of `bytes` (one line) fetched from `address`: the address's latest image if it
    // holds the same bytes, else a new one that becomes the latest. One reference more.
    uint32_t intern(uint64_t address, const unsigned char* bytes) {
        auto [it, added] = latest_.try_emplace(address, kNone);
        if (!added && std::memcmp(data(it->second), bytes, line_bytes_) == 0) {
            ++images_[it->second].refs;
            return it->second;
        }
        uint32_t i;
        if (!free_.empty()) {
            i = free_.back();
            free_.pop_back();
        } else {
            i = uint32_t(images_.size());
            images_.emplace_back();
            data_.resize(data_.size() + line_bytes_);
        }
        images_[i] = Image{address, 1};
        std::memcpy(data(i), bytes, line_bytes_);
        it->second = i;  // an older image of the address stays while referred to
        return i;
    }
    // One reference fewer (kNone: nothing).
    void release(uint32_t image) {
        if (image == kNone || --images_[image].refs > 0) return;
        auto it = latest_.find(images_[image].address);
        if (it != latest_.end() && it->second == image) latest_.erase(it);
        free_.push_back(image);
    }
    const unsigned char* bytes(uint32_t image) const { return &data_[size_t(image) * line_bytes_]; }

private:
    struct Image {
        uint64_t address = 0;
        uint32_t refs = 0;
    };
    unsigned char* data(uint32_t image) { return &data_[size_t(image) * line_bytes_]; }

    uint32_t line_bytes_;
    std::vector<Image> images_;
    std::vector<unsigned char, HostLineAllocator<unsigned char>> data_;  // images_.size() lines
    std::vector<uint32_t> free_;
    std::unordered_map<uint64_t, uint32_t> latest_;  // address -> its latest image
};

}  // namespace gpuvp
