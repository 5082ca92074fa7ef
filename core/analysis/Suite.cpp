#include "Suite.h"

#include "Format.h"
#include "LatencyStats.h"
#include "Recommendation.h"
#include "report/SweepFiles.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace fusescope {

using nlohmann::json;

namespace {

// Two-sided 95 % quantiles of Student's t by degrees of freedom; past the table, the value at the
// largest tabulated df not above it (slightly wide, never narrow).
double tQuantile975(int df) {
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1)
        return 0;
    if (df <= 30)
        return table[df - 1];
    if (df < 40)
        return 2.042;
    if (df < 60)
        return 2.021;
    if (df < 120)
        return 2.000;
    return 1.980;
}

double geomean(const std::vector<double>& values) {
    double sum = 0;
    for (double v : values)
        sum += std::log(v);
    return std::exp(sum / static_cast<double>(values.size()));
}

std::string intervalText(const std::optional<Interval>& i) {
    if (!i)
        return "-";
    return format::ratio(i->lo) + "-" + format::ratio(i->hi);
}

bool overlaps(const Interval& a, const Interval& b) {
    return !(a.lo > b.hi || b.lo > a.hi);
}

SuiteBackend totalsFor(const std::string& name, const std::vector<SuiteJob>& jobs,
                       const std::vector<std::vector<std::optional<SuiteCell>>>& cells, size_t column) {
    SuiteBackend b;
    b.name = name;
    std::vector<double> speedups, q1s, q3s, compiles, compressions;
    for (size_t j = 0; j < jobs.size(); ++j) {
        const auto& cell = cells[j][column];
        if (!cell || !jobs[j].finished())
            continue;
        ++b.jobs;
        if (!cell->passed) {
            b.failures.push_back({jobs[j].id, jobs[j].label(), cell->reason});
            continue;
        }
        ++b.passed;
        const auto& s = *cell->speedup;
        speedups.push_back(s.median);
        q1s.push_back(std::max(s.q1, 1e-12));
        q3s.push_back(std::max(s.q3, 1e-12));
        if (cell->compileSeconds)
            compiles.push_back(*cell->compileSeconds);
        if (cell->memoryCompression)
            compressions.push_back(*cell->memoryCompression);
    }
    if (speedups.empty())
        return b;
    b.geomeanSpeedup = geomean(speedups);
    b.spread = Interval{geomean(q1s), geomean(q3s)};
    if (speedups.size() >= 2) {
        const double n = static_cast<double>(speedups.size());
        double mean = 0, var = 0;
        for (double v : speedups)
            mean += std::log(v) / n;
        for (double v : speedups)
            var += (std::log(v) - mean) * (std::log(v) - mean) / (n - 1);
        const double half = tQuantile975(static_cast<int>(speedups.size()) - 1) * std::sqrt(var / n);
        b.speedupCi95 = Interval{std::exp(mean - half), std::exp(mean + half)};
    }
    Interval hull = *b.spread;
    if (b.speedupCi95) {
        hull.lo = std::min(hull.lo, b.speedupCi95->lo);
        hull.hi = std::max(hull.hi, b.speedupCi95->hi);
    }
    b.interval = hull;
    if (!compiles.empty())
        b.medianCompileSeconds = computeLatencyStats(compiles).median;
    if (!compressions.empty())
        b.memoryCompression = geomean(compressions);
    return b;
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ")) + names[i];
    return out;
}

std::string describeBackend(const SuiteBackend& b) {
    return b.name + " (geomean " + format::ratio(b.geomeanSpeedup) + ", interval " +
           intervalText(b.interval) + ", passed " + std::to_string(b.passed) + "/" + std::to_string(b.jobs) +
           ")";
}

