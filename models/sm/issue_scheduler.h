// The SM's issue scheduler: which ready warps issue at each clock edge, `issue_width` picks per
// cycle, by the rule `policy.issue` names (one file each):
//   gto_issue.h  greedy then oldest (the default): the warp that issued first in the last
//                cycle it issued keeps issuing while it is ready; otherwise, and for the
//                other picks of a cycle, the oldest ready warp by the cycle it was placed in
//                its slot, ties by slot index (GPGPU-Sim's `gto`)
//   lrr_issue.h  loose round robin: the next ready slot after the one that issued last
//
// What it keeps per warp slot is its ready cycle: the first clock edge at which the warp may
// issue. A warp whose next instruction is not in its instruction buffer is made ready to fetch
// instead: the fetch is not an issue, and goes out when the warp is due whatever the issue
// order (the fetch unit serves every warp whose buffer ran dry, in slot order). A slot waits in
// one of three places until its cycle, and leaves it when it is picked:
//   - the due sets, bitmaps of the slots ready now: to issue, indexed by the rule's order (the
//     warps' age for gto, the slot for lrr), so that a pick is a find-first-set; to fetch, by slot;
//   - the wheel, for the next 64 cycles: a bitmap of slots per cycle (the cycle modulo 64) and a
//     bitmap of the cycles with any; at each cycle the passed cycles' slots join the due set;
//   - beyond it, a time queue (a memory access's wait, a long ALU instruction): a list in
//     cycle order, which a wait as long as the one before it (the usual case) joins at its end.
// Making a slot ready again takes it out of where it was, so the due set and the wheel hold
// each slot at most once; the time queue's entries are checked against the slot's ready cycle
// when they come due. A pure data structure: tests/unit/sm_scheduling.cpp runs it without a
// simulation.
#pragma once
#include <gpuvp/models/common/policies.h>
#include <gpuvp/models/common/time_queue.h>
#include <gpuvp/models/sm/gto_issue.h>
#include <gpuvp/models/sm/lrr_issue.h>
#include <gpuvp/models/sm/slot_mask.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp {

class IssueScheduler {
public:
    static constexpr uint64_t kNever = ~0ull;
    static constexpr uint32_t kNone = ~0u;
    static constexpr uint32_t kMaxSlots = SlotMask::kBits;

    IssueScheduler(IssuePolicy policy, uint32_t slots)
        : policy_(policy), ready_(slots, kNever), gto_(slots) {
        if (slots == 0 || slots > kMaxSlots)
            throw std::invalid_argument("the issue scheduler takes 1 to " + std::to_string(kMaxSlots) + " warp slots");
    }

    // A warp was placed in `slot` at `cycle` (its age, for gto). Not yet ready: make_ready.
    void placed(uint32_t slot, uint64_t cycle) {
        if (policy_ == IssuePolicy::gto) due_.insert_at(gto_.placed(slot, cycle));
    }
    // The warp in `slot` left it: it is taken out of everything.
    void left(uint32_t slot) {
        unready(slot);
        if (policy_ == IssuePolicy::gto) due_.remove_at(gto_.left(slot));
    }

    // The warp in `slot` may issue from `cycle` on, or fetch then with `fetch` (any earlier
    // readiness is forgotten).
    [[gnu::always_inline]] void make_ready(uint32_t slot, uint64_t cycle, bool fetch = false) {
        unready(slot);
        ready_[slot] = cycle;
        if (fetch) fetch_.set(slot);
        if (cycle <= now_) {
            make_due(slot);
        } else if (cycle - now_ <= kWheel) {
            const unsigned b = unsigned(cycle % kWheel);
            wheel_[b].set(slot);
            filled_ |= 1ull << b;
        } else {
            push_far(cycle, slot);
        }
    }

    // The clock reached `cycle` (never back): every slot ready by then is due. The common
    // case, at most a cycle's bucket and nothing from the time queue, stays inline.
    [[gnu::always_inline]] void release(uint64_t cycle) {
        first_issued_ = false;
        if (cycle <= now_) return;
        uint64_t take = filled_;
        if (take && cycle - now_ < kWheel) {  // the buckets of cycles now_+1 .. cycle
            const unsigned from = unsigned((now_ + 1) % kWheel);
            const uint64_t run = (1ull << (cycle - now_)) - 1;
            take &= from == 0 ? run : (run << from) | (run >> (kWheel - from));
        }
        now_ = cycle;
        if (take) release_wheel(take);
        if (!far_.empty() && far_.front().at <= cycle) release_far();
    }

