// report.html (sc_main/report/): the page render_report builds from a run's record and
// trace records, on hand-built records and on real runs of the `gpuvp` program; trace.json read
// back (read_trace) and write_report from the files.
#include "sc_main/record/chrome_trace.h"
#include "sc_main/record/short_names.h"
#include "sc_main/record/run_record.h"
#include "sc_main/record/trace_record.h"
#include "sc_main/report/report.h"
#include "sc_main/report/svg.h"
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"
#include "tests/files.h"
#include "tests/sizes.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <variant>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using nlohmann::json;

namespace {

using gpuvp::test::slurp;
using gpuvp::test::temp_dir;
using gpuvp::DrawRecord;
using gpuvp::ExpectationRecord;
using gpuvp::KernelRecord;
using gpuvp::PriorityLocks;
using gpuvp::RunRecord;
using gpuvp::StageRecord;
using gpuvp::ChromeEvent;
using gpuvp::ChromeTrace;
using gpuvp::ChromeValue;
using gpuvp::TraceRecord;
using gpuvp::VariantEntry;

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

// Runs the real program (as tests/program/cli.cpp does) and returns its exit code.
int run_program(const std::string& args) {
    const std::string cmd = std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " " + args + " >/dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const std::string kScenarios = std::string(GPUVP_SOURCE_DIR) + "/scenarios/";

std::vector<StageRecord> stages(double scale) {
    std::vector<StageRecord> s;
    double t = 0;
    for (const char* name : {"host", "doorbell_to_fetch", "decode", "queue_wait", "descriptor_fetch", "wlm_setup"}) {
        const double d = 100 * scale;
        s.push_back({name, t, t + d, d});
        t += d;
    }
    return s;
}

KernelRecord kernel(const std::string& name, uint32_t priority, double submit, double scale) {
    KernelRecord k;
    k.name = name;
    k.queue = "q";
    k.priority = priority;
    k.status = {};
    k.submit_ns = submit;
    k.first_warp_start_ns = submit + 700;
    k.end_ns = submit + 3000;
    k.complete_ns = submit + 3500;
    k.launch_latency_ns = 600 * scale;
    k.dispatch_latency_ns = 500 * scale;
    k.response_ns = 700 * scale;
    k.turnaround_ns = 3500 * scale;
    k.stages = stages(scale);
    return k;
}

// A bound on a metric, as checked.
ExpectationRecord bound(std::optional<double> min, std::optional<double> max, json value, bool passed, int line) {
    ExpectationRecord e;
    e.min = min;
    e.max = max;
    e.value = gpuvp::fields::json(value);
    e.passed = passed;
    e.line = line;
    return e;
}

// A run's record with two kernels, no locks, no scalar pool and no draws.
RunRecord small_results(const std::string& first = "alpha", const std::string& second = "beta") {
    RunRecord r;
    r.scenario = "small";
    r.status = "ok";
    r.policy = {"fifo", "serial", "spin", "per-warp", "static", "gto"};
    r.sim_end_ns = 5000.0;
    r.kernels = {kernel(first, 0, 0, 1), kernel(second, 1, 500, 1.5)};
    r.locks.policy = "spin";
    r.scalar.policy = "per-warp";
    r.scalar.pool = 1024;
    r.usa.policy = "static";
    r.usa.cores.vertex = 8;
    r.usa.cores.pixel = 8;
    r.usa.cores.total = 16;
    r.usa.initial = {8, 8};
    ExpectationRecord e = bound(std::nullopt, 1000.0, 700.0, true, 7);
    e.kernel = first;
    e.metric = std::string("response_ns");
    r.expectations = {e};
    r.trace.events = 5;
    r.trace.limit = 250000;
    return r;
}

// A Chrome trace event (for the reader of the format).
ChromeEvent event(const std::string& name, const std::string& cat, char ph, double ts_us, double dur_us, uint32_t pid,
                  std::optional<uint32_t> tid, std::vector<gpuvp::ChromeArg> args) {
    ChromeEvent e;
    e.name = name;
    e.cat = cat;
    e.ph = ph;
    e.ts_us = ts_us;
    e.dur_us = dur_us;
    e.pid = pid;
    e.tid = tid;
    e.args = std::move(args);
    return e;
}

// The launch id of `name` in `t` (added the first time).
uint32_t launch(TraceRecord& t, const std::string& name) {
    for (uint32_t i = 0; i < t.launches.size(); ++i)
        if (t.launches[i].name == name) return i;
    t.launches.push_back({name, false});
    return uint32_t(t.launches.size() - 1);
}

void add_warp(TraceRecord& t, const std::string& kernel, uint32_t sm, uint32_t slot, uint64_t block, uint32_t warp,
              double start_ns, double dur_ns) {
    gpuvp::trace::Warp w{start_ns / 1000, dur_ns / 1000, {launch(t, kernel), 0}, sm, slot, warp, block, 10};
    t.events.emplace_back(w);
    t.end_ns = std::max(t.end_ns, start_ns + dur_ns);
}

// Two SMs of 4 warp slots: 3 warps of `first` and 2 of `second`.
TraceRecord small_trace(const std::string& first = "alpha", const std::string& second = "beta") {
    TraceRecord t;
    t.sm_slots = {4, 4};
    add_warp(t, first, 0, 0, 0, 0, 800, 2000);
    add_warp(t, first, 0, 1, 0, 1, 800, 2100);
    add_warp(t, first, 1, 0, 1, 0, 850, 1900);
    add_warp(t, second, 1, 1, 0, 0, 1300, 1500);
    add_warp(t, second, 0, 2, 1, 0, 1350, 1400);
    return t;
}

// What the page draws of a trace, as text: its rows and what it left out, its blocks, warps, shading tasks and
// counters (what read_trace reads back), and when it ends.
std::string drawn(const TraceRecord& t) {
    TraceRecord d = t;
    d.events.clear();
    for (const gpuvp::trace::Event& e : t.events) {
        const auto* shading = std::get_if<gpuvp::trace::Shading>(&e);
        if (std::holds_alternative<gpuvp::trace::Warp>(e) || std::holds_alternative<gpuvp::trace::Block>(e) ||
            std::holds_alternative<gpuvp::trace::Task>(e) ||
            std::holds_alternative<gpuvp::trace::Scalar>(e) || (shading && shading->which == gpuvp::trace::Shading::cores_by_type))
            d.events.push_back(e);
    }
    std::ostringstream end;
    end << " end " << t.end_ns;
    return gpuvp::trace_text(d) + end.str();
}

// Every external reference a page could make: none may appear.
void check_self_contained(const std::string& html) {
    CHECK(count(html, "http://") == 0);
    CHECK(count(html, "https://") == 0);
    CHECK(count(html, "src=") == 0);
    CHECK(count(html, "url(") == 0);
    CHECK(count(html, "@import") == 0);
    // One script, inline: it fetches nothing and opens no socket.
    CHECK(count(html, "<script") == 1);
    CHECK(count(html, "<script>") == 1);
    CHECK(count(html, "fetch(") == 0);
    CHECK(count(html, "XMLHttpRequest") == 0);
    CHECK(count(html, "WebSocket") == 0);
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
TraceRecord big_trace(size_t n) {
    TraceRecord t;
    t.sm_slots = {0, 0};
    const char* kernels[] = {"k0", "k1", "k2"};
    t.events.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t sm = uint32_t(i % 2), slot = uint32_t((i / 2) % 48);
        const double start = double(i / 96) * 10.0;  // 10 ns each on its slot
        add_warp(t, kernels[(i / 9600) % 3], sm, slot, i, 0, start, 9);
    }
    return t;
}

RunRecord with_variants(const std::vector<std::string>& names) {
    RunRecord top = small_results();
    top.variants.emplace();
    for (size_t i = 0; i < names.size(); ++i) {
        RunRecord r = small_results();
        r.policy.dispatch = names[i];
        r.kernels[0].response_ns = 700.0 * double(i + 1);
        VariantEntry v;
        v.name = names[i];
        v.set = {{"policy.dispatch", names[i]}};
        v.results = r;
        top.variants->push_back(v);
    }
    ExpectationRecord e = bound(std::nullopt, 1000.0, 700.0, true, 9);
    e.variant = names[0];
    e.kernel = std::string("alpha");
    e.metric = std::string("response_ns");
    top.expectations.push_back(e);
    ExpectationRecord c;
    c.compare = names[1] + ":alpha.response_ns <= 0.5 * " + names[0] + ":alpha.response_ns";
    c.variants = std::vector<std::string>{names[1], names[0]};
    c.value = gpuvp::fields::json::array({1400.0, 700.0});
    c.passed = false;
    c.line = 12;
    top.expectations.push_back(c);
    return top;
}

}  // namespace

TEST_CASE("the timeline draws a rect for every warp of a small trace with its kernel", "[report]") {
    const TraceRecord trace = small_trace();
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
    const TraceRecord trace = small_trace();
    RunRecord r = small_results();
    ExpectationRecord ok3 = bound(3.0, 3.0, 2, false, 8);
    ok3.metric = std::string("kernels_ok");
    r.expectations.push_back(ok3);
    ExpectationRecord c;
    c.compare = std::string("alpha.response_ns < 0.5 * beta.response_ns");
    c.value = gpuvp::fields::json::array({700.0, 1050.0});
    c.passed = true;
    c.line = 9;
    r.expectations.push_back(c);
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
    // The table: a column per kernel, the times of results.json for people.
    CHECK(count(s, "<table class=\"data numbers\" id=\"stage-table\">") == 1);
    CHECK(count(s, "<th data-kernel=\"beta\">beta</th>") == 1);
    CHECK(count(s, "<td>150.0 ns</td>") == 6);
    CHECK(count(s, "<td>5.250 µs</td>") == 1);  // beta's turnaround
}

// One launch 3 s long beside launches of 600 ns: no one linear scale holds them.
TEST_CASE("launch stages far apart in length: the host stage on a log scale, the rest as shares", "[report]") {
    RunRecord r = small_results();
    r.kernels.clear();
    for (int i = 0; i < 5; ++i)
        r.kernels.push_back(kernel("void_at_native_vectorized_elementwise_kernel#" + std::to_string(i), 0, i * 1000.0, 1));
    r.kernels[2].stages[0].ns = 3e9;  // its host stage: 3 s
    const std::string s = section(gpuvp::render_report(r, {}), "launch-stages");
    CHECK(count(s, "<svg class=\"stage-chart\" id=\"stage-chart\" data-layout=\"shares\"") == 1);
    CHECK(count(s, "id=\"stage-chart-shares\"") == 1);
    CHECK(count(s, "<g class=\"axis log-axis\">") == 1);
    // Every bar's stages after the doorbell fill one width (their shares of its 500 ns); its host
    // stage apart, its length written beside it.
    std::set<std::string> widths;
    std::vector<std::string> labels;
    for (size_t at = s.find("<g class=\"stage-bar\""); at != std::string::npos; at = s.find("<g class=\"stage-bar\"", at + 1)) {
        const std::string bar = s.substr(at, s.find("</g>", at) - at);
        double sum = 0;
        const std::regex rect("data-stage=\"(\\w+)\" x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
        for (auto it = std::sregex_iterator(bar.begin(), bar.end(), rect); it != std::sregex_iterator(); ++it)
            if ((*it)[1] != "host") sum += std::stod((*it)[2]);
        widths.insert(gpuvp::report::fmt(sum, 0));
        CHECK(bar.find(">500.0 ns</text>") != std::string::npos);  // the stages on the GPU
        CHECK(bar.find("20.0 % of 500.0 ns") != std::string::npos);  // a stage's share, in its tooltip
        std::smatch m;
        if (std::regex_search(bar, m, std::regex("text-anchor=\"end\">([^<]+)<title>"))) labels.push_back(m[1]);
    }
    CHECK(widths.size() == 1);
    CHECK(s.find(">3.000 s</text>") != std::string::npos);
    CHECK(count(s, ">100.0 ns</text>") == 4);
    // Each kernel's label is its short name (the console's), no two alike, the whole in its tooltip.
    REQUIRE(labels.size() == 5);
    CHECK(std::set<std::string>(labels.begin(), labels.end()).size() == 5);
    for (const std::string& l : labels) CHECK(gpuvp::text_chars(l) <= 32);
    CHECK(s.find("<title>void_at_native_vectorized_elementwise_kernel#3</title>") != std::string::npos);
    // Lengths near each other: one scale of time.
    const std::string near = section(gpuvp::render_report(small_results(), {}), "launch-stages");
    CHECK(count(near, "data-layout=\"time\"") == 1);
    CHECK(near.find("log-axis") == std::string::npos);
}

TEST_CASE("names from the results and the trace are escaped", "[report]") {
    const std::string evil = "<script>alert(\"x\")</script>&";
    const TraceRecord trace = small_trace(evil, "beta");
    RunRecord r = small_results(evil, "beta");
    r.scenario = "<b>scenario</b>";
    const std::string html = gpuvp::render_report(r, {&trace});
    // One script, inline: it fetches nothing and opens no socket.
    CHECK(count(html, "<script") == 1);
    CHECK(count(html, "<script>") == 1);
    CHECK(count(html, "fetch(") == 0);
    CHECK(count(html, "XMLHttpRequest") == 0);
    CHECK(count(html, "WebSocket") == 0);
    CHECK(count(html, "<b>scenario</b>") == 0);
    CHECK(count(html, "&lt;b&gt;scenario&lt;/b&gt;") >= 2);
    const std::string escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;";
    CHECK(count(html, "<rect class=\"warp\" data-kernel=\"" + escaped + "\"") == 3);
    CHECK(count(html, "<g class=\"stage-bar\" data-kernel=\"" + escaped + "\"") == 1);
    check_self_contained(html);
}

TEST_CASE("the page makes no external reference", "[report]") {
    const TraceRecord trace = small_trace();
    check_self_contained(gpuvp::render_report(small_results(), {&trace}));
    const RunRecord v = with_variants({"fifo", "priority-warp"});
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
    const TraceRecord trace = small_trace();
    const std::string html = gpuvp::render_report(small_results(), {&trace});
    for (const char* id : {"timeline", "launch-stages", "locks", "scalar", "shading"}) {
        INFO(id);
        // (each section can be closed: its content under its heading in a <details>)
        CHECK(count(html, std::string("<section id=\"") + id + "\"><details open><summary><h2>") == 1);
    }
    CHECK(count(section(html, "locks"), "no locks in this run") == 1);
    CHECK(count(section(html, "scalar"), "no scalar pool in this run") == 1);
    CHECK(count(section(html, "shading"), "no draws in this run") == 1);
    CHECK(count(html, "id=\"variants\"") == 0);
}

TEST_CASE("lock waits by priority are drawn and tabled", "[report]") {
    RunRecord r = small_results();
    r.locks.policy = "priority";
    for (int p : {2, 0, 1}) {  // (listed out of order: the page sorts them)
        PriorityLocks e;
        e.warps = 8;
        e.acquisitions = 16;
        e.wait_ns = {100.0 * (p + 1), 300.0 * (p + 1)};
        e.task_end_ns = {20000.0, 30000.0 + p};
        e.sync_failures = uint64_t(p);
        r.locks.by_priority.emplace_back(std::to_string(p == 2 ? 10 : p), e);
    }
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
    RunRecord r = small_results();
    r.scalar.policy = "multilevel";
    r.scalar.pool_peak.total = 300;
    DrawRecord d;
    d.name = "terrain";
    d.queue = "gfx";
    d.status = {};
    d.submit_ns = 0.0;
    d.arrived_ns = 500.0;
    d.first_task_ns = 500.0;
    d.vertex_done_ns = 1500.0;
    d.end_ns = 3000.0;
    d.complete_ns = 3600.0;
    d.turnaround_ns = 3600.0;
    r.usa.draws = {d};
    r.usa.utilization = 0.75;
    TraceRecord trace = small_trace();
    auto& ev = trace.events;
    for (uint32_t i = 0; i < 10; ++i) ev.emplace_back(gpuvp::trace::Scalar{0.1 * i, 1, {4, 8 * i, 100, i % 2 ? 64u : 0u}});
    trace.usa = true;
    trace.usa_cores = 2;
    const uint32_t terrain = launch(trace, "terrain");
    for (uint32_t i = 0; i < 4; ++i) {
        ev.emplace_back(gpuvp::trace::Shading{0.5 + 0.5 * i, gpuvp::trace::Shading::cores_by_type, 8 - i, 8 + i});
        ev.emplace_back(gpuvp::trace::Task{0.5 + 0.5 * i, 0.4, {terrain, 0}, i % 2,
                                           i < 2 ? gpuvp::CoreType::vertex : gpuvp::CoreType::pixel, i, 600.0});
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
    const TraceRecord trace = small_trace();
    CHECK(count(gpuvp::render_report(small_results(), {&trace}), "<section id=\"variants\"") == 0);
    const RunRecord v = with_variants({"fifo", "priority-block", "priority-warp"});
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
    // The launch stages of every variant, side by side: each kernel's bar in every variant, the
    // variants of one kernel one under the other, and a table column for each.
    const std::string st = section(html, "launch-stages");
    CHECK(count(st, "Variant <b>fifo</b>, the first of 3") == 0);
    const std::regex bar("<g class=\"stage-bar\" data-kernel=\"([a-z]+)\" data-variant=\"([a-z-]+)\">");
    std::vector<std::string> bars;
    for (auto it = std::sregex_iterator(st.begin(), st.end(), bar); it != std::sregex_iterator(); ++it)
        bars.push_back((*it)[1].str() + "/" + (*it)[2].str());
    CHECK(bars == std::vector<std::string>{"alpha/fifo", "alpha/priority-block", "alpha/priority-warp", "beta/fifo",
                                           "beta/priority-block", "beta/priority-warp"});
    CHECK(count(st, "<th data-kernel=\"alpha\" data-variant=\"priority-warp\">alpha — priority-warp</th>") == 1);
    // The other sections show the first variant, and say so.
    CHECK(count(section(html, "locks"), "Variant <b>fifo</b>, the first of 3") == 1);
    CHECK(count(section(html, "timeline"), "<svg class=\"kernel-spans\" data-variant=\"priority-warp\"") == 1);
}

TEST_CASE("variants with locks and draws get their own comparison charts", "[report]") {
    RunRecord v = with_variants({"spin", "priority"});
    for (size_t i = 0; i < 2; ++i) {
        RunRecord& r = (*v.variants)[i].results;
        PriorityLocks e;
        e.warps = 8;
        e.acquisitions = 16;
        e.wait_ns = {1000.0 / double(i + 1), 2000.0};
        r.locks.by_priority = {{"0", e}};
        DrawRecord d;
        d.name = "terrain";
        d.status = {};
        d.arrived_ns = 500.0;
        d.vertex_done_ns = 1500.0;
        d.end_ns = 3000.0;
        d.complete_ns = 3600.0 + double(i);
        d.turnaround_ns = 3600.0 + double(i);
        r.usa.draws = {d};
    }
    const TraceRecord trace = small_trace();
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
    const TraceRecord trace = big_trace(200000);
    const std::string html = gpuvp::render_report(small_results("k0", "k1"), {&trace});
    size_t bars = 0;
    CHECK(warps_drawn(html, &bars) == 200000);  // every warp is in some bar
    CHECK(bars <= 20000);
    CHECK(bars > 100);
    CHECK(count(html, "id=\"timeline-note\"") == 1);
    CHECK(count(html, "200000 warps are drawn as") == 1);
    CHECK(html.size() < 8u * 1024 * 1024);
    // Variants share the bound.
    const RunRecord v = with_variants({"a", "b"});
    const std::string both = gpuvp::render_report(v, {&trace, &trace});
    CHECK(warps_drawn(both, &bars) == 400000);
    CHECK(bars <= 20000);
    CHECK(both.size() < 8u * 1024 * 1024);
}

TEST_CASE("bars of different kernels merge when nothing else keeps the bound", "[report]") {
    // Every warp alternates kernels on its slot: same-kernel merging cannot help.
    TraceRecord trace;
    trace.sm_slots = {0};
    for (int i = 0; i < 40000; ++i) add_warp(trace, (i / 4) % 2 ? "k1" : "k0", 0, uint32_t(i % 4), uint64_t(i), 0, double(i / 4) * 10, 9);
    const std::string html = gpuvp::render_report(small_results("k0", "k1"), {&trace});
    size_t bars = 0;
    CHECK(warps_drawn(html, &bars) == 40000);
    CHECK(bars <= 20000);
    CHECK(count(html, "data-kernel=\"several kernels\"") > 0);
}

namespace {

// A replayed run's record: `n` kernels, kernel i on stream i % `streams`, measured running 600 ns
// from 300 ns after its launch call, simulated 2300 ns (kernel(): 700 ns after submit).
RunRecord replayed(size_t n, size_t streams) {
    RunRecord r = small_results();
    r.kernels.clear();
    for (size_t i = 0; i < n; ++i) {
        KernelRecord k = kernel("k#" + std::to_string(i), 0, double(i) * 1000, 1);
        k.queue = "s" + std::to_string(i % streams);
        const int64_t t = int64_t(i) * 1000;
        k.measured = gpuvp::MeasuredTimes{t, t + 50, t + 300, t + 900, std::nullopt, {}, 0};
        r.kernels.push_back(std::move(k));
    }
    r.replay = gpuvp::replay_summary(gpuvp::replay_sides(r.kernels));
    return r;
}

}  // namespace

TEST_CASE("a replayed run's Replay section: a measured and a simulated row per stream, and the distributions", "[report][replay]") {
    RunRecord r = replayed(6, 2);
    r.kernels[1].measured->floor_ns = 1500;  // measured 600 ns: dispatch-bound
    r.replay = gpuvp::replay_summary(gpuvp::replay_sides(r.kernels));
    const std::string html = gpuvp::render_report(r, {});
    const std::string s = section(html, "replay");
    REQUIRE_FALSE(s.empty());
    CHECK(count(html, "<a href=\"#replay\">Replay</a>") == 1);
    CHECK(html.find("<section id=\"replay\">") < html.find("<section id=\"timeline\">"));
    CHECK(count(s, "id=\"replay-table\"") == 1);
    CHECK(count(s, "id=\"replay-timeline\"") == 1);
    // Three kernels per stream on each side, each its own bar on its stream's row.
    CHECK(count(s, "<rect class=\"replay-kernel\" data-side=\"measured\"") == 6);
    CHECK(count(s, "<rect class=\"replay-kernel\" data-side=\"simulated\"") == 6);
    // Rows: s0 (measured), simulated, s1 (measured), simulated.
    const size_t s0 = s.find("text-anchor=\"end\">s0</text>"), s1 = s.find("text-anchor=\"end\">s1</text>"),
                 sim = s.find("text-anchor=\"end\">simulated</text>", s0);
    CHECK((s0 < sim && sim < s1 && s1 != std::string::npos));
    CHECK(s.find("k#2, measured on s0: 2300.0–2900.0 ns (600.0 ns)") != std::string::npos);  // a bar's tooltip
    CHECK(s.find("id=\"replay-timeline-start\"") == std::string::npos);  // nothing merged: no close-up
    // The histograms, a panel per side (the duration ratio: one), and the farthest kernels.
    CHECK(count(s, "<svg class=\"replay-histogram\"") == 3);
    CHECK(count(s, "data-figure=\"same_stream_gap_ns\"") == 2);  // the table's row and the chart
    CHECK(count(s, "<g class=\"histogram-panel\"") == 5);
    CHECK(count(s, "<tr data-kernel=") == 6 + 1);  // the farthest, and the dispatch-bound one
    CHECK(s.find("<td id=\"replay-dispatch-bound\">1 kernel</td>") != std::string::npos);
    const std::string bound = s.substr(s.find("id=\"replay-dispatch-bound-kernels\""));
    CHECK(bound.find("<tr data-kernel=\"k#1\"><th>k#1</th><td>s1</td><td>600.0 ns</td><td>1.500 µs</td><td>0.400</td>") !=
          std::string::npos);
    CHECK(s.find("no samples") != std::string::npos);  // no launch found the GPU idle in the model
    // No replay, no section and no link.
    const std::string plain = gpuvp::render_report(small_results(), {});
    CHECK(section(plain, "replay").empty());
    CHECK(plain.find("#replay") == std::string::npos);
}

namespace {
// A replay that is long beside its kernels: one kernel at the start, 39 `later` ns later.
RunRecord long_replay(int64_t later) {
    RunRecord r = replayed(40, 2);
    for (size_t i = 1; i < r.kernels.size(); ++i) {
        KernelRecord& k = r.kernels[i];
        k.measured->launch_ns += later, k.measured->launch_end_ns += later;
        k.measured->start_ns += later, k.measured->end_ns += later;
        k.submit_ns += double(later);
        k.first_warp_start_ns = *k.first_warp_start_ns + double(later);
        k.end_ns = *k.end_ns + double(later);
        k.complete_ns = *k.complete_ns + double(later);
    }
    r.replay = gpuvp::replay_summary(gpuvp::replay_sides(r.kernels));
    return r;
}

// The window a replay's timeline opens on (data-window), in ns; {NAN, NAN} without one.
std::pair<double, double> opening(const std::string& replay_section) {
    std::smatch m;
    if (!std::regex_search(replay_section, m, std::regex("id=\"replay-timeline\" data-window=\"([0-9.]+)-([0-9.]+)\"")))
        return {NAN, NAN};
    return {std::stod(m[1]), std::stod(m[2])};
}
}  // namespace

TEST_CASE("a long replay's timeline opens on its busiest stretch, the whole of it small above", "[report][replay]") {
    const std::string s = section(gpuvp::render_report(long_replay(100000000), {}), "replay");
    // The median kernel (600 ns) over 100 ms is far under 2 px: the chart opens on a stretch in
    // which it is 8 px wide (600 / 8 * 1132 ns = 84.9 µs), the one with the most starts (the 39
    // later), cut to what they take (38.6 µs), a fiftieth of that more either side.
    const auto [lo, hi] = opening(s);
    CHECK(lo == Approx(1e8 + 300 - 772));  // its first start (the measured side's 0 is its first launch call)
    CHECK(hi == Approx(1e8 + 38 * 1000 + 900 + 772));  // the last one's end
    CHECK(hi - lo < 84900);
    // Opened that far in, its bars are placed to a thousandth of a pixel and the thin ones outlined.
    CHECK(s.find("vector-effect=\"non-scaling-stroke\"") != std::string::npos);
    CHECK(s.find("that hold the most kernel starts (39 of 40)") != std::string::npos);
    // The whole replay, small, above the chart: every kernel on both sides, not a zoomable chart.
    const size_t ov = s.find("<svg class=\"replay-overview\" id=\"replay-timeline-overview\" data-for=\"replay-timeline\"");
    REQUIRE(ov != std::string::npos);
    CHECK(ov < s.find("id=\"replay-timeline\" data-window"));
    const std::string overview = s.substr(ov, s.find("</svg>", ov) - ov);
    CHECK(count(overview, "<rect class=\"replay-kernel\"") == 80);
    CHECK(overview.find("zoom-area") == std::string::npos);
    // 10 s later: never deeper than 5000 times the whole (bars placed to 1e-4 px: 0.5 px), the
    // stretch of 2 ms about those kernels.
    const auto [far_lo, far_hi] = opening(section(gpuvp::render_report(long_replay(10000000000), {}), "replay"));
    CHECK(far_hi - far_lo == Approx(2e6).epsilon(0.001));
    CHECK(far_lo < 1e10 + 300);
    CHECK(far_hi > 1e10 + 38900);
    // A replay whose kernels fill its time: no window, no overview.
    const std::string plain = section(gpuvp::render_report(replayed(6, 2), {}), "replay");
    CHECK(plain.find("data-window") == std::string::npos);
    CHECK(plain.find("replay-overview") == std::string::npos);
}

// The measured side's 0 is its first kernel launch call, as the simulated side's: a trace whose
// first launch call is late (a copy's before it) shows both sides together.
TEST_CASE("a replay's two sides start at their own first kernel launch call", "[report][replay]") {
    RunRecord r = replayed(4, 1);
    for (KernelRecord& k : r.kernels) {
        k.measured->launch_ns += 80000000, k.measured->launch_end_ns += 80000000;
        k.measured->start_ns += 80000000, k.measured->end_ns += 80000000;
    }
    const gpuvp::ReplaySides sides = gpuvp::replay_sides(r.kernels);
    CHECK(sides.measured[0].launch_ns == 0);
    CHECK(*sides.measured[2].start_ns == 2300);
    CHECK(sides.simulated[0].launch_ns == 0);
    const std::string s = section(gpuvp::render_report(r, {}), "replay");
    CHECK(s.find("k#2, measured on s0: 2300.0–2900.0 ns (600.0 ns)") != std::string::npos);
}

// The waits the trace gives no target for: the kernels listed, the copies' counted.
TEST_CASE("a replayed run's waits without a target: kernels listed, the copies' counted", "[report][replay]") {
    RunRecord r = replayed(6, 2);
    r.kernels[3].measured->inferred_after = {"k#0"};
    r.kernels[4].measured->unmatched_waits = 2;
    r.replay = gpuvp::replay_summary(gpuvp::replay_sides(r.kernels));
    r.replay->inferred_waits = 1 + 3;  // 3 before copies
    r.replay->unmatched_waits = 2;
    const std::string s = section(gpuvp::render_report(r, {}), "replay");
    const std::string waits = s.substr(s.find("id=\"replay-waits-kernels\""));
    CHECK(waits.find("<tr data-kernel=\"k#3\"><th>k#3</th><td>s1</td><td>k#0</td><td>0</td></tr>") != std::string::npos);
    CHECK(waits.find("<tr data-kernel=\"k#4\"><th>k#4</th><td>s0</td><td>–</td><td>2</td></tr>") != std::string::npos);
    CHECK(s.find("2 of 2 kernels.") != std::string::npos);
    CHECK(s.find("<span id=\"replay-waits-copies\">3 inferred · 0 unmatched</span>") != std::string::npos);
    // Only copies: no table, their counts.
    for (auto& k : r.kernels) k.measured->inferred_after.clear(), k.measured->unmatched_waits = 0;
    r.replay->inferred_waits = 0;
    const std::string only = section(gpuvp::render_report(r, {}), "replay");
    CHECK(only.find("id=\"replay-waits-kernels\"") == std::string::npos);
    CHECK(only.find("<span id=\"replay-waits-copies\">0 inferred · 2 unmatched</span>") != std::string::npos);
}

TEST_CASE("the replay's kernel bars stay bounded at 20000 kernels", "[report][replay]") {
    const std::string html = gpuvp::render_report(replayed(20000, 4), {});
    const std::string all = section(html, "replay"), from = "id=\"replay-timeline\"";
    const std::string s = all.substr(all.find(from), all.find("</svg>", all.find(from)) - all.find(from));
    // Every kernel is in a bar: a merged bar says how many it holds.
    size_t bars = 0, kernels = 0;
    const std::regex bar("<rect class=\"replay-kernel( merged\" data-side=\"\\w+\" data-count=\"(\\d+))?");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), bar); it != std::sregex_iterator(); ++it, ++bars)
        kernels += (*it)[2].matched ? std::stoul((*it)[2]) : 1;
    CHECK(kernels == 40000);
    CHECK(bars <= 10000);
    CHECK(bars >= 8);  // each stream's two rows
    CHECK(count(all, "id=\"replay-note\"") == 1);
    CHECK(count(all, "40000 kernels are drawn as") == 1);
    // The close-up of the start: the first 100 kernels (k#99 ends at 99 * 1000 + 3000 ns in the
    // model), unmerged.
    CHECK(count(all, "id=\"replay-timeline-start\"") == 1);
    CHECK(all.find("until the first 100 kernels have ended on both sides (0 – 102000.0 ns)") != std::string::npos);
    CHECK(all.size() < 3u * 1024 * 1024);
}