void rank(Suite& suite) {
    std::vector<const SuiteBackend*> ranked;
    for (const auto& b : suite.backends)
        if (b.geomeanSpeedup)
            ranked.push_back(&b);
    std::stable_sort(ranked.begin(), ranked.end(), [](const SuiteBackend* a, const SuiteBackend* b) {
        return *a->geomeanSpeedup > *b->geomeanSpeedup;
    });
    if (ranked.empty()) {
        suite.verdict = "No backend passed in any finished job: nothing to rank (each failure is listed "
                        "with its reason).";
        return;
    }
    const auto* leader = ranked.front();
    for (const auto* b : ranked)
        if (b == leader || overlaps(*leader->interval, *b->interval))
            suite.winners.push_back(b->name);
    std::string differentJobs;
    for (const auto* b : ranked)
        if (b->passed != leader->passed || b->jobs != leader->jobs) {
            differentJobs = " Each geomean is over the jobs that backend passed, and they differ: compare "
                            "the pass rates too.";
            break;
        }
    if (ranked.size() == 1) {
        suite.verdict = "Speedup over eager: " + describeBackend(*leader) +
                        " is the only backend that passed in any job." + differentJobs;
        return;
    }
    if (suite.winners.size() == 1) {
        suite.verdict = "Speedup over eager: " + describeBackend(*leader) + " is ahead of " +
                        describeBackend(*ranked[1]) + ": the intervals do not overlap." + differentJobs;
        return;
    }
    std::vector<std::string> tied;
    for (const auto* b : ranked)
        if (std::find(suite.winners.begin(), suite.winners.end(), b->name) != suite.winners.end())
            tied.push_back(describeBackend(*b));
    suite.verdict = "No single winner: the geomean intervals of " + joinNames(suite.winners) + " overlap (" +
                    joinNames(tied) + "). Choose by pass rate and compile time, or measure longer." +
                    differentJobs;
}

std::optional<double> compressionOf(const BackendRun& run) {
    if (!run.peakMemoryBytes || !run.eagerPeakMemoryBytes || *run.peakMemoryBytes <= 0 ||
        *run.eagerPeakMemoryBytes <= 0)
        return std::nullopt;
    return static_cast<double>(*run.eagerPeakMemoryBytes) / static_cast<double>(*run.peakMemoryBytes);
}

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string number(std::optional<double> v) {
    if (!v)
        return {};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *v);
    return buf;
}

json orNull(std::optional<double> v) {
    return v ? json(*v) : json(nullptr);
}

json intervalJson(const std::optional<Interval>& i) {
    if (!i)
        return nullptr;
    return {{"lo", i->lo}, {"hi", i->hi}};
}

} // namespace

const SuiteCell* Suite::cell(size_t job, const std::string& backend) const {
    if (job >= cells.size())
        return nullptr;
    for (size_t b = 0; b < backendNames.size(); ++b)
        if (backendNames[b] == backend)
            return cells[job][b] ? &*cells[job][b] : nullptr;
    return nullptr;
}

Suite aggregateSuite(std::vector<SuiteJob> jobs, const std::vector<std::optional<Report>>& reports,
                     std::vector<std::string> notes) {
    Suite suite;
    suite.notes = std::move(notes);
    for (const auto& job : jobs)
        for (const auto& b : job.backends)
            if (std::find(suite.backendNames.begin(), suite.backendNames.end(), b) ==
                suite.backendNames.end())
                suite.backendNames.push_back(b);
    suite.cells.assign(jobs.size(), std::vector<std::optional<SuiteCell>>(suite.backendNames.size()));
    int unfinished = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
        const auto& job = jobs[j];
        if (!job.finished()) {
            ++unfinished;
            continue;
        }
        const Report* report = j < reports.size() && reports[j] ? &*reports[j] : nullptr;
        std::optional<Recommendation> rec;
        if (report)
            rec = recommend(*report, Goal::Latency);
        for (size_t b = 0; b < suite.backendNames.size(); ++b) {
            const auto& name = suite.backendNames[b];
            if (std::find(job.backends.begin(), job.backends.end(), name) == job.backends.end())
                continue;
            SuiteCell cell;
            const BackendRun* run = report ? report->findBackend(name) : nullptr;
            if (!run) {
                cell.reason = !report
                                  ? (job.reason.empty() ? "job " + job.status + ", no report" : job.reason)
                                  : "not in the job's report (job " + job.status + ")";
            } else {
                cell.compileSeconds = run->compileSeconds;
                cell.memoryCompression = compressionOf(*run);
                cell.speedup = pairedSpeedup(*run);
                for (const auto& r : rec->ranked)
                    if (r.backend == name)
                        cell.passed = true;
                for (const auto& e : rec->excluded)
                    if (e.backend == name)
                        cell.reason = e.reason;
                if (cell.passed && !cell.speedup) {
                    cell.passed = false;
                    cell.reason = "no latency samples";
                }
            }
            suite.cells[j][b] = std::move(cell);
        }
    }
    if (unfinished > 0)
        suite.notes.push_back(std::to_string(unfinished) + " of " + std::to_string(jobs.size()) +
                              " job(s) not finished (pending, running or interrupted): rerun the sweep to "
                              "resume");
    suite.jobs = std::move(jobs);
    for (size_t b = 0; b < suite.backendNames.size(); ++b)
        suite.backends.push_back(totalsFor(suite.backendNames[b], suite.jobs, suite.cells, b));
    rank(suite);
    return suite;
}

