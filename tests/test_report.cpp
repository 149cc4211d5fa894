// report.html (platform/report.cpp): the page render_report builds from results.json and
// trace.json, on hand-built inputs and on real runs of the `gpuvp` program.
#include "tests/files.h"
#include "platform/report.h"
#include "platform/run.h"
#include "platform/scenario.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using nlohmann::json;

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// The text of <section id="ID"> … </section> (empty if the page has none).
std::string section(const std::string& html, const std::string& id) {
    const size_t from = html.find("<section id=\"" + id + "\"");
    if (from == std::string::npos) return "";
    return html.substr(from, html.find("</section>", from) - from);
}

// Runs the real program (as tests/test_cli.cpp does) and returns its exit code.
int run_program(const std::string& args) {
    const std::string cmd = std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " " + args + " >/dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const std::string kScenarios = std::string(GPUVP_SOURCE_DIR) + "/scenarios/";

json stages(double scale) {
    json s = json::array();
    double t = 0;
    for (const char* name : {"host", "doorbell_to_fetch", "decode", "queue_wait", "descriptor_fetch", "wlm_setup"}) {
        const double d = 100 * scale;
        s.push_back({{"stage", name}, {"start_ns", t}, {"end_ns", t + d}, {"ns", d}});
        t += d;
    }
    return s;
}

json kernel(const std::string& name, int priority, double submit, double scale) {
    return {{"name", name},
            {"queue", "q"},
            {"priority", priority},
            {"status", "ok"},
            {"submit_ns", submit},
            {"first_warp_start_ns", submit + 700},
            {"end_ns", submit + 3000},
            {"complete_ns", submit + 3500},
            {"launch_latency_ns", 600 * scale},
            {"dispatch_latency_ns", 500 * scale},
            {"response_ns", 700 * scale},
            {"turnaround_ns", 3500 * scale},
            {"stages", stages(scale)}};
}

// A results.json with two kernels, no locks, no scalar pool and no draws.
json small_results(const std::string& first = "alpha", const std::string& second = "beta") {
    json r = {{"scenario", "small"},
              {"status", "ok"},
              {"policy", {{"dispatch", "fifo"}, {"launch", "serial"}, {"lock", "spin"}, {"scalar", "per-warp"}, {"shading", "static"}}},
              {"sim_end_ns", 5000.0},
              {"kernels", json::array({kernel(first, 0, 0, 1), kernel(second, 1, 500, 1.5)})},
              {"locks", {{"policy", "spin"}, {"hold_limit", nullptr}, {"acquisitions", 0}, {"by_priority", json::object()}}},
              {"scalar", {{"policy", "per-warp"}, {"split", nullptr}, {"pool", 1024},
                          {"pool_peak", {{"kernel", 0}, {"workgroup", 0}, {"warp", 0}, {"slice", 0}, {"total", 0}}},
                          {"allocation_stalls", 0}}},
              {"usa", {{"policy", "static"}, {"cores", {{"vertex", 8}, {"pixel", 8}, {"total", 16}}},
                       {"initial", {{"vertex", 8}, {"pixel", 8}}}, {"reassignments", 0}, {"utilization", 0.0},
                       {"draws", json::array()}}},
              {"expectations", json::array({{{"kernel", first}, {"metric", "response_ns"}, {"min", nullptr}, {"max", 1000.0},
                                             {"value", 700.0}, {"passed", true}, {"line", 7}}})},
              {"trace", {{"events", 5}, {"dropped", 0}, {"limit", 250000}}}};
    return r;
}

json meta(const char* what, int pid, int tid, const std::string& name) {
    return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

json warp_event(const std::string& kernel, int sm, int slot, int block, int warp, double start_ns, double dur_ns) {
    return {{"name", kernel + " b" + std::to_string(block) + " warp " + std::to_string(warp)},
            {"cat", "warp"},
            {"ph", "X"},
            {"ts", start_ns / 1000},
            {"dur", dur_ns / 1000},
            {"pid", 100 + sm},
            {"tid", slot},
            {"args", {{"block", block}, {"warp", warp}, {"sm", sm}, {"slot", slot}, {"instructions", 10}, {"kernel", kernel}}}};
}

// Two SMs of 4 warp slots: 3 warps of `first` and 2 of `second`.
json small_trace(const std::string& first = "alpha", const std::string& second = "beta") {
    json ev = json::array();
    for (int sm = 0; sm < 2; ++sm) {
        ev.push_back(meta("process_name", 100 + sm, 0, "sm[" + std::to_string(sm) + "]"));
        for (int w = 0; w < 4; ++w) ev.push_back(meta("thread_name", 100 + sm, w, "warp slot " + std::to_string(w)));
    }
    ev.push_back(warp_event(first, 0, 0, 0, 0, 800, 2000));
    ev.push_back(warp_event(first, 0, 1, 0, 1, 800, 2100));
    ev.push_back(warp_event(first, 1, 0, 1, 0, 850, 1900));
    ev.push_back(warp_event(second, 1, 1, 0, 0, 1300, 1500));
    ev.push_back(warp_event(second, 0, 2, 1, 0, 1350, 1400));
    return {{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
}

// Every external reference a page could make: none may appear.
void check_self_contained(const std::string& html) {
    CHECK(count(html, "http://") == 0);
    CHECK(count(html, "https://") == 0);
    CHECK(count(html, "src=") == 0);
    CHECK(count(html, "url(") == 0);
    CHECK(count(html, "@import") == 0);
    CHECK(count(html, "<script") == 0);
    CHECK(count(html, "<link") == 0);
    CHECK(count(html, "<iframe") == 0);
    CHECK(count(html, "<img") == 0);
    CHECK(count(html, "xlink:") == 0);
    const std::regex href("href=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it) {
        INFO((*it)[1].str());
        CHECK((*it)[1].str().rfind("#", 0) == 0);
    }
}

// Sum over the page's warp bars of the warps each holds (data-count, 1 when absent).
size_t warps_drawn(const std::string& html, size_t* bars = nullptr) {
    const std::regex rect("<rect class=\"warp( merged)?\" data-kernel=\"[^\"]*\"( data-count=\"([0-9]+)\")?");
    size_t warps = 0, n = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), rect); it != std::sregex_iterator(); ++it) {
        ++n;
        warps += (*it)[3].matched ? std::stoul((*it)[3].str()) : 1;
    }
    if (bars) *bars = n;
    return warps;
}

// `n` warps on 2 SMs of 48 slots, back to back on each slot, in runs of 100 of one kernel.
json big_trace(size_t n) {
    json ev = json::array();
    for (int sm = 0; sm < 2; ++sm) ev.push_back(meta("process_name", 100 + sm, 0, "sm[" + std::to_string(sm) + "]"));
    const char* kernels[] = {"k0", "k1", "k2"};
    for (size_t i = 0; i < n; ++i) {
        const int sm = int(i % 2), slot = int((i / 2) % 48);
        const double start = double(i / 96) * 10.0;  // 10 ns each on its slot
        // Only what the page reads of a warp (a full event each would take far more memory).
        ev.push_back({{"cat", "warp"}, {"ph", "X"}, {"ts", start / 1000}, {"dur", 0.009}, {"pid", 100 + sm}, {"tid", slot},
                      {"args", {{"kernel", kernels[(i / 9600) % 3]}}}});
    }
    return {{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
}

json with_variants(const std::vector<std::string>& names) {
    json top = small_results();
    top["variants"] = json::array();
    for (size_t i = 0; i < names.size(); ++i) {
        json r = small_results();
        r["policy"]["dispatch"] = names[i];
        r["kernels"][0]["response_ns"] = 700.0 * double(i + 1);
        top["variants"].push_back({{"name", names[i]}, {"set", {{"policy.dispatch", names[i]}}}, {"exit_code", 0}, {"results", r}});
    }
    top["expectations"].push_back({{"variant", names[0]}, {"kernel", "alpha"}, {"metric", "response_ns"}, {"min", nullptr},
                                   {"max", 1000.0}, {"value", 700.0}, {"passed", true}, {"line", 9}});
    top["expectations"].push_back({{"compare", names[1] + ":alpha.response_ns <= 0.5 * " + names[0] + ":alpha.response_ns"},
                                   {"variants", {names[1], names[0]}}, {"value", {1400.0, 700.0}}, {"passed", false},
                                   {"line", 12}});
    return top;
}

}  // namespace

TEST_CASE("the timeline draws a rect for every warp of a small trace with its kernel", "[report]") {
    const json trace = small_trace();
    const std::string html = gpuvp::render_report(small_results(), {&trace});
    const std::string timeline = section(html, "timeline");
    REQUIRE(!timeline.empty());
    CHECK(count(timeline, "<svg class=\"sm-timeline\" data-sm=\"0\"") == 1);
    CHECK(count(timeline, "<svg class=\"sm-timeline\" data-sm=\"1\"") == 1);
    CHECK(count(timeline, "<rect class=\"warp\" data-kernel=\"alpha\"") == 3);
    CHECK(count(timeline, "<rect class=\"warp\" data-kernel=\"beta\"") == 2);
    CHECK(count(timeline, "merged") == 0);
    // Labelled: slot rows, a time axis with its unit, a kernel legend per chart.
    CHECK(count(timeline, ">slot 3</text>") == 2);
    CHECK(count(timeline, "simulated time (ns)") >= 2);
    CHECK(count(timeline, "class=\"legend-item\" data-label=\"alpha\"") >= 2);
    // Each kernel's span from submit to completion, from the results.
    CHECK(count(timeline, "<g class=\"kernel-span\" data-kernel=\"alpha\"") == 1);
    CHECK(count(timeline, "<g class=\"kernel-span\" data-kernel=\"beta\"") == 1);
    // A hover text with the warp's numbers.
    CHECK(count(timeline, "<title>alpha block 0 warp 1: 800.0–2900.0 ns (2100.0 ns), slot 1, 10 instructions</title>") == 1);
}

TEST_CASE("the header names the scenario with its status and policies and expectations", "[report]") {
    const json trace = small_trace();
    json r = small_results();
    r["expectations"].push_back({{"metric", "kernels_ok"}, {"min", 3.0}, {"max", 3.0}, {"value", 2}, {"passed", false}, {"line", 8}});
    r["expectations"].push_back({{"compare", "alpha.response_ns < 0.5 * beta.response_ns"}, {"value", {700.0, 1050.0}},
                                 {"passed", true}, {"line", 9}});
    const std::string html = gpuvp::render_report(r, {&trace});
    CHECK(count(html, "<span id=\"scenario-name\">small</span>") == 1);
    CHECK(count(html, "<td id=\"status\"><span class=\"badge ok\">ok</span>") == 1);
    CHECK(count(html, "dispatch <b>fifo</b>") == 1);
    CHECK(count(html, "5000.0 ns") >= 1);
    CHECK(count(html, "2 of 3 passed") == 2);
    CHECK(count(html, "class=\"expectation pass\"") == 2);
    CHECK(count(html, "class=\"expectation fail\"") == 1);
    CHECK(count(html, "<td>= 3</td>") == 1);
    CHECK(count(html, "<td>≤ 1000</td>") == 1);
    CHECK(count(html, "alpha.response_ns &lt; 0.5 * beta.response_ns") == 1);
    CHECK(count(html, "<td>700 vs 1050</td>") == 1);
}

TEST_CASE("launch stages draw a stacked bar per kernel and a table of the numbers", "[report]") {
    const std::string html = gpuvp::render_report(small_results(), {nullptr});
    const std::string s = section(html, "launch-stages");
    REQUIRE(!s.empty());
    for (const char* k : {"alpha", "beta"}) {
        const size_t g = s.find(std::string("<g class=\"stage-bar\" data-kernel=\"") + k + "\"");
        REQUIRE(g != std::string::npos);
        const std::string bar = s.substr(g, s.find("</g>", g) - g);
        CHECK(count(bar, "<rect class=\"stage\"") == 6);
        CHECK(count(bar, "data-stage=\"doorbell_to_fetch\"") == 1);
    }
    CHECK(count(s, "<g class=\"legend-item\" data-label=\"wlm_setup\"") == 1);
    CHECK(count(s, "time from submit (ns)") == 1);
    // The table: a column per kernel, the numbers as in results.json.
    CHECK(count(s, "<table class=\"data numbers\" id=\"stage-table\">") == 1);
    CHECK(count(s, "<th data-kernel=\"beta\">beta</th>") == 1);
    CHECK(count(s, "<td>150.0</td>") == 6);
    CHECK(count(s, "<td>5250.0</td>") == 1);  // beta's turnaround
}

TEST_CASE("names from the results and the trace are escaped", "[report]") {
    const std::string evil = "<script>alert(\"x\")</script>&";
    const json trace = small_trace(evil, "beta");
    json r = small_results(evil, "beta");
    r["scenario"] = "<b>scenario</b>";
    const std::string html = gpuvp::render_report(r, {&trace});
    CHECK(count(html, "<script") == 0);
    CHECK(count(html, "<b>scenario</b>") == 0);
    CHECK(count(html, "&lt;b&gt;scenario&lt;/b&gt;") >= 2);
    const std::string escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;";
    CHECK(count(html, "<rect class=\"warp\" data-kernel=\"" + escaped + "\"") == 3);
    CHECK(count(html, "<g class=\"stage-bar\" data-kernel=\"" + escaped + "\"") == 1);
    check_self_contained(html);
}

TEST_CASE("the page makes no external reference", "[report]") {
    const json trace = small_trace();
    check_self_contained(gpuvp::render_report(small_results(), {&trace}));
    const json v = with_variants({"fifo", "priority-warp"});
    check_self_contained(gpuvp::render_report(v, {&trace, &trace}));
}

TEST_CASE("a run without a trace says so", "[report]") {
    const std::string html = gpuvp::render_report(small_results(), {nullptr});
    CHECK(count(section(html, "timeline"), "run without a trace") == 1);
    CHECK(count(section(html, "timeline"), "<svg class=\"sm-timeline\"") == 0);
    CHECK(count(section(html, "scalar"), "run without a trace") == 1);
    // Missing traces altogether are the same.
    CHECK(gpuvp::render_report(small_results(), {}) == html);
}

TEST_CASE("the empty sections say there is nothing to show", "[report]") {
    const json trace = small_trace();
    const std::string html = gpuvp::render_report(small_results(), {&trace});
    for (const char* id : {"timeline", "launch-stages", "locks", "scalar", "shading"}) {
        INFO(id);
        CHECK(count(html, std::string("<section id=\"") + id + "\">\n<h2>") == 1);
    }
    CHECK(count(section(html, "locks"), "no locks in this run") == 1);
    CHECK(count(section(html, "scalar"), "no scalar pool in this run") == 1);
    CHECK(count(section(html, "shading"), "no draws in this run") == 1);
    CHECK(count(html, "id=\"variants\"") == 0);
}

TEST_CASE("lock waits by priority are drawn and tabled", "[report]") {
    json r = small_results();
    r["locks"]["policy"] = "priority";
    for (int p = 0; p < 3; ++p)
        r["locks"]["by_priority"][std::to_string(p == 2 ? 10 : p)] = {
            {"warps", 8}, {"acquisitions", 16}, {"wait_ns", {{"mean", 100.0 * (p + 1)}, {"max", 300.0 * (p + 1)}}},
            {"task_end_ns", {{"mean", 20000.0}, {"max", 30000.0 + p}}}, {"sync_failures", p}};
    const std::string s = section(gpuvp::render_report(r, {nullptr}), "locks");
    CHECK(count(s, "no locks") == 0);
    // Priorities in numeric order: 0, 1, 10.
    const size_t p0 = s.find("<tr data-priority=\"0\">"), p1 = s.find("<tr data-priority=\"1\">"),
                 p10 = s.find("<tr data-priority=\"10\">");
    REQUIRE(p10 != std::string::npos);
    CHECK(p0 < p1);
    CHECK(p1 < p10);
    CHECK(count(s, "<g class=\"pair-bar\" data-priority=\"1\"") == 2);  // waits and task ends
    CHECK(count(s, "id=\"lock-wait-chart\"") == 1);
    CHECK(count(s, "id=\"lock-end-chart\"") == 1);
    CHECK(count(s, "<td>600.0</td>") == 1);      // CPR 1's wait max
    CHECK(count(s, "<td>30010.0</td>") == 0);    // no such value
    CHECK(count(s, "<td>30002.0</td>") == 1);    // CPR 10's task end max
}

TEST_CASE("scalar pool and shading array charts come from the trace counters", "[report]") {
    json r = small_results();
    r["scalar"]["policy"] = "multilevel";
    r["scalar"]["pool_peak"]["total"] = 300;
    r["usa"]["draws"] = json::array({{{"name", "terrain"}, {"queue", "gfx"}, {"status", "ok"}, {"submit_ns", 0.0},
                                      {"arrived_ns", 500.0}, {"first_task_ns", 500.0}, {"vertex_done_ns", 1500.0},
                                      {"end_ns", 3000.0}, {"complete_ns", 3600.0}, {"turnaround_ns", 3600.0}}});
    r["usa"]["utilization"] = 0.75;
    json trace = small_trace();
    auto& ev = trace["traceEvents"];
    for (int i = 0; i < 10; ++i)
        ev.push_back({{"name", "scalar pool"}, {"cat", "scalar"}, {"ph", "C"}, {"ts", 0.1 * i}, {"pid", 101}, {"tid", 0},
                      {"args", {{"kernel", 4}, {"workgroup", 8 * i}, {"warp", 100}, {"slice", i % 2 ? 64 : 0}}}});
    ev.push_back(meta("thread_name", 6, 0, "SSC1 core1"));
    ev.push_back(meta("thread_name", 6, 1, "SSC1 core2"));
    for (int i = 0; i < 4; ++i) {
        ev.push_back({{"name", "cores by type"}, {"cat", "usa"}, {"ph", "C"}, {"ts", 0.5 + 0.5 * i}, {"pid", 6}, {"tid", 0},
                      {"args", {{"vertex", 8 - i}, {"pixel", 8 + i}}}});
        ev.push_back({{"name", i < 2 ? "vertex" : "pixel"}, {"cat", "shading"}, {"ph", "X"}, {"ts", 0.5 + 0.5 * i}, {"dur", 0.4},
                      {"pid", 6}, {"tid", i % 2}, {"args", {{"task", i}, {"start_ns", 600.0}, {"draw", "terrain"}}}});
    }
    const std::string html = gpuvp::render_report(r, {&trace});
    const std::string scalar = section(html, "scalar");
    CHECK(count(scalar, "<svg class=\"scalar-chart\" data-sm=\"1\"") == 1);
    CHECK(count(scalar, "<svg class=\"scalar-chart\" data-sm=\"0\"") == 0);
    for (const char* level : {"kernel", "workgroup", "warp", "slice"}) CHECK(count(scalar, std::string("data-series=\"") + level + "\"") == 1);
    CHECK(count(scalar, "at most 240 registers in use") == 1);  // 4 + 72 + 100 + 64, at i = 9
    CHECK(count(scalar, "class=\"limit\"") == 1);                 // the pool's size
    const std::string shading = section(html, "shading");
    CHECK(count(shading, "no draws") == 0);
    CHECK(count(shading, "id=\"shading-chart\"") == 1);
    CHECK(count(shading, "<path class=\"area\" data-series=\"vertex\"") == 1);
    CHECK(count(shading, "<path class=\"area\" data-series=\"pixel\"") == 1);
    CHECK(count(shading, "<g class=\"draw-span\" data-draw=\"terrain\"") == 1);
    CHECK(count(shading, "<rect class=\"task\" data-type=\"vertex\"") == 2);
    CHECK(count(shading, "<rect class=\"task\" data-type=\"pixel\"") == 2);
    CHECK(count(shading, "75.0 %") == 1);
    CHECK(count(shading, "<tr data-draw=\"terrain\">") == 1);
}

TEST_CASE("the variants section appears only with variants and has a column per variant", "[report]") {
    const json trace = small_trace();
    CHECK(count(gpuvp::render_report(small_results(), {&trace}), "<section id=\"variants\"") == 0);
    const json v = with_variants({"fifo", "priority-block", "priority-warp"});
    const std::string html = gpuvp::render_report(v, {&trace, nullptr, &trace});
    const std::string s = section(html, "variants");
    REQUIRE(!s.empty());
    CHECK(count(s, "<th class=\"variant-col\"") == 3);
    for (const char* name : {"fifo", "priority-block", "priority-warp"})
        CHECK(count(s, std::string("<th class=\"variant-col\" data-variant=\"") + name + "\"") == 1);
    CHECK(count(s, "<code class=\"set\">policy.dispatch=priority-block</code>") == 1);
    // The policy that differs is a row; those that do not are not.
    CHECK(count(s, "<th>policy.dispatch</th>") == 1);
    CHECK(count(s, "<th>policy.lock</th>") == 0);
    // alpha's response is 700, 1400, 2100: the ratios to the first.
    CHECK(count(s, "<td>1400.0 <span class=\"ratio\">×2.00</span></td>") == 1);
    CHECK(count(s, "<td>2100.0 <span class=\"ratio\">×3.00</span></td>") == 1);
    // Grouped bars: a group per kernel, a bar per variant.
    CHECK(count(s, "<svg class=\"variant-chart\" data-metric=\"response_ns\"") == 1);
    CHECK(count(s, "<svg class=\"variant-chart\" data-metric=\"turnaround_ns\"") == 1);
    CHECK(count(s, "<g class=\"variant-group\" data-kernel=\"alpha\"") == 2);
    CHECK(count(s, "<rect data-variant=\"priority-block\"") == 4);
    // The timelines of the variants with a trace, per SM, on one scale; the other says so.
    CHECK(count(s, "<svg class=\"variant-timeline\" data-sm=\"0\" data-variant=\"fifo\"") == 1);
    CHECK(count(s, "<svg class=\"variant-timeline\" data-sm=\"1\" data-variant=\"priority-warp\"") == 1);
    CHECK(count(s, "priority-block: run without a trace") == 1);
    // The per-variant expectation and the comparison are in the header's table.
    CHECK(count(html, "<td>fifo</td><td>kernel alpha</td>") == 1);
    CHECK(count(html, "<td>priority-block vs fifo</td><td>comparison</td><td><code>priority-block:alpha.response_ns &lt;= 0.5 * "
                      "fifo:alpha.response_ns</code>") == 1);
    // The other sections show the first variant, and say so.
    CHECK(count(section(html, "launch-stages"), "Variant <b>fifo</b>, the first of 3") == 1);
    CHECK(count(section(html, "timeline"), "<svg class=\"kernel-spans\" data-variant=\"priority-warp\"") == 1);
}

TEST_CASE("variants with locks and draws get their own comparison charts", "[report]") {
    json v = with_variants({"spin", "priority"});
    for (size_t i = 0; i < 2; ++i) {
        json& r = v["variants"][i]["results"];
        r["locks"]["by_priority"]["0"] = {{"warps", 8}, {"acquisitions", 16}, {"wait_ns", {{"mean", 1000.0 / double(i + 1)}, {"max", 2000.0}}}};
        r["usa"]["draws"] = json::array({{{"name", "terrain"}, {"status", "ok"}, {"submit_ns", 0.0}, {"arrived_ns", 500.0},
                                          {"vertex_done_ns", 1500.0}, {"end_ns", 3000.0}, {"complete_ns", 3600.0 + double(i)},
                                          {"turnaround_ns", 3600.0 + double(i)}}});
    }
    const json trace = small_trace();
    const std::string s = section(gpuvp::render_report(v, {&trace, &trace}), "variants");
    CHECK(count(s, "<td>500.0 <span class=\"ratio\">×0.50</span></td>") == 1);  // the wait mean of CPR 0
    CHECK(count(s, "<svg class=\"variant-chart\" data-metric=\"lock wait mean\"") == 1);
    CHECK(count(s, "<g class=\"variant-group\" data-priority=\"0\"") == 1);
    CHECK(count(s, "<g class=\"variant-group\" data-draw=\"terrain\"") == 1);
    CHECK(count(s, "<td>3601.0 <span class=\"ratio\">×1.00</span></td>") == 1);  // the last draw's completion
    // Each variant's draws (no cores-by-type counter in this trace).
    CHECK(count(s, "<svg class=\"draw-chart\" data-variant=\"spin\"") == 1);
    CHECK(count(s, "<svg class=\"draw-chart\" data-variant=\"priority\"") == 1);
}

TEST_CASE("the warp bars stay bounded on a trace of 200k warps", "[report]") {
    const json trace = big_trace(200000);
    const std::string html = gpuvp::render_report(small_results("k0", "k1"), {&trace});
    size_t bars = 0;
    CHECK(warps_drawn(html, &bars) == 200000);  // every warp is in some bar
    CHECK(bars <= 20000);
    CHECK(bars > 100);
    CHECK(count(html, "id=\"timeline-note\"") == 1);
    CHECK(count(html, "200000 warps are drawn as") == 1);
    CHECK(html.size() < 8u * 1024 * 1024);
    // Variants share the bound.
    const json v = with_variants({"a", "b"});
    const std::string both = gpuvp::render_report(v, {&trace, &trace});
    CHECK(warps_drawn(both, &bars) == 400000);
    CHECK(bars <= 20000);
    CHECK(both.size() < 8u * 1024 * 1024);
}

TEST_CASE("bars of different kernels merge when nothing else keeps the bound", "[report]") {
    // Every warp alternates kernels on its slot: same-kernel merging cannot help.
    json ev = json::array({meta("process_name", 100, 0, "sm[0]")});
    for (int i = 0; i < 40000; ++i)
        ev.push_back(warp_event((i / 4) % 2 ? "k1" : "k0", 0, i % 4, i, 0, double(i / 4) * 10, 9));
    const json trace = {{"traceEvents", ev}};
    const std::string html = gpuvp::render_report(small_results("k0", "k1"), {&trace});
    size_t bars = 0;
    CHECK(warps_drawn(html, &bars) == 40000);
    CHECK(bars <= 20000);
    CHECK(count(html, "data-kernel=\"several kernels\"") > 0);
}

TEST_CASE("the report is deterministic", "[report]") {
    const json trace = small_trace();
    CHECK(gpuvp::render_report(small_results(), {&trace}) == gpuvp::render_report(small_results(), {&trace}));
    const json big = big_trace(30000);
    CHECK(gpuvp::render_report(small_results("k0", "k1"), {&big}) == gpuvp::render_report(small_results("k0", "k1"), {&big}));
    // Two real runs write the same page.
    const std::string a = temp_dir(), b = temp_dir();
    REQUIRE(run_program("run " + kScenarios + "default.yaml --quiet --out " + a) == 0);
    REQUIRE(run_program("run " + kScenarios + "default.yaml --quiet --out " + b) == 0);
    const std::string pa = slurp(a + "/report.html");
    CHECK(pa.size() > 10000);
    CHECK(pa == slurp(b + "/report.html"));
}

TEST_CASE("a real run writes a report with every warp of its trace", "[report]") {
    const std::string dir = temp_dir();
    REQUIRE(run_program("run " + kScenarios + "lock-contention.yaml --quiet --out " + dir) == 0);
    const std::string html = slurp(dir + "/report.html");
    const json results = json::parse(slurp(dir + "/results.json"));
    check_self_contained(html);
    size_t bars = 0;
    CHECK(warps_drawn(html, &bars) == results["totals"]["warps"].get<size_t>());
    CHECK(bars == results["totals"]["warps"].get<size_t>());
    CHECK(count(html, "<svg class=\"sm-timeline\" data-sm=\"0\"") == 1);
    CHECK(count(html, "<svg class=\"sm-timeline\" data-sm=\"1\"") == 1);
    for (const json& k : results["kernels"])
        CHECK(count(html, "<g class=\"stage-bar\" data-kernel=\"" + k["name"].get<std::string>() + "\"") == 1);
    // Its locks: one row per priority of the results.
    for (auto it = results["locks"]["by_priority"].begin(); it != results["locks"]["by_priority"].end(); ++it)
        CHECK(count(section(html, "locks"), "<tr data-priority=\"" + it.key() + "\">") == 1);
    // Without a trace, the page says so.
    const std::string bare = temp_dir();
    REQUIRE(run_program("run " + kScenarios + "lock-contention.yaml --quiet --no-trace --out " + bare) == 0);
    CHECK(count(section(slurp(bare + "/report.html"), "timeline"), "run without a trace") == 1);
}

TEST_CASE("write_report reads the variant traces from their folders", "[report]") {
    const std::string dir = temp_dir();
    const json v = with_variants({"fifo", "priority-warp"});
    std::ofstream(dir + "/results.json") << v.dump();
    REQUIRE(mkdir((dir + "/variants").c_str(), 0755) == 0);
    REQUIRE(mkdir((dir + "/variants/priority-warp").c_str(), 0755) == 0);
    std::ofstream(dir + "/variants/priority-warp/trace.json") << small_trace().dump();
    std::string error;
    REQUIRE(gpuvp::write_report(dir, &error));
    const std::string html = slurp(dir + "/report.html");
    CHECK(count(html, "fifo: run without a trace") == 1);
    CHECK(count(html, "<svg class=\"variant-timeline\" data-sm=\"0\" data-variant=\"priority-warp\"") == 1);
    CHECK(count(html, "<rect class=\"warp\" data-kernel=\"alpha\"") == 3);
    // A trace that is not JSON is no trace.
    std::ofstream(dir + "/variants/priority-warp/trace.json") << "{\"traceEvents\": [";
    REQUIRE(gpuvp::write_report(dir, &error));
    CHECK(count(slurp(dir + "/report.html"), "priority-warp: run without a trace") == 1);
}

TEST_CASE("write_report's trace reader keeps exactly what the page reads", "[report]") {
    // The file reader drops the events the page does not read, skipping the nested values of
    // those it knows early (name, cat and ph first, as gpuvp writes them). Its page must be the
    // page of the whole document: gpuvp's key order and nlohmann's sorted one, an unread event
    // with nested arrays, a repeated "ph" that makes an event read, events without "ph", a
    // warp event whose members come in an unusual order.
    const std::string dir = temp_dir();
    const json results = small_results();
    std::ofstream(dir + "/results.json") << results.dump();
    std::string text = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    const json small = small_trace();  // (a range over a temporary's member would dangle)
    for (const json& e : small["traceEvents"]) text += e.dump() + ",";  // sorted keys: args first
    text += R"({"name":"kernel_status[0]","cat":"table","ph":"i","ts":0.5,"s":"t","pid":3,"tid":999,"args":{"values":"x","deep":[[1,{"a":[2]}],{}]}},)";
    text += R"({"name":"alpha b9 warp 3","cat":"warp","ph":"i","pid":100,"tid":3,"args":{"block":9},"ph":"X","ts":0.9,"dur":0.2},)";
    text += R"({"args":{"block":7,"warp":2,"kernel":"beta","instructions":11},"dur":0.3,"tid":3,"ts":1.1,"pid":101,"ph":"X","cat":"warp","name":"beta b7 warp 2"},)";
    text += R"({"name":"no phase","args":{"nested":[1,2,3]}},)";
    text += R"({"name":"lock","cat":"lock","ph":"i","ts":1.2,"pid":100,"tid":1,"args":{}},)";
    text += R"({"name":"scalar pool","ph":"C","ts":1.0,"pid":100,"args":{"kernel":1,"workgroup":2,"warp":3,"slice":4}})";
    text += "],\"otherData\":{\"note\":\"kept\"}}";
    std::ofstream(dir + "/trace.json") << text;
    std::string error;
    REQUIRE(gpuvp::write_report(dir, &error));
    const json whole = json::parse(text);
    const std::string page = slurp(dir + "/report.html");
    CHECK(page == gpuvp::render_report(results, {&whole}));
    // The read events are on the page with their arguments: the late-"ph" warp's block, the
    // reordered warp's instructions, the scalar pool counter.
    CHECK(count(page, "alpha block 9 warp -1") == 1);
    CHECK(count(page, "beta block 7 warp 2") == 1);
    CHECK(count(page, "11 instructions") == 1);
    CHECK(count(page, "sm[0]: at most 10 registers in use") == 1);
}

namespace {
// The same document, value types included (nlohmann's == takes 5 and 5u, or two NaNs, as it likes).
bool same_document(const json& a, const json& b) {
    if (a.type() != b.type()) return false;
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(); it != a.end(); ++it)
            if (!b.contains(it.key()) || !same_document(it.value(), b.at(it.key()))) return false;
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_document(a[i], b[i])) return false;
        return true;
    }
    if (a.is_number_float()) return std::signbit(a.get<double>()) == std::signbit(b.get<double>()) && a == b;
    return a == b;
}
}  // namespace

