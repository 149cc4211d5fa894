// Fuzz target `traces`: the input is a profiler trace's bytes as read_profiler_trace takes a
// file: gunzipped if gzip's magic starts it (gunzip_if_gzip), then read by the reader its
// trace_format names (an SQLite database's bytes: parse_database); text of neither format goes
// to the Kineto and rocprofv3 readers, which must refuse it cleanly, and to not_a_scenario
// (what `gpuvp run` says of it: nothing for text that is not JSON). A rocprofv3 input may carry
// its hip_api_trace.csv after a form feed (\f).
//
// Defined outcomes: a ProfilerTrace or a TraceError. A bug: any other exception, a crash, a
// sanitizer report, a hang; or a trace read that breaks what the readers promise: at least one
// kernel; ops, calls and syncs in start order; nothing ending before it starts; grids and
// blocks of at least 1 in each dimension; shapes_defaulted the count of defaulted kernels;
// Kineto offsets inside the text, each at a '{'. And parse_decimal of the input's first line
// at scales 0 and 3 agrees: one is the other times 1000, within the rounding.
// A trace read goes on to the importer (load_trace_scenario: the scenario document `gpuvp import`
// writes, read by the loader): a Scenario, a TraceError or a ScenarioError; a kernel the
// platform cannot hold is skipped (--skip-unfit), so a trace's other work still gets there.
// --expect-clean (replay only): every input must read as a trace; the seeds are checked this way.
#include "fuzz/trace_checks.h"
#include "sc_main/profiler/profiler_trace.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace {

bool expect_clean = false;

[[noreturn]] void bug(const std::string& what) { gpuvp::fuzz::bug("fuzz_traces", what); }

void check(const gpuvp::ProfilerTrace& t, const std::string& text) { gpuvp::fuzz::check_trace("fuzz_traces", t, &text); }

// The input's first line read as a decimal at two scales.
void check_decimal(const std::string& text) {
    const std::string line = text.substr(0, std::min(text.find('\n'), size_t(64)));
    const std::optional<int64_t> units = gpuvp::parse_decimal(line, 0), milli = gpuvp::parse_decimal(line, 3);
    if (milli && !units) bug("parse_decimal reads \"" + line + "\" at scale 3 but not at scale 0");
    if (units && milli) {
        const __int128 diff = __int128(*units) * 1000 - *milli;
        if (diff > 500 || diff < -500) bug("parse_decimal reads \"" + line + "\" differently at scales 0 and 3");
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::strcmp((*argv)[i], "--expect-clean") == 0) expect_clean = true;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    check_decimal(bytes);
    std::string error;
    bool read = false;
    try {
        const std::string text = gpuvp::gunzip_if_gzip(bytes, "fuzz.trace");
        const gpuvp::TraceFormat format = gpuvp::trace_format(text);
        auto try_read = [&](auto parse) {
            try {
                const gpuvp::ProfilerTrace t = parse();
                check(t, text);
                read = true;
                gpuvp::fuzz::import_trace(t);
            } catch (const gpuvp::TraceError& e) {
                error = e.what();
            }
        };
        if (format == gpuvp::TraceFormat::sqlite) try_read([&] { return gpuvp::parse_database(text, "fuzz.sqlite"); });
        if (format == gpuvp::TraceFormat::rocprofv3_json)
            try_read([&] { return gpuvp::parse_rocprofv3_json(text, "fuzz_results.json"); });
        if (format == gpuvp::TraceFormat::kineto || format == gpuvp::TraceFormat::none)
            try_read([&] { return gpuvp::parse_kineto(text, "fuzz.json"); });
        if (format == gpuvp::TraceFormat::rocprofv3 || format == gpuvp::TraceFormat::none) {
            const size_t split = text.find('\f');
            const std::string kernels = text.substr(0, split);
            const std::string api = split == std::string::npos ? std::string() : text.substr(split + 1);
            try_read([&] { return gpuvp::parse_rocprofv3(kernels, "fuzz_kernel_trace.csv", api, "fuzz_hip_api_trace.csv"); });
        }
        if (format == gpuvp::TraceFormat::none && read && expect_clean) bug("a seed of neither format reads as a trace");
        if (format == gpuvp::TraceFormat::none) {  // what gpuvp run says of a file that is not a trace: a defined answer
            const std::string why = gpuvp::not_a_scenario(text);
            const size_t first = text.find_first_not_of(" \t\r\n");
            const bool json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
            if (!json && !why.empty()) bug("not_a_scenario refused text that is not JSON: " + why);
        }
    } catch (const gpuvp::TraceError& e) {  // a broken gzip stream
        error = e.what();
    } catch (const std::exception& e) {
        bug(std::string("unexpected exception: ") + e.what());
    }
    if (expect_clean && !read) bug("a seed does not read as a trace: " + error);
    return 0;
}