Result<Suite> loadSuite(const std::string& dir) {
    auto files = readSweepFiles(dir);
    if (!files)
        return files.error();
    Suite suite = aggregateSuite(std::move(files.value().state.jobs), files.value().reports,
                                 std::move(files.value().notes));
    suite.dir = dir;
    suite.name = files.value().state.name;
    return suite;
}

json suiteJson(const Suite& suite) {
    json jobs = json::array();
    for (size_t j = 0; j < suite.jobs.size(); ++j) {
        const auto& job = suite.jobs[j];
        json results = json::array();
        for (size_t b = 0; b < suite.backendNames.size(); ++b) {
            const auto& cell = suite.cells[j][b];
            if (!cell)
                continue;
            json speedup = nullptr;
            if (cell->speedup)
                speedup = {{"median", cell->speedup->median},
                           {"q1", cell->speedup->q1},
                           {"q3", cell->speedup->q3},
                           {"pairs", cell->speedup->pairs}};
            results.push_back({{"backend", suite.backendNames[b]},
                               {"passed", cell->passed},
                               {"speedup", speedup},
                               {"compile_s", orNull(cell->compileSeconds)},
                               {"memory_compression", orNull(cell->memoryCompression)},
                               {"reason", cell->reason.empty() ? json(nullptr) : json(cell->reason)}});
        }
        jobs.push_back({{"id", job.id},
                        {"model", job.model},
                        {"backends", job.backends},
                        {"axes", job.axes},
                        {"status", job.status},
                        {"report", job.report.empty() ? json(nullptr) : json(job.report)},
                        {"reason", job.reason.empty() ? json(nullptr) : json(job.reason)},
                        {"seconds", orNull(job.seconds)},
                        {"node", job.node.empty() ? json(nullptr) : json(job.node)},
                        {"results", std::move(results)}});
    }
    json backends = json::array();
    for (const auto& b : suite.backends) {
        json failures = json::array();
        for (const auto& f : b.failures)
            failures.push_back({{"job", f.job}, {"model", f.model}, {"reason", f.reason}});
        backends.push_back({{"name", b.name},
                            {"jobs", b.jobs},
                            {"passed", b.passed},
                            {"pass_rate", b.jobs > 0 ? json(b.passRate()) : json(nullptr)},
                            {"geomean_speedup", orNull(b.geomeanSpeedup)},
                            {"speedup_ci95", intervalJson(b.speedupCi95)},
                            {"spread", intervalJson(b.spread)},
                            {"interval", intervalJson(b.interval)},
                            {"median_compile_s", orNull(b.medianCompileSeconds)},
                            {"memory_compression", orNull(b.memoryCompression)},
                            {"failures", std::move(failures)}});
    }
    return {{"schema", 1},
            {"kind", "fusescope-suite"},
            {"name", suite.name},
            {"jobs", std::move(jobs)},
            {"backends", std::move(backends)},
            {"winners", suite.winners},
            {"single_winner", suite.winners.size() == 1},
            {"verdict", suite.verdict},
            {"notes", suite.notes}};
}