TEST_CASE("the report is deterministic", "[report]") {
    const TraceRecord trace = small_trace();
    CHECK(gpuvp::render_report(small_results(), {&trace}) == gpuvp::render_report(small_results(), {&trace}));
    const TraceRecord big = big_trace(30000);
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

TEST_CASE("a run cut short draws the warps still running up to the stop, and says how many", "[report]") {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/cut.yaml") << "name: cut\nmax_sim_ns: 20000\nkernels:\n"
                                        "  - {name: k, grid: [256], block: [64], program: [{op: valu, cycles: 100, repeat: 1000}]}\n";
    REQUIRE(run_program("run " + dir + "/cut.yaml --quiet --out " + dir + "/out") == 1);  // k did not complete
    const std::string html = slurp(dir + "/out/report.html");
    const json results = json::parse(slurp(dir + "/out/results.json"));
    REQUIRE(results["totals"]["warps"] == 0);
    CHECK(warps_drawn(html) == 8);  // 4 blocks of 2 warps, none ended
    CHECK(count(html, "still running when the run stopped") == 8);
    CHECK(count(html, "0 warps ended, 8 still running at the stop") == 1);
}

TEST_CASE("write_report reads the variant traces from their folders", "[report]") {
    const std::string dir = temp_dir();
    const RunRecord v = with_variants({"fifo", "priority-warp"});
    std::ofstream(dir + "/results.json") << gpuvp::results_text(v);
    REQUIRE(mkdir((dir + "/variants").c_str(), 0755) == 0);
    REQUIRE(mkdir((dir + "/variants/priority-warp").c_str(), 0755) == 0);
    std::ofstream(dir + "/variants/priority-warp/trace.json") << gpuvp::trace_text(small_trace());
    std::string error;
    REQUIRE(gpuvp::write_report(dir, &error));
    const std::string html = slurp(dir + "/report.html");
    CHECK(count(html, "fifo: run without a trace") == 1);
    CHECK(count(html, "<svg class=\"variant-timeline\" data-sm=\"0\" data-variant=\"priority-warp\"") == 1);
    CHECK(count(html, "<rect class=\"warp\" data-kernel=\"alpha\"") == 3);
    // The page of the records the files hold.
    const TraceRecord trace = small_trace();
    CHECK(html == gpuvp::render_report(v, {nullptr, &trace}));
    // A trace that is not JSON is no trace.
    std::ofstream(dir + "/variants/priority-warp/trace.json") << "{\"traceEvents\": [";
    REQUIRE(gpuvp::write_report(dir, &error));
    CHECK(count(slurp(dir + "/report.html"), "priority-warp: run without a trace") == 1);
}

TEST_CASE("read_trace reads a real run's trace.json into what the page draws", "[report]") {
    const std::string dir = temp_dir();
    REQUIRE(run_program("run " + kScenarios + "lock-contention.yaml --quiet --out " + dir) == 0);
    const std::string text = slurp(dir + "/trace.json");
    const json doc = json::parse(text);
    TraceRecord t;
    std::string error;
    REQUIRE(gpuvp::read_trace(text, t, &error));
    CHECK(error.empty());
    // Every warp, and the first member by member.
    std::vector<const json*> warps;
    double end = 0;
    for (const json& e : doc["traceEvents"]) {
        if (e["ph"] == "M") continue;
        end = std::max(end, e["ts"].get<double>() * 1000 + (e["ph"] == "X" ? e["dur"].get<double>() * 1000 : 0));
        if (e.value("cat", "") == "warp") warps.push_back(&e);
    }
    CHECK(t.end_ns == end);
    size_t n = 0;
    const gpuvp::trace::Warp* first = nullptr;
    for (const gpuvp::trace::Event& e : t.events)
        if (const auto* w = std::get_if<gpuvp::trace::Warp>(&e)) {
            if (!first) first = w;
            ++n;
        }
    REQUIRE(!warps.empty());
    CHECK(n == warps.size());
    REQUIRE(first);
    const json& j = *warps[0];
    CHECK(first->ts == j["ts"].get<double>());
    CHECK(first->dur == j["dur"].get<double>());
    CHECK(first->sm == j["pid"].get<uint32_t>() - 100);
    CHECK(first->slot == j["tid"].get<uint32_t>());
    CHECK(first->block == j["args"]["block"].get<uint64_t>());
    CHECK(first->warp == j["args"]["warp"].get<uint32_t>());
    CHECK(first->instructions == j["args"]["instructions"].get<uint64_t>());
    REQUIRE(t.launch(first->owner));
    CHECK(t.launch(first->owner)->name == j["args"]["kernel"].get<std::string>());
    // The rows: 2 SMs of the largest SM's warp slots; its queues.
    const json results = json::parse(slurp(dir + "/results.json"));
    CHECK(t.sm_slots.size() == results["sms"].size());
    CHECK(t.queues.size() == results["queues"].size());
    // The page from the files is the run's page.
    const std::string page = slurp(dir + "/report.html");
    REQUIRE(gpuvp::write_report(dir, &error));
    CHECK(slurp(dir + "/report.html") == page);
}

TEST_CASE("read_trace gives back what the page draws of the record trace_text wrote", "[report]") {
    TraceRecord t = small_trace();
    t.queues = {"q0", "with \"quotes\""};
    t.usa = true;
    t.usa_cores = 3;
    t.draw_rows = 2;
    t.stage_rows[0] = "alpha";
    const uint32_t draw = launch(t, "terrain");
    t.launches[draw].instanced = true;
    t.events.emplace_back(gpuvp::trace::Task{2.5, 0.5, {draw, 7}, 2, gpuvp::CoreType::pixel, 3, 2600.0, true});
    t.events.emplace_back(gpuvp::trace::Scalar{1.0, 1, {1, 2, 3, 4}});
    t.events.emplace_back(gpuvp::trace::Shading{1.5, gpuvp::trace::Shading::cores_by_type, 5, 3});
    // Events the page does not draw: read back only as when the trace ends.
    t.events.emplace_back(gpuvp::trace::Shading{1.5, gpuvp::trace::Shading::busy_cores, 1, 1});
    gpuvp::LockEvent lock{gpuvp::LockEventKind::acquired, 0, 0, 0, 0, ~0u, 3, 1, 0, sc_core::SC_ZERO_TIME};
    t.events.emplace_back(gpuvp::trace::Lock{9.75, {0, 0}, lock});
    t.events.emplace_back(gpuvp::trace::Stage{0.5, 0.25, 0, "host"});
    t.detail = gpuvp::trace::Detail::warps;
    t.limit = 12;
    t.left_out = {0, 1, 2, 3};
    t.end_ns = 9750;
    TraceRecord back;
    std::string error;
    REQUIRE(gpuvp::read_trace(gpuvp::trace_text(t), back, &error));
    CHECK(drawn(back) == drawn(t));
    CHECK(back.end_ns == 9750);
    CHECK(back.events.size() == t.events.size() - 3);
    CHECK(back.queues == t.queues);
    CHECK(back.stage_rows == t.stage_rows);
    CHECK(back.draw_rows == 2);
    CHECK(back.detail == gpuvp::trace::Detail::warps);
    CHECK(back.limit == 12);
    CHECK(back.left_out == t.left_out);
    CHECK(gpuvp::trace_note(back) ==
          "--trace-detail warps: 3 register-table events not recorded; trace full: 3 events dropped (the limit is 12; see "
          "--trace-limit and --trace-detail): 1 block-level and 2 warp-level events");
    // The task's draw and instance.
    const auto* task = std::get_if<gpuvp::trace::Task>(&back.events[5]);
    REQUIRE(task);
    REQUIRE(back.launch(task->owner));
    CHECK(back.launch(task->owner)->name == "terrain");
    CHECK(back.launch(task->owner)->instanced);
    CHECK(task->owner.instance == 7);
    CHECK(task->switched);
}

TEST_CASE("read_trace skips what is not one of gpuvp's events and keeps the rows in their order", "[report]") {
    TraceRecord t;
    std::string error;
    // A warp without its block, one with a fractional warp, an SM named out of order, a slot
    // row of another SM: not gpuvp's. A warp beyond the named SMs is drawn on its own.
    REQUIRE(gpuvp::read_trace(R"({"traceEvents":[)"
                              R"({"name":"process_name","ph":"M","pid":100,"tid":0,"args":{"name":"sm[0]"}},)"
                              R"({"name":"thread_name","ph":"M","pid":100,"tid":0,"args":{"name":"warp slot 0"}},)"
                              R"({"name":"process_name","ph":"M","pid":105,"tid":0,"args":{"name":"sm[5]"}},)"
                              R"({"name":"thread_name","ph":"M","pid":100,"tid":3,"args":{"name":"warp slot 3"}},)"
                              R"({"name":"w","cat":"warp","ph":"X","ts":1,"dur":1,"pid":100,"tid":0,"args":{"warp":0,"instructions":1}},)"
                              R"({"name":"w","cat":"warp","ph":"X","ts":1,"dur":1,"pid":100,"tid":0,"args":{"block":0,"warp":0.5,"instructions":1}},)"
                              R"({"name":"w","cat":"warp","ph":"X","ts":1,"dur":5,"pid":107,"tid":2,"args":{"block":1,"warp":0,"instructions":1}}]})",
                              t, &error));
    CHECK(t.sm_slots == std::vector<uint32_t>{1});
    REQUIRE(t.events.size() == 1);
    const auto& w = std::get<gpuvp::trace::Warp>(t.events[0]);
    CHECK(w.sm == 7);
    CHECK(w.slot == 2);
    CHECK_FALSE(t.launch(w.owner));
    CHECK(t.end_ns == 6000);
}

TEST_CASE("read_chrome types each argument and names what is wrong", "[report]") {
    ChromeTrace t;
    std::string error;
    REQUIRE(gpuvp::read_chrome(R"({"traceEvents":[{"name":"a","cat":"c","ph":"i","ts":1.5,"pid":3,"args":)"
                              R"({"yes":true,"neg":-2,"big":18446744073709551615,"x":0.25,"s":"t","n":null,"l":[1],"o":{}}}],)"
                              R"("otherData":{"note":"full"}})",
                              t, &error));
    REQUIRE(t.events.size() == 1);
    const ChromeEvent& e = t.events[0];
    CHECK(e.name == "a");
    CHECK(e.cat == "c");
    CHECK(e.ph == 'i');
    CHECK(e.ts_us == 1.5);
    CHECK(e.pid == 3);
    CHECK_FALSE(e.tid);
    REQUIRE(e.args.size() == 5);  // null, a list and an object are not arguments
    CHECK(std::get<bool>(*e.arg("yes")));
    CHECK(std::get<int64_t>(*e.arg("neg")) == -2);
    CHECK(std::get<uint64_t>(*e.arg("big")) == 18446744073709551615u);
    CHECK(e.number("x") == 0.25);
    CHECK(e.number("neg") == -2);
    CHECK(e.text("s") == "t");
    CHECK(std::isnan(e.number("yes")));
    REQUIRE(t.other.size() == 1);
    CHECK(t.other[0].key == "note");
    CHECK(std::get<std::string>(t.other[0].value) == "full");

    auto fails = [&](const std::string& text) {
        TraceRecord r;
        r.limit = 7;
        error.clear();
        CHECK_FALSE(gpuvp::read_trace(text, r, &error));
        CHECK(r.events.empty());
        CHECK(r.limit == 0);
        return error;
    };
    CHECK(fails("{\"traceEvents\": [").find("not JSON at byte 18") != std::string::npos);
    CHECK(fails("{\"traceEvents\": [] x").find("not JSON at byte 20") != std::string::npos);
    CHECK(fails("[]") == "an object expected, found array");
    CHECK(fails("{}") == "traceEvents: missing");
    CHECK(fails(R"({"traceEvents":{}})") == "traceEvents: an array expected, found object");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":1},7]})") == "traceEvents[1]: an object expected, found number");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":1},{"ph":"X","pid":"a"}]})") ==
          "traceEvents[1].pid: a non-negative integer expected, found string");
    CHECK(fails(R"({"traceEvents":[{"ph":"XY","pid":1}]})") == "traceEvents[0].ph: one character expected, found \"XY\"");
    CHECK(fails(R"({"traceEvents":[{"pid":1}]})") == "traceEvents[0].ph: missing");
    CHECK(fails(R"({"traceEvents":[{"ph":"X"}]})") == "traceEvents[0].pid: missing");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":1,"ts":"0"}]})") == "traceEvents[0].ts: a number expected, found string");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":1,"tid":-1}]})") ==
          "traceEvents[0].tid: a non-negative integer expected, found number");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":4294967296}]})") == "traceEvents[0].pid: out of range");
    CHECK(fails(R"({"traceEvents":[{"ph":"X","pid":1,"args":[]}]})") == "traceEvents[0].args: an object expected, found array");
    CHECK(fails(R"({"traceEvents":[],"otherData":{"note":1}})") == "otherData.note: a string expected, found number");
}

