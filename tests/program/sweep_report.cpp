// A sweep's report.html (render_sweep_report, sc_main/report/sweep_report.cpp): on hand-made
// points' records, a chart per subject, metric and axis with a line per combination of the other
// axes, failing points marked, numeric and categorical axes, the table and the bound; and a real
// `gpuvp sweep --out DIR` writing it beside sweep.csv.
#include "sc_main/record/run_record.h"
#include "sc_main/report/report.h"
#include "sc_main/sweep/sweep.h"
#include "tests/files.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

using gpuvp::KernelRecord;
using gpuvp::RunRecord;
using gpuvp::SweepAxis;
using gpuvp::SweepPoint;
using gpuvp::test::slurp;
using gpuvp::test::temp_dir;
using Catch::Matchers::Contains;

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// Every element `<tag ...` of `html` whose opening tag holds `has` (all of it, up to its end tag
// for an svg or a tr; the opening tag alone otherwise).
std::vector<std::string> elements(const std::string& html, const std::string& tag, const std::string& has) {
    std::vector<std::string> out;
    const std::string close = "</" + tag + ">";
    for (size_t at = html.find("<" + tag + " "); at != std::string::npos; at = html.find("<" + tag + " ", at + 1)) {
        const size_t open_end = html.find('>', at);
        const std::string open = html.substr(at, open_end - at + 1);
        if (open.find(has) == std::string::npos) continue;
        if (tag == "svg" || tag == "tr") out.push_back(html.substr(at, html.find(close, at) + close.size() - at));
        else out.push_back(open);
    }
    return out;
}

// The value of attribute `name` in the first opening tag of `element`.
std::string attr(const std::string& element, const std::string& name) {
    const std::string head = element.substr(0, element.find('>'));
    const size_t at = head.find(" " + name + "=\"");
    if (at == std::string::npos) return "";
    const size_t from = at + name.size() + 3;
    return head.substr(from, head.find('"', from) - from);
}

// The charts of kernel `k`, metric `m`, axis `a`.
std::vector<std::string> charts(const std::string& html, const std::string& k, const std::string& m, const std::string& a) {
    return elements(html, "svg", "class=\"sweep-chart\" data-subject=\"kernel\" data-metric=\"" + m + "\" data-kernel=\"" + k +
                                     "\" data-axis=\"" + a + "\"");
}

KernelRecord kernel(const std::string& name, double base) {
    KernelRecord k;
    k.name = name;
    k.queue = "q";
    k.status = {};
    k.dispatch_latency_ns = base;
    k.launch_latency_ns = base + 100;
    k.response_ns = base + 200;
    k.turnaround_ns = base + 1000;
    return k;
}

// A point's record: kernels a and b whose figures grow with `sms`, two warp priorities' locks.
RunRecord record(double sms, bool priority) {
    RunRecord r;
    r.scenario = "hand-made";
    r.status = "ok";
    r.sim_end_ns = 5000 + 1000 * sms;
    r.kernels = {kernel("a", 100 * sms + (priority ? 0 : 50)), kernel("b", 300 * sms)};
    r.locks.by_priority = {{"0", {}}, {"1", {}}};
    r.locks.by_priority[0].second.wait_ns.mean = priority ? 10 : 80;
    r.locks.by_priority[1].second.wait_ns.mean = 40 * sms;
    return r;
}

// policy.lock (categories) × platform.sms (numbers): 6 points, point 4 fails an expectation,
// point 5 does not run.
struct HandMade {
    std::vector<SweepAxis> axes{{"policy.lock", {"priority", "spin"}}, {"platform.sms", {"1", "2", "4"}}};
    std::vector<RunRecord> records;
    std::vector<SweepPoint> points;
    HandMade() {
        records.reserve(6);
        for (const std::string& lock : axes[0].values)
            for (const std::string& sms : axes[1].values) {
                records.push_back(record(std::stod(sms), lock == "priority"));
                points.push_back({{lock, sms}, 0, {}, &records.back()});
            }
        points[4].exit_code = 1;
        points[4].problems = {"expectation (line 6): sim_end_ns = 7000.0, wanted <= 6500.0"};
        points[5].exit_code = 2;
        points[5].problems = {"the run failed (exit 2)"};
        points[5].results = nullptr;
    }
    std::string html() const { return gpuvp::render_sweep_report("hand-made", "s.yaml", axes, points); }
};

