#pragma once

#include "Speedup.h"
#include "model/Report.h"
#include "model/Result.h"
#include "model/Sweep.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// A sweep's results gathered over its jobs (docs/sweeps.md, "The suite"): DIR/sweep.json, kept by
// the sweep driver, says which jobs there are and how each ended; each finished job's .fscope
// report holds its measurements. Shared by `fusescope-cli suite` and the GUI's Suite view.

// One backend in one job.
struct SuiteCell {
    bool passed = false; // ran ok and passed accuracy (the recommendation's rule)
    std::optional<SpeedupEstimate> speedup;
    std::optional<double> compileSeconds;
    std::optional<double> memoryCompression; // eager peak / compiled peak
    std::string reason;                      // why it did not pass
};

struct Interval {
    double lo = 0;
    double hi = 0;
};

struct SuiteFailure {
    std::string job;
    std::string model;
    std::string reason;
};

// One backend over the finished jobs that asked for it.
struct SuiteBackend {
    std::string name;
    int jobs = 0;   // finished jobs that asked for it
    int passed = 0; // of those, where it passed
    double passRate() const { return jobs > 0 ? double(passed) / jobs : 0; }
    std::optional<double> geomeanSpeedup; // over the jobs where it passed
    std::optional<Interval> speedupCi95;  // t interval of the log speedups, 2 jobs or more
    std::optional<Interval> spread;       // geomean of the jobs' IQR bounds (q1, q3)
    std::optional<Interval> interval;     // what the noise rule compares: the hull of both
    std::optional<double> medianCompileSeconds;
    std::optional<double> memoryCompression; // geomean of eager peak / compiled peak
    std::vector<SuiteFailure> failures;
};

struct Suite {
    std::string dir;
    std::string name;
    std::vector<SuiteJob> jobs;
    std::vector<std::string> backendNames;                    // in order of first appearance
    std::vector<std::vector<std::optional<SuiteCell>>> cells; // [job][backend]; nullopt: not asked or not run
    std::vector<SuiteBackend> backends;                       // same order as backendNames
    std::vector<std::string> winners;                         // backends whose intervals overlap the leader's
    std::string verdict;
    std::vector<std::string> notes; // reports that could not be read, jobs not finished

    const SuiteCell* cell(size_t job, const std::string& backend) const;
};

// Aggregates jobs whose reports are given (nullopt: none to read); reasons name what is missing.
Suite aggregateSuite(std::vector<SuiteJob> jobs, const std::vector<std::optional<Report>>& reports,
                     std::vector<std::string> notes = {});

// Reads DIR/sweep.json and every job's report (report/SweepFiles.h) and aggregates them. Errors:
// suite_not_found (no sweep.json), suite_corrupt (it does not decode; the message names the field).
Result<Suite> loadSuite(const std::string& dir);

// DIR/suite.json as docs/sweeps.md describes it.
nlohmann::json suiteJson(const Suite& suite);
// One row per job and backend: job, model, axes, backend, status, speedup, q1, q3, compile_s,
// memory_compression, reason.
std::string suiteCsv(const Suite& suite);
// A table for people: jobs x backends, then the per-backend totals and the verdict.
std::string suiteTable(const Suite& suite);
// Writes suiteJson to DIR/suite.json atomically.
Status writeSuite(const Suite& suite);

} // namespace fusescope
