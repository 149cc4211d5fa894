// M1 as a property over a seeded family of loads: on every SM, whenever a warp slot is free
// while the highest-priority block there that still has warps to start has the registers for
// one, the slot goes to that block, or, only where that block has a barrier and does not fit
// beside the partly started blocks with a barrier (the deadlock avoidance), to a partly started
// block. Checked from the SMs' block status tables as the observer sees every change (a block
// arrives, a warp starts, a warp ends), not by running the SM's logic again. The same loads
// give the comparison of priority-warp's and priority-block's high-priority response that
// docs/m1-priority-dispatch.md reports ("The family of loads"); the test prints it and asserts
// only the rule and that every kernel completes.
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/glc/glc_config.h>
#include <gpuvp/platform/system.h>
#include "tests/sizes.h"
#include "tests/support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace gpuvp;

namespace {

// splitmix64: the same numbers on every platform and library (std:: distributions are not).
struct Random {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint32_t in(uint32_t lo, uint32_t hi) { return lo + uint32_t(next() % (hi - lo + 1)); }  // [lo, hi]
};

struct KernelShape {
    std::string name;
    uint32_t priority, warps, vregs, blocks;
    bool barrier;
};

// One load of the family: the shape (two low-priority kernels that fill the SMs, a
// priority-2 kernel at about 10 us, a priority-0 kernel at about 40 us) with random sizes, on
// 1, 2 or 4 SMs of 16, 24 or 32 warp slots; a quarter of the kernels have a block barrier.
struct Load {
    uint32_t sms, slots, registers = 65536;
    std::vector<KernelShape> kernels;
    std::string yaml;
};

Load make_load(uint64_t seed) {
    Random r{seed};
    Load l;
    l.sms = std::vector<uint32_t>{1, 1, 2, 4}[r.in(0, 3)];
    l.slots = std::vector<uint32_t>{16, 24, 32}[r.in(0, 2)];
    std::ostringstream y;
    y << "name: m1-family-" << seed << "\nplatform:\n  sms: " << l.sms << "\n  sm: {warp_slots: " << l.slots
      << "}\npolicy: {dispatch: priority-warp}\n"
         "queues: [{name: low0, priority: 3}, {name: low1, priority: 3}, {name: mid, priority: 2}, "
         "{name: high, priority: 0}]\nkernels:\n";
    const char* names[] = {"low0", "low1", "mid", "high"};
    const uint32_t priorities[] = {3, 3, 2, 0};
    for (int k = 0; k < 4; ++k) {
        KernelShape s{names[k], priorities[k], r.in(1, l.slots), std::vector<uint32_t>{16, 32, 64}[r.in(0, 2)], 0,
                      r.in(0, 3) == 0};
        s.warps = std::min(s.warps, l.registers / (s.vregs * 32));  // a block fits in one SM
        s.blocks = k < 2 ? r.in(2, 6) * l.sms * l.slots / s.warps + 1 : r.in(1, 3) * l.sms;
        const uint32_t submit = k < 2 ? 0 : k == 2 ? r.in(8000, 12000) : r.in(35000, 45000);
        const uint32_t cycles = std::vector<uint32_t>{4, 8, 20, 40}[r.in(0, 3)];
        const uint32_t repeat = k < 2 ? r.in(100, 1500) : k == 2 ? r.in(20, 400) : r.in(5, 50);
        y << "  - {name: " << s.name << ", queue: " << s.name << ", submit_ns: " << submit << ", vregs: " << s.vregs
          << ", grid: [" << s.blocks * s.warps * 32 << "], block: [" << s.warps * 32
          << "], program: [{op: kernarg_load}, " << (s.barrier ? "{op: barrier}, " : "") << "{op: valu, cycles: "
          << cycles << ", repeat: " << repeat << "}]}\n";
        l.kernels.push_back(s);
    }
    l.yaml = y.str();
    return l;
}

// Follows every SM's block status table and checks the rule at every change.
class RuleCheck : public Observer {
public:
    explicit RuleCheck(const Load& l) : load_(l), sms_(l.sms) {}

    std::vector<std::string> violations;
    std::map<std::string, double> response_ns;  // per kernel: doorbell -> first warp started
    uint64_t starts = 0, frees = 0;