namespace {

// Two reads the same to the bit: each double's sign and digits, each value's type.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool identical(const std::vector<gpuvp::ChromeArg>& a, const std::vector<gpuvp::ChromeArg>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
        const ChromeValue &v = a[k].value, &w = b[k].value;
        const double* dv = std::get_if<double>(&v);
        if (a[k].key != b[k].key || v.index() != w.index() || (dv ? !same_bits(*dv, std::get<double>(w)) : v != w))
            return false;
    }
    return true;
}

bool identical(const ChromeTrace& a, const ChromeTrace& b) {
    if (!identical(a.other, b.other) || a.events.size() != b.events.size()) return false;
    for (size_t i = 0; i < a.events.size(); ++i) {
        const ChromeEvent &x = a.events[i], &y = b.events[i];
        if (x.name != y.name || x.cat != y.cat || x.ph != y.ph || !same_bits(x.ts_us, y.ts_us) ||
            !same_bits(x.dur_us, y.dur_us) || x.pid != y.pid || x.tid != y.tid || !identical(x.args, y.args))
            return false;
    }
    return true;
}

// read_chrome (its own pass over gpuvp's text, the parser for the rest) and the parser alone
// read `text` alike: the same events, or the same error.
void reads_as_the_parser(const std::string& text) {
    INFO(text.substr(0, 400));
    ChromeTrace fast, parsed;
    std::string fast_error, parsed_error;
    const bool ok = gpuvp::read_chrome(text, fast, &fast_error);
    REQUIRE(gpuvp::detail::read_chrome_parsed(text, parsed, &parsed_error) == ok);
    CHECK(fast_error == parsed_error);
    CHECK(identical(fast, parsed));
}

