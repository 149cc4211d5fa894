// report.html: one self-contained page (inline CSS, SVG and script, no external reference) built from a run's record and trace records. docs/report.md describes what it
// shows. The page's pieces, in this folder: svg.cpp (drawing), timeline.cpp, sections.cpp,
// replay.cpp, variants.cpp, style.cpp (CSS), script.cpp (zoom); this file assembles them and reads the files.
#include "sc_main/report/report.h"
#include "sc_main/record/files.h"
#include "sc_main/report/page.h"

#include <algorithm>
#include <fstream>
#include <future>
#include <sstream>

namespace gpuvp {

std::string render_report(const RunRecord& results, const std::vector<const TraceRecord*>& traces) {
    using namespace report;
    Page p{results, {}, {}, {}, false};
    p.variants = results.variants && !results.variants->empty();
    // Kernel colours: results order (every variant's), then whatever the traces add.
    for (const KernelRecord& k : results.kernels) p.kernels.id(k.name);
    if (p.variants)
        for (const VariantEntry& v : *results.variants) {
            p.variant_names.push_back(v.name);
            for (const KernelRecord& k : v.results.kernels) p.kernels.id(k.name);
        }
    const size_t n = p.variants ? p.variant_names.size() : 1;
    for (size_t i = 0; i < n; ++i) p.traces.push_back(view_trace(i < traces.size() ? traces[i] : nullptr, p.kernels));

    // The warp bars' budget: the one trace's, or shared by the variants in proportion to their warps.
    std::vector<size_t> counts;
    for (const TraceView& t : p.traces) counts.push_back(t.warps);
    size_t total = 0;
    for (size_t c : counts) total += c;
    std::vector<size_t> limits;
    for (size_t c : counts)
        limits.push_back(total <= kWarpRectLimit ? c : std::max<size_t>(1, size_t(double(kWarpRectLimit) * double(c) / double(total))));

    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>gpuvp report: "
      << esc(results.scenario) << "</title><style>" << kStyle << "</style></head><body>\n";
    // The answer first: the status and expectations, a replay's model against the hardware, the
    // variants side by side, the launch stages; then the timelines and each mechanism's section.
    h << "<nav><a href=\"#summary\">Summary</a><a href=\"#expectations-heading\">Expectations</a>";
    if (results.replay) h << "<a href=\"#replay\">Replay</a>";
    if (p.variants) h << "<a href=\"#variants\">Variants</a>";
    h << "<a href=\"#launch-stages\">Launch stages</a><a href=\"#timeline\">Timeline</a><a href=\"#locks\">Locks</a>"
         "<a href=\"#scalar\">Scalar registers</a><a href=\"#shading\">Shading array</a></nav>\n<main>\n";
    h << section_header(p);
    std::vector<Bound> vbounds;
    Bound tbound, sbound, rbound;
    h << section_replay(p, rbound);
    if (p.variants) h << section_variants(p, limits, vbounds);
    h << section_stages(p);
    h << section_timeline(p, limits[0], tbound);
    h << section_locks(p);
    h << section_scalar(p);
    h << section_shading(p, sbound);
    h << "<footer>Made by gpuvp from results.json and trace.json. Times are simulated; hover a bar or an area for its "
         "numbers. This page loads nothing: no font, no link outside itself; its one script, inside it, zooms the charts "
         "over time and opens and closes the sections.</footer>\n</main><script>"
      << kScript << "</script></body></html>\n";
    return h.str();
}


namespace {

// results.json at `path` as a record; false with `error` saying what is wrong.
bool read_results_file(const std::string& path, RunRecord& out, std::string* error) {
    std::string text;
    if (!read_file(path, text)) {
        if (error) *error = "cannot read " + path;
        return false;
    }
    try {
        out = read_results(fields::json::parse(text));
    } catch (const nlohmann::json::parse_error& e) {
        if (error) *error = path + ": not JSON at byte " + std::to_string(e.byte) + ": " + e.what();
        return false;
    } catch (const std::exception& e) {  // fields::FieldError: the member and what is wrong with it
        if (error) *error = path + ": " + e.what();
        return false;
    }
    return true;
}

// A variant whose name is not a plain folder name has no trace folder.
bool has_folder(const std::string& variant) {
    return !variant.empty() && variant != "." && variant != ".." && variant.find('/') == std::string::npos;
}

}  // namespace

bool write_report(const std::string& dir, const RunRecord& results, const std::vector<ReportTrace>& given,
                  std::string* error) {
    const size_t n = given.size();
    std::vector<TraceRecord> read(n);
    std::vector<const TraceRecord*> traces(n, nullptr);
    // The texts are parsed each on a thread of its own (they are independent; the page waits for
    // all of them).
    std::vector<std::future<bool>> parsing(n);
    for (size_t i = 0; i < n; ++i)
        if (given[i].record) traces[i] = given[i].record;
        else if (given[i].text && !given[i].text->empty())
            parsing[i] = std::async(std::launch::async, [&, i] { return read_trace(*given[i].text, read[i], nullptr); });
    for (size_t i = 0; i < n; ++i)
        if (parsing[i].valid() && parsing[i].get()) traces[i] = &read[i];
    std::ofstream out(dir + "/report.html", std::ios::binary);
    out << render_report(results, traces);
    if (!out.flush()) {
        if (error) *error = "cannot write " + dir + "/report.html";
        return false;
    }
    return true;
}

bool write_report(const std::string& dir, std::string* error) {
    RunRecord results;
    if (!read_results_file(dir + "/results.json", results, error)) return false;
    const bool variants = results.variants && !results.variants->empty();
    const size_t n = variants ? results.variants->size() : 1;
    std::vector<std::string> files(n);
    std::vector<ReportTrace> traces(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string v = variants ? (*results.variants)[i].name : "";
        if (variants && !has_folder(v)) continue;
        // (a trace that is missing or cannot be read: none)
        const std::string path = variants ? dir + "/variants/" + v + "/trace.json" : dir + "/trace.json";
        if (read_file(path, files[i])) traces[i].text = &files[i];
    }
    return write_report(dir, results, traces, error);
}

}  // namespace gpuvp