    bool wants_table_updates() const override { return true; }
    void kernel_accepted(uint32_t slot, uint32_t queue, uint64_t, const sc_core::sc_time& doorbell,
                         const sc_core::sc_time&) override {
        slot_kernel_[slot] = queue;  // queue i holds kernel i
        doorbell_[slot] = doorbell;
    }
    void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) override {
        if (s == Stage::first_warp_started)  // reported by each SM the first time: the earliest counts
            response_ns.emplace(load_.kernels[slot_kernel_.at(slot)].name, (t - doorbell_.at(slot)).to_seconds() * 1e9);
    }
    void table_update(const gpuvp::TableSource& source, const char* table, uint64_t row, const std::string& values,
                      const sc_core::sc_time& t) override {
        if (source.glc() || std::string(table) != "block_status") return;
        Sm& sm = sms_.at(source.sm);
        if (sm.time != t) finish(sm);  // every change at sm.time has been made
        sm.time = t;
        if (values == "free") {  // the block's last warp ended
            ++frees;
            sm.rows.erase(row);
            return;
        }
        std::istringstream v(values);
        std::string word;
        uint32_t kernel_slot = 0, priority = 0, undispatched = 0, running = 0;
        uint64_t regs_needed = 0;
        while (v >> word) {
            if (word == "kernel") v >> kernel_slot;
            else if (word == "prio") v >> priority;
            else if (word == "regs_needed") v >> regs_needed;
            else if (word == "undispatched_warps") v >> undispatched;
            else if (word == "running") v >> running;
            else v >> word;  // "block <id>"
        }
        auto it = sm.rows.find(row);
        if (it == sm.rows.end()) {  // a block arrived
            const KernelShape& k = load_.kernels[slot_kernel_.at(kernel_slot)];
            sm.rows[row] = Row{k.name, priority, undispatched, uint32_t(regs_needed / undispatched), k.barrier,
                               undispatched, running, sm.arrivals++};
            return;
        }
        Row& b = it->second;
        if (running < b.running) ++frees;
        if (undispatched < b.undispatched) {  // one of its warps started
            ++starts;
            check_start(sm, b);
            b.undispatched = undispatched;
        }
        b.running = running;
    }
    // The changes at the last time seen have all been made.
    void end() {
        for (Sm& sm : sms_) finish(sm);
    }

private:
    struct Row {
        std::string kernel;
        uint32_t priority, warps, regs_per_warp;
        bool barrier;
        uint32_t undispatched, running;
        uint64_t arrival;
        bool started() const { return undispatched < warps; }
    };
    struct Sm {
        std::map<uint64_t, Row> rows;
        sc_core::sc_time time;
        uint64_t arrivals = 0;
    };

    uint64_t free_regs(const Sm& sm) const {
        uint64_t used = 0;
        for (const auto& [i, b] : sm.rows) used += uint64_t(b.running) * b.regs_per_warp;
        return load_.registers - used;
    }
    uint32_t free_slots(const Sm& sm) const {
        uint32_t used = 0;
        for (const auto& [i, b] : sm.rows) used += b.running;
        return load_.slots - used;
    }
    // The block the rule gives the next free slot to: the highest-priority block with warps to
    // start (among equals the oldest), if it has the registers for one; else none.
    const Row* first(const Sm& sm) const {
        const Row* h = nullptr;
        for (const auto& [i, b] : sm.rows)
            if (b.undispatched > 0 &&
                (!h || b.priority < h->priority || (b.priority == h->priority && b.arrival < h->arrival)))
                h = &b;
        return h && free_regs(sm) >= h->regs_per_warp ? h : nullptr;
    }
    // The deadlock avoidance holds `h` back: it has a barrier, has not started, and does not fit
    // beside the partly started blocks with a barrier.
    bool held_back(const Sm& sm, const Row& h) const {
        if (!h.barrier || h.started()) return false;
        uint64_t warps = h.warps, regs = uint64_t(h.warps) * h.regs_per_warp;
        for (const auto& [i, b] : sm.rows)
            if (b.barrier && b.started() && b.undispatched > 0) {
                warps += b.warps;
                regs += uint64_t(b.warps) * b.regs_per_warp;
            }
        return warps > load_.slots || regs > load_.registers;
    }
    void violation(const Sm& sm, const std::string& what) {
        std::ostringstream s;
        s << "sm " << (&sm - sms_.data()) << " at " << sm.time << ": " << what;
        violations.push_back(s.str());
    }
    // A warp of `b` starts: it must be the first block's, or, where the first is held back, a
    // partly started block's.
    void check_start(Sm& sm, const Row& b) {
        const Row* h = first(sm);
        if (!h || h == &b || h->priority == b.priority) return;
        if (held_back(sm, *h) && b.started()) return;
        violation(sm, "a warp of " + b.kernel + (b.started() ? " (partly started)" : " (not started)") +
                          " took a slot while " + h->kernel + " waited with the registers for a warp");
    }
    // No slot may stay free while the first block could use it; where it is held back, the
    // partly started block first in the order takes the slot if it has the registers for a warp.
    void finish(Sm& sm) {
        const Row* h = first(sm);
        if (!h || free_slots(sm) == 0) return;
        if (!held_back(sm, *h)) return violation(sm, "a slot stayed free while " + h->kernel +
                                                         " waited with the registers for a warp");
        const Row* p = nullptr;
        for (const auto& [i, b] : sm.rows)
            if (b.started() && b.undispatched > 0 &&
                (!p || b.priority < p->priority || (b.priority == p->priority && b.arrival < p->arrival)))
                p = &b;
        if (p && free_regs(sm) >= p->regs_per_warp)
            violation(sm, "a slot stayed free while " + h->kernel + " was held back and " + p->kernel +
                              " had started and had the registers for a warp");
    }