// A random trace's text: gpuvp's members and others, in any order, with space or without, and
// the values where reading can go wrong (numbers at the edges of their types, escapes, bytes
// not ASCII, repeated members and arguments, nested values, members missing or mistyped).
std::string random_trace_text(std::mt19937& rng) {
    auto pick = [&](size_t n) { return size_t(rng() % n); };
    auto chance = [&](int in) { return pick(size_t(in)) == 0; };
    auto space = [&]() -> std::string {
        static const char* const s[] = {"", "", "", "", " ", "\n  ", "\t", "\r\n"};
        return s[pick(8)];
    };
    static const char* const numbers[] = {
        "0", "-0", "1", "7", "42", "-3", "0.5", "-0.0", "5.226086", "1.5", "0.1", "1e3", "1E-7", "2.5e+2", "-1.25e-3",
        "9007199254740992", "9007199254740993", "9007199254740993.5", "0.9007199254740993", "123456789.123456789",
        "12345678901234567890", "0.12345678901234567890123", "4294967295", "4294967296", "18446744073709551615",
        "18446744073709551616", "-9223372036854775808", "-9223372036854775809", "-9300000000000000000", "1e308",
        "1e309", "1e-400", "5e-324", "2.2250738585072011e-308", "100000000000000000000000.5", "1.0000000000000002",
        "01", "1.", ".5", "-", "1e", "+1", "0x10"};
    static const char* const strings[] = {
        "\"\"", "\"warp\"", "\"kernel_status[0]\"", "\"background b34 warp 1\"", "\"a\\\"quoted\\\" name\"",
        "\"tab\\tand\\u00e9\"", "\"caf\xC3\xA9\"", "\"bad \xC3\"", "\"\x7f\"", "\"ctl\x01\"", "\"X\"", "\"i\"", "\"M\"",
        "\"C\"", "\"XY\"", "\"prio 3 regs/warp 1024 warps/block 8 shared/block 0 undispatched 480\""};
    static const char* const keys[] = {"block", "warp", "kernel", "name", "values", "vertex", "pixel", "x",
                                       "odd key", "\u00e9t\u00e9", "a\\u0062", "", "k", "sort_index"};
    auto number = [&] { return std::string(numbers[pick(std::size(numbers))]); };
    auto string = [&] { return std::string(strings[pick(std::size(strings))]); };
    auto value = [&]() -> std::string {
        switch (pick(12)) {
        case 0: return "true";
        case 1: return "false";
        case 2: return "null";
        case 3: return "{\"in\":[1,{\"deep\":\"x\"}]}";
        case 4: return "[]";
        case 5: case 6: case 7: return string();
        default: return number();
        }
    };
    auto object = [&](std::vector<std::string> members) {
        std::shuffle(members.begin(), members.end(), rng);
        std::string o = "{" + space();
        for (size_t i = 0; i < members.size(); ++i) o += (i ? "," + space() : "") + members[i] + space();
        return o + "}";
    };
    auto member = [&](const std::string& k, const std::string& v) { return "\"" + k + "\"" + space() + ":" + space() + v; };
    std::vector<std::string> events;
    const size_t n = pick(6);
    for (size_t e = 0; e < n; ++e) {
        std::vector<std::string> m;
        static const char* const phs[] = {"\"X\"", "\"i\"", "\"C\"", "\"M\""};
        if (!chance(20)) m.push_back(member("ph", chance(10) ? value() : phs[pick(4)]));
        if (!chance(20)) m.push_back(member("pid", chance(5) ? number() : std::to_string(pick(200))));
        if (chance(2)) m.push_back(member("tid", chance(5) ? number() : std::to_string(pick(2000))));
        if (!chance(5)) m.push_back(member("name", chance(8) ? value() : string()));
        if (chance(2)) m.push_back(member("cat", chance(8) ? value() : string()));
        if (chance(2)) m.push_back(member("ts", chance(8) ? value() : number()));
        if (chance(3)) m.push_back(member("dur", number()));
        if (chance(3)) m.push_back(member("s", "\"t\""));
        if (chance(6)) m.push_back(member(keys[pick(std::size(keys))], value()));
        if (chance(10)) m.push_back(member("pid", std::to_string(pick(9))));  // (repeated: the last counts)
        const int lists = chance(8) ? 2 : chance(4) ? 0 : 1;  // (2: repeated, the last counts)
        for (int a = 0; a < lists; ++a) {
            std::vector<std::string> args;
            const size_t na = pick(6);
            for (size_t i = 0; i < na; ++i) args.push_back(member(keys[pick(std::size(keys))], value()));
            m.push_back(member("args", chance(15) ? value() : object(args)));
        }
        events.push_back(chance(40) ? value() : object(m));
    }
    std::string list = "[" + space();
    for (size_t i = 0; i < events.size(); ++i) list += (i ? "," + space() : "") + events[i];
    list += space() + "]";
    std::vector<std::string> root;
    if (!chance(30)) root.push_back(member("traceEvents", chance(30) ? value() : list));
    if (chance(2)) root.push_back(member("displayTimeUnit", chance(5) ? value() : "\"ns\""));
    if (chance(3))
        root.push_back(member("otherData", chance(5) ? value()
                                                      : object({member("note", chance(5) ? value() : string()),
                                                                member(chance(2) ? "limit" : "detail", value())})));
    if (chance(10)) root.push_back(member("traceEvents", "[]"));
    if (chance(10)) root.push_back(member("extra", value()));
    std::string text = space() + object(root) + space();
    if (chance(20)) text += chance(2) ? "x" : "{}";
    if (chance(4)) text += "\n";
    if (chance(30)) text = text.substr(0, pick(text.size() + 1));
    return text;
}

}  // namespace

