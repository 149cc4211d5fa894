// Statistics declared once, per block, in the style of gem5's stats groups: a block's
// statistics struct lists its members in a static `fields` function, each with its name, unit
// and meaning,
//
//   struct Stats {
//       STATS_RECORD;
//       uint64_t read_hits = 0;
//       template <class S, class V> static void fields(S& s, V& v) {
//           v("read_hits", s.read_hits, Doc{"count", "reads that hit"});
//       }
//   };
//
// and every reader of them walks that list: results.json's writer and reader, an
// expectation's path, `gpuvp stats` and docs/results.md (sc_main/record/fields.h).
#pragma once
#include <string_view>
#include <type_traits>

namespace gpuvp {

// What a statistic means: its unit ("ns", "count", "fraction", "", ...) and a sentence; and
// whether an expectation may name it as a metric of the entry that holds it (`metric: NAME`
// with `kernel:` or `draw:`).
struct Doc {
    const char* unit = "";
    const char* text = "";
    bool metric = false;
};

// Doc's third member, spelled out: `{"ns", "submit -> first warp running", kMetric}`.
inline constexpr bool kMetric = true;

}  // namespace gpuvp

// Marks a struct whose members its `fields` function lists.
#define STATS_RECORD using record_tag = void

namespace gpuvp {

// A record whose section holds a block's statistics among its own lists the block's member
// `name` where the section has it, under the name `as` (the block's name if none), with the
// block's unit and meaning: `pick(s.counts, v, "acquisitions")`.
template <class V>
struct PickField {
    V& v;
    std::string_view name, as;
    template <class M>
    void operator()(std::string_view n, M& m, const Doc& doc = {}) {
        if (n == name) v(as, m, doc);
    }
};
template <class B, class V>
void pick(B& block, V& v, const char* name, const char* as = nullptr) {
    PickField<V> p{v, name, as ? as : name};
    std::remove_const_t<B>::fields(block, p);
}

}  // namespace gpuvp
