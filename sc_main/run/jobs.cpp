#include "sc_main/run/jobs.h"
#include "sc_main/run/run.h"

#include <cstdio>
#include <fstream>

namespace gpuvp {

namespace {

// One job, in its child process: the run, its files, its exit code.
int run_job(const BatchJob& job) {
    int code = 2;
    try {
        RunOptions options;
        options.trace = job.trace;
        options.trace_limit = job.trace_limit;
        options.trace_detail = job.trace_detail;
        options.check_protocol = job.check_protocol;
        options.timeout_seconds = job.timeout_seconds;
        RunOutput o = run_variants(*job.scenario, options, 1);
        std::string error;
        bool written = write_run_output(job.dir, o, job.report, &error);
        if (written && job.table) {
            std::ofstream table(job.dir + "/table.txt", std::ios::binary);
            written = bool(table << o.table);
            if (!written) error = "cannot write " + job.dir + "/table.txt";
        }
        code = o.exit_code;
        if (o.trace_record)  // what the trace left out, said where it happened (a variant: in its child)
            if (const std::string note = trace_note(*o.trace_record); written && !note.empty())
                std::fprintf(stderr, "gpuvp: %s%s: trace.json: %s\n", job.scenario->file.c_str(),
                             job.scenario->variant.empty() ? "" : (" variant " + job.scenario->variant).c_str(), note.c_str());
        if (!written) {
            std::fprintf(stderr, "gpuvp: %s: %s\n", job.scenario->file.c_str(), error.c_str());
            code = 2;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpuvp: %s: %s\n", job.scenario->file.c_str(), e.what());
    }
    return code;
}

}  // namespace

std::vector<int> run_batch(const std::vector<BatchJob>& jobs, unsigned parallel,
                           const std::function<void(size_t, int)>& done) {
    return run_children(jobs.size(), parallel, [&](size_t i) { return run_job(jobs[i]); }, done);
}

}  // namespace gpuvp
