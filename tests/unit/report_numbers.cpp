// The report's numbers (sc_main/report/svg.h): fmt writes what printf's "%.*f" writes of the
// value rounded to that many decimals, whichever way it gets there.
#include "sc_main/report/svg.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using gpuvp::report::duration;
using gpuvp::report::fmt;
using gpuvp::report::px;

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
    CHECK(duration(0) == "0.000 ns");
    CHECK(duration(2618.337) == "2.618 µs");
    CHECK(duration(187000) == "187.0 µs");
    CHECK(duration(999.96) == "1.000 µs");  // (rounded into the next unit, not "1000.0 ns")
    CHECK(duration(12840279000.0) == "12.84 s");
    CHECK(duration(-45000000) == "-45.00 ms");
    CHECK(duration(1234.5e9) == "1\u202f234.5 s");
    CHECK(duration(NAN) == "–");
}