TEST_CASE("read_chrome reads any text as the general parser reads it", "[report]") {
    // gpuvp's own texts: a hand-made record with odd names and values, and a real run's trace.
    ChromeTrace t;
    REQUIRE(gpuvp::read_chrome(gpuvp::trace_text(small_trace()), t, nullptr));
    t.events.push_back(event("odd \"name\"", "misc", 'i', 1.25, 0, 7, std::nullopt,
                             {{"yes", true}, {"neg", int64_t(-3)}, {"big", uint64_t(1) << 63}, {"x", 0.1},
                              {"s", std::string("é\n")}, {"tiny", 5e-324}, {"huge", 1.7e308}, {"neg0", -0.0}}));
    t.other = {{"detail", "all"}, {"left_out_warps", uint64_t(3)}, {"odd", -0.5}, {"on", true}, {"note", "trace full"}};
    const std::string own = gpuvp::chrome_text(t);
    reads_as_the_parser(own);
    const std::string dir = temp_dir();
    REQUIRE(run_program("run " + kScenarios + "scalar-levels.yaml --quiet --out " + dir) == 0);
    const std::string real = slurp(dir + "/trace.json");
    reads_as_the_parser(real);
    // Every prefix of a small trace (each is no trace, for the same reason).
    TraceRecord few = small_trace();
    few.sm_slots = {1};
    few.events.resize(1);
    few.left_out[2] = 1;
    const std::string small = gpuvp::trace_text(few);
    for (size_t n = 0; n <= small.size(); ++n) reads_as_the_parser(small.substr(0, n));
    // Random texts.
    std::mt19937 rng(20261127);
    for (int i = 0; i < gpuvp::test::family_size(20000, 2000); ++i) reads_as_the_parser(random_trace_text(rng));
}

