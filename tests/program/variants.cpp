// Scenario variants (A/B runs): the loader's reading of `variants:` and of expectations across
// variants, and run_variants, which runs each variant in a child process of its own.
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace gpuvp;

namespace {

// A long background kernel fills both SMs; a short urgent one arrives at 3 us.
const std::string kWorkload = R"(name: ab
platform: {sms: 2, sm: {warp_slots: 16}}
queues:
  - {name: bg, priority: 3}
  - {name: rt, priority: 0}
kernels:
  - {name: bg, queue: bg, grid: [8192], block: [256], program: [{op: valu, cycles: 8, repeat: 200}]}
  - {name: hi, queue: rt, submit_ns: 3000, grid: [256], block: [256], program: [{op: valu, cycles: 4, repeat: 10}]}
)";

const std::string kVariants = R"(variants:
  - {name: prio, set: {policy.dispatch: priority-warp}}
  - {name: fifo, set: {policy.dispatch: fifo}}
)";

std::string error_of(const std::string& yaml, const Overrides& o = {}) {
    try {
        parse_scenario(yaml, "ab.yaml", o);
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

nlohmann::json without_host_seconds(nlohmann::json j) {
    if (j.is_object()) {
        j.erase("host_seconds");
        for (auto& [k, v] : j.items()) v = without_host_seconds(v);
    } else if (j.is_array()) {
        for (auto& v : j) v = without_host_seconds(v);
    }
    return j;
}

}  // namespace

TEST_CASE("variants: each is the file with its set applied and checked as a whole scenario", "[variants]") {
    const Scenario s = parse_scenario(kWorkload + kVariants +
                                          "expect:\n"
                                          "  - {metric: kernels_ok, min: 2}\n"
                                          "  - {variant: fifo, kernel: hi, metric: response_ns, min: 1}\n"
                                          "  - {compare: \"hi.response_ns < bg.turnaround_ns\"}\n"
                                          "  - {compare: \"prio:hi.response_ns < 0.5 * fifo:hi.response_ns\"}\n",
                                      "ab.yaml");
    REQUIRE(s.variants.size() == 2);
    CHECK(s.variant == "prio");  // the scenario itself is the first variant
    CHECK(s.policy.dispatch == DispatchPolicy::priority_warp);
    CHECK(s.variants[0].variant == "prio");
    CHECK(s.variants[1].variant == "fifo");
    CHECK(s.variants[0].policy.dispatch == DispatchPolicy::priority_warp);
    CHECK(s.variants[1].policy.dispatch == DispatchPolicy::fifo);
    CHECK(s.variants[1].variant_set == Overrides{{"policy.dispatch", "fifo"}});
    CHECK(s.variants[1].workload.kernels.size() == 2);
    // Expectations without `variant` hold in each; `variant: fifo` in fifo only; the comparison
    // across variants is the scenario's, with each side read against its own variant.
    CHECK(s.variants[0].expect.size() == 2);
    CHECK(s.variants[1].expect.size() == 3);
    CHECK(s.variants[1].expect[1].variant == "fifo");
    REQUIRE(s.cross_expect.size() == 1);
    CHECK(s.variants[0].cross_expect.empty());
    const Expectation& e = s.cross_expect[0];
    CHECK(e.lhs.variant == "prio");
    CHECK(e.lhs.kernel == "hi");
    CHECK(e.lhs.metric == "response_ns");
    CHECK(e.rhs.variant == "fifo");
    CHECK(e.rhs.kernel == "hi");
    CHECK(e.factor == 0.5);
    CHECK(e.op == "<");
    // Without variants, nothing of the kind.
    const Scenario plain = parse_scenario(kWorkload, "ab.yaml");
    CHECK(plain.variants.empty());
    CHECK(plain.variant.empty());
}

TEST_CASE("variants: the command line's set applies to every variant but not to a key a variant sets", "[variants]") {
    const Scenario s = parse_scenario(kWorkload + kVariants, "ab.yaml", {{"platform.sms", "4"}});
    CHECK(s.variants[0].policy.dispatch == DispatchPolicy::priority_warp);
    CHECK(s.variants[1].policy.dispatch == DispatchPolicy::fifo);
    CHECK(s.variants[0].platform.sms == 4);
    CHECK(s.variants[1].platform.sms == 4);
    // The variant's set would win, so a --set of the same key is refused rather than ignored.
    CHECK(error_of(kWorkload + kVariants, {{"policy.dispatch", "fifo"}}) ==
          "--set: policy.dispatch: variant 'prio' sets 'policy.dispatch' (ab.yaml:10), which wins: change it there, "
          "or with --set variants[0].set.policy.dispatch");
    CHECK(error_of(kWorkload + kVariants, {{"policy", "{dispatch: fifo}"}}).find("variant 'prio' sets 'policy.dispatch'") !=
          std::string::npos);
    // --set reaches into the list itself.
    const Scenario t = parse_scenario(kWorkload + kVariants, "ab.yaml", {{"variants[1].set.policy.dispatch", "priority-block"}});
    CHECK(t.variants[1].policy.dispatch == DispatchPolicy::priority_block);
}

TEST_CASE("variants: bad input names the file the line and the key", "[variants]") {
    auto with = [](const std::string& variants, const std::string& expect = "") {
        return kWorkload + variants + (expect.empty() ? "" : "expect:\n" + expect);
    };
    // A variant's bad value is blamed on its `set` entry (line 11: the second variant).
    CHECK(error_of(with(R"(variants:
  - {name: prio, set: {policy.dispatch: priority-warp}}
  - {name: fifo, set: {policy.dispatch: fifoo}}
)")) == "ab.yaml:11: variants[1].set.policy.dispatch: unknown value 'fifoo' (did you mean 'fifo'?)");
    CHECK(error_of(with("variants:\n  - {name: a, set: {platform.smz: 2}}\n")) ==
          "ab.yaml:10: variants[0].set.platform.smz: unknown key 'smz' (did you mean 'sms'?)");
    CHECK(error_of(with("variants:\n  - {name: a, sett: {}}\n")) ==
          "ab.yaml:10: variants[0].sett: unknown key 'sett' (did you mean 'set'?)");
    CHECK(error_of(with("variants:\n  - {name: a}\n  - {name: a}\n")) ==
          "ab.yaml:11: variants[1].name: a second variant named 'a'");
    CHECK(error_of(with("variants:\n  - {set: {}}\n")) == "ab.yaml:10: variants[0]: missing required key 'name'");
    CHECK(error_of(with("variants:\n  - {name: \"a b\"}\n")) ==
          "ab.yaml:10: variants[0].name: 'a b': a variant's name is 1 to 64 letters, digits, '_' and '-'");
    CHECK(error_of(with("variants:\n  - {name: a, set: {expect: []}}\n")) ==
          "ab.yaml:10: variants[0].set.expect: a variant cannot change 'expect'");
    CHECK(error_of(with("variants: []\n")).find("ab.yaml:9: variants: expected a list of 1 to 32 variants") == 0);
    CHECK(error_of(with("variants: {a: 1}\n")).find("ab.yaml:9: variants: expected a list") == 0);
    CHECK(error_of(with("variants:\n  - {name: a, set: {policy.dispatch: fifo, platform.sms: [}}\n")).find("ab.yaml:") == 0);
    // Expectations that name variants.
    CHECK(error_of(with(kVariants, "  - {variant: prioo, metric: kernels_ok, min: 1}\n")) ==
          "ab.yaml:13: expect[0].variant: unknown variant 'prioo' (did you mean 'prio'?)");
    CHECK(error_of(with("", "  - {variant: prio, metric: kernels_ok, min: 1}\n")) ==
          "ab.yaml:10: expect[0].variant: names a variant, but the scenario has no 'variants'");
    CHECK(error_of(with(kVariants, "  - {compare: \"prio:hi.response_ns < fifoo:hi.response_ns\"}\n")) ==
          "ab.yaml:13: expect[0].compare: 'fifoo:hi.response_ns': unknown variant 'fifoo' (did you mean 'fifo'?)");
    CHECK(error_of(with(kVariants, "  - {compare: \"prio:hi.response_ns < hi.response_ns\"}\n")) ==
          "ab.yaml:13: expect[0].compare: 'prio:hi.response_ns < hi.response_ns': name a variant on both sides "
          "(\"fifo:hi.response_ns < 2 * prio:hi.response_ns\") or on neither");
    // Each side is checked against its own variant.
    CHECK(error_of(with(kVariants, "  - {compare: \"prio:hi.response_ns < fifo:hi.respons_ns\"}\n")) ==
          "ab.yaml:13: expect[0].compare: 'hi.respons_ns': unknown kernel metric 'respons_ns' (did you mean 'response_ns'?)");
    CHECK(error_of(with(kVariants, "  - {variant: prio, compare: \"prio:hi.response_ns < fifo:hi.response_ns\"}\n")) ==
          "ab.yaml:13: expect[0].compare: 'prio:hi.response_ns < fifo:hi.response_ns' compares variants: leave 'variant' out");
    // A variant's expectation is checked against that variant.
    CHECK(error_of(with(kVariants, "  - {variant: fifo, kernel: hii, metric: response_ns, max: 1}\n")) ==
          "ab.yaml:13: expect[0].kernel: unknown kernel 'hii' (did you mean 'hi'?)");
}

TEST_CASE("variants: a run joins every variant's results and checks the comparisons across them", "[variants]") {
    const Scenario s = parse_scenario(kWorkload + kVariants +
                                          "expect:\n"
                                          "  - {metric: kernels_ok, min: 2}\n"
                                          "  - {variant: prio, kernel: hi, metric: response_ns, max: 100000}\n"
                                          "  - {compare: \"prio:hi.response_ns < 0.5 * fifo:hi.response_ns\"}\n"
                                          "  - {compare: \"fifo:hi.response_ns < prio:hi.response_ns\"}\n",
                                      "ab.yaml");
    RunOptions options;
    options.trace = true;
    const RunOutput out = run_variants(s, options, 2);
    const auto r = nlohmann::json::parse(out.results);
    // Each variant ran with its own policy; the top level is the first variant's.
    REQUIRE(r["variants"].size() == 2);
    CHECK(r["variants"][0]["name"] == "prio");
    CHECK(r["variants"][1]["name"] == "fifo");
    CHECK(r["variants"][1]["set"]["policy.dispatch"] == "fifo");
    CHECK(r["variants"][0]["results"]["policy"]["dispatch"] == "priority-warp");
    CHECK(r["variants"][1]["results"]["policy"]["dispatch"] == "fifo");
    CHECK(r["variants"][1]["results"]["variant"]["name"] == "fifo");
    CHECK(r["policy"]["dispatch"] == "priority-warp");
    CHECK(r["variant"]["name"] == "prio");
    CHECK(r["kernels"] == r["variants"][0]["results"]["kernels"]);
    CHECK(r["status"] == "ok");
    // The mechanism shows: the urgent kernel starts far sooner under priority-warp.
    const double prio = r["variants"][0]["results"]["kernels"][1]["response_ns"].get<double>();
    const double fifo = r["variants"][1]["results"]["kernels"][1]["response_ns"].get<double>();
    CHECK(prio * 2 < fifo);
    // Expectations: kernels_ok in each variant, the prio one once, then the comparisons.
    const auto& e = r["expectations"];
    REQUIRE(e.size() == 5);
    CHECK(e[0]["variant"] == "prio");
    CHECK(e[0]["metric"] == "kernels_ok");
    CHECK(e[1]["variant"] == "prio");
    CHECK(e[1]["kernel"] == "hi");
    CHECK(e[2]["variant"] == "fifo");
    CHECK(e[2]["metric"] == "kernels_ok");
    CHECK(e[3]["compare"] == "prio:hi.response_ns < 0.5 * fifo:hi.response_ns");
    CHECK(e[3]["variants"] == nlohmann::json::array({"prio", "fifo"}));
    CHECK(e[3]["value"][0].get<double>() == prio);
    CHECK(e[3]["value"][1].get<double>() == fifo);
    CHECK(e[3]["passed"] == true);
    CHECK(e[4]["passed"] == false);  // fifo is not the faster one
    CHECK(e[4]["line"] == 16);
    CHECK_FALSE(out.expectations_passed);
    CHECK(out.exit_code == 1);
    // Each variant's own output, and the table that sets them side by side.
    REQUIRE(out.variants.size() == 2);
    CHECK(nlohmann::json::parse(out.variants[1].results)["policy"]["dispatch"] == "fifo");
    CHECK(nlohmann::json::parse(out.variants[1].trace)["traceEvents"].size() > 10);
    CHECK(out.trace == out.variants[0].trace);
    CHECK(out.table.find("== variant fifo: policy.dispatch=fifo") != std::string::npos);
    CHECK(out.table.find("Variants side by side") != std::string::npos);
    CHECK(out.table.find("  FAIL  fifo:hi.response_ns < prio:hi.response_ns") != std::string::npos);
}

TEST_CASE("variants: the same scenario gives the same results byte for byte", "[variants]") {
    const Scenario s = parse_scenario(kWorkload + kVariants, "ab.yaml");
    const RunOutput a = run_variants(s, RunOptions{true}, 2);
    const RunOutput b = run_variants(s, RunOptions{true}, 1);
    CHECK(a.exit_code == 0);
    CHECK(without_host_seconds(nlohmann::json::parse(a.results)).dump() ==
          without_host_seconds(nlohmann::json::parse(b.results)).dump());
    CHECK(a.variants[1].trace == b.variants[1].trace);
    CHECK(a.table.size() > 0);
}

TEST_CASE("variants: --out holds each variant's results and trace and no stale file", "[variants]") {
    const Scenario s = parse_scenario(kWorkload + kVariants, "ab.yaml");
    const RunOutput out = run_variants(s, RunOptions{true}, 2);
    const std::string dir = gpuvp::test::temp_dir();
    std::filesystem::create_directories(dir + "/variants/fifo");
    std::filesystem::create_directories(dir + "/variants/notes");
    std::ofstream(dir + "/variants/fifo/stale.json") << "{}";
    std::ofstream(dir + "/variants/notes/mine.txt") << "a user's file";
    std::string error;
    REQUIRE(write_run_output(dir, out, true, &error));
    auto read = gpuvp::test::slurp;
    CHECK(read(dir + "/results.json") == out.results);
    CHECK(read(dir + "/trace.json") == out.variants[0].trace);
    CHECK(read(dir + "/variants/prio/results.json") == out.variants[0].results);
    CHECK(read(dir + "/variants/fifo/results.json") == out.variants[1].results);
    CHECK(read(dir + "/variants/fifo/trace.json") == out.variants[1].trace);
    CHECK(std::filesystem::exists(dir + "/report.html"));
    // The folders of this run's variants are its own; nothing else there is touched.
    CHECK_FALSE(std::filesystem::exists(dir + "/variants/fifo/stale.json"));
    CHECK(std::filesystem::exists(dir + "/variants/notes/mine.txt"));
    // A later run without a trace leaves none of the earlier one's behind.
    const RunOutput untraced = run_variants(s, RunOptions{false}, 2);
    REQUIRE(write_run_output(dir, untraced, false, &error));
    CHECK_FALSE(std::filesystem::exists(dir + "/trace.json"));
    CHECK_FALSE(std::filesystem::exists(dir + "/report.html"));
    CHECK(std::filesystem::exists(dir + "/variants/fifo/results.json"));
    CHECK_FALSE(std::filesystem::exists(dir + "/variants/fifo/trace.json"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("variants: a variant without the first's draws and a comparison of whole sections", "[variants]") {
    const Scenario s = parse_scenario(R"(name: mixed
kernels: [{name: k, program: [{op: valu}]}]
draws: [{name: d, vertex_tasks: 4, vertex_cycles: 10, pixel_tasks_per_vertex_task: 1, pixel_cycles: 10}]
variants:
  - {name: both}
  - {name: compute, set: {draws: []}}
expect:
  - {compare: "compute:sim_end_ns <= both:sim_end_ns"}
  - {compare: "both:d.end_ns > compute:k.end_ns"}
)", "mixed.yaml");
    CHECK(s.cross_expect[0].lhs.path == "sim_end_ns");
    const RunOutput out = run_variants(s, RunOptions{false}, 2);
    CHECK(out.exit_code == 0);
    const auto r = nlohmann::json::parse(out.results);
    CHECK(r["variants"][1]["results"]["usa"]["draws"].empty());
    CHECK(r["expectations"][0]["passed"] == true);
    CHECK(out.table.find("last draw complete_ns") != std::string::npos);
    // An operand that could never have a value is refused on load.
    CHECK(error_of(kWorkload + kVariants + "expect:\n  - {compare: \"prio:hi.slowdown < fifo:hi.slowdown\"}\n") ==
          "ab.yaml:13: expect[0].compare: 'hi.slowdown' needs 'measure_alone: true' (each kernel also run alone)");
}
