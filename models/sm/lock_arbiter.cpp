#include <gpuvp/models/sm/lock_arbiter.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>

namespace gpuvp {

using sc_core::sc_time;

LockArbiter::LockArbiter(sc_core::sc_module_name name, uint32_t sm, uint32_t rows, const Clock& clock, sc_time bus,
                         uint32_t decide_cycles, Observer* observer)
    : sc_module(name), regs("regs"), to_sm("to_sm"), sm_(sm), clock_(clock), bus_(bus),
      decide_cycles_(decide_cycles), observer_(observer), rows_(rows) {
    regs.register_b_transport(this, &LockArbiter::b_transport);
    regs.register_transport_dbg(this, &LockArbiter::transport_dbg);
    SC_HAS_PROCESS(LockArbiter);
    SC_THREAD(run);
}

void LockArbiter::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    if (reject_unsupported(gp)) return;
    if (!gp.is_write() || gp.get_address() != map::kArbiterRequest || gp.get_data_length() != sizeof(LockRequest)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    delay += bus_;
    inbox_.post_in(from_bytes<LockRequest>(gp.get_data_ptr()), delay);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// Row r's FIFO at kArbiterFifo + r * kArbiterFifoStride: its entry count (8 bytes), then the
// entries, oldest first.
unsigned LockArbiter::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    if (!gp.is_read() || a < map::kArbiterFifo) return 0;
    const uint64_t r = (a - map::kArbiterFifo) / map::kArbiterFifoStride;
    const uint64_t off = (a - map::kArbiterFifo) % map::kArbiterFifoStride;
    if (r >= rows_.size() || off + n > map::kArbiterFifoStride) return 0;
    const auto& fifo = rows_[r].fifo;
    unsigned char* p = gp.get_data_ptr();
    for (unsigned i = 0; i < n; ++i) {
        const uint64_t at = off + i;
        unsigned char byte = 0;
        if (at < 8) {
            const uint64_t count = fifo.size();
            byte = reinterpret_cast<const unsigned char*>(&count)[at];
        } else if ((at - 8) / sizeof(LockRequest) < fifo.size()) {
            const LockRequest& e = fifo[(at - 8) / sizeof(LockRequest)];
            byte = reinterpret_cast<const unsigned char*>(&e)[(at - 8) % sizeof(LockRequest)];
        }
        p[i] = byte;
    }
    return n;
}

LockEvent LockArbiter::event(LockEventKind k, const LockRequest& r, uint32_t cpr, const sc_time& t) const {
    LockEvent e{};
    e.kind = k;
    e.sm = sm_;
    e.kernel_slot = ~0u;
    e.block = r.row;
    e.warp = r.requester;
    e.other = r.holder;
    e.lock = r.lock;
    e.slot = ~0u;
    e.cpr = cpr;
    e.t = t;
    return e;
}

void LockArbiter::run() {
    for (;;) {
        const sc_time now = sc_core::sc_time_stamp();
        while (inbox_.due(now)) {
            const LockRequest r = inbox_.pop();
            if (r.row >= rows_.size()) rows_.resize(r.row + 1);
            Row& row = rows_[r.row];
            if (row.fifo.empty()) busy_rows_.push_back(r.row);
            row.fifo.push_back(r);
            ++stats_.requests;
            stats_.fifo_max = std::max<uint64_t>(stats_.fifo_max, row.fifo.size());
            if (observer_) observer_->lock_event(event(LockEventKind::arbiter_push, r, ~0u, now));
        }
        // Every block's arbiter works on its own FIFO, one entry at a time.
        sc_time next = sc_core::SC_ZERO_TIME;
        bool timed = false;
        for (size_t i = 0; i < busy_rows_.size();) {
            Row& row = rows_[busy_rows_[i]];
            if (row.free_at <= now) decide(row, now);
            if (row.fifo.empty()) {
                busy_rows_.erase(busy_rows_.begin() + long(i));
                continue;
            }
            if (!timed || row.free_at < next) next = row.free_at;
            timed = true;
            ++i;
        }
        if (!inbox_.empty() && (!timed || inbox_.next() < next)) {
            next = inbox_.next();
            timed = true;
        }
        if (timed) wait(next - now, wake_);
        else wait(wake_);
    }
}

uint8_t LockArbiter::read_cpr(uint32_t row, uint16_t warp, sc_time& delay) {
    uint8_t cpr = 0xff;  // an unreadable CPR ranks lowest
    transport(to_sm, payloads_, tlm::TLM_READ_COMMAND, map::kSmCpr + row * map::kCprBytes + warp, &cpr, 1, delay);
    return cpr;
}

// The head entry: read both CPRs, compare, send the decision. The arbiter is busy until the
// decision leaves.
void LockArbiter::decide(Row& row, const sc_time& now) {
    const LockRequest r = row.fifo.front();
    row.fifo.pop_front();
    sc_time d = sc_core::SC_ZERO_TIME;
    const uint8_t requester = read_cpr(r.row, r.requester, d);
    const uint8_t holder = read_cpr(r.row, r.holder, d);
    d += clock_.cycles(decide_cycles_);
    const LockVerdict v = requester < holder ? LockVerdict::preempt : LockVerdict::wait;
    (v == LockVerdict::preempt ? stats_.preempts : stats_.waits)++;
    row.free_at = now + d;
    if (observer_) {
        LockEvent e = event(LockEventKind::arbiter_decision, r, requester, now + d);
        e.verdict = v;
        e.other_cpr = holder;
        observer_->lock_event(e);
    }
    write_msg(to_sm, payloads_, map::kSmLockDecision, LockDecision{r, v, 0}, d);
}

}  // namespace gpuvp