TEST_CASE("read_chrome keeps argument names that are not gpuvp's own with the events", "[report]") {
    std::string error;
    ChromeTrace copy;
    {
        ChromeTrace t;
        REQUIRE(gpuvp::read_chrome(R"({"traceEvents":[{"name":"a","ph":"i","pid":1,"args":{"not gpuvp's":1,"block":2}},)"
                                  R"({"name":"b","ph":"i","pid":1,"args":{"not gpuvp's":3,"x":"y","x":"z"}}]})",
                                  t, &error));
        REQUIRE(t.names);
        CHECK(t.names->size() == 2);  // each name once
        copy = t;
    }
    // The copy's names outlive the record read.
    REQUIRE(copy.events.size() == 2);
    CHECK(copy.events[0].number("not gpuvp's") == 1);
    CHECK(copy.events[0].number("block") == 2);
    CHECK(copy.events[1].number("not gpuvp's") == 3);
    REQUIRE(copy.events[1].args.size() == 3);  // a repeated argument: both kept
    CHECK(copy.events[1].text("x") == "y");
    CHECK(copy.events[1].args[2].key == "x");
    CHECK(gpuvp::chrome_text(copy) ==
          R"({"traceEvents":[{"name":"a","cat":"","ph":"i","ts":0.0,"s":"t","pid":1,"args":{"not gpuvp's":1,"block":2}},)"
          R"({"name":"b","cat":"","ph":"i","ts":0.0,"s":"t","pid":1,"args":{"not gpuvp's":3,"x":"y","x":"z"}}],)"
          R"("displayTimeUnit":"ns"})" "\n");
    // gpuvp's own names are its static text: no copy.
    ChromeTrace own;
    REQUIRE(gpuvp::read_chrome(gpuvp::trace_text(small_trace()), own, &error));
    CHECK_FALSE(own.names);
}

