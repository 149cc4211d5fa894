// JSON text appended straight to a string, byte for byte as nlohmann's dump() writes the same
// value: trace.json's writer (trace_record.cpp) and results.json's (fields::append_json) write
// member by member, with no json document built and dumped in between.
#pragma once
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace gpuvp {

// A string, quoted and escaped as dump() escapes it. ASCII is done here; text with other bytes
// goes through dump() itself (which checks its UTF-8).
inline void append_json_string(std::string& out, std::string_view s) {
    bool plain = true;  // nothing to escape: copied in one piece
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x80) {
            out += nlohmann::json(std::string(s)).dump();
            return;
        }
        plain = plain && c >= 0x20 && c != '"' && c != '\\';
    }
    out += '"';
    if (plain) {
        out.append(s);
        out += '"';
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

// A double as dump() writes it: null when not finite, else the digits of nlohmann's own
// to_chars (the function dump() calls: the shortest that read back exactly, ".0" on a whole
// number).
inline void append_json_number(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    char b[64];
    const char* end = nlohmann::detail::to_chars(b, b + sizeof b, v);
    out.append(b, size_t(end - b));
}

}  // namespace gpuvp