std::string suiteCsv(const Suite& suite) {
    std::string out =
        "job,model,axes,backend,job_status,passed,speedup,q1,q3,compile_s,memory_compression,reason\n";
    for (size_t j = 0; j < suite.jobs.size(); ++j) {
        const auto& job = suite.jobs[j];
        for (size_t b = 0; b < suite.backendNames.size(); ++b) {
            const auto& cell = suite.cells[j][b];
            const bool asked = std::find(job.backends.begin(), job.backends.end(), suite.backendNames[b]) !=
                               job.backends.end();
            if (!asked)
                continue;
            std::vector<std::string> f = {job.id, job.model, axesText(job.axes), suite.backendNames[b],
                                          job.status};
            if (cell) {
                f.push_back(cell->passed ? "true" : "false");
                f.push_back(
                    number(cell->speedup ? std::optional<double>(cell->speedup->median) : std::nullopt));
                f.push_back(number(cell->speedup ? std::optional<double>(cell->speedup->q1) : std::nullopt));
                f.push_back(number(cell->speedup ? std::optional<double>(cell->speedup->q3) : std::nullopt));
                f.push_back(number(cell->compileSeconds));
                f.push_back(number(cell->memoryCompression));
                f.push_back(cell->reason);
            } else {
                f.insert(f.end(), {"", "", "", "", "", "", "job not finished"});
            }
            for (size_t i = 0; i < f.size(); ++i)
                out += (i ? "," : "") + csvField(f[i]);
            out += "\n";
        }
    }
    return out;
}

std::string suiteTable(const Suite& suite) {
    std::string out;
    out += "suite " + (suite.name.empty() ? suite.dir : suite.name) + ": " +
           std::to_string(suite.jobs.size()) + " job(s), " + std::to_string(suite.backendNames.size()) +
           " backend(s)\n";
    // Grid: one line per job, one column per backend.
    size_t width = 5;
    for (const auto& job : suite.jobs)
        width = std::max(width, job.label().size());
    width = std::min<size_t>(width, 60);
    auto pad = [](std::string s, size_t w) {
        if (s.size() > w)
            s = s.substr(0, w - 1) + "~";
        return s + std::string(w - s.size() + 2, ' ');
    };
    out += pad("job", width) + pad("status", 11);
    for (const auto& name : suite.backendNames)
        out += pad(name, std::max<size_t>(name.size(), 9));
    out += "\n";
    for (size_t j = 0; j < suite.jobs.size(); ++j) {
        out += pad(suite.jobs[j].label(), width) + pad(suite.jobs[j].status, 11);
        for (size_t b = 0; b < suite.backendNames.size(); ++b) {
            const auto& cell = suite.cells[j][b];
            std::string text = !cell ? "-" : cell->passed ? format::ratio(cell->speedup->median) : "FAIL";
            out += pad(text, std::max<size_t>(suite.backendNames[b].size(), 9));
        }
        out += "\n";
    }
    out += "\nbackend totals (over the jobs each passed):\n";
    for (const auto& b : suite.backends) {
        char pass[32];
        std::snprintf(pass, sizeof pass, "%d/%d", b.passed, b.jobs);
        out += "  " + b.name + ": geomean " + format::ratio(b.geomeanSpeedup) + " (95% CI " +
               intervalText(b.speedupCi95) + ", spread " + intervalText(b.spread) + "), passed " + pass +
               ", median compile " + format::seconds(b.medianCompileSeconds) + " s, memory compression " +
               format::ratio(b.memoryCompression) + "\n";
        for (const auto& f : b.failures)
            out += "    failed in " + f.model + ": " + f.reason + "\n";
    }
    out += "\n" + suite.verdict + "\n";
    for (const auto& note : suite.notes)
        out += "note: " + note + "\n";
    return out;
}

Status writeSuite(const Suite& suite) {
    return writeSuiteFile(suite.dir, suiteJson(suite));
}

} // namespace fusescope