TEST_CASE("the report from the run's output in memory is the report of its files", "[report]") {
    // A real traced run, in this process (one elaboration per test case): the page from its
    // record in memory, then from the files it wrote.
    std::string error;
    const gpuvp::RunOutput real = gpuvp::run_variants(gpuvp::load_scenario(kScenarios + "lock-contention.yaml"));
    REQUIRE(real.record);
    CHECK(gpuvp::results_text(*real.record) == real.results);
    const std::string run = temp_dir();
    // What the page draws of its trace record is what its trace.json reads back as.
    REQUIRE(real.trace_record);
    TraceRecord back;
    REQUIRE(gpuvp::read_trace(real.trace, back, &error));
    CHECK(drawn(*real.trace_record) == drawn(back));
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
    CHECK(error.rfind(dir + "/results.json: not JSON at byte 4: ", 0) == 0);
    // A member missing, or of the wrong type: named by its path.
    json doc = json::parse(gpuvp::results_text(small_results()));
    doc["kernels"][1].erase("status");
    std::ofstream(dir + "/results.json") << doc.dump();
    CHECK_FALSE(gpuvp::write_report(dir, &error));
    CHECK(error == dir + "/results.json: kernels[1].status: missing");
    doc = json::parse(gpuvp::results_text(small_results()));
    doc["usa"]["cores"]["total"] = "sixteen";
    std::ofstream(dir + "/results.json") << doc.dump();
    CHECK_FALSE(gpuvp::write_report(dir, &error));
    CHECK(error == dir + "/results.json: usa.cores.total: an integer expected, found string");
    CHECK_FALSE(std::ifstream(dir + "/report.html").good());
    // The page cannot be written: a folder is in its place.
    std::ofstream(dir + "/results.json") << gpuvp::results_text(small_results());
    REQUIRE(mkdir((dir + "/report.html").c_str(), 0755) == 0);
    CHECK_FALSE(gpuvp::write_report(dir, &error));
    CHECK(error == "cannot write " + dir + "/report.html");
}

TEST_CASE("a hang shows the GPU's state under its cause and escaped", "[report]") {
    RunRecord r = small_results();
    CHECK(count(gpuvp::render_report(r, {nullptr}), "id=\"hang\"") == 0);  // none without a hang
    gpuvp::HangRecord h;
    h.cause = "watchdog";
    h.detected_ns = 205252.0;
    h.no_progress_since_ns = 105252.0;
    h.in_flight = 1;
    h.state = {"cp kernel slot 0: queue 0, packet 0, signal 0x10040 (<k>'s completion signal), in flight",
               "sm[0] warp slot 1: tries lock 0 held by warp 0"};
    r.hang = h;
    const std::string html = gpuvp::render_report(r, {nullptr});
    CHECK(count(html, "The watchdog saw no forward progress from 105252.0 to 205252.0 ns with 1 kernel(s)") == 1);
    CHECK(count(html, "(&lt;k&gt;&#39;s completion signal)") == 1);
    CHECK(count(html, "sm[0] warp slot 1: tries lock 0 held by warp 0\n") == 1);
    r.hang->cause = "idle";
    CHECK(count(gpuvp::render_report(r, {nullptr}), "The simulated machine went idle at 205252.0 ns") == 1);
    check_self_contained(html);
}

namespace {

// `sms` SMs of 4 warp slots with their occupancy over 4 bins of 1250 ns; SM i ran i % 5 warps
// in the third bin only.
RunRecord with_occupancy(uint32_t sms) {
    RunRecord r = small_results();
    for (uint32_t i = 0; i < sms; ++i) {
        gpuvp::SmRecord& sm = r.sms.emplace_back();
        sm.id = i;
        sm.warp_slots = 4;
        gpuvp::OccupancyRecord o;
        o.bin_ns = 1250;
        o.warps = {0, 0, double(i % 5), 0};
        sm.occupancy = o;
    }
    return r;
}

// A trace of `sms` SMs, a warp of alpha on each (in slot 0).
TraceRecord one_warp_per_sm(uint32_t sms) {
    TraceRecord t;
    t.sm_slots.assign(sms, 0);
    for (uint32_t sm = 0; sm < sms; ++sm) add_warp(t, "alpha", sm, 0, sm, 0, 800, 2000);
    return t;
}

}  // namespace

