// Write notification: how the command processor learns that the host wrote a packet header or
// a signal it waits on, without polling (docs/models/memory.md, "Write notification").
//
// A timed read that carries a WriteWatch arms a watch on the bytes it reads in a Memory that
// notifies (Memory::notify_writes_to); the next timed write that touches them disarms it and
// sends one 8-byte write of the watched range's address to the notification address. A write
// that carries a WriteWatch is the watcher's own: it disarms what it touches and notifies no
// one (the watcher knows). Debug accesses neither arm nor notify.
//
// A memory that arms the watch says so: it sets `armed` on the read's WriteWatch, and thereby
// promises a notice of every later write to those bytes, a write through a DMI pointer
// included (gpuvp's Memory takes back its DMI grants over watched bytes). A read whose watch
// comes back unarmed (a memory that does not know the extension, or one that cannot see every
// writer) leaves the watcher to look again itself: the CP polls (docs/models/cp.md, "Polling").
#pragma once
#include <gpuvp/models/common/tlm_util.h>

#include <tlm>

namespace gpuvp {

struct WriteWatch : tlm::tlm_extension<WriteWatch> {
    bool armed = false;  // set by the memory that armed the watch (a read's acknowledgement)
    tlm::tlm_extension_base* clone() const override { return new WriteWatch(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override { armed = static_cast<const WriteWatch&>(other).armed; }
};

// One b_transport with a WriteWatch on the payload (taken off again before it returns);
// `armed`, if given: whether the memory armed the watch.
template <class Socket>
tlm::tlm_response_status watched_transport(Socket&& socket, PayloadPool& pool, tlm::tlm_command cmd,
                                           uint64_t address, void* data, unsigned length, sc_core::sc_time& delay,
                                           bool* armed = nullptr) {
    PayloadPool::Lease lease(pool);
    tlm::tlm_generic_payload& gp = *lease;
    prepare(gp, cmd, address, data, length);
    WriteWatch watch;
    gp.set_extension(&watch);
    socket->b_transport(gp, delay);
    gp.clear_extension(&watch);
    if (armed) *armed = watch.armed;
    return gp.get_response_status();
}

}  // namespace gpuvp
