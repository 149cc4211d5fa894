// JSON text appended straight to a string, byte for byte as nlohmann's dump() writes the same
// value. For the trace, written event by event: a json value built and dumped per piece cost
// allocations and most of trace.json's writing time.
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

// An object's members in the order added, as an ordered_json's dump() writes them:
// {"block":3,"warp":1}. Values: bool, integers, floating point, text. Built in a buffer the
// caller may keep for the next object (its room stays: no allocation while it grows); the
// text handed out is a copy of its exact size.
class JsonObjectText {
public:
    JsonObjectText() : text_(own_) {}
    explicit JsonObjectText(std::string& buffer) : text_(buffer) { text_.clear(); }
    JsonObjectText(const JsonObjectText&) = delete;
    JsonObjectText& operator=(const JsonObjectText&) = delete;

    template <class T>
    JsonObjectText& add(std::string_view key, const T& value) {
        text_ += text_.empty() ? '{' : ',';
        append_json_string(text_, key);
        text_ += ':';
        if constexpr (std::is_same_v<T, bool>) {
            text_ += value ? "true" : "false";
        } else if constexpr (std::is_integral_v<T>) {
            char b[24];
            text_.append(b, size_t(std::to_chars(b, b + sizeof b, value).ptr - b));
        } else if constexpr (std::is_floating_point_v<T>) {
            append_json_number(text_, double(value));
        } else {
            append_json_string(text_, std::string_view(value));
        }
        return *this;
    }
    // The object's text; "" when no member was added (an empty object: no arguments).
    std::string text() {
        if (!text_.empty()) text_ += '}';
        return text_;
    }

private:
    std::string own_;
    std::string& text_;
};

}  // namespace gpuvp