    const Load& load_;
    std::vector<Sm> sms_;
    std::map<uint32_t, uint32_t> slot_kernel_;
    std::map<uint32_t, sc_core::sc_time> doorbell_;
};

struct Outcome {
    bool done = false;
    uint64_t starts = 0, frees = 0;
    std::vector<std::string> violations;
    double high_response_ns = 0;
};

// Runs load `seed` under `policy` (priority-warp: with `second_sm`, glc.second_sm) in a child
// process (one elaboration per process).
Outcome run_load(uint64_t seed, const std::string& policy, const std::string& second_sm = "lowest-priority") {
    const std::string text = test::in_child([&] {
        const Load l = make_load(seed);
        Scenario s = parse_scenario(l.yaml, "m1-family.yaml",
                                    {{"policy.dispatch", policy}, {"platform.glc.second_sm", second_sm}});
        RuleCheck check(l);
        System sys("system", s, &check);
        sc_core::sc_start();
        check.end();
        std::ostringstream o;
        o << sys.host.all_done() << ' ' << check.starts << ' ' << check.frees << ' '
          << check.response_ns["high"] << '\n';
        for (const std::string& v : check.violations) o << v << '\n';
        return o.str();
    });
    Outcome r;
    std::istringstream in(text);
    in >> r.done >> r.starts >> r.frees >> r.high_response_ns;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) r.violations.push_back(line);
    return r;
}

// seeds 1..kLoads (6 of them under the sanitizers: every policy path is reached by then)
constexpr uint64_t kLoads = gpuvp::test::family_size<uint64_t>(40, 6);

}  // namespace

TEST_CASE("M1 property: a freed warp slot goes to the waiting highest-priority block, over a seeded family of loads",
          "[m1][property]") {
    // priority-warp under each second-SM choice (glc.second_sm) against priority-block.
    const std::vector<std::string> choices = policy_names<SecondSmChoice>();
    std::map<std::string, std::vector<double>> ratios;  // per choice: warp / block, per load
    std::printf("M1 family (tests/system/priority_dispatch_property.cpp): high-priority response, doorbell -> first "
                "warp, ns\nseed sms slots priority-block");
    for (const std::string& c : choices) std::printf("  priority-warp %s", c.c_str());
    std::printf("\n");
    for (uint64_t seed = 1; seed <= kLoads; ++seed) {
        const Load l = make_load(seed);
        INFO("seed " << seed << "\n" << l.yaml);
        std::vector<Outcome> runs = {run_load(seed, "priority-block")};
        for (const std::string& c : choices) runs.push_back(run_load(seed, "priority-warp", c));
        for (const Outcome& o : runs) {
            REQUIRE(o.done);
            CHECK(o.starts > 0);
            CHECK(o.frees > 0);
            for (const std::string& v : o.violations) UNSCOPED_INFO(v);
            CHECK(o.violations.empty());
        }
        std::printf("%4llu %3u %5u %14.1f", (unsigned long long)seed, l.sms, l.slots, runs[0].high_response_ns);
        for (size_t c = 0; c < choices.size(); ++c) {
            ratios[choices[c]].push_back(runs[c + 1].high_response_ns / runs[0].high_response_ns);
            std::printf(" %*.1f", int(15 + choices[c].size()), runs[c + 1].high_response_ns);
        }
        std::printf("\n");
    }
    for (const std::string& c : choices) {
        std::vector<double> sorted = ratios[c];
        std::sort(sorted.begin(), sorted.end());
        const auto losses = std::count_if(sorted.begin(), sorted.end(), [](double r) { return r > 1.0; });
        const size_t n = sorted.size();
        double sum = 0;
        for (double r : sorted) sum += r;
        std::printf("second SM %s: priority-warp slower in %lld of %zu loads; warp/block median %.3f, mean %.3f, "
                    "best %.3f, worst %.3f\n",
                    c.c_str(), (long long)losses, n, (sorted[(n - 1) / 2] + sorted[n / 2]) / 2, sum / double(n),
                    sorted.front(), sorted.back());
    }
}
