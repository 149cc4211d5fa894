// A sweep's CSV files and its table for people: a row per point and kernel (sweep.csv), per
// point and warp priority that took locks (locks.csv), per point and draw (draws.csv), from the
// points' records. Each column is declared once (tables.cpp), with its CSV name, its heading in
// the table and its cell.
#pragma once
#include "sc_main/record/run_record.h"
#include "sc_main/record/sweep_record.h"

#include <sstream>
#include <string>
#include <vector>

namespace gpuvp {

// A table for people: rows of cells (the first the headings), each column as wide as its widest
// cell, numbers right-aligned; the `lead` columns (the axes' values) two spaces apart, then "|"
// and the others " | " apart.
class TextTable {
public:
    explicit TextTable(size_t lead) : lead_(lead) {}
    void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    std::string str() const;

private:
    size_t lead_;
    std::vector<std::vector<std::string>> rows_;
};

class SweepTables {
public:
    explicit SweepTables(const std::vector<SweepAxis>& axes);
    // One point's rows: `values` its value on each axis, `r` its record (null: it did not run),
    // `exit_code` its run's, `problems` why it failed (a failing point's kernels say the first).
    void add(const std::vector<std::string>& values, const RunRecord* r, int exit_code,
             const std::vector<std::string>& problems);

    std::string kernels_csv() const { return kernels_csv_.str(); }
    std::string locks_csv() const { return any_locks_ ? locks_csv_.str() : ""; }  // empty: no warp took a lock
    std::string draws_csv() const { return any_draws_ ? draws_csv_.str() : ""; }   // empty: no draw
    // The kernels' table (left out when only draws ran), then the locks' and the draws'.
    std::string table() const;

private:
    std::ostringstream kernels_csv_, locks_csv_, draws_csv_;
    TextTable kernels_, locks_, draws_;
    bool any_kernels_ = false, any_locks_ = false, any_draws_ = false;
};

}  // namespace gpuvp