    bool has_due() const { return due_.any() || fetch_due_.any(); }
    // No slot due or waiting to be (a scan: for the rare checks, not the issue path).
    bool empty() const {
        return std::all_of(ready_.begin(), ready_.end(), [](uint64_t c) { return c == kNever; });
    }
    // The next slot due to fetch, lowest first, taken out of the due set; kNone when none.
    uint32_t pick_fetch() {
        const uint32_t slot = fetch_due_.first();
        if (slot != kNone) {
            fetch_due_.clear(slot);
            fetch_.clear(slot);
            ready_[slot] = kNever;
        }
        return slot;
    }
    // The next slot to try to issue this cycle, taken out of the due set (it issues, or is made
    // ready again, or waits); kNone when none is due.
    uint32_t pick() {
        const uint32_t slot = policy_ == IssuePolicy::gto ? gto_.pick(due_) : lrr_.pick(due_);
        if (slot != kNone) ready_[slot] = kNever;
        return slot;
    }
    // The warp picked from `slot` issued (and may have left with that instruction: a warp that
    // ended is no greedy warp, the oldest due goes first next).
    void issued(uint32_t slot) {
        if (policy_ == IssuePolicy::gto) {
            if (!first_issued_) gto_.greedy = gto_.resident(slot) ? slot : kNone;
        } else {
            lrr_.last = slot;
        }
        first_issued_ = true;
    }
    // The first cycle after now with a slot becoming due; kNever when none waits (the due set
    // aside).
    uint64_t next_cycle() {
        uint64_t at = kNever;
        if (filled_) {
            const unsigned from = unsigned((now_ + 1) % kWheel);
            const uint64_t rotated = from == 0 ? filled_ : (filled_ >> from) | (filled_ << (kWheel - from));
            at = now_ + 1 + unsigned(__builtin_ctzll(rotated));
        }
        while (!far_.empty() && ready_[far_.front().value] != far_.front().at) far_.pop();  // stale entries
        if (!far_.empty()) at = std::min(at, far_.front().at);
        return at;
    }

private:
    static constexpr uint64_t kWheel = 64;
    // Beyond the wheel: into the time queue.
    [[gnu::noinline]] void push_far(uint64_t cycle, uint32_t slot) { far_.push(cycle, slot); }
    // The buckets in `take` join the due sets.
    [[gnu::always_inline]] void release_wheel(uint64_t take) {
        filled_ &= ~take;
        do {
            const unsigned b = unsigned(__builtin_ctzll(take));
            take &= take - 1;
            SlotMask& m = wheel_[b];
            for (unsigned w = 0; w < SlotMask::kWords; ++w) {
                const uint64_t bits = m.word[w];
                if (!bits) continue;
                fetch_due_.word[w] |= bits & fetch_.word[w];
                if (policy_ == IssuePolicy::lrr) {
                    due_.word[w] |= bits & ~fetch_.word[w];
                    continue;
                }
                for (uint64_t rest = bits & ~fetch_.word[w]; rest; rest &= rest - 1)
                    due_.set(gto_.rank(w * 64 + unsigned(__builtin_ctzll(rest))));
            }
            m = SlotMask{};
        } while (take);
    }
    // The time queue's entries due by now_ join the due sets (stale ones are dropped).
    [[gnu::noinline]] void release_far() {
        while (!far_.empty() && far_.front().at <= now_) {
            const auto f = far_.front();
            far_.pop();
            if (ready_[f.value] == f.at) make_due(f.value);  // (else stale)
        }
    }
    unsigned index(uint32_t slot) const { return policy_ == IssuePolicy::gto ? gto_.rank(slot) : slot; }
    // The slot's ready cycle has come: it joins the due set to fetch or to issue.
    void make_due(uint32_t slot) {
        if (fetch_.test(slot)) fetch_due_.set(slot);
        else due_.set(index(slot));
    }
    // Takes the slot out of the due sets or the wheel (a time-queue entry goes stale).
    void unready(uint32_t slot) {
        const uint64_t c = ready_[slot];
        if (c == kNever) return;
        ready_[slot] = kNever;
        const bool fetch = fetch_.test(slot);
        fetch_.clear(slot);
        if (c <= now_) {
            if (fetch) fetch_due_.clear(slot);
            else due_.clear(index(slot));
        } else if (c - now_ <= kWheel) {
            const unsigned b = unsigned(c % kWheel);
            wheel_[b].clear(slot);
            if (!wheel_[b].any()) filled_ &= ~(1ull << b);
        }
    }

    IssuePolicy policy_;
    std::vector<uint64_t> ready_;  // per slot: its ready cycle, kNever when not waiting to issue
    uint64_t now_ = 0;             // the cycle released last
    bool first_issued_ = false;    // a warp issued this cycle already
    SlotMask due_;                 // to issue, by index(slot)
    SlotMask fetch_due_;           // to fetch, by slot
    SlotMask fetch_;               // the slots made ready to fetch
    std::array<SlotMask, kWheel> wheel_{};  // by slot, for cycle % kWheel
    uint64_t filled_ = 0;          // the wheel's buckets with any slot
    // The time queue: slots by ready cycle (the order among one cycle's slots does not matter:
    // they join a bitmap together).
    TimeQueue<uint32_t, false, uint64_t> far_;
    GtoIssue gto_;
    LrrIssue lrr_;
};

}  // namespace gpuvp
