// rocprofv3's CSV output (ROCm 6.2 and later, `--kernel-trace`, `--hip-trace`) into a
// ProfilerTrace: kernel_trace.csv's dispatches and, when given, hip_api_trace.csv's calls.
// Columns are found by their header's names (any order, any case: rocpd's CSVs write
// Lds_Block_Size for LDS_Block_Size); times are integer ns.
#include "sc_main/profiler/profiler_trace.h"
#include "sc_main/profiler/rocprofiler.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>

namespace gpuvp {

namespace {

// RFC 4180 records: fields split at commas, a quoted field may hold commas, line breaks and
// doubled quotes. CR LF ends a line as LF does; an empty line is no record.
class Csv {
public:
    Csv(const std::string& text, const std::string& file) : s_(text), file_(file) {}

    // The next record's fields; false at the end of the text.
    bool next(std::vector<std::string>& fields) {
        fields.clear();
        while (at_ < s_.size() && (s_[at_] == '\n' || (s_[at_] == '\r' && at_ + 1 < s_.size() && s_[at_ + 1] == '\n'))) {
            at_ += s_[at_] == '\r' ? 2 : 1;
            ++line_;
        }
        if (at_ >= s_.size()) return false;
        record_line_ = line_;
        for (;;) {
            std::string f;
            if (at_ < s_.size() && s_[at_] == '"') {
                for (++at_;; ++at_) {
                    if (at_ >= s_.size()) throw error("a quoted field without its closing quote");
                    if (s_[at_] == '"') {
                        if (at_ + 1 < s_.size() && s_[at_ + 1] == '"') {
                            f += '"';
                            ++at_;
                            continue;
                        }
                        ++at_;
                        break;
                    }
                    if (s_[at_] == '\n') ++line_;
                    f += s_[at_];
                }
            } else {
                while (at_ < s_.size() && s_[at_] != ',' && s_[at_] != '\n' && !(s_[at_] == '\r' && at_ + 1 < s_.size() && s_[at_ + 1] == '\n'))
                    f += s_[at_++];
            }
            fields.push_back(std::move(f));
            if (at_ >= s_.size()) return true;
            if (s_[at_] == ',') {
                ++at_;
                continue;
            }
            if (s_[at_] == '\r' && at_ + 1 < s_.size() && s_[at_ + 1] == '\n') ++at_;
            if (s_[at_] == '\n') {
                ++at_;
                ++line_;
                return true;
            }
            throw error("a quoted field must be followed by a comma or the end of the line");
        }
    }

    uint64_t line() const { return record_line_; }  // where the last record read starts
    TraceError error(const std::string& why) const { return TraceError(file_, TraceError::Where::line, record_line_, why); }

private:
    const std::string& s_;
    const std::string& file_;
    size_t at_ = 0;
    uint64_t line_ = 1, record_line_ = 1;
};

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(uint8_t(c)));
    return s;
}

// A file's columns by name, and its records' fields read through them.
class Table {
public:
    Table(const std::string& text, const std::string& file) : csv_(text, file), file_(file) {
        if (!csv_.next(header_)) throw csv_.error("no header line");
        for (size_t i = 0; i < header_.size(); ++i) index_.emplace(lower(header_[i]), i);
    }

    // The column of the first of `names` the header has; a missing column is an error.
    size_t column(std::initializer_list<const char*> names) const {
        if (const std::optional<size_t> c = optional_column(names)) return *c;
        std::string list;
        for (const char* n : names) list += std::string(list.empty() ? "" : " or ") + n;
        throw TraceError(file_, TraceError::Where::line, 1, "no column " + list + " in the header");
    }
    std::optional<size_t> optional_column(std::initializer_list<const char*> names) const {
        for (const char* n : names) {
            const auto it = index_.find(lower(n));
            if (it != index_.end()) return it->second;
        }
        return std::nullopt;
    }

    bool next() {
        if (!csv_.next(row_)) return false;
        if (row_.size() != header_.size())
            throw csv_.error(std::to_string(row_.size()) + " fields where the header has " + std::to_string(header_.size()));
        return true;
    }
    const std::string& text(size_t column) const { return row_[column]; }
    uint64_t line() const { return csv_.line(); }

