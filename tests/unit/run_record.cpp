// The run record (sc_main/record/run_record.h, fields.h), without a simulation: results.json read
// back into a record writes the same text, a bad document names the member, a path finds
// what results.json holds there, and the listing of members is the one docs/results.md shows.
#include "sc_main/record/metrics.h"
#include "sc_main/record/problems.h"
#include "sc_main/record/run_record.h"
#include "sc_main/run/recorder.h"
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>


namespace {

using json = nlohmann::ordered_json;
using gpuvp::test::slurp;
const std::string kSource = GPUVP_SOURCE_DIR;

gpuvp::RunRecord small_record() {
    gpuvp::RunRecord r;
    r.scenario = "small";
    r.status = "ok";
    r.policy = {"fifo", "serial", "spin", "per-warp", "static", "gto"};
    r.sim_end_ns = 5000;
    r.host_seconds = 0.25;
    gpuvp::KernelRecord& k = r.kernels.emplace_back();
    k.name = "alpha";
    k.queue = "q";
    k.status = {};
    k.packet = 0;
    k.submit_ns = 0;
    k.response_ns = 700;
    k.stages.push_back({"host", 0, 2200, 2200});
    gpuvp::InstancesSummary in;
    in.count = 3;
    in.turnaround_ns.max = 9000;
    k.instances = in;
    k.measured = gpuvp::MeasuredTimes{0, 500, 1000, 4000, std::nullopt, {}, 0};  // a replayed kernel
    gpuvp::KernelRecord& k2 = r.kernels.emplace_back();
    k2.name = "beta";
    k2.alone_turnaround_ns = std::optional<double>();  // present, null
    r.sms.emplace_back().busy_fraction = 0.5;
    r.sms.emplace_back().busy_fraction = 0.75;
    r.sms[1].id = 1;
    r.locks.by_priority.emplace_back("2", gpuvp::PriorityLocks{});
    r.locks.by_priority.back().second.wait_ns.mean = 12.5;
    r.replay = gpuvp::replay_summary(gpuvp::replay_sides(r.kernels));
    return r;
}

}  // namespace

TEST_CASE("a record is written with its members in order, null where empty, absent where left out", "[record]") {
    const json j = gpuvp::fields::to_json(small_record());
    CHECK(j.begin().key() == "scenario");
    CHECK(j["kernels"][0]["instances"]["count"] == 3);
    CHECK(j["kernels"][0]["instances"]["turnaround_ns"]["max"] == 9000.0);
    CHECK(j["kernels"][0]["instances"]["turnaround_ns"]["min"].is_null());
    CHECK_FALSE(j["kernels"][0]["instances"].contains("launch_latency_ns"));  // Omit, empty
    CHECK_FALSE(j["kernels"][0].contains("alone_turnaround_ns"));
    CHECK(j["kernels"][1]["alone_turnaround_ns"].is_null());  // Omit, holding null
    CHECK(j["kernels"][1]["packet"].is_null());
    CHECK(j["kernels"][0]["milestones"].contains("first_warp_started_ns"));
    CHECK_FALSE(j.contains("protocol"));
    CHECK_FALSE(j.contains("variants"));
    CHECK(j["sim_end_ns"].is_number_float());
    CHECK(j["sms"][1]["id"].is_number_unsigned());
}

TEST_CASE("results.json read back into a record writes the same text", "[record]") {
    const std::string text = gpuvp::results_text(small_record());
    CHECK(gpuvp::results_text(gpuvp::read_results(json::parse(text))) == text);
}

