// JSON text appended straight to a string, byte for byte as nlohmann's dump() writes the same
// value: trace.json's writer (trace_record.cpp) and results.json's (fields::append_json) write
// member by member, with no json document built and dumped in between.
#pragma once
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace gpuvp {

// A string, quoted and escaped as dump() escapes it. ASCII is done here; text with other bytes
// goes through dump() itself (which checks its UTF-8).
inline void append_json_string(std::string& out, std::string_view s) {
    // Nothing to escape (the usual case: names, keys) is copied in one piece. Eight bytes at a
    // time: any byte >= 0x80, < 0x20, '"' or '\\' in them (exact: no byte is missed or made up).
    constexpr uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    auto zero_byte = [](uint64_t x) { return (x - ones) & ~x & high; };
    size_t i = 0;
    bool plain = true;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t v;
        std::memcpy(&v, s.data() + i, 8);
        if ((v & high) | ((v - ones * 0x20) & ~v & high) | zero_byte(v ^ (ones * '"')) | zero_byte(v ^ (ones * '\\'))) {
            plain = false;
            break;
        }
    }
    for (; plain && i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
    }
    out += '"';
    if (plain) {
        out.append(s);
        out += '"';
        return;
    }
    for (const char ch : s)
        if (static_cast<unsigned char>(ch) >= 0x80) {
            out.pop_back();
            out += nlohmann::json(std::string(s)).dump();
            return;
        }
    for (const char ch : s) {
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\f': out += "\\f"; break;
        case '\r': out += "\\r"; break;
        default:
            if (static_cast<unsigned char>(ch) <= 0x1F) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
                out += b;
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

// The integer `units` with a decimal point `decimals` digits from its right (5 at 2: "0.05",
// at least one digit before the point), after a '-' when `negative`.
inline void append_decimal(std::string& out, uint64_t units, int decimals, bool negative) {
    char b[32], *e = b + sizeof b, *p = e;
    for (int d = 0; d <= decimals || units > 0; ++d) {
        if (d == decimals && d > 0) *--p = '.';
        *--p = char('0' + units % 10);
        units /= 10;
    }
    if (negative) *--p = '-';
    out.append(p, size_t(e - p));
}

// A double as dump() writes it: null when not finite, else the digits of nlohmann's own
// to_chars (the function dump() calls: the shortest that read back exactly, ".0" on a whole
// number). Most of the records' numbers are times with at most three decimals (ns to the ps,
// us to the ns): below 2^50 thousandths such a value's shortest digits are those of its
// thousandths, written here without to_chars (tests/unit/run_record.cpp holds them to it).
inline void append_json_number(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    const double k = std::round(v * 1000);
    if (std::abs(k) < 1125899906842624.0 && k / 1000 == v && v != 0) {
        uint64_t u = uint64_t(std::abs(k));
        int decimals = 3;
        while (decimals > 0 && u % 10 == 0) u /= 10, --decimals;  // no trailing zeros
        append_decimal(out, u, decimals, k < 0);
        if (decimals == 0) out += ".0";  // a whole number
        return;
    }
    char b[64];
    const char* end = nlohmann::detail::to_chars(b, b + sizeof b, v);
    out.append(b, size_t(end - b));
}

}  // namespace gpuvp