TEST_CASE("the report from the run's output in memory is the report of its files", "[report]") {
    // A real traced run, in this process (one elaboration per test case): the page from its
    // record in memory, then from the files it wrote.
    std::string error;
    const gpuvp::RunOutput real = gpuvp::run_variants(gpuvp::load_scenario(kScenarios + "lock-contention.yaml"));
    REQUIRE(real.record);
    CHECK(gpuvp::results_text(*real.record) == real.results);
    const std::string run = temp_dir();
    REQUIRE(gpuvp::write_run_output(run, real, true, &error));
    const std::string real_page = slurp(run + "/report.html");
    CHECK(warps_drawn(real_page) == json::parse(real.results)["totals"]["warps"].get<size_t>());
    REQUIRE(gpuvp::write_report(run, &error));
    CHECK(slurp(run + "/report.html") == real_page);
}

TEST_CASE("write_report says what it could not read or write", "[report]") {
    const std::string dir = temp_dir();
    std::string error;
    CHECK_FALSE(gpuvp::write_report(dir + "/none", &error));
    CHECK(error == "cannot read " + dir + "/none/results.json");
    std::ofstream(dir + "/results.json") << "{ not json";
    CHECK_FALSE(gpuvp::write_report(dir, &error));
    CHECK(error == "cannot read " + dir + "/results.json");
}

