#include "platform/report.h"

#include <fstream>
#include <sstream>

namespace gpuvp {

using json = nlohmann::json;

std::string render_report(const json& results, const std::vector<const json*>& traces) {
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpuvp report</title></head><body>\n";
    h << "<h1>" << results.value("scenario", std::string("?")) << "</h1>\n</body></html>\n";
    return h.str();
}

namespace {
bool read_json(const std::string& path, json& out) {
    std::ifstream f(path);
    if (!f) return false;
    try {
        out = json::parse(f);
    } catch (...) {
        return false;
    }
    return true;
}
}  // namespace

bool write_report(const std::string& dir, std::string* error) {
    json results;
    if (!read_json(dir + "/results.json", results)) {
        if (error) *error = "cannot read " + dir + "/results.json";
        return false;
    }
    std::vector<json> loaded;
    std::vector<const json*> traces;
    const bool variants = results.contains("variants") && results["variants"].is_array();
    const size_t n = variants ? results["variants"].size() : 1;
    loaded.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string path = variants ? dir + "/variants/" + results["variants"][i].value("name", std::string()) + "/trace.json"
                                          : dir + "/trace.json";
        traces.push_back(read_json(path, loaded[i]) ? &loaded[i] : nullptr);
    }
    std::ofstream out(dir + "/report.html", std::ios::binary);
    out << render_report(results, traces);
    if (!out.flush()) {
        if (error) *error = "cannot write " + dir + "/report.html";
        return false;
    }
    return true;
}

}  // namespace gpuvp
