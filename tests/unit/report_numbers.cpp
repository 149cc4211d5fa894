// The report's numbers and scales (sc_main/report/svg.h): fmt writes what printf's "%.*f" writes
// of the value rounded to that many decimals, whichever way it gets there; times for people; the
// units and ticks of an axis; the log scale of the host stage.
#include "sc_main/report/svg.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using gpuvp::report::duration;
using gpuvp::report::fmt;
using gpuvp::report::group_thousands;
using gpuvp::report::log_axis;
using gpuvp::report::log_scale;
using gpuvp::report::LogScale;
using gpuvp::report::px;
using gpuvp::report::Scale;
using gpuvp::report::time_unit;
using gpuvp::report::x_axis;

namespace {

std::string printf_fixed(double v, int decimals) {
    const double m = std::pow(10.0, decimals);
    v = std::round(v * m) / m;
    if (v == 0) v = 0;  // -0
    char b[512];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

}  // namespace

TEST_CASE("report: numbers are written as printf writes them, rounded to their decimals", "[report]") {
    CHECK(fmt(0, 1) == "0.0");
    CHECK(fmt(-0.0, 2) == "0.00");
    CHECK(fmt(-0.04, 1) == "0.0");
    CHECK(fmt(0.05, 2) == "0.05");
    CHECK(fmt(-1.25, 1) == printf_fixed(-1.25, 1));
    CHECK(fmt(123456.789, 0) == "123457");
    CHECK(fmt(1e300, 2) == printf_fixed(1e300, 2));  // (past 2^52: the long way)
    CHECK(fmt(NAN, 1) == "–");
    CHECK(px(12.0) == "12");
    CHECK(px(12.25) == printf_fixed(12.25, 1));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::uniform_int_distribution<int> exponent(-8, 17), decimals(0, 8);
    for (int i = 0; i < 200000; ++i) {
        const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
        const int d = decimals(rng);
        const std::string want = printf_fixed(v, d);
        if (fmt(v, d) != want) FAIL_CHECK("fmt(" << v << ", " << d << ") = " << fmt(v, d) << ", printf: " << want);
    }
}

TEST_CASE("report: a time for people in ns, µs, ms or s with four significant digits", "[report]") {
    CHECK(duration(0) == "0 ns");  // (a queue wait of nothing: no digits to give)
    CHECK(duration(0.0004) == "0.000 ns");
    CHECK(duration(2618.337) == "2.618 µs");
    CHECK(duration(187000) == "187.0 µs");
    CHECK(duration(999.96) == "1.000 µs");  // (rounded into the next unit, not "1000.0 ns")
    CHECK(duration(12840279000.0) == "12.84 s");
    CHECK(duration(-45000000) == "-45.00 ms");
    CHECK(duration(1234.5e9) == "1\u202f234.5 s");
    CHECK(duration(NAN) == "–");
}

TEST_CASE("report: an axis's unit holds 20 of the span, its long numbers in groups of three", "[report]") {
    CHECK(time_unit(19999).name == "ns");
    CHECK(time_unit(20000).name == "µs");
    CHECK(time_unit(19.9e6).name == "µs");
    CHECK(time_unit(20e6).name == "ms");
    CHECK(time_unit(12.92e9).name == "ms");
    CHECK(time_unit(20e9).name == "s");
    CHECK(time_unit(20e9).div == 1e9);
    CHECK(group_thousands("9999") == "9999");  // four digits as they are
    CHECK(group_thousands("12000") == "12\u202f000");
    CHECK(group_thousands("-1234567.25") == "-1\u202f234\u202f567.25");
    CHECK(group_thousands("0.5") == "0.5");
    // The axis writes its ticks so.
    const std::string axis = x_axis(Scale{0, 12.92e6, 92, 1224}, time_unit(12.92e6), 0, 100, "t");
    CHECK(axis.find(">12\u202f000</text>") != std::string::npos);
    CHECK(axis.find("t (µs)") != std::string::npos);
}

TEST_CASE("report: a log scale over whole decades, a tick at each power of ten", "[report]") {
    const LogScale s = log_scale(7600, 3.06e9, 100, 400);  // 7.6 µs to 3.06 s: 1 µs to 10 s
    CHECK(s.lo == 1000);
    CHECK(s.hi == 1e10);
    CHECK(s(1000) == 100);
    CHECK(s(1e10) == Approx(400));
    CHECK(s(1e5) == Approx(100 + 300.0 * 2 / 7));
    CHECK(s(10) == 100);      // under the scale: at its start
    CHECK(s(1e12) == 400);    // over it: at its end
    const LogScale one = log_scale(5000, 5000, 0, 100);  // one value: its decade
    CHECK(one.lo == 1000);
    CHECK(one.hi == 10000);
    const LogScale power = log_scale(1000, 1000, 0, 100);  // a power of ten: a decade under it, so it has a length
    CHECK(power.lo == 100);
    CHECK(power.hi == 1000);
    CHECK(power(1000) == Approx(100));
    const std::string axis = log_axis(s, 0, 50, "host");
    for (const char* label : {">1 µs<", ">10 µs<", ">100 µs<", ">1 ms<", ">10 ms<", ">100 ms<", ">1 s<", ">10 s<"})
        CHECK(axis.find(label) != std::string::npos);
    CHECK(axis.find(">host</text>") != std::string::npos);
}
