#include "sc_main/sweep/tables.h"
#include "sc_main/record/files.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace gpuvp {

namespace {

// "%.3f", or empty for none.
std::string number(const std::optional<double>& v) {
    if (!v) return "";
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", *v);
    return b;
}

// A row of one of the tables and what its cells read.
struct KernelLine {
    const KernelRecord* k;  // null: the point did not run
    int exit_code;
    std::string status;     // the kernel's, or FAIL and why when the point failed
};
struct LockLine {
    const std::string& priority;
    const PriorityLocks& p;
};
struct DrawLine {
    const DrawRecord& d;
    const UsaRecord& usa;
    int exit_code;
};

// A column: its name in the CSV file and its heading in the table (nullptr: not in that one),
// and its cell's text (quoted for the CSV where it needs to be).
template <class Row>
struct Column {
    const char* csv;
    const char* heading;
    std::string (*cell)(const Row&);
};

std::string of(uint64_t v) { return std::to_string(v); }

const Column<KernelLine> kKernelColumns[] = {
    {"kernel", "kernel", [](const KernelLine& r) { return r.k ? r.k->name : ""; }},
    {"status", nullptr, [](const KernelLine& r) { return r.k ? r.k->status.text() : "did not run"; }},
    {"dispatch_latency_ns", "dispatch ns", [](const KernelLine& r) { return r.k ? number(r.k->dispatch_latency_ns) : ""; }},
    {"launch_latency_ns", "launch ns", [](const KernelLine& r) { return r.k ? number(r.k->launch_latency_ns) : ""; }},
    {"response_ns", "response ns", [](const KernelLine& r) { return r.k ? number(r.k->response_ns) : ""; }},
    {"turnaround_ns", "turnaround ns", [](const KernelLine& r) { return r.k ? number(r.k->turnaround_ns) : ""; }},
    {"exit_code", nullptr, [](const KernelLine& r) { return std::to_string(r.exit_code); }},
    {nullptr, "status", [](const KernelLine& r) { return r.status; }},
};

const Column<LockLine> kLockColumns[] = {
    {"priority", "warp priority", [](const LockLine& r) { return r.priority; }},
    {"warps", nullptr, [](const LockLine& r) { return of(r.p.warps); }},
    {"acquisitions", nullptr, [](const LockLine& r) { return of(r.p.acquisitions); }},
    {"wait_mean_ns", nullptr, [](const LockLine& r) { return number(r.p.wait_ns.mean); }},
    {"wait_max_ns", nullptr, [](const LockLine& r) { return number(r.p.wait_ns.max); }},
    {nullptr, "lock wait mean / max ns",
     [](const LockLine& r) { return number(r.p.wait_ns.mean) + " / " + number(r.p.wait_ns.max); }},
    {"task_end_mean_ns", nullptr, [](const LockLine& r) { return number(r.p.task_end_ns.mean); }},
    {"task_end_max_ns", nullptr, [](const LockLine& r) { return number(r.p.task_end_ns.max); }},
    {nullptr, "task end mean / max ns",
     [](const LockLine& r) { return number(r.p.task_end_ns.mean) + " / " + number(r.p.task_end_ns.max); }},
    {"sync_failures", "sync failures", [](const LockLine& r) { return of(r.p.sync_failures); }},
    {"forced_releases", "forced releases", [](const LockLine& r) { return of(r.p.forced_releases); }},
    {"hold_limit_releases", "hold-limit releases", [](const LockLine& r) { return of(r.p.hold_limit_releases); }},
    {"retakes", nullptr, [](const LockLine& r) { return of(r.p.retakes); }},
    {"redone_instructions", "redone instructions", [](const LockLine& r) { return of(r.p.redone_instructions); }},
};

const Column<DrawLine> kDrawColumns[] = {
    {"draw", "draw", [](const DrawLine& r) { return r.d.name; }},
    {"status", nullptr, [](const DrawLine& r) { return r.d.status.text(); }},
    {"arrived_ns", nullptr, [](const DrawLine& r) { return number(r.d.arrived_ns); }},
    {"first_task_ns", nullptr, [](const DrawLine& r) { return number(r.d.first_task_ns); }},
    {"vertex_done_ns", nullptr, [](const DrawLine& r) { return number(r.d.vertex_done_ns); }},
    {"end_ns", "end ns", [](const DrawLine& r) { return number(r.d.end_ns); }},
    {"complete_ns", nullptr, [](const DrawLine& r) { return number(r.d.complete_ns); }},
    {"turnaround_ns", "turnaround ns", [](const DrawLine& r) { return number(r.d.turnaround_ns); }},
    {"usa_reassignments", "array: reassignments", [](const DrawLine& r) { return of(r.usa.counts.reassignments); }},
    {"usa_utilization", "utilization", [](const DrawLine& r) { return number(r.usa.utilization); }},
    {"usa_vertex_cores", nullptr, [](const DrawLine& r) { return of(r.usa.cores.vertex); }},
    {"usa_pixel_cores", nullptr, [](const DrawLine& r) { return of(r.usa.cores.pixel); }},
    {nullptr, "final split V/P", [](const DrawLine& r) { return of(r.usa.cores.vertex) + "/" + of(r.usa.cores.pixel); }},
    {"exit_code", nullptr, [](const DrawLine& r) { return std::to_string(r.exit_code); }},
};

// The CSV's header: the axes' keys, then the columns'.
template <class Row, size_t N>
void csv_header(std::ostream& o, const std::vector<SweepAxis>& axes, const Column<Row> (&columns)[N]) {
    for (const SweepAxis& a : axes) o << csv_field(a.key) << ",";
    const char* sep = "";
    for (const Column<Row>& c : columns)
        if (c.csv) {
            o << sep << c.csv;
            sep = ",";
        }
    o << "\n";
}

template <class Row, size_t N>
void csv_row(std::ostream& o, const std::vector<std::string>& values, const Row& row, const Column<Row> (&columns)[N]) {
    for (const std::string& v : values) o << csv_field(v) << ",";
    const char* sep = "";
    for (const Column<Row>& c : columns)
        if (c.csv) {
            o << sep << csv_field(c.cell(row));
            sep = ",";
        }
    o << "\n";
}

// The table's row of headings, or a row's cells: the axes' values, then the columns'.
template <class Row, size_t N>
std::vector<std::string> table_heads(const std::vector<SweepAxis>& axes, const Column<Row> (&columns)[N]) {
    std::vector<std::string> cells;
    for (const SweepAxis& a : axes) cells.push_back(a.key);
    for (const Column<Row>& c : columns)
        if (c.heading) cells.push_back(c.heading);
    return cells;
}

template <class Row, size_t N>
std::vector<std::string> table_cells(const std::vector<std::string>& values, const Row& row, const Column<Row> (&columns)[N]) {
    std::vector<std::string> cells = values;
    for (const Column<Row>& c : columns)
        if (c.heading) cells.push_back(c.cell(row));
    return cells;
}

// Characters on a terminal: UTF-8's lead bytes.
size_t width(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

// A number, or numbers with " / " between them, or none: right-aligned.
bool numeric(const std::string& s) {
    return s.find_first_not_of("0123456789.-/ ") == std::string::npos;
}

}  // namespace

std::string TextTable::str() const {
    std::vector<size_t> widths;
    std::vector<bool> right;  // a column of numbers (its heading aside)
    for (size_t r = 0; r < rows_.size(); ++r)
        for (size_t c = 0; c < rows_[r].size(); ++c) {
            if (c >= widths.size()) {
                widths.push_back(0);
                right.push_back(true);
            }
            widths[c] = std::max(widths[c], width(rows_[r][c]));
            if (r > 0) right[c] = right[c] && numeric(rows_[r][c]);
        }
    std::string out;
    for (const std::vector<std::string>& row : rows_) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c) {
            line += c == lead_ ? (c == 0 ? "| " : "  | ") : c == 0 ? "" : c < lead_ ? "  " : " | ";
            const std::string pad(widths[c] - width(row[c]), ' ');
            line += right[c] && c >= lead_ ? pad + row[c] : row[c] + pad;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

SweepTables::SweepTables(const std::vector<SweepAxis>& axes)
    : kernels_(axes.size()), locks_(axes.size()), draws_(axes.size()) {
    csv_header(locks_csv_, axes, kLockColumns);
    locks_.add(table_heads(axes, kLockColumns));
    csv_header(draws_csv_, axes, kDrawColumns);
    draws_.add(table_heads(axes, kDrawColumns));
    csv_header(kernels_csv_, axes, kKernelColumns);
    kernels_.add(table_heads(axes, kKernelColumns));
}

void SweepTables::add(const std::vector<std::string>& values, const RunRecord* r, int exit_code,
                      const std::vector<std::string>& problems) {
    if (!r) {
        csv_row(kernels_csv_, values, KernelLine{nullptr, exit_code, ""}, kKernelColumns);
        std::vector<std::string> cells =
            table_cells(values, KernelLine{nullptr, exit_code, "did not run (exit " + std::to_string(exit_code) + ")"}, kKernelColumns);
        cells[values.size()] = "-";  // (its kernel)
        kernels_.add(std::move(cells));
        any_kernels_ = true;
        return;
    }
    for (const auto& [priority, p] : r->locks.by_priority) {
        any_locks_ = true;
        csv_row(locks_csv_, values, LockLine{priority, p}, kLockColumns);
        locks_.add(table_cells(values, LockLine{priority, p}, kLockColumns));
    }
    for (const DrawRecord& d : r->usa.draws) {
        any_draws_ = true;
        csv_row(draws_csv_, values, DrawLine{d, r->usa, exit_code}, kDrawColumns);
        draws_.add(table_cells(values, DrawLine{d, r->usa, exit_code}, kDrawColumns));
    }
    for (const KernelRecord& k : r->kernels) {
        any_kernels_ = true;
        // A row's status: the kernel's, or FAIL and why when the point failed.
        const std::string why = problems.empty() ? "exit " + std::to_string(exit_code) : problems.front();
        const std::string status = exit_code == 0 ? k.status.text() : "FAIL: " + (!k.status.ok() ? k.status.text() : why);
        const KernelLine row{&k, exit_code, status};
        csv_row(kernels_csv_, values, row, kKernelColumns);
        kernels_.add(table_cells(values, row, kKernelColumns));
    }
}

std::string SweepTables::table() const {
    std::string out = any_kernels_ || !any_draws_ ? kernels_.str() : "";
    if (any_locks_) out += "\nLocks (M2), per warp priority:\n" + locks_.str();
    if (any_draws_) out += std::string(out.empty() ? "" : "\n") + "Draws (M4), with the shading array's totals:\n" + draws_.str();
    return out;
}

}  // namespace gpuvp
