// sc_main/record/json_text.h: the trace's JSON text, written piece by piece, must be byte for byte
// what nlohmann's dump() writes for the same value (trace.json stays identical).
#include "sc_main/record/json_text.h"
#include "sc_main/record/chrome_trace.h"
#include "tests/sizes.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace {

std::string as_text(const std::string& s) {
    std::string out = "x";  // appended to what is there
    gpuvp::append_json_string(out, s);
    return out.substr(1);
}

std::string as_number(double v) {
    std::string out = "[";
    gpuvp::append_json_number(out, v);
    return out.substr(1);
}

}  // namespace

TEST_CASE("strings are quoted and escaped as dump() does", "[trace][json]") {
    for (int c = 0; c < 0x80; ++c) {
        const std::string s = "a" + std::string(1, char(c)) + "b";
        INFO("byte " << c);
        CHECK(as_text(s) == nlohmann::json(s).dump());
    }
    for (const std::string& s : {std::string(), std::string("plain"), std::string("\"quoted\" \\ back\\slash"),
                                std::string("tab\tnew\nline\r\f\b"), std::string(1, '\0') + "nul", std::string("\x1f\x7f"),
                                std::string("naïve café"), std::string("kernel \xF0\x9F\x9A\x80 rocket"),
                                std::string("mixed \x01 and é")}) {
        INFO(s);
        CHECK(as_text(s) == nlohmann::json(s).dump());
    }
    // Text that is not UTF-8 is refused, as dump() refuses it.
    CHECK_THROWS_AS(as_text("bad \xC3"), nlohmann::json::type_error);
}