TEST_CASE("a hang shows the GPU's state under its cause and escaped", "[report]") {
    json r = small_results();
    CHECK(count(gpuvp::render_report(r, {nullptr}), "id=\"hang\"") == 0);  // none without a hang
    r["hang"] = json{{"cause", "watchdog"},
                     {"detected_ns", 205252.0},
                     {"no_progress_since_ns", 105252.0},
                     {"in_flight", 1},
                     {"state", {"cp kernel slot 0: queue 0, packet 0, signal 0x10040 (<k>'s completion signal), in flight",
                                "sm[0] warp slot 1: tries lock 0 held by warp 0"}}};
    const std::string html = gpuvp::render_report(r, {nullptr});
    CHECK(count(html, "The watchdog saw no forward progress from 105252.0 to 205252.0 ns with 1 kernel(s)") == 1);
    CHECK(count(html, "(&lt;k&gt;&#39;s completion signal)") == 1);
    CHECK(count(html, "sm[0] warp slot 1: tries lock 0 held by warp 0\n") == 1);
    r["hang"]["cause"] = "idle";
    CHECK(count(gpuvp::render_report(r, {nullptr}), "The simulated machine went idle at 205252.0 ns") == 1);
    check_self_contained(html);
}

TEST_CASE("the scan of gpuvp's own trace text gives the reader's document", "[report]") {
    // A run's trace in memory is read by a scan that parses only the events the page reads.
    // It must give exactly the full reader's document: on real traces, and on random ones in
    // gpuvp's layout with what could mislead a scan (repeated or non-string "ph", "cat" and
    // "name", brackets, braces and quotes inside strings, events without "ph", empty events,
    // the members after the events). Text in another layout is declined, and read all the same.
    auto same_as_reader = [](const std::string& text) {
        json scanned, read;
        const bool scan_took_it = gpuvp::scan_trace_text(text, scanned);
        REQUIRE(gpuvp::read_trace_text(text, read));
        json via_run;
        REQUIRE(gpuvp::read_trace_text(text, via_run, true));
        CHECK(same_document(via_run, read));
        if (scan_took_it) CHECK(same_document(scanned, read));
        return scan_took_it;
    };
    // (Variants run in child processes; then the one in-process run a test case may make.)
    for (const char* name : {"ab-shading.yaml", "ab-lock-priority.yaml", "lock-contention.yaml"}) {
        const gpuvp::RunOutput run = gpuvp::run_variants(gpuvp::load_scenario(kScenarios + name));
        std::vector<std::string> texts = {run.trace};
        for (const auto& v : run.variants) texts.push_back(v.trace);
        for (const std::string& text : texts) {
            if (text.empty()) continue;
            INFO(name);
            CHECK(same_as_reader(text));
        }
    }

    std::mt19937_64 random(7);
    auto pick = [&](std::initializer_list<const char*> from) { return *(from.begin() + random() % from.size()); };
    auto tricky_string = [&] {
        return json(std::string(pick({"plain", "{[", "]}", "a \"quoted\" }", "back\\slash", "tab\there", "x,y:z", ""}))).dump();
    };
    auto unescaped = [&] { return json(std::string(pick({"plain", "{[", "]}", "x,y:z", "", "}],ph:"}))).dump(); };
    auto value = [&](int depth, auto&& self) -> std::string {
        switch (random() % (depth > 2 ? 4 : 6)) {
        case 0: return std::to_string(int64_t(random() % 2000) - 1000);
        case 1:
            return random() % 2 ? json(double(random() % 100000) / 7.0).dump()
                                : pick({"-0", "-0.0", "1.5e-7", "1E+2", "2e3", "0.000001", "18446744073709551615",
                                        "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
                                        "123456789012345678901234567890", "4.9e-324", "1e-400", "\"caf\u00e9\"",
                                        "\"\xc3\xa9t\xc3\xa9\""});
        case 2: return tricky_string();
        case 3: return pick({"true", "false", "null"});
        case 4: {
            std::string a = "[";
            for (int i = int(random() % 3); i-- > 0;) a += self(depth + 1, self) + (i ? "," : "");
            return a + "]";
        }
        default: {
            std::string o = "{";
            for (int i = int(random() % 3); i-- > 0;) o += tricky_string() + ":" + self(depth + 1, self) + (i ? "," : "");
            return o + "}";
        }
        }
    };
    int kept_texts = 0;
    for (int round = 0; round < 200; ++round) {
        const bool spaced_text = random() % 4 == 0;
        bool spaced = false;
        std::string text = "{\"traceEvents\":[";
        for (int e = int(random() % 30); e-- > 0;) {
            std::vector<std::string> members;
            const int fields = int(random() % 8);
            for (int f = 0; f < fields; ++f) {
                const std::string key = pick({"name", "cat", "ph", "ph", "ts", "dur", "pid", "tid", "args", "s"});
                std::string v;
                if (key == "ph" && random() % 6) v = json(pick({"M", "X", "C", "i", "B"})).dump();
                else if (key == "cat" && random() % 4) v = json(pick({"warp", "shading", "lock", "launch"})).dump();
                else if (key == "name" && random() % 3) v = json(pick({"scalar pool", "cores by type", "k0 b1 warp 2", "thread_name"})).dump();
                else if (key == "ph" || key == "cat" || key == "name") v = random() % 2 ? unescaped() : pick({"1", "-2.5", "null", "true", "{}", "[{\"ph\":\"M\"}]"});
                else v = value(0, value);
                const bool space = spaced_text && random() % 4 == 0;  // (a space after the colon: declined)
                spaced |= space;
                members.push_back("\"" + key + "\":" + (space ? " " : "") + v);
            }
            std::string event = "{";
            for (size_t m = 0; m < members.size(); ++m) event += (m ? "," : "") + members[m];
            text += event + "}" + (e ? "," : "");
        }
        text += "]";
        if (random() % 2) text += ",\"displayTimeUnit\":\"ns\"";
        if (random() % 3 == 0)  // (no bracket there: the scan declines one after the events)
            text += ",\"otherData\":{\"note\":" + json(std::string(pick({"kept", "a \"quoted\" }", "x,y:z"}))).dump() + "}";
        text += "}";
        if (random() % 2) text += "\n";
        INFO(text);
        const bool taken = same_as_reader(text);
        CHECK(taken == !spaced);  // gpuvp's compact layout is taken by the scan, any other declined
        kept_texts += taken;
    }
    CHECK(kept_texts > 100);

    // Other layouts: declined, and read by the reader all the same.
    const std::string own = small_trace().dump();  // sorted keys: "displayTimeUnit" first
    CHECK_FALSE(same_as_reader(own));
    CHECK_FALSE(same_as_reader(" {\"traceEvents\":[]}"));
    CHECK_FALSE(same_as_reader(R"({"traceEvents":[{"ph":"\u0058","cat":"warp"}]})"));
    CHECK_FALSE(same_as_reader(R"({"traceEvents":[],"more":[{"ph":"X","cat":"warp"},{"ph":"i"}]})"));
    CHECK_FALSE(same_as_reader(R"({"traceEvents":[1,{"ph":"M"}]})"));
    json ignored;
    CHECK_FALSE(same_as_reader(R"({"traceEvents":[{"ph": "M","name":"process_name"}]})"));
    CHECK_FALSE(same_as_reader(R"({"traceEvents":[{"ph":"X","cat": "warp","name":"k b0 warp 0"}]})"));
    CHECK_FALSE(gpuvp::scan_trace_text(R"({"traceEvents":[]} trailing)", ignored));
    CHECK_FALSE(gpuvp::scan_trace_text(R"({"traceEvents":[],})", ignored));
    CHECK_FALSE(gpuvp::scan_trace_text(R"({"traceEvents":[{"ph":"M","name":"x"})", ignored));
    CHECK(ignored.is_null());
}
