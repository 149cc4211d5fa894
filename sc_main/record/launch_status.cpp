#include "sc_main/record/launch_status.h"

#include <charconv>

namespace gpuvp {

namespace {

constexpr std::string_view kNotProcessed = "not processed: ";
constexpr std::string_view kUnfinished = "did not complete";
constexpr std::string_view kOf = " of ", kInstances = " instances did not end ok; the first, instance ";

std::string_view lead(LaunchStatus::State s) {
    switch (s) {
        case LaunchStatus::State::ok: return "ok";
        case LaunchStatus::State::failed: return "";
        case LaunchStatus::State::not_processed: return kNotProcessed;
        case LaunchStatus::State::unfinished: return kUnfinished;
    }
    return "";
}

// A decimal number at the start of `text`, taken off it; false (text as it was) without one.
bool take_number(std::string_view& text, uint64_t& n) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end == text.data()) return false;
    text.remove_prefix(size_t(end - text.data()));
    return true;
}

bool take(std::string_view& text, std::string_view word) {
    if (text.substr(0, word.size()) != word) return false;
    text.remove_prefix(word.size());
    return true;
}

}  // namespace

void LaunchStatus::note(const std::string& more) {
    if (state == State::ok) {
        state = State::failed;
        detail = "ok";
    }
    detail += "; " + more;
}

std::string LaunchStatus::text() const {
    std::string own = std::string(lead(state)) + detail;
    if (!instances) return own;
    return std::to_string(instances->not_ok) + std::string(kOf) + std::to_string(instances->count) + std::string(kInstances) +
           std::to_string(instances->first) + ": " + own;
}

LaunchStatus LaunchStatus::from_text(std::string_view text) {
    LaunchStatus s;
    std::string_view rest = text;
    Instances in;
    if (take_number(rest, in.not_ok) && take(rest, kOf) && take_number(rest, in.count) && take(rest, kInstances) &&
        take_number(rest, in.first) && take(rest, ": ")) {
        s.instances = in;
        text = rest;
    }
    if (text == "ok") return s;
    rest = text;
    if (take(rest, kNotProcessed)) s.state = State::not_processed;
    else if (take(rest, kUnfinished)) s.state = State::unfinished;
    else s.state = State::failed;
    s.detail = std::string(rest);
    return s;
}

}  // namespace gpuvp
