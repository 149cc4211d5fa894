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