    // An integer field in [min, max]; `prefix` (as "Agent ") may come before it.
    int64_t integer(size_t column, int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max(), std::string_view prefix = {}) const {
        std::string_view s = row_[column];
        if (!prefix.empty() && s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
        int64_t v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
            throw csv_.error(header_[column] + ": an integer expected, found \"" + row_[column] + "\"");
        if (v < min || v > max) throw csv_.error(header_[column] + ": " + row_[column] + " is out of range");
        return v;
    }
    uint32_t u32(size_t column, uint32_t min = 0) const {
        return uint32_t(integer(column, min, std::numeric_limits<uint32_t>::max()));
    }

private:
    Csv csv_;
    const std::string& file_;
    std::vector<std::string> header_, row_;
    std::map<std::string, size_t> index_;
};

void read_kernels(const std::string& csv, const std::string& file, ProfilerTrace& trace, std::vector<int64_t>& threads) {
    Table t(csv, file);
    const size_t name = t.column({"Kernel_Name"});
    const size_t agent = t.column({"Agent_Id"});
    const size_t stream = t.column({"Stream_Id", "Queue_Id"});
    const size_t correlation = t.column({"Correlation_Id"});
    const size_t start = t.column({"Start_Timestamp"}), end = t.column({"End_Timestamp"});
    const size_t wg[3] = {t.column({"Workgroup_Size_X"}), t.column({"Workgroup_Size_Y"}), t.column({"Workgroup_Size_Z"})};
    const size_t grid[3] = {t.column({"Grid_Size_X"}), t.column({"Grid_Size_Y"}), t.column({"Grid_Size_Z"})};
    const std::optional<size_t> lds = t.optional_column({"LDS_Block_Size", "Group_Segment_Size"});
    const std::optional<size_t> vgpr = t.optional_column({"VGPR_Count"}), agpr = t.optional_column({"Accum_VGPR_Count"});
    const std::optional<size_t> sgpr = t.optional_column({"SGPR_Count"});
    const std::optional<size_t> thread = t.optional_column({"Thread_Id"});
    uint64_t kernels = 0, grid_below_workgroup = 0, first_line = 0;  // kernels whose grid is not one workgroup
    while (t.next()) {
        TraceGpuOp op;
        op.kind = TraceGpuOp::Kind::kernel;
        op.name = t.text(name);
        op.device = t.integer(agent, 0, std::numeric_limits<int64_t>::max(), "Agent ");
        op.stream = t.integer(stream);
        op.correlation = t.integer(correlation);
        op.start_ns = t.integer(start, 0, kMaxTraceTime);
        op.end_ns = t.integer(end, 0, kMaxTraceTime);
        if (op.end_ns < op.start_ns) throw TraceError(file, TraceError::Where::line, t.line(), "End_Timestamp is before Start_Timestamp");
        // Grid_Size_* counts work-items; a partial workgroup at the edge is a block.
        bool below = false, same = true;
        for (size_t d = 0; d < 3; ++d) {
            op.block[d] = t.u32(wg[d], 1);
            const uint32_t items = t.u32(grid[d], 1);
            below |= items < op.block[d];
            same &= items == op.block[d];
            op.grid[d] = detail::blocks_of(items, op.block[d]);
        }
        if (!same) {  // (a grid of one workgroup reads the same either way)
            if (!kernels++) first_line = t.line();
            grid_below_workgroup += below;
        }
        if (lds) op.shared_bytes = t.u32(*lds);
        op.registers = rocprofiler::vgprs(vgpr ? t.u32(*vgpr) : 0, agpr ? t.u32(*agpr) : 0);
        if (sgpr) op.scalar_registers = t.u32(*sgpr);
        op.offset = t.line();
        threads.push_back(thread ? t.integer(*thread) : 0);
        if (std::none_of(trace.devices.begin(), trace.devices.end(), [&](const TraceDevice& d) { return d.id == op.device; })) {
            TraceDevice d;
            d.id = op.device;
            d.amd = true;
            trace.devices.push_back(d);
        }
        trace.ops.push_back(std::move(op));
    }
    // Some ROCm releases write the workgroup's size into Grid_Size_* and the grid's into
    // Workgroup_Size_*: every kernel then has a grid smaller than one workgroup (but those whose
    // grid is exactly one workgroup, which read the same either way).
    if (kernels > 0 && grid_below_workgroup == kernels)
        throw TraceError(file, TraceError::Where::line, first_line,
                         "every kernel's Grid_Size is smaller than its Workgroup_Size in some dimension: the two look "
                         "swapped, as some ROCm releases write them (Grid_Size counts the whole grid's work-items, "
                         "Workgroup_Size one workgroup's); swap the two columns' names in the header to read it");
}

void read_calls(const std::string& csv, const std::string& file, ProfilerTrace& trace) {
    Table t(csv, file);
    const size_t function = t.column({"Function"});
    const size_t thread = t.column({"Thread_Id"});
    const size_t correlation = t.column({"Correlation_Id"});
    const size_t start = t.column({"Start_Timestamp"}), end = t.column({"End_Timestamp"});
    while (t.next()) {
        TraceHostCall c;
        c.name = t.text(function);
        c.kind = host_call_kind(c.name);
        c.thread = t.integer(thread);
        c.correlation = t.integer(correlation);
        c.start_ns = t.integer(start, 0, kMaxTraceTime);
        c.end_ns = t.integer(end, 0, kMaxTraceTime);
        if (c.end_ns < c.start_ns) throw TraceError(file, TraceError::Where::line, t.line(), "End_Timestamp is before Start_Timestamp");
        c.offset = t.line();
        trace.calls.push_back(std::move(c));
    }
}

}  // namespace

ProfilerTrace parse_rocprofv3(const std::string& kernel_csv, const std::string& file, const std::string& hip_api_csv,
                              const std::string& hip_api_file) {
    ProfilerTrace trace;
    trace.format = ProfilerTrace::Format::rocprofv3;
    trace.file = file;
    std::vector<int64_t> threads;  // each kernel's host thread
    read_kernels(kernel_csv, file, trace, threads);
    if (trace.ops.empty()) throw TraceError(file, TraceError::Where::none, 0, "no kernels (no dispatch records)");
    if (!hip_api_csv.empty()) read_calls(hip_api_csv, hip_api_file.empty() ? file : hip_api_file, trace);
    detail::finish_with_launches(trace, threads);  // the CSVs give calls no stream
    return trace;
}

}  // namespace gpuvp
