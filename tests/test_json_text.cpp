// platform/json_text.h: the trace's JSON text, written piece by piece, must be byte for byte
// what nlohmann's dump() writes for the same value (trace.json stays identical).
#include "platform/json_text.h"

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

TEST_CASE("an object's members are written as an ordered_json's dump() writes them", "[trace][json]") {
    using nlohmann::ordered_json;
    gpuvp::JsonObjectText t;
    t.add("block", uint64_t(18446744073709551615ull)).add("warp", uint32_t(7)).add("delta", int64_t(-42));
    t.add("on", true).add("off", false).add("wait_ns", 12.5).add("whole", 3.0).add("nan", std::nan(""));
    t.add("word", std::string("0x8000\"0001")).add("flag", "01").add("tab\tkey", "x");
    ordered_json j;
    j["block"] = uint64_t(18446744073709551615ull);
    j["warp"] = uint32_t(7);
    j["delta"] = int64_t(-42);
    j["on"] = true;
    j["off"] = false;
    j["wait_ns"] = 12.5;
    j["whole"] = 3.0;
    j["nan"] = std::nan("");
    j["word"] = "0x8000\"0001";
    j["flag"] = "01";
    j["tab\tkey"] = "x";
    CHECK(t.text() == j.dump());
    CHECK(gpuvp::JsonObjectText().text().empty());  // no member: no arguments at all
}
