// An SQLite database as the profilers' readers see it (Nsight Systems' `nsys export --type
// sqlite`, rocprofv3's rocpd): opened read-only from the file's bytes (sqlite3_deserialize),
// so that a reader never writes next to the file and a fuzz target feeds it bytes; its tables'
// rows read through named columns, each value checked, every error naming the file, the table
// and the row. The only user of SQLite's C library.
#pragma once
#include "sc_main/profiler/profiler_trace.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace gpuvp {

// Whether `bytes` start as an SQLite database file does ("SQLite format 3\0").
bool is_sqlite(const std::string& bytes);

class Database {
public:
    // The database whose file image is `bytes`, read-only. TraceError naming `file` if SQLite
    // cannot read it (not a database, cut short, corrupt).
    static Database from_bytes(std::string bytes, const std::string& file);
    // A new database in memory made by running `sql` (tests' fixtures, the fuzz target), with
    // a bound on the work the script may do. TraceError with SQLite's message if it fails.
    static Database from_sql(const std::string& sql, const std::string& file);

    Database(Database&&) noexcept;
    Database& operator=(Database&&) noexcept;
    ~Database();

    const std::string& file() const { return file_; }
    // The database's file image (what a test writes to a .sqlite file).
    std::string image() const;

    // A table or a view of that name (exact case, as the schema writes it).
    bool has(const std::string& table) const;
    // Its columns, in the schema's order.
    std::vector<std::string> columns(const std::string& table) const;

    // One SQL statement's result rows.
    class Rows {
    public:
        ~Rows();
        Rows(Rows&&) noexcept;
        Rows& operator=(Rows&&) = delete;
        bool next();  // TraceError if SQLite fails (a corrupt page)
        bool null(int column) const;
        int64_t integer(int column) const;  // SQLite's conversions: DbTable checks values
        double real(int column) const;
        std::string text(int column) const;
        int type(int column) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL

    private:
        friend class Database;
        Rows(const Database& db, sqlite3_stmt* s, std::string what) : db_(&db), stmt_(s), what_(std::move(what)) {}
        const Database* db_;
        sqlite3_stmt* stmt_;
        std::string what_;
    };
    // `what` it reads, for its errors ("CUPTI_ACTIVITY_KIND_KERNEL", "its schema").
    Rows query(const std::string& sql, const std::string& what) const;

private:
    struct Budget;  // the work a statement may do (database.cpp)
    explicit Database(std::string file);
    void open();
    TraceError error(const std::string& why) const;
    std::string file_;
    std::unique_ptr<std::string> image_;  // the bytes sqlite3_deserialize reads from
    std::unique_ptr<Budget> budget_;      // the progress handler's, at a fixed address
    sqlite3* db_ = nullptr;
};

// A table's (or a view's) rows read through columns found by name: each column one of several
// names (the schema's versions), required or optional; values checked as a reader needs them,
// an error naming the file, the table, the row (its rowid, or its place in a view) and the
// column.
class DbTable {
public:
    // Every row of `table` in rowid order (a view: its own order), its columns those that
    // `column` and `optional` name before the first next().
    DbTable(const Database& db, std::string table);

    // The column of the first of `names` the table has; none: TraceError naming the table.
    int column(std::initializer_list<const char*> names);
    std::optional<int> optional(std::initializer_list<const char*> names);

    bool next();
    const std::string& name() const { return table_; }
    uint64_t row() const { return row_; }

    bool null(int column) const;
    // An integer value in [min, max] (NULL: an error; a whole number stored as a real or as
    // text is taken).
    int64_t integer(int column, int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max()) const;
    // Optional columns: `otherwise` when the column is absent or the value NULL.
    int64_t integer_or(std::optional<int> column, int64_t otherwise, int64_t min = std::numeric_limits<int64_t>::min(),
                       int64_t max = std::numeric_limits<int64_t>::max()) const;
    uint32_t u32(int column, uint32_t min = 0) const {
        return uint32_t(integer(column, min, std::numeric_limits<uint32_t>::max()));
    }
    // A start and an end time (ns) in [0, kMaxTraceTime], the end not before the start.
    std::pair<int64_t, int64_t> interval(int start, int end) const;
    std::string text(int column) const;  // NULL: ""
    const std::string& column_name(int column) const { return selected_[size_t(column - 1)]; }
    TraceError error(const std::string& why) const;

private:
    const Database& db_;
    std::string table_;
    bool view_ = false;
    std::vector<std::string> all_, selected_;
    std::optional<Database::Rows> rows_;
    uint64_t row_ = 0;
};

// The readers of databases (parse_database picks one by the tables): Nsight Systems' export,
// rocprofv3's rocpd database.
ProfilerTrace read_nsys(const Database& db);
ProfilerTrace read_rocpd(const Database& db);

}  // namespace gpuvp
