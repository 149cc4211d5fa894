// Names shortened for a column or a chart's row labels, no two alike: the console's kernel
// columns and report.html's kernel labels print the same short name for a kernel.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace gpuvp {

// Each name in at most `width` (4 or more) characters (UTF-8: a character is never split), no two
// alike: a name that fits as it is; a longer one cut, '~' at its end; where two of them cut alike,
// each of those keeps its head, '~' and as much of its tail as tells them apart (numbered, "~1",
// "~2", ..., each the first number that gives a label no other has, if nothing does).
std::vector<std::string> short_names(const std::vector<std::string>& names, size_t width);

// Characters of UTF-8 text (its width in a fixed-width column).
size_t text_chars(const std::string& s);
// The first `n` characters of UTF-8 `s`, and its last `n` (a character is never split).
std::string text_head(const std::string& s, size_t n);
std::string text_tail(const std::string& s, size_t n);

}  // namespace gpuvp