// The x position of each circle of `chart` by its point.
std::map<int, double> circle_x(const std::string& chart) {
    std::map<int, double> out;
    for (const std::string& c : elements(chart, "circle", "class=\"sweep-point\""))
        out[std::stoi(attr(c, "data-point"))] = std::stod(attr(c, "cx"));
    return out;
}

int run_program(const std::string& args, std::string* out = nullptr) {
    const std::string dir = temp_dir();
    const std::string cmd = std::string("SC_COPYRIGHT_MESSAGE=DISABLE ") + GPUVP_BINARY + " " + args + " >" + dir +
                            "/stdout 2>&1";
    const int st = std::system(cmd.c_str());
    if (out) *out = slurp(dir + "/stdout");
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST_CASE("a sweep report has a chart per kernel, metric and axis with a line per combination of the other axes", "[report][sweep]") {
    const HandMade h;
    const std::string html = h.html();
    // Every kernel's four metrics against both axes, the run's end, each warp priority's lock wait.
    for (const char* k : {"a", "b"})
        for (const char* m : {"dispatch_latency_ns", "launch_latency_ns", "response_ns", "turnaround_ns"})
            for (const char* a : {"policy.lock", "platform.sms"}) {
                INFO(k << " " << m << " " << a);
                CHECK(charts(html, k, m, a).size() == 1);
            }
    CHECK(elements(html, "svg", "class=\"sweep-chart\" data-subject=\"run\" data-metric=\"sim_end_ns\"").size() == 2);
    CHECK(elements(html, "svg", "data-subject=\"priority\" data-metric=\"lock_wait_mean_ns\" data-priority=\"1\"").size() == 2);
    CHECK(count(html, "<svg class=\"sweep-chart\"") == 2 * 4 * 2 + 2 + 2 * 2);
    CHECK(count(html, "<details open class=\"sweep-group\"") == 2 * 4 + 1 + 2);
    // Against platform.sms a line per policy.lock value, named in the legend; against
    // policy.lock a line per platform.sms value.
    const std::string by_sms = charts(html, "a", "response_ns", "platform.sms").at(0);
    CHECK(attr(by_sms, "data-lines") == "2");
    CHECK(count(by_sms, "<path class=\"sweep-line\"") == 2);
    CHECK_THAT(by_sms, Contains("data-label=\"policy.lock=priority\""));
    CHECK_THAT(by_sms, Contains("data-label=\"policy.lock=spin\""));
    const std::string by_lock = charts(html, "a", "response_ns", "policy.lock").at(0);
    CHECK(attr(by_lock, "data-lines") == "3");
    CHECK_THAT(by_lock, Contains("data-label=\"platform.sms=4\""));
    // The metric's name and unit on the value axis, not its field name.
    CHECK_THAT(by_sms, Contains(">response (ns)</text>"));
    CHECK(html.find("response_ns (") == std::string::npos);
    // A circle per point that ran, the failing one marked; the one that did not run a cross.
    const auto circles = elements(by_sms, "circle", "class=\"sweep-point\"");
    REQUIRE(circles.size() == 5);
    for (const std::string& c : circles) {
        const bool failing = attr(c, "data-point") == "4";
        CHECK(attr(c, "data-failed") == (failing ? "true" : "false"));
    }
    CHECK_THAT(by_sms, Contains("<g class=\"sweep-fail\"><circle class=\"sweep-point\" data-point=\"4\" data-failed=\"true\""));
    CHECK_THAT(by_sms, Contains("FAILING: expectation (line 6): sim_end_ns = 7000.0"));
    CHECK(count(by_sms, "class=\"sweep-missing\" data-point=\"5\"") == 1);
    CHECK(count(html, "data-failed=\"true\" cx=") == count(html, "<svg class=\"sweep-chart\""));
}

TEST_CASE("a sweep report spaces a numeric axis by value and categories evenly", "[report][sweep]") {
    const HandMade h;
    const std::string html = h.html();
    const std::string by_sms = charts(html, "b", "turnaround_ns", "platform.sms").at(0);
    CHECK_THAT(by_sms, Contains("class=\"axis x-axis\" data-scale=\"numeric\""));
    const auto x = circle_x(by_sms);  // points 0, 1, 2: sms 1, 2, 4 (priority)
    CHECK(x.at(2) - x.at(1) == Approx(2 * (x.at(1) - x.at(0))).margin(0.2));
    CHECK(x.at(3) == x.at(0));  // spin at 1 SM: the same place
    const std::string by_lock = charts(html, "b", "turnaround_ns", "policy.lock").at(0);
    CHECK_THAT(by_lock, Contains("class=\"axis x-axis\" data-scale=\"categories\""));
    const auto c = circle_x(by_lock);  // priority then spin, in the order given
    CHECK(c.at(0) < c.at(3));
    CHECK(c.at(0) - 70 == Approx(596 - 14 - c.at(3)).margin(0.2));  // two even bands in the plot
    // The values grow with the SMs: the higher value is higher up (a smaller y).
    auto y_of = [&](int point) {
        for (const std::string& e : elements(by_sms, "circle", "data-point=\"" + std::to_string(point) + "\""))
            return std::stod(attr(e, "cy"));
        return double(NAN);
    };
    CHECK(y_of(2) < y_of(1));
    CHECK(y_of(1) < y_of(0));
    // One axis: one line, no legend.
    const std::vector<SweepAxis> one{{"platform.sms", {"1", "2", "4"}}};
    std::vector<SweepPoint> points;
    for (int i = 0; i < 3; ++i) points.push_back({{one[0].values[size_t(i)]}, 0, {}, h.points[size_t(i)].results});
    const std::string single = gpuvp::render_sweep_report("hand-made", "s.yaml", one, points);
    const std::string chart = charts(single, "a", "response_ns", "platform.sms").at(0);
    CHECK(attr(chart, "data-lines") == "1");
    CHECK(chart.find("class=\"legend\"") == std::string::npos);
    CHECK(count(chart, "<path class=\"sweep-line\"") == 1);
}

TEST_CASE("a sweep report's header and table: the axes, the points passed and failed, a row per point and kernel", "[report][sweep]") {
    const HandMade h;
    const std::string html = h.html();
    CHECK_THAT(html, Contains("<span id=\"scenario-name\">hand-made</span>"));
    CHECK_THAT(html, Contains("data-points=\"6\" data-passed=\"4\" data-failed=\"2\""));
    CHECK(count(html, "<tr class=\"sweep-axis\"") == 2);
    const auto failures = elements(html, "li", "data-point=");
    REQUIRE(failures.size() == 2);
    CHECK_THAT(html, Contains("<li data-point=\"4\">point 4 <b>policy.lock=spin platform.sms=2</b>: expectation (line 6)"));
    CHECK_THAT(html, Contains("<li data-point=\"5\">point 5 <b>policy.lock=spin platform.sms=4</b> (did not run, exit 2)"));
    // The table: 5 points ran with 2 kernels, 1 did not run.
    const auto rows = elements(html, "tr", "class=\"sweep-row");
    CHECK(rows.size() == 5 * 2 + 1);
    CHECK(elements(html, "tr", "class=\"sweep-row fail\"").size() == 3);
    const auto fail_a = elements(html, "tr", "data-point=\"4\" data-failed=\"true\" data-kernel=\"a\"");
    REQUIRE(fail_a.size() == 1);
    CHECK_THAT(fail_a[0], Contains("FAIL: expectation (line 6)"));
    const auto row0 = elements(html, "tr", "data-point=\"0\" data-failed=\"false\" data-kernel=\"b\"");
    REQUIRE(row0.size() == 1);
    CHECK_THAT(row0[0], Contains("<td>300.000</td><td>400.000</td><td>500.000</td><td>1300.000</td>"));
    CHECK_THAT(elements(html, "tr", "data-point=\"5\"").at(0), Contains("did not run (exit 2)"));
    // The lock figures per point and priority (locks.csv's); no draws, no draws table.
    CHECK(elements(html, "tr", "class=\"lock-row").size() == 5 * 2);
    CHECK(html.find("sweep-draws-table") == std::string::npos);
    CHECK_THAT(html, Contains("<table class=\"data numbers\" id=\"sweep-table\">"));
    CHECK_THAT(html, Contains("Made by gpuvp from the points' results.json"));
    // Self-contained.
    CHECK(html.find("http://") == std::string::npos);
    CHECK(html.find("https://") == std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
}

TEST_CASE("a sweep report escapes names and bounds the charts to 40 kernels", "[report][sweep]") {
    RunRecord r;
    r.scenario = "many<kernels>";
    r.status = "ok";
    for (int k = 0; k < 45; ++k) r.kernels.push_back(kernel("k" + std::to_string(k) + "<&>", 100 + k));
    const std::vector<SweepAxis> axes{{"queues.q.priority", {"'a b'", "[1, 2]"}}};
    const std::vector<SweepPoint> points{{{"'a b'"}, 0, {}, &r}, {{"[1, 2]"}, 0, {}, &r}};
    const std::string html = gpuvp::render_sweep_report(r.scenario, "s.yaml", axes, points);
    CHECK(html.find("many<kernels>") == std::string::npos);
    CHECK_THAT(html, Contains("many&lt;kernels&gt;"));
    CHECK(html.find("k3<&>") == std::string::npos);
    CHECK(count(html, "data-subject=\"kernel\" data-metric=\"response_ns\"") == 40 + 40);  // a <details> and a chart each
    CHECK_THAT(html, Contains("id=\"sweep-kernel-note\">45 kernels: the charts show the first 40"));
    CHECK(elements(html, "tr", "class=\"sweep-row").size() == 2 * 45);  // the table lists them all
    CHECK_THAT(html, Contains("data-scale=\"categories\""));
}

TEST_CASE("gpuvp sweep --out writes report.html: the charts, and a table row per row of sweep.csv", "[cli][report][sweep]") {
    const std::string d = temp_dir();
    std::string out;
    // The spin points miss the scenario's real-time expectations: they fail.
    const int code = run_program("sweep " + std::string(GPUVP_SOURCE_DIR) +
                                     "/scenarios/lock-contention.yaml --set policy.lock=priority,spin "
                                     "--set platform.sm.lock_hold_limit=32,256 -j 2 --out " + d,
                                 &out);
    INFO(out);
    CHECK(code == 1);
    CHECK_THAT(out, Contains("wrote " + d + "/sweep.csv, locks.csv, report.html\n"));
    const std::string html = slurp(d + "/report.html");
    REQUIRE(!html.empty());
    // sweep.csv's rows, and which points failed (the exit_code column).
    std::istringstream csv(slurp(d + "/sweep.csv"));
    std::string line;
    std::getline(csv, line);
    std::vector<std::string> rows;
    std::set<std::string> failed;
    while (std::getline(csv, line)) {
        rows.push_back(line);
        const std::string exit_code = line.substr(line.rfind(',') + 1);
        if (exit_code != "0") failed.insert(std::to_string((rows.size() - 1)));  // a kernel per point: row = point
    }
    REQUIRE(rows.size() == 4);  // 4 points, one kernel
    CHECK(failed.count("2") + failed.count("3") == 2);  // spin
    const auto table_rows = elements(html, "tr", "class=\"sweep-row");
    REQUIRE(table_rows.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        // The row holds the CSV's axis values, kernel and figures.
        std::istringstream fields(rows[i]);
        std::string f;
        std::vector<std::string> cells;
        while (std::getline(fields, f, ',')) cells.push_back(f);
        for (size_t c : {0, 1, 2, 4, 5, 6, 7}) CHECK_THAT(table_rows[i], Contains(">" + cells[c] + "</td>"));
        CHECK(attr(table_rows[i], "data-failed") == (failed.count(std::to_string(i)) ? "true" : "false"));
    }
    // Kernel mixed: its four metrics against both axes; the run's end; each priority's lock wait.
    for (const char* m : {"dispatch_latency_ns", "launch_latency_ns", "response_ns", "turnaround_ns"})
        for (const char* a : {"policy.lock", "platform.sm.lock_hold_limit"}) {
            const auto c = charts(html, "mixed", m, a);
            REQUIRE(c.size() == 1);
            CHECK(count(c[0], "class=\"sweep-point\"") == 4);
            CHECK(count(c[0], "data-failed=\"true\"") == failed.size());
            CHECK(attr(c[0], "data-lines") == "2");
        }
    CHECK(count(html, "data-subject=\"priority\" data-metric=\"lock_wait_mean_ns\" data-priority=\"0\" data-axis=") == 2);
    CHECK(count(html, "<svg class=\"sweep-chart\"") == 4 * 2 + 2 + 2 * 2);
    CHECK_THAT(html, Contains("data-points=\"4\" data-passed=\"" + std::to_string(4 - failed.size()) + "\" data-failed=\"" +
                              std::to_string(failed.size()) + "\""));
    // The CSV is as before: the report adds a file, nothing else.
    CHECK(slurp(d + "/sweep.csv").rfind("policy.lock,platform.sm.lock_hold_limit,kernel,status,", 0) == 0);
}

namespace {

// The chart groups in the page's order: "subject key metric" ("priority 0 lock_wait_mean_ns").
std::vector<std::string> group_order(const std::string& html) {
    static const std::regex group(R"re(<details open class="sweep-group" data-subject="([a-z]+)" data-metric="([a-z_]+)"(?: data-[a-z]+="([^"]*)")?)re");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), group); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str() + " " + ((*it)[3].matched ? (*it)[3].str() + " " : "") + (*it)[2].str());
    return out;
}

}  // namespace

TEST_CASE("a sweep report orders its charts by how much their metric varies, the constant ones folded at the end",
          "[report][sweep]") {
    HandMade h;
    // Spread over the points that ran, over the largest value: priority 0's lock wait 0.875;
    // a's and b's dispatch and priority 1's wait 0.75 (in the order they are made); b's launch
    // 0.69, response 0.64; a's launch 0.6, response 0.5; b's turnaround 0.41; the run's end 0.33;
    // a's turnaround 0.21.
    const std::vector<std::string> varying = {
        "priority 0 lock_wait_mean_ns", "kernel a dispatch_latency_ns", "kernel b dispatch_latency_ns",
        "priority 1 lock_wait_mean_ns", "kernel b launch_latency_ns",   "kernel b response_ns",
        "kernel a launch_latency_ns",   "kernel a response_ns",         "kernel b turnaround_ns",
        "run sim_end_ns",               "kernel a turnaround_ns"};
    std::string html = h.html();
    CHECK(group_order(html) == varying);
    CHECK(count(html, "id=\"sweep-constant\"") == 0);
    // A kernel the same at every point: its four charts folded, closed, after the others.
    for (RunRecord& r : h.records) r.kernels.push_back(kernel("c", 500));
    html = h.html();
    std::vector<std::string> all = varying;
    for (const char* m : {"dispatch_latency_ns", "launch_latency_ns", "response_ns", "turnaround_ns"})
        all.push_back(std::string("kernel c ") + m);
    CHECK(group_order(html) == all);
    const size_t folded = html.find("<details class=\"sweep-constant\" id=\"sweep-constant\"><summary><h3>The same at every "
                                    "point: 4 metrics</h3></summary>");
    REQUIRE(folded != std::string::npos);
    CHECK(html.find("data-kernel=\"c\"") > folded);
    CHECK(html.find("data-kernel=\"a\"") < folded);
}
