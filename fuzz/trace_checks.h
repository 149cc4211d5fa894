// What the trace readers promise of every ProfilerTrace they return, checked by the fuzz targets
// that read traces (traces, databases): at least one kernel or CUDA graph; ops, calls and syncs
// in start order; nothing ending before it starts; grids and blocks of at least 1 in each
// dimension; shapes_defaulted the count of defaulted kernels; Kineto offsets inside the text,
// each at a '{'.
#pragma once
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/scenario/trace_scenario.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpuvp::fuzz {

[[noreturn]] inline void bug(const char* target, const std::string& what) {
    std::fprintf(stderr, "%s: BUG: %s\n", target, what.c_str());
    std::abort();
}

template <class V>
void check_order(const char* target, const V& v, const char* what) {
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].end_ns < v[i].start_ns) bug(target, std::string(what) + " ending before it starts");
        if (i > 0 && v[i].start_ns < v[i - 1].start_ns) bug(target, std::string(what) + " out of start order");
    }
}

// `text`: a Kineto trace's text, for its offsets (nullptr: not checked).
inline void check_trace(const char* target, const ProfilerTrace& t, const std::string* text) {
    uint64_t work = 0, defaulted = 0;
    for (const TraceGpuOp& op : t.ops) {
        work += op.kind == TraceGpuOp::Kind::graph;
        if (op.kind != TraceGpuOp::Kind::kernel) continue;
        ++work;
        defaulted += op.shape_defaulted;
        for (size_t d = 0; d < 3; ++d)
            if (op.grid[d] == 0 || op.block[d] == 0) bug(target, "a kernel with a grid or block of 0");
        if (text && t.format == ProfilerTrace::Format::kineto && (op.offset >= text->size() || (*text)[op.offset] != '{'))
            bug(target, "a kernel's offset is not where its event starts");
    }
    if (work == 0) bug(target, "a trace without kernels was read");
    if (defaulted != t.shapes_defaulted) bug(target, "shapes_defaulted is not the count of defaulted shapes");
    check_order(target, t.ops, "an op");
    check_order(target, t.calls, "a call");
    check_order(target, t.syncs, "a sync record");
}

// A trace read goes on to the importer as `gpuvp import --skip-unfit` takes it (the formula's
// bodies: the solve simulates, and a fuzz input must not): a Scenario, a ScenarioError (a value
// the loader refuses: a defined outcome, swallowed) or a TraceError (thrown to the caller).
inline void import_trace(const ProfilerTrace& t) {
    TraceImportOptions options;
    options.skip_unfit = true;
    try {
        load_trace_scenario(t, options, {});
    } catch (const ScenarioError&) {
    }
}

}  // namespace gpuvp::fuzz
