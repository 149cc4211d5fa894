// Names shortened, no two alike: short_names.h.
#include "sc_main/record/short_names.h"

#include <map>
#include <set>

namespace gpuvp {

namespace {

bool starts_char(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// The byte offset of character `n` of `s` (its size if it has no more).
size_t char_offset(const std::string& s, size_t n) {
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i)
        if (starts_char(s[i]) && seen++ == n) return i;
    return s.size();
}

}  // namespace

std::string text_head(const std::string& s, size_t n) { return s.substr(0, char_offset(s, n)); }
std::string text_tail(const std::string& s, size_t n) {
    const size_t chars = text_chars(s);
    return n >= chars ? s : s.substr(char_offset(s, chars - n));
}

size_t text_chars(const std::string& s) {
    size_t n = 0;
    for (char c : s) n += starts_char(c);
    return n;
}

std::vector<std::string> short_names(const std::vector<std::string>& names, size_t width) {
    std::vector<size_t> kept(names.size(), 0);  // how many of each name's last characters it keeps
    std::vector<size_t> chars(names.size());
    for (size_t i = 0; i < names.size(); ++i) chars[i] = text_chars(names[i]);
    auto shorten = [&](size_t i) {
        const std::string& n = names[i];
        if (chars[i] <= width) return n;
        return text_head(n, width - 1 - kept[i]) + "~" + text_tail(n, kept[i]);
    };
    std::vector<std::string> out(names.size());
    for (;;) {
        std::map<std::string, std::vector<size_t>> alike;
        for (size_t i = 0; i < names.size(); ++i) alike[out[i] = shorten(i)].push_back(i);
        bool again = false;
        for (const auto& [label, group] : alike)
            if (group.size() > 1)
                for (size_t i : group)
                    if (chars[i] > width && kept[i] + 3 < width) {  // (a head of at least one character)
                        ++kept[i];
                        again = true;
                    }
        if (!again) break;
    }
    // Still alike: numbered, each number the first that gives a label no other has.
    std::map<std::string, size_t> count;
    for (const std::string& s : out) ++count[s];
    std::set<std::string> used;
    for (const std::string& s : out)
        if (count[s] == 1) used.insert(s);
    for (size_t i = 0; i < out.size(); ++i) {
        if (count[out[i]] == 1) continue;
        for (size_t k = 1;; ++k) {
            const std::string n = "~" + std::to_string(k);
            const std::string label = (chars[i] + n.size() <= width ? names[i] : text_head(names[i], width - n.size())) + n;
            if (used.insert(label).second) {
                out[i] = label;
                break;
            }
        }
    }
    return out;
}

}  // namespace gpuvp