TEST_CASE("numbers are written as dump() writes a double", "[trace][json]") {
    const double special[] = {0.0, -0.0, 1.0, -1.0, 1.5, 0.1, 1e-7, 1e-5, 123456.789012, 5.226086, 1e15, 1e16, 1e21,
                              1e300, -2.5e-300, std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};
    for (double v : special) {
        INFO(v);
        CHECK(as_number(v) == nlohmann::json(v).dump());
    }
    for (double v : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
        CHECK(as_number(v) == "null");
    // Trace times (microseconds rounded to whole picoseconds) and arbitrary bit patterns. The
    // digits are nlohmann's own to_chars, as in dump(); what this guards is the wrapper around
    // it (the buffer, the length, null for what is not finite).
    std::mt19937_64 rng(11);
    for (int i = 0; i < 2000; ++i) {
        const double us = double(rng() % 4000000000000ull) / 1e6;
        uint64_t bits = rng();
        double any;
        std::memcpy(&any, &bits, sizeof any);
        INFO(us << " " << any);
        CHECK(as_number(us) == nlohmann::json(us).dump());
        if (std::isfinite(any)) CHECK(as_number(any) == nlohmann::json(any).dump());
    }
}

TEST_CASE("trace.json is written as nlohmann's dump() writes the same document", "[trace][json]") {
    using nlohmann::ordered_json;
    gpuvp::ChromeTrace t;
    gpuvp::ChromeEvent& sort = t.events.emplace_back();  // process-wide metadata: no tid
    sort.name = "process_sort_index";
    sort.ph = 'M';
    sort.pid = 100;
    sort.args.emplace_back("sort_index", 10u);
    gpuvp::ChromeEvent& x = t.events.emplace_back();
    x.name = "k b3 warp \"7\"";
    x.cat = "warp";
    x.ph = 'X';
    x.ts_us = 1.5;
    x.dur_us = 0.25;
    x.pid = 101;
    x.tid = 7;
    x.args = {{"block", uint64_t(18446744073709551615ull)}, {"warp", uint32_t(7)}, {"delta", int64_t(-42)},
              {"on", true}, {"off", false}, {"wait_ns", 12.5}, {"whole", 3.0}, {"nan", std::nan("")},
              {"word", std::string("0x8000\"0001")}, {"flag", "01"}, {"tab\tkey", "x"}};
    gpuvp::ChromeEvent& i = t.events.emplace_back();  // an instant: "s" after its time; no args
    i.name = "irq";
    i.cat = "irq";
    i.ph = 'i';
    i.ts_us = 2;
    i.pid = 1;
    i.tid = 0;
    t.other = {{"detail", "all"}, {"limit", uint64_t(2)}, {"note", "trace full: 3 events dropped"}};

    ordered_json doc;
    doc["traceEvents"] = ordered_json::array();
    doc["traceEvents"].push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", 100}, {"args", {{"sort_index", 10}}}});
    ordered_json args;
    args["block"] = uint64_t(18446744073709551615ull);
    args["warp"] = uint32_t(7);
    args["delta"] = int64_t(-42);
    args["on"] = true;
    args["off"] = false;
    args["wait_ns"] = 12.5;
    args["whole"] = 3.0;
    args["nan"] = std::nan("");
    args["word"] = "0x8000\"0001";
    args["flag"] = "01";
    args["tab\tkey"] = "x";
    doc["traceEvents"].push_back({{"name", "k b3 warp \"7\""}, {"cat", "warp"}, {"ph", "X"}, {"ts", 1.5}, {"dur", 0.25},
                                  {"pid", 101}, {"tid", 7}, {"args", args}});
    doc["traceEvents"].push_back(
        {{"name", "irq"}, {"cat", "irq"}, {"ph", "i"}, {"ts", 2.0}, {"s", "t"}, {"pid", 1}, {"tid", 0}});
    doc["displayTimeUnit"] = "ns";
    doc["otherData"] = {{"detail", "all"}, {"limit", 2}, {"note", "trace full: 3 events dropped"}};
    CHECK(gpuvp::chrome_text(t) == doc.dump() + "\n");
}

TEST_CASE("numbers with at most three decimals, written without to_chars, are dump()'s digits", "[trace][json]") {
    // Every thousandth from -2 000 to 2 000 (ns to the ps, us to the ns), then thousandths of
    // every size up to the fast path's bound (2^50) and just past it (a tenth of each under the
    // sanitizers).
    const int64_t span = gpuvp::test::family_size<int64_t>(2'000'000, 200'000);
    for (int64_t k = -span; k <= span; ++k) {
        const double v = double(k) / 1000;
        if (as_number(v) != nlohmann::json(v).dump()) FAIL_CHECK(k << "/1000: " << as_number(v) << " against " << nlohmann::json(v).dump());
    }
    std::mt19937_64 rng(5);
    for (int64_t i = 0; i < span; ++i) {
        const int64_t k = int64_t(rng() >> (14 + rng() % 50)) * (rng() % 2 ? 1 : -1);
        const double v = double(k) / 1000;
        if (as_number(v) != nlohmann::json(v).dump()) FAIL_CHECK(k << "/1000: " << as_number(v) << " against " << nlohmann::json(v).dump());
        const double whole = double(k >> 10);
        if (as_number(whole) != nlohmann::json(whole).dump()) FAIL_CHECK(whole << ": " << as_number(whole));
    }
    for (double v : {1125899906842.623, 1125899906842.624, 1125899906842.625, 1e12 + 0.5, 0.001, -0.001, 0.0005, 2.5, 440.0})
        CHECK(as_number(v) == nlohmann::json(v).dump());
}

TEST_CASE("strings of every length are escaped as dump() escapes them, wherever the byte to escape sits", "[trace][json]") {
    for (size_t n = 0; n < 40; ++n)
        for (const char bad : {'"', '\\', '\n', '\x01', '\x1f', ' ', '~', '\x7f'})
            for (size_t at = 0; at <= n; ++at) {
                std::string s(n, 'a');
                if (at < n) s[at] = bad;
                INFO(n << " " << at << " " << int(bad));
                CHECK(as_text(s) == nlohmann::json(s).dump());
            }
    std::string utf = std::string(17, 'x') + "é";
    CHECK(as_text(utf) == nlohmann::json(utf).dump());
}
