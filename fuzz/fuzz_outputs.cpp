// Fuzz target `outputs`: the input is the text of a results.json or a trace.json, as
// `gpuvp report DIR` reads them: read_results on its JSON document, read_trace on the text,
// and the page rendered from what was read; or of a Slurm batch's batch.json, as `gpuvp
// collect DIR` reads it (parse_batch).
//
// Defined outcomes: a record, or an error (nlohmann's parse_error with its byte offset, a
// fields::FieldError naming the member, read_trace's false with its message, a SlurmError). A bug: any other
// exception, a crash, a sanitizer report, a hang; or a record read that does not write back to
// text that reads to the same record (results_text and trace_text of what was read).
// read_chrome's own pass over the text gpuvp writes must read what the general parser reads
// (detail::read_chrome_parsed): the same events, or the same error.
// --expect-clean (replay only): every input must read as one or the other; the seeds are
// checked this way.
#include "sc_main/cluster/slurm.h"
#include "sc_main/record/chrome_trace.h"
#include "sc_main/record/run_record.h"
#include "sc_main/record/trace_record.h"
#include "sc_main/report/report.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <variant>

namespace {

bool expect_clean = false;

[[noreturn]] void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz_outputs: BUG: %s\n", what.c_str());
    std::abort();
}

// The same bits (a double's sign and all), the same types.
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_args(const std::vector<gpuvp::ChromeArg>& a, const std::vector<gpuvp::ChromeArg>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
        const gpuvp::ChromeValue &v = a[k].value, &w = b[k].value;
        const double* dv = std::get_if<double>(&v);
        const double* dw = std::get_if<double>(&w);
        if (a[k].key != b[k].key || v.index() != w.index() || (dv ? !same_double(*dv, *dw) : v != w)) return false;
    }
    return true;
}

bool same_trace(const gpuvp::ChromeTrace& a, const gpuvp::ChromeTrace& b) {
    if (!same_args(a.other, b.other) || a.events.size() != b.events.size()) return false;
    for (size_t i = 0; i < a.events.size(); ++i) {
        const gpuvp::ChromeEvent &x = a.events[i], &y = b.events[i];
        if (x.name != y.name || x.cat != y.cat || x.ph != y.ph || !same_double(x.ts_us, y.ts_us) ||
            !same_double(x.dur_us, y.dur_us) || x.pid != y.pid || x.tid != y.tid || !same_args(x.args, y.args))
            return false;
    }
    return true;
}

int finish(bool read_any, const std::string& error) {
    if (expect_clean && !read_any) bug("a seed reads as neither results nor a trace: " + error);
    return 0;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::strcmp((*argv)[i], "--expect-clean") == 0) expect_clean = true;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    bool read_any = false;
    gpuvp::TraceRecord trace;
    std::string error;
    const bool is_trace = gpuvp::read_trace(text, trace, &error);
    {
        gpuvp::ChromeTrace fast, parsed;
        std::string fast_error, parsed_error;
        const bool is_fast = gpuvp::read_chrome(text, fast, &fast_error);
        const bool is_parsed = gpuvp::detail::read_chrome_parsed(text, parsed, &parsed_error);
        if (is_parsed != is_fast || (is_fast ? !same_trace(fast, parsed) : parsed_error != fast_error))
            bug("read_chrome and the general parser read the text differently");
        if (is_fast != is_trace || fast_error != error) bug("read_trace and read_chrome disagree on whether it is a trace");
    }
    if (is_trace) {
        read_any = true;
        const std::string again = gpuvp::trace_text(trace);
        gpuvp::TraceRecord back;
        if (!gpuvp::read_trace(again, back, &error)) bug("trace_text of a read trace does not read: " + error);
        if (gpuvp::trace_text(back) != again) bug("a trace does not write back to the same text");
    } else if (error.empty()) {
        bug("read_trace refused a text without saying why");
    }
    try {  // a batch.json: it writes back to the text it reads from
        const gpuvp::SlurmBatch b = gpuvp::parse_batch(text, "batch.json");
        read_any = true;
        const std::string again = gpuvp::batch_text(b);
        if (gpuvp::batch_text(gpuvp::parse_batch(again, "again")) != again) bug("a batch does not write back to the same text");
    } catch (const gpuvp::SlurmError&) {  // not a batch: named
    } catch (const std::exception& e) {
        bug(std::string("unexpected exception from parse_batch: ") + e.what());
    }
    nlohmann::ordered_json document;
    try {
        document = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error&) {   // not JSON: named by its byte offset
        return finish(read_any, error);
    } catch (const nlohmann::json::out_of_range&) {  // a number JSON allows and a double cannot hold (1e1400)
        return finish(read_any, error);
    }
    try {
        const gpuvp::RunRecord r = gpuvp::read_results(document);
        read_any = true;
        const std::string again = gpuvp::results_text(r);
        if (gpuvp::results_text(gpuvp::read_results(nlohmann::ordered_json::parse(again))) != again)
            bug("results do not write back to the same text");
        (void)gpuvp::render_report(r, {is_trace ? &trace : nullptr});
    } catch (const gpuvp::fields::FieldError&) {  // not results: the member named
    } catch (const std::exception& e) {
        bug(std::string("unexpected exception: ") + e.what());
    }
    return finish(read_any, error);
}
