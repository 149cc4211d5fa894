#include "sc_main/run/vcd.h"
#include <gpuvp/models/common/timing.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gpuvp {

namespace {
// VCD identifiers: printable ASCII from '!' to '~', in base 94.
std::string identifier(size_t n) {
    std::string id;
    do {
        id += char('!' + n % 94);
        n /= 94;
    } while (n);
    return id;
}

std::string value_text(uint64_t v, unsigned width, const std::string& id) {
    if (width == 1) return std::string(v ? "1" : "0") + id;
    std::string bits;
    do {
        bits.insert(bits.begin(), char('0' + (v & 1)));
        v >>= 1;
    } while (v);
    return "b" + bits + " " + id;
}
}  // namespace

uint32_t Vcd::add(const std::string& scope, const std::string& name, unsigned width, bool unknown) {
    Signal s;
    s.scope = scope;
    s.name = name;
    s.id = identifier(signals_.size());
    s.width = width;
    s.unknown = unknown;
    s.known = !unknown;
    signals_.push_back(s);
    return uint32_t(signals_.size() - 1);
}

void Vcd::change(uint32_t signal, uint64_t value, const sc_core::sc_time& t) {
    Signal& s = signals_.at(signal);
    if (s.width < 64) value &= (uint64_t(1) << s.width) - 1;
    if (s.known && value == s.value) return;
    const uint64_t ps = uint64_t(std::llround(to_ns(t) * 1000));
    if (s.last != SIZE_MAX && changes_[s.last].ps == ps) {  // one value per signal and timestamp
        Change& c = changes_[s.last];
        c.value = value;
        c.dropped = s.known_before_last && value == s.before_last;
    } else {
        s.before_last = s.value;
        s.known_before_last = s.known;
        s.last = changes_.size();
        changes_.push_back({ps, signal, value});
    }
    s.value = value;
    s.known = true;
}

std::string Vcd::text() const {
    std::ostringstream o;
    o << "$version gpuvp $end\n$timescale 1ps $end\n";
    // Scopes in the order first declared; nested by their dots.
    std::vector<std::string> open;
    std::vector<size_t> order(signals_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return signals_[a].scope < signals_[b].scope; });
    for (size_t i : order) {
        const Signal& s = signals_[i];
        std::vector<std::string> want;
        std::istringstream parts(s.scope);
        for (std::string p; std::getline(parts, p, '.');) want.push_back(p);
        size_t common = 0;
        while (common < open.size() && common < want.size() && open[common] == want[common]) ++common;
        while (open.size() > common) {
            o << "$upscope $end\n";
            open.pop_back();
        }
        for (size_t k = common; k < want.size(); ++k) {
            o << "$scope module " << want[k] << " $end\n";
            open.push_back(want[k]);
        }
        o << "$var " << (s.width == 1 ? "wire" : "reg") << " " << s.width << " " << s.id << " " << s.name << " $end\n";
    }
    while (!open.empty()) {
        o << "$upscope $end\n";
        open.pop_back();
    }
    o << "$enddefinitions $end\n#0\n$dumpvars\n";
    for (const Signal& s : signals_)
        o << (s.unknown ? (s.width == 1 ? "x" + s.id : "bx " + s.id) : value_text(0, s.width, s.id)) << "\n";
    o << "$end\n";
    std::vector<Change> c = changes_;
    std::stable_sort(c.begin(), c.end(), [](const Change& a, const Change& b) { return a.ps < b.ps; });
    uint64_t at = 0;
    for (const Change& x : c) {
        if (x.dropped) continue;
        if (x.ps != at) o << "#" << x.ps << "\n";
        at = x.ps;
        o << value_text(x.value, signals_[x.signal].width, signals_[x.signal].id) << "\n";
    }
    return o.str();
}

}  // namespace gpuvp