TEST_CASE("the charts over time carry what the page's script needs to zoom them", "[report][zoom]") {
    const TraceRecord trace = small_trace();
    RunRecord r = with_occupancy(2);
    const std::string html = gpuvp::render_report(r, {&trace});
    // Every chart over simulated time (kernel spans, SM overview, two SMs' warps) draws its plot
    // inside a zoomable area whose viewBox is the plot's own rectangle.
    const std::string timeline = section(html, "timeline");
    CHECK(count(timeline, "<svg class=\"zoom-area\"") == 4);
    CHECK(count(timeline, "preserveAspectRatio=\"none\"") == 4);
    const std::regex area("<svg class=\"zoom-area\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\" "
                          "viewBox=\"([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9.]+)\"");
    size_t areas = 0;
    for (auto it = std::sregex_iterator(timeline.begin(), timeline.end(), area); it != std::sregex_iterator(); ++it, ++areas)
        for (int k = 1; k <= 4; ++k) CHECK((*it)[k].str() == (*it)[k + 4].str());
    CHECK(areas == 4);
    // Its axis says which scale it was drawn with: 0 to the run's end (5000 ns) over the plot's width.
    CHECK(count(timeline, "<g class=\"axis x-axis\" data-lo=\"0\" data-hi=\"5000\" data-a=\"92\" data-b=\"1224\"") == 4);
    CHECK(count(timeline, "data-title=\"simulated time\"") == 4);
    // The page's script finds them by those names.
    CHECK(count(html, "svg.zoom-area") == 1);
    CHECK(count(html, "g.x-axis") >= 1);
    CHECK(count(html, "svg[data-for]") == 1);     // an overview (a long replay's)
    CHECK(count(html, "svg[data-window]") == 1);  // a chart that opens on a part of its range
    CHECK(count(html, "/^zoom=") == 1);
}

TEST_CASE("a kernel's colour follows its name from page to page", "[report]") {
    const TraceRecord t1 = small_trace("alpha", "beta"), t2 = small_trace("gamma", "alpha");
    const std::string a = gpuvp::render_report(small_results("alpha", "beta"), {&t1});
    const std::string b = gpuvp::render_report(small_results("gamma", "alpha"), {&t2});
    auto colour = [](const std::string& html, const std::string& kernel) {
        const std::regex legend("data-label=\"" + kernel + "\"><rect [^>]*fill=\"([^\"]+)\"");
        std::smatch m;
        return std::regex_search(html, m, legend) ? m[1].str() : std::string("none");
    };
    CHECK(colour(a, "alpha") != "none");
    CHECK(colour(a, "alpha") == colour(b, "alpha"));  // first on one page, second on the other
    CHECK(colour(a, "alpha") != colour(a, "beta"));
    CHECK(colour(b, "gamma") != colour(b, "alpha"));
}

TEST_CASE("the SM overview shows each SM's occupancy over the whole run, whatever the trace kept", "[report]") {
    // No trace at all: the overview still covers every SM from results.json.
    RunRecord r = with_occupancy(6);
    std::string html = gpuvp::render_report(r, {});
    std::string timeline = section(html, "timeline");
    REQUIRE(count(timeline, "<svg class=\"sm-overview\" id=\"sm-overview\"") == 1);
    for (uint32_t i = 0; i < 6; ++i) {
        INFO(i);
        CHECK(count(timeline, "<a href=\"#sm-" + std::to_string(i) + "\"><g class=\"sm-row\" data-sm=\"" + std::to_string(i) + "\">") == 1);
    }
    // A cell per bin with warps, shaded by the share of the slots in use, over its time.
    CHECK(count(timeline, "sm[3]: 3.0 of 4 warp slots in use on average, 2500.0–3750.0 ns") == 1);
    CHECK(count(timeline, "sm[0]: ") == 0);  // SM 0 ran no warp: a row without cells
    CHECK(count(timeline, "of 4 warp slots in use on average") == 4);
    // A trace cut at its limit: the overview is still the whole run, and the page says so.
    TraceRecord cut = small_trace();
    cut.limit = 5;
    cut.left_out[2] = 3;
    html = gpuvp::render_report(r, {&cut});
    timeline = section(html, "timeline");
    CHECK(count(timeline, "of 4 warp slots in use on average") == 4);
    CHECK(count(timeline, "the SM occupancy above covers the whole run") == 1);
    // Results of a gpuvp before occupancy: no overview, the rest as before.
    html = gpuvp::render_report(small_results(), {});
    CHECK(count(html, "sm-overview") == 0);
}

TEST_CASE("beyond 16 SMs each SM's warps are a closed drill-down under the overview", "[report]") {
    for (uint32_t n : {2u, 16u, 17u, 108u}) {
        INFO(n << " SMs");
        const TraceRecord t = one_warp_per_sm(n);
        const std::string timeline = section(gpuvp::render_report(with_occupancy(n), {&t}), "timeline");
        CHECK(count(timeline, "<details class=\"sm-detail\" id=\"sm-") == n);
        CHECK(count(timeline, "<details class=\"sm-detail\" id=\"sm-0\" open>") == (n <= 16 ? 1u : 0u));
        CHECK(count(timeline, "<svg class=\"sm-timeline\"") == n);  // every SM's chart is on the page
        CHECK(count(timeline, "<g class=\"sm-row\"") == n);
    }
}

TEST_CASE("kernels with instances get a histogram of response and turnaround", "[report][instances]") {
    RunRecord r = small_results();
    gpuvp::InstancesSummary in;
    in.count = 100;
    in.ok = 100;
    for (gpuvp::Spread3* s : {&in.response_ns, &in.turnaround_ns}) {
        s->min = 1000.0;
        s->max = 3000.0;
        s->mean = 1500.0;
        s->p50 = 1400.0;
        s->p90 = 2500.0;
        s->p99 = 2900.0;
        gpuvp::HistogramRecord h;
        h.from_ns = 1000;
        h.bin_ns = 100;
        h.counts = std::vector<uint64_t>(20, 0);
        h.counts[0] = 60;
        h.counts[5] = 30;
        h.counts[19] = 10;
        s->histogram = h;
    }
    r.kernels[1].instances = in;
    std::string html = gpuvp::render_report(r, {});
    const std::string st = section(html, "launch-stages");
    CHECK(count(st, "<h3 id=\"instances\">Instances</h3>") == 1);
    for (const char* figure : {"response_ns", "turnaround_ns"}) {
        INFO(figure);
        CHECK(count(st, std::string("<svg class=\"instance-histogram\" data-kernel=\"beta\" data-figure=\"") + figure + "\"") == 1);
    }
    // A bar per bin with instances, its count and range; p50, p90 and p99 marked.
    CHECK(count(st, "<rect class=\"bin\" data-count=\"60\"") == 2);
    CHECK(count(st, "60 of 100 instances: 1000.0–1100.0 ns") == 2);
    CHECK(count(st, "10 of 100 instances: 2900.0–3000.0 ns") == 2);
    CHECK(count(st, "<title>p99 2900.0 ns</title>") == 2);
    CHECK(count(st, "100 instances · min 1000.0 · p50 1400.0 · p90 2500.0 · p99 2900.0 · max 3000.0 ns") == 2);
    CHECK(count(st, "axis-title") >= 2);
    CHECK(count(st, ">response (ns)</text>") == 1);
    // Without instances: no such part.
    CHECK(count(section(gpuvp::render_report(small_results(), {}), "launch-stages"), "instance-histogram") == 0);
    // With variants: a panel per variant on one axis.
    RunRecord v = with_variants({"fifo", "priority-warp"});
    for (VariantEntry& e : *v.variants) e.results.kernels[1].instances = in;
    html = gpuvp::render_report(v, {});
    CHECK(count(section(html, "launch-stages"), "<g class=\"instance-panel\" data-variant=\"priority-warp\">") == 2);
}

TEST_CASE("axis titles name a metric and its unit once", "[report]") {
    const std::string html = gpuvp::render_report(with_variants({"fifo", "priority-warp"}), {});
    CHECK(count(html, "response_ns (") == 0);
    CHECK(count(html, ">response (ns)</text>") == 1);
    CHECK(count(html, ">turnaround (µs)</text>") + count(html, ">turnaround (ns)</text>") == 1);
}