TEST_CASE("results.json is written as nlohmann's dump(2) writes the record's document", "[record][json]") {
    gpuvp::RunRecord r = small_record();
    CHECK(gpuvp::results_text(r) == gpuvp::fields::to_json(r).dump(2) + "\n");
    // Edge cases: text to escape, numbers of every kind, empty and nested containers, json
    // values at depth (an expectation's), NaN, a Named of nothing.
    r.scenario = "tab\there \"quoted\" back\\slash \x01 caf\xc3\xa9";
    r.sim_end_ns = 1e-7;
    r.kernels[0].submit_ns = -0.0;
    r.kernels[0].response_ns = std::nan("");
    r.kernels[1].blocks = UINT64_MAX;
    gpuvp::ExpectationRecord& e = r.expectations.emplace_back();
    e.value = json::array({1, json::object(), json::array(), json{{"a", json::array({json{{"b", nullptr}}})}}, "x\ny"});
    e.line = -12;
    gpuvp::ExpectationRecord& e2 = r.expectations.emplace_back();
    e2.value = json::object();
    e2.variants = std::vector<std::string>{};
    r.locks.by_priority.clear();
    r.scalar.vregs_per_thread.emplace_back("k", 3);
    CHECK(gpuvp::results_text(r) == gpuvp::fields::to_json(r).dump(2) + "\n");
    // Text that is not UTF-8 is refused, as dump() refuses it.
    r.scenario = "\xff";
    CHECK_THROWS(gpuvp::results_text(r));
}

TEST_CASE("a real run's results read back into a record write the same text", "[record]") {
    // In this process (one elaboration per test case): a scenario with instances, draws,
    // locks, expectations and a measure_alone kernel's members.
    const gpuvp::RunOutput o = gpuvp::run_scenario(gpuvp::load_scenario(kSource + "/scenarios/default.yaml"));
    REQUIRE(o.record);
    CHECK(gpuvp::results_text(*o.record) == o.results);
    CHECK(gpuvp::results_text(gpuvp::read_results(json::parse(o.results))) == o.results);
}

TEST_CASE("a bad results.json names the member that is wrong", "[record]") {
    json j = gpuvp::fields::to_json(small_record());
    j["kernels"][1]["stages"] = "none";
    try {
        gpuvp::read_results(j);
        FAIL("no error");
    } catch (const gpuvp::fields::FieldError& e) {
        CHECK(std::string(e.what()) == "kernels[1].stages: an array expected, found string");
    }
    j = gpuvp::fields::to_json(small_record());
    j["sms"][0].erase("l1d");
    CHECK_THROWS_WITH(gpuvp::read_results(j), "sms[0].l1d: missing");
    j = gpuvp::fields::to_json(small_record());
    j["totals"]["warps"] = -3;
    CHECK_THROWS_WITH(gpuvp::read_results(j), "totals.warps: a non-negative integer expected, found number");
    CHECK_THROWS_WITH(gpuvp::read_results(json::array()), ": an object expected, found array");
}

TEST_CASE("a path finds what results.json holds there", "[record]") {
    const gpuvp::RunRecord r = small_record();
    auto at = [&](const std::string& path) {
        return gpuvp::fields::lookup(r, gpuvp::fields::split_path(path), 0).value_or(json("none"));
    };
    CHECK(at("sim_end_ns") == 5000.0);
    CHECK(at("sms.1.busy_fraction") == 0.75);         // by index
    CHECK(at("kernels.beta.packet").is_null());        // by name; null held
    CHECK(at("kernels.alpha.response_ns") == 700.0);
    CHECK(at("kernels.alpha.instances.turnaround_ns.max") == 9000.0);
    CHECK(at("locks.by_priority.2.wait_ns.mean") == 12.5);
    CHECK(at("locks.by_priority.3") == "none");
    CHECK(at("kernels.gamma.response_ns") == "none");
    CHECK(at("kernels.alpha.instances.launch_latency_ns") == "none");  // left out
    CHECK(at("sms.7") == "none");
    CHECK(at("kernels.alpha.measured.end_ns") == 4000);
    CHECK(at("kernels.beta.measured") == "none");  // not replayed: left out
    CHECK(at("replay.kernels") == 1);
    CHECK(at("replay.makespan_ns.measured") == 4000.0);
    CHECK(at("replay.same_stream_gap_ns.simulated.count") == 0);
    CHECK(at("replay.same_stream_gap_ns.simulated.median").is_null());
    CHECK(at("sim_end_ns.more") == "none");
    CHECK(at("policy") == json{{"dispatch", "fifo"}, {"launch", "serial"}, {"lock", "spin"}, {"scalar", "per-warp"},
                               {"shading", "static"}, {"issue", "gto"}});
}

