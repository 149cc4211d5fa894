// report.html: one self-contained page (no network) that shows a run at a glance: the
// timeline per SM, the launch stages per kernel, lock waits by priority, the scalar pools,
// the shading array's core types over time, and for a scenario with variants the A/B
// comparison side by side. Built from what a run writes: results.json and trace.json.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpuvp {

// The page for `results` (results.json, with its `variants` when the scenario has them).
// `traces[i]` is variant i's trace.json (traces[0] the run's own without variants); a null
// pointer, or fewer traces than variants, where a run has no trace.
std::string render_report(const nlohmann::json& results, const std::vector<const nlohmann::json*>& traces);

struct RunOutput;

// Reads DIR/results.json, DIR/trace.json and DIR/variants/<name>/trace.json (those present)
// and writes DIR/report.html. False, with `error` set, when it cannot. The caller that wrote
// those files from a RunOutput (write_run_output) passes it as `run`: the page is the same,
// built from its results document and trace texts without reading the files back.
bool write_report(const std::string& dir, std::string* error = nullptr, const RunOutput* run = nullptr);

// The document the page reads from trace.json's `text`: the events the page shows (the others
// dropped, even unparsed) and the document's other members. False if the text is not a JSON
// object. `written_by_gpuvp`: the text is gpuvp's own trace as it wrote it (a run's, in
// memory): then a faster scan reads it, which checks only what it keeps (scan_trace_text, false
// where it declines, on anything but gpuvp's compact layout) and gives the same document. It
// does not notice text that is not JSON inside an event it steps over: never give it a file.
bool read_trace_text(const std::string& text, nlohmann::json& out, bool written_by_gpuvp = false);
bool scan_trace_text(const std::string& text, nlohmann::json& out);

// The document nlohmann::json::parse(document.dump()) gives, built without the text, for
// what results hold (no binary values; dump() throws on text that is not UTF-8 before this is
// reached).
nlohmann::json as_read_back(const nlohmann::ordered_json& document);

}  // namespace gpuvp
