// report.html: one self-contained page (inline CSS, SVG and script, no external reference) built from a run's record and trace records. docs/report.md describes what it
// shows. The page's pieces, in this folder: svg.cpp (drawing), timeline.cpp, sections.cpp,
// replay.cpp, variants.cpp, style.cpp (CSS), script.cpp (zoom); this file assembles them and reads the files.
#include "sc_main/report/report.h"
#include "sc_main/report/page.h"
#include "sc_main/run/run.h"

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
    h << "<nav><a href=\"#summary\">Summary</a><a href=\"#expectations-heading\">Expectations</a>";
    if (results.replay) h << "<a href=\"#replay\">Replay</a>";
    if (p.variants) h << "<a href=\"#variants\">Variants</a>";
    h << "<a href=\"#timeline\">Timeline</a><a href=\"#launch-stages\">Launch stages</a><a href=\"#locks\">Locks</a>"
         "<a href=\"#scalar\">Scalar registers</a><a href=\"#shading\">Shading array</a></nav>\n<main>\n";
    h << section_header(p);
    std::vector<Bound> vbounds;
    Bound tbound, sbound, rbound;
    h << section_replay(p, rbound);
    if (p.variants) h << section_variants(p, limits, vbounds);
    h << section_timeline(p, limits[0], tbound);
    h << section_stages(p);
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

// The whole file, read in one piece into a string of its size. False if it cannot be read whole
// (a directory, a read error).
bool read_file(const std::string& path, std::string& text) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return false;
    const std::streamoff size = f.tellg();
    if (size < 0 || !f.seekg(0)) return false;
    text.resize(size_t(size));
    return size == 0 || (f.read(text.data(), size) && f.gcount() == size);
}

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

}  // namespace

bool write_report(const std::string& dir, std::string* error, const RunOutput* run) {
    if (run && !run->record) run = nullptr;  // (a hand-made output: the files then)
    RunRecord loaded;
    if (!run && !read_results_file(dir + "/results.json", loaded, error)) return false;
    const RunRecord& results = run ? *run->record : loaded;
    const bool variants = results.variants && !results.variants->empty();
    const size_t n = variants ? results.variants->size() : 1;
    std::vector<TraceRecord> read(n);
    std::vector<const TraceRecord*> traces(n, nullptr);
    // The traces to read: a variant's text a child process wrote, or a file. Each is parsed on a
    // thread of its own (they are independent; the page waits for all of them).
    std::vector<std::string> files(n);
    std::vector<const std::string*> texts(n, nullptr);
    for (size_t i = 0; i < n; ++i) {
        const std::string v = variants ? (*results.variants)[i].name : "";
        // A variant whose name is not a plain folder name has no trace folder.
        if (variants && (v.empty() || v == "." || v == ".." || v.find('/') != std::string::npos)) continue;
        if (run) {
            // The run's own trace record, or the text a child process wrote (a variant's).
            const std::shared_ptr<const TraceRecord>* record = variants ? nullptr : &run->trace_record;
            const std::string* text = variants ? nullptr : &run->trace;
            for (const VariantOutput& o : run->variants)
                if (variants && o.name == v) {
                    record = &o.trace_record;
                    text = &o.trace;
                    break;
                }
            if (record && *record) traces[i] = record->get();
            else if (text && !text->empty()) texts[i] = text;
        } else {  // (a trace that is missing or cannot be read: none)
            const std::string path = variants ? dir + "/variants/" + v + "/trace.json" : dir + "/trace.json";
            if (read_file(path, files[i])) texts[i] = &files[i];
        }
    }
    std::vector<std::future<bool>> parsing(n);
    for (size_t i = 0; i < n; ++i)
        if (texts[i]) parsing[i] = std::async(std::launch::async, [&, i] { return read_trace(*texts[i], read[i], nullptr); });
    for (size_t i = 0; i < n; ++i)
        if (texts[i] && parsing[i].get()) traces[i] = &read[i];
    std::ofstream out(dir + "/report.html", std::ios::binary);
    out << render_report(results, traces);
    if (!out.flush()) {
        if (error) *error = "cannot write " + dir + "/report.html";
        return false;
    }
    return true;
}

}  // namespace gpuvp