TEST_CASE("the metric names the loader accepts are the ones the run evaluates", "[record]") {
    std::vector<std::string> run, priority;
    for (const gpuvp::RunMetric& m : gpuvp::kRunMetrics) run.push_back(m.name);
    for (const gpuvp::PriorityMetric& m : gpuvp::kPriorityMetrics) priority.push_back(m.name);
    CHECK(gpuvp::scenario_metrics() == run);
    CHECK(gpuvp::priority_metrics() == priority);
    // A kernel's metrics are members of its entry, or of its instances' summary.
    const json k = gpuvp::fields::to_json(small_record().kernels[1]);
    for (const std::string& m : gpuvp::kernel_metrics()) {
        INFO(m);
        CHECK((k.contains(m) || m == "alone_turnaround_ns" || m == "slowdown" || m.rfind("instance", 0) == 0));
    }
    // The sections a path may start with are the record's.
    for (const std::string& s : gpuvp::results_sections()) {
        INFO(s);
        CHECK(gpuvp::fields::to_json(small_record()).contains(s));
    }
}

TEST_CASE("docs/results.md lists every member and metric as gpuvp stats does", "[record][docs]") {
    const std::string doc = slurp(kSource + "/docs/results.md");
    const std::string stats = gpuvp::stats_markdown();
    INFO("regenerate the section: build/gpuvp stats, between the markers in docs/results.md");
    const std::string begin = "<!-- gpuvp stats: begin -->\n", end = "<!-- gpuvp stats: end -->";
    const size_t a = doc.find(begin), b = doc.find(end);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    CHECK(doc.substr(a + begin.size(), b - a - begin.size()) == stats);
    // Every member has a meaning.
    std::vector<gpuvp::fields::Listed> members;
    gpuvp::fields::list<gpuvp::RunRecord>(members, "", {});
    CHECK(members.size() > 200);
    for (const auto& m : members) {
        INFO(m.path);
        CHECK_FALSE(m.meaning.empty());
    }
}

TEST_CASE("run_problems: a line for each failed expectation, kernel, draw, rejected packet, hang and variant not run", "[record][failures]") {
    gpuvp::RunRecord r;
    gpuvp::ExpectationRecord held;
    held.metric = std::string("kernels_ok");
    held.value = 1;
    held.passed = true;
    held.line = 3;
    gpuvp::ExpectationRecord bound;
    bound.kernel = std::string("k");
    bound.metric = std::string("response_ns");
    bound.min = std::optional<double>(10.0);
    bound.max = std::optional<double>(20.5);
    bound.value = 812.25;
    bound.line = 7;
    gpuvp::ExpectationRecord cmp;
    cmp.variant = std::string("fast");
    cmp.compare = std::string("k.response_ns < 0.5 * j.response_ns");
    cmp.value = gpuvp::fields::json::array({4.0, 6.0});
    cmp.line = 9;
    r.expectations = {held, bound, cmp};
    gpuvp::RunRecord v;
    v.kernels.resize(2);
    v.kernels[0].name = "k";
    v.kernels[0].status = {};
    v.kernels[1].name = "j";
    v.kernels[1].status = gpuvp::LaunchStatus::from_text("kernel fault: memory fault at 0x40");
    v.usa.draws.resize(1);
    v.usa.draws[0].name = "d";
    v.usa.draws[0].status = gpuvp::LaunchStatus::from_text("not complete");
    gpuvp::ErrorRecord e;
    e.queue = "q0";
    e.packet = 2;
    e.error = "invalid packet";
    e.field = "grid_size_x";
    e.detail = "0";
    v.errors = {e};
    v.hang = gpuvp::HangRecord{};
    v.hang->cause = "watchdog";
    v.hang->detected_ns = 5000;
    v.hang->no_progress_since_ns = 4000.5;
    v.hang->in_flight = 1;
    gpuvp::RunRecord dead;
    dead.unfinished = true;
    dead.exit_code = 137;
    r.variants = std::vector<gpuvp::VariantEntry>{{"fast", {}, 1, v}, {"slow", {}, 137, dead}};
    const gpuvp::RunProblems p = gpuvp::run_problems(r);
    CHECK(p.expectations_passed == 1);
    CHECK(p.expectations_failed == 2);
    CHECK(p.lines() == std::vector<std::string>{
                           "expectation (line 7): kernel k response_ns = 812.25, wanted >= 10.0 <= 20.5",
                           "expectation (line 9): variant fast: compare k.response_ns < 0.5 * j.response_ns: values [4.0,6.0]",
                           "variant fast: kernel j: kernel fault: memory fault at 0x40",
                           "variant fast: draw d: not complete",
                           "variant fast: queue q0 packet 2: invalid packet (grid_size_x): 0",
                           "variant fast: the watchdog stopped the run at 5000.0 ns: no progress since 4000.5 ns, 1 kernels and draws not complete",
                           "variant slow: the run did not finish (exit 137)"});
    CHECK(p.problems[0].line == 7);
    CHECK(p.problems[2].line == 0);
}

