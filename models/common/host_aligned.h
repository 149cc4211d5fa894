// An allocator whose blocks start on a host cache line (64 bytes), for the arrays of
// simulated cache lines: a 64-byte line then occupies one host cache line instead of
// straddling two, so copying it touches half as many.
#pragma once
#include <cstddef>
#include <new>

namespace gpuvp {

template <class T>
struct HostLineAllocator {
    static_assert(alignof(T) <= 64, "a type aligned beyond a host cache line");
    using value_type = T;
    static constexpr std::align_val_t kAlign{64};
    HostLineAllocator() = default;
    template <class U>
    HostLineAllocator(const HostLineAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, kAlign); }
    template <class U>
    bool operator==(const HostLineAllocator<U>&) const { return true; }
    template <class U>
    bool operator!=(const HostLineAllocator<U>&) const { return false; }
};

}  // namespace gpuvp
