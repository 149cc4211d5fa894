#include "sc_main/profiler/database.h"

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace gpuvp {

namespace {

constexpr char kMagic[] = "SQLite format 3";  // and its '\0': 16 bytes

// The work a statement may do, so that a view or trigger that never ends (a recursive one, in a
// broken or hostile file) is an error, not a hang: SQLite calls the progress handler every
// kProgressSteps virtual-machine instructions, and a statement stops after
// kProgressCalls + (the file's size) / kBytesPerCall calls: 10^7 instructions and about 60 a
// byte of the file, tens of times what reading every row of every table takes. A fixture's
// script may do kProgressCalls * 10 calls (10^8 instructions).
constexpr int kProgressSteps = 1000;
constexpr int64_t kProgressCalls = 10'000;
constexpr int64_t kBytesPerCall = 16;

// An SQL string literal: 'name'.
std::string literal(const std::string& text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

// An SQL identifier: "name".
std::string quoted(const std::string& name) {
    std::string q = "\"";
    for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

bool is_sqlite(const std::string& bytes) { return bytes.size() >= 16 && std::memcmp(bytes.data(), kMagic, 16) == 0; }

struct Database::Budget {
    int64_t per_statement = kProgressCalls;
    int64_t left = kProgressCalls;
};

Database::Database(std::string file) : file_(std::move(file)), budget_(std::make_unique<Budget>()) {}

Database::Database(Database&& o) noexcept
    : file_(std::move(o.file_)), image_(std::move(o.image_)), budget_(std::move(o.budget_)), db_(o.db_) {
    o.db_ = nullptr;
}

Database& Database::operator=(Database&& o) noexcept {
    if (this != &o) {
        sqlite3_close(db_);
        file_ = std::move(o.file_);
        image_ = std::move(o.image_);
        budget_ = std::move(o.budget_);
        db_ = o.db_;
        o.db_ = nullptr;
    }
    return *this;
}

Database::~Database() { sqlite3_close(db_); }

TraceError Database::error(const std::string& why) const {
    return TraceError(file_, TraceError::Where::none, 0, why + (db_ ? std::string(": ") + sqlite3_errmsg(db_) : std::string()));
}

void Database::open() {
    if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr) != SQLITE_OK)
        throw error("SQLite cannot open a database in memory");
    // Views and triggers run no function with side effects; every statement has its budget.
    sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_progress_handler(
        db_, kProgressSteps, [](void* b) { return --static_cast<Budget*>(b)->left < 0 ? 1 : 0; }, budget_.get());
}

Database Database::from_bytes(std::string bytes, const std::string& file) {
    Database d(file);
    if (!is_sqlite(bytes)) throw TraceError(file, TraceError::Where::none, 0, "not an SQLite database");
    // A database left in WAL mode says so in bytes 18 and 19; without its -wal file the image
    // reads as in the legacy journal mode (SQLite refuses a WAL image in memory).
    if (bytes.size() >= 20 && bytes[18] == 2 && bytes[19] == 2) bytes[18] = bytes[19] = 1;
    d.image_ = std::make_unique<std::string>(std::move(bytes));
    d.open();
    std::string& image = *d.image_;
    d.budget_->per_statement = kProgressCalls + int64_t(image.size()) / kBytesPerCall;
    const int rc = sqlite3_deserialize(d.db_, "main", reinterpret_cast<unsigned char*>(image.data()),
                                       sqlite3_int64(image.size()), sqlite3_int64(image.size()),
                                       SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) throw d.error("SQLite cannot read the database");
    // SQLite reads the schema lazily: a broken one shows here, as an error of the file.
    sqlite3_stmt* check = nullptr;
    d.budget_->left = d.budget_->per_statement;
    const bool read = sqlite3_prepare_v2(d.db_, "SELECT count(*) FROM sqlite_master", -1, &check, nullptr) == SQLITE_OK &&
                      sqlite3_step(check) == SQLITE_ROW;
    sqlite3_finalize(check);
    if (!read) throw d.error("SQLite cannot read the database");
    return d;
}

Database Database::from_sql(const std::string& sql, const std::string& file) {
    Database d(file);
    d.open();
    // A script touches nothing but its own database: no ATTACH (nor VACUUM INTO, which attaches
    // its file), no PRAGMA (temp_store_directory and the like), SQLite's defensive mode; values
    // of at most 1 MB.
    sqlite3_limit(d.db_, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(d.db_, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_db_config(d.db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_set_authorizer(
        d.db_,
        [](void*, int action, const char*, const char*, const char*, const char*) {
            return action == SQLITE_PRAGMA || action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
        },
        nullptr);
    d.budget_->left = kProgressCalls * 10;
    char* message = nullptr;
    const int rc = sqlite3_exec(d.db_, sql.c_str(), nullptr, nullptr, &message);
    sqlite3_set_authorizer(d.db_, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        const std::string why = message ? message : sqlite3_errstr(rc);
        sqlite3_free(message);
        throw TraceError(file, TraceError::Where::none, 0, "the SQL script fails: " + why);
    }
    return d;
}

std::string Database::image() const {
    sqlite3_int64 size = 0;
    unsigned char* p = sqlite3_serialize(db_, "main", &size, 0);
    if (!p) return {};
    std::string out(reinterpret_cast<const char*>(p), size_t(size));
    sqlite3_free(p);
    return out;
}

Database::Rows Database::query(const std::string& sql, const std::string& what) const {
    budget_->left = budget_->per_statement;
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &s, nullptr) != SQLITE_OK) {
        sqlite3_finalize(s);
        throw error("SQLite cannot read " + (what.empty() ? "its schema" : what));
    }
    return Rows(*this, s, what);
}

bool Database::has(const std::string& table) const {
    Rows r = query("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = " + literal(table), "its schema");
    return r.next();
}

std::vector<std::string> Database::columns(const std::string& table) const {
    std::vector<std::string> out;
    Rows r = query("SELECT name FROM pragma_table_info(" + literal(table) + ")", table + "'s columns");
    while (r.next()) out.push_back(r.text(0));
    return out;
}

Database::Rows::Rows(Rows&& o) noexcept : db_(o.db_), stmt_(o.stmt_), what_(std::move(o.what_)) { o.stmt_ = nullptr; }

Database::Rows::~Rows() { sqlite3_finalize(stmt_); }

bool Database::Rows::next() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_INTERRUPT)
        throw TraceError(db_->file(), TraceError::Where::none, 0,
                         "reading " + what_ + " takes more work than the file's size allows (a view or trigger that does not end?)");
    throw db_->error("SQLite cannot read " + what_);
}

bool Database::Rows::null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int Database::Rows::type(int column) const { return sqlite3_column_type(stmt_, column); }
int64_t Database::Rows::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Database::Rows::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Database::Rows::text(int column) const {
    const unsigned char* p = sqlite3_column_text(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, column))) : std::string();
}