TEST_CASE("instance percentiles: observed values within 0.1 % of the exact ones, in bounded memory", "[record][instances]") {
    gpuvp::Spread s;
    std::vector<double> all;
    for (int i = 1; i <= 100000; ++i) {  // 1.000 ns ... 100 000 ns, shuffled by a stride
        const double v = double((int64_t(i) * 7919) % 100000 + 1) * 1.001;
        s.add(v);
        all.push_back(v);
    }
    std::sort(all.begin(), all.end());
    for (double p : {0.5, 0.9, 0.99, 1.0}) {
        const double exact = all[size_t(std::ceil(p * double(all.size()))) - 1];
        const double got = s.percentile(p);
        INFO(p << ": " << got << " against " << exact);
        CHECK(got >= exact);
        CHECK(got <= exact * 1.001);
        CHECK(std::find(all.begin(), all.end(), got) != all.end());  // a value seen
    }
    // Small values are exact (1 ps buckets below 1.024 ns), and one value is every percentile.
    gpuvp::Spread few;
    for (double v : {0.5, 0.25, 0.75, 1.0}) few.add(v);
    CHECK(few.percentile(0.5) == 0.5);
    CHECK(few.percentile(0.99) == 1.0);
    gpuvp::Spread one;
    one.add(42.0);
    CHECK(one.percentile(0.5) == 42.0);
    CHECK(one.percentile(0.99) == 42.0);
}

