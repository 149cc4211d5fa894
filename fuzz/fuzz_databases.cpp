// Fuzz target `databases`: the input is SQL run on a fresh database that holds the empty tables
// of an Nsight Systems export (tests/data/nsys/schema.sql), or of a rocpd database
// (tests/data/rocpd/schema.sql) when the input names a table of rocpd's ("rocpd_"); its file
// image is then read as a file's bytes are (Database::image, from_bytes, then read_nsys or
// read_rocpd): rows of every type and value, NULLs, dropped tables and columns, views in their
// place. Byte mutations of a database file go through the `traces` target (parse_database).
//
// Defined outcomes: a ProfilerTrace (checked as trace_checks.h says, then imported with
// --skip-unfit: a Scenario, a TraceError or a ScenarioError) or a TraceError (the script fails,
// or the reader refuses what it made). A bug: any other exception, a crash, a sanitizer report,
// a hang. --expect-clean (replay only): every input must read as a trace; the seeds are checked
// this way.
#include "fuzz/trace_checks.h"
#include "sc_main/profiler/database.h"
#include "sc_main/profiler/profiler_trace.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

namespace {

bool expect_clean = false;

std::string read_schema(const char* name) {
    std::ifstream in(std::string(GPUVP_SOURCE_DIR "/tests/data/") + name);
    std::stringstream s;
    s << in.rdbuf();
    if (s.str().empty()) gpuvp::fuzz::bug("fuzz_databases", std::string("cannot read tests/data/") + name);
    return s.str();
}

const std::string& nsys_schema() {
    static const std::string text = read_schema("nsys/schema.sql");
    return text;
}

const std::string& rocpd_schema() {
    static const std::string text = read_schema("rocpd/schema.sql");
    return text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::strcmp((*argv)[i], "--expect-clean") == 0) expect_clean = true;
    nsys_schema();
    rocpd_schema();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string sql(reinterpret_cast<const char*>(data), size);
    std::string error;
    bool read = false;
    try {
        const bool rocpd = sql.find("rocpd_") != std::string::npos;
        const gpuvp::Database made = gpuvp::Database::from_sql((rocpd ? rocpd_schema() : nsys_schema()) + "\n" + sql, "fuzz.sqlite");
        const gpuvp::Database db = gpuvp::Database::from_bytes(made.image(), "fuzz.sqlite");
        const gpuvp::ProfilerTrace t = rocpd ? gpuvp::read_rocpd(db) : gpuvp::read_nsys(db);
        gpuvp::fuzz::check_trace("fuzz_databases", t, nullptr);
        read = true;
        gpuvp::fuzz::import_trace(t);
    } catch (const gpuvp::TraceError& e) {
        error = e.what();
    } catch (const std::exception& e) {
        gpuvp::fuzz::bug("fuzz_databases", std::string("unexpected exception: ") + e.what());
    }
    if (expect_clean && !read) gpuvp::fuzz::bug("fuzz_databases", "a seed does not read as a trace: " + error);
    return 0;
}