// --- DbTable ---------------------------------------------------------------------------------

DbTable::DbTable(const Database& db, std::string table) : db_(db), table_(std::move(table)) {
    all_ = db_.columns(table_);
    Database::Rows kind =
        db_.query("SELECT type FROM sqlite_master WHERE type IN ('table','view') AND name = " + literal(table_), "its schema");
    view_ = kind.next() && kind.text(0) == "view";
}

std::optional<int> DbTable::optional(std::initializer_list<const char*> names) {
    for (const char* n : names)
        for (const std::string& c : all_)
            if (c == n) {
                selected_.push_back(c);
                return int(selected_.size());  // column 0 is the rowid
            }
    return std::nullopt;
}

int DbTable::column(std::initializer_list<const char*> names) {
    if (const std::optional<int> c = optional(names)) return *c;
    std::string list;
    for (const char* n : names) list += std::string(list.empty() ? "" : " or ") + n;
    throw TraceError(db_.file(), TraceError::Where::none, 0, table_ + " has no column " + list);
}

bool DbTable::next() {
    if (!rows_) {
        std::string sql = view_ ? "SELECT NULL" : "SELECT rowid";
        for (const std::string& c : selected_) sql += ", " + quoted(c);
        sql += " FROM " + quoted(table_);
        if (!view_) sql += " ORDER BY rowid";
        rows_.emplace(db_.query(sql, table_));
    }
    const uint64_t read = row_;
    try {
        if (!rows_->next()) return false;
    } catch (const TraceError& e) {  // where it stopped: after the last row read
        throw TraceError(db_.file(), table_, read + 1, std::string(e.what()).substr(db_.file().size() + 2));
    }
    row_ = view_ ? row_ + 1 : uint64_t(rows_->integer(0));
    return true;
}

TraceError DbTable::error(const std::string& why) const { return TraceError(db_.file(), table_, row_, why); }

bool DbTable::null(int column) const { return rows_->null(column); }

int64_t DbTable::integer(int column, int64_t min, int64_t max) const {
    const std::string& name = column_name(column);
    int64_t v = 0;
    switch (rows_->type(column)) {
    case SQLITE_INTEGER: v = rows_->integer(column); break;
    case SQLITE_NULL: throw error(name + ": NULL where an integer belongs");
    case SQLITE_FLOAT: {  // a whole number stored as a real (12.0) is taken
        const double x = rows_->real(column);
        if (!(x == std::floor(x) && x >= -9.2e18 && x <= 9.2e18))
            throw error(name + ": an integer expected, found " + rows_->text(column));
        v = int64_t(x);
        break;
    }
    default: {  // text of an integer ("12") is taken
        const std::string t = rows_->text(column);
        const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
            throw error(name + ": an integer expected, found \"" + t.substr(0, 40) + (t.size() > 40 ? "...\"" : "\""));
    }
    }
    if (v < min || v > max) throw error(name + ": " + std::to_string(v) + " is out of range");
    return v;
}

int64_t DbTable::integer_or(std::optional<int> column, int64_t otherwise, int64_t min, int64_t max) const {
    if (!column || rows_->null(*column)) return otherwise;
    return integer(*column, min, max);
}

std::pair<int64_t, int64_t> DbTable::interval(int start, int end) const {
    const int64_t s = integer(start, 0, kMaxTraceTime), e = integer(end, 0, kMaxTraceTime);
    if (e < s) throw error(column_name(end) + " is before " + column_name(start));
    return {s, e};
}

std::string DbTable::text(int column) const { return rows_->text(column); }

}  // namespace gpuvp