TEST_CASE("instance histograms: 20 equal bins from min to max, every value counted once", "[record][instances]") {
    gpuvp::Spread s;
    for (int i = 0; i < 1000; ++i) s.add(1000.0 + double(i));  // 1000 ... 1999 ns
    const double w = (s.max - s.min) / 20;
    const std::vector<uint64_t> h = s.histogram(s.min, w, 20);
    REQUIRE(h.size() == 20);
    uint64_t total = 0;
    for (uint64_t c : h) total += c;
    CHECK(total == 1000);
    // Values counted at their 1/1024 bucket's largest value: within one or two of the exact 50.
    for (size_t b = 0; b < 20; ++b) {
        INFO("bin " << b << ": " << h[b]);
        CHECK(h[b] >= 48);
        CHECK(h[b] <= 52);
    }
    // The maximum falls in the last bin, not past it; a single value in the first.
    CHECK(h[19] >= 1);
    gpuvp::Spread one;
    one.add(42.0);
    CHECK(one.histogram(42.0, 0, 20) == std::vector<uint64_t>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // A skewed series: most in the first bin.
    gpuvp::Spread skew;
    for (int i = 0; i < 99; ++i) skew.add(100.0);
    skew.add(2100.0);
    const std::vector<uint64_t> k = skew.histogram(100.0, 100.0, 20);
    CHECK(k[0] == 99);
    CHECK(k[19] == 1);
}

TEST_CASE("occupancy: warp-time per bin of each SM, bins folded in pairs as the run grows", "[record][occupancy]") {
    gpuvp::Occupancy o;
    REQUIRE(o.bin_ps() == 64'000);
    // A warp resident from 32 ns to 160 ns on SM 1: half of bin 0, all of bin 1, half of bin 2.
    o.add(1, 32'000, 160'000);
    CHECK(o.mean_warps(0, 192'000).empty());  // SM 0 ran no warp
    CHECK(o.mean_warps(1, 192'000) == std::vector<double>{0.5, 1.0, 0.5});
    // Two warps at once on SM 0 through bin 3, and the run's end in the middle of bin 4.
    o.add(0, 192'000, 256'000);
    o.add(0, 192'000, 256'000);
    CHECK(o.mean_warps(0, 288'000) == std::vector<double>{0, 0, 0, 2.0, 0});
    // A warp ending past 128 bins of 64 ns (8192 ns): the width doubles until it fits, and the
    // bins already filled fold in pairs, warp-time kept.
    o.add(1, 16'000'000, 16'512'000);
    CHECK(o.bin_ps() == 256'000);
    const std::vector<double> sm1 = o.mean_warps(1, 16'512'000);
    REQUIRE(sm1.size() == 65);
    CHECK(sm1[0] == 0.5);  // 128 ns of warp in the first 256 ns
    CHECK(sm1[62] == 0.5);
    CHECK(sm1[63] == 1.0);
    CHECK(sm1[64] == 0.5);
    CHECK(o.mean_warps(0, 16'512'000)[0] == 0.5);  // 2 warps x 64 ns in 256 ns
    // Never more than 128 bins.
    CHECK(o.mean_warps(1, 1'000'000'000'000).size() == gpuvp::Occupancy::kBins);
}

TEST_CASE("a real run's SM occupancy holds every warp's time, as its trace shows the warps", "[record][occupancy]") {
    // In this process (one elaboration per test case): default.yaml, its trace complete.
    const gpuvp::RunOutput o = gpuvp::run_scenario(gpuvp::load_scenario(kSource + "/scenarios/default.yaml"));
    REQUIRE(o.record);
    REQUIRE(o.trace_record);
    REQUIRE(gpuvp::trace_note(*o.trace_record).empty());
    std::map<uint32_t, double> traced;  // SM -> warp-ns in the trace
    for (const gpuvp::trace::Event& e : o.trace_record->events)
        if (const auto* w = std::get_if<gpuvp::trace::Warp>(&e)) traced[w->sm] += w->dur * 1000;
    REQUIRE(traced.size() == o.record->sms.size());
    for (const gpuvp::SmRecord& sm : o.record->sms) {
        INFO("sm " << sm.id);
        REQUIRE(sm.occupancy);
        const gpuvp::OccupancyRecord& oc = *sm.occupancy;
        // At most 128 bins of one width, reaching the run's end.
        CHECK(oc.warps.size() <= gpuvp::Occupancy::kBins);
        CHECK(oc.bin_ns * double(oc.warps.size()) >= o.record->sim_end_ns);
        CHECK(oc.bin_ns * double(oc.warps.size() - 1) < o.record->sim_end_ns);
        double sum = 0, most = 0;
        for (double w : oc.warps) {
            sum += w * oc.bin_ns;
            most = std::max(most, w);
        }
        // The warp-time of its bins is the warps' time in the trace (each bin's mean to 3 decimals).
        CHECK(std::abs(sum - traced[sm.id]) <= 0.0005 * oc.bin_ns * double(oc.warps.size()) + 1e-6);
        // No bin holds more warps than the SM has slots, nor more than were ever resident at once.
        CHECK(most <= double(sm.warp_slots));
        CHECK(most <= double(sm.counters.resident_warps_max) + 1e-9);
    }
}
