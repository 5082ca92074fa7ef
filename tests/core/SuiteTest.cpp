// The suite over a sweep's jobs (core/analysis/Suite, docs/sweeps.md): per-backend totals over
// the jobs each backend passed, failures with their reasons, and the noise rule of the verdict.
#include "analysis/Suite.h"

#include "TestData.h"
#include "codec/Json.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace fusescope;

namespace {

// testdata::timedRun with a 2 s compile and half of eager's peak memory.
BackendRun timedRun(const std::string& name, double speedup, double spread = 0.01, bool pass = true) {
    BackendRun run = testdata::timedRun(name, speedup, spread, pass);
    run.compileSeconds = 2.0;
    run.peakMemoryBytes = 500;
    run.eagerPeakMemoryBytes = 1000;
    return run;
}

BackendRun failedRun(const std::string& name, const std::string& message) {
    BackendRun run;
    run.name = name;
    run.status = RunStatus::Failed;
    run.error = RunError{"model_failed", message, {}, {}};
    return run;
}

SuiteJob job(const std::string& id, const std::string& model, std::vector<std::string> backends,
             const std::string& status = "ok") {
    SuiteJob j;
    j.id = id;
    j.model = model;
    j.backends = std::move(backends);
    j.status = status;
    j.report = id + ".fscope";
    return j;
}

Report reportOf(std::vector<BackendRun> runs) {
    Report r;
    r.backends = std::move(runs);
    return r;
}

const SuiteBackend& totals(const Suite& s, const std::string& name) {
    for (const auto& b : s.backends)
        if (b.name == name)
            return b;
    throw std::runtime_error("no backend " + name);
}

} // namespace

TEST(Suite, GeomeanPassRateCompileAndCompressionOverPassedJobs) {
    std::vector<SuiteJob> jobs = {job("a", "demo:mlp", {"eager", "inductor"}),
                                  job("b", "demo:cnn", {"eager", "inductor"}),
                                  job("c", "broken.py", {"eager", "inductor"}, "failed")};
    jobs[2].reason = "no backend ran";
    std::vector<std::optional<Report>> reports = {
        reportOf({timedRun("eager", 1.0), timedRun("inductor", 2.0)}),
        reportOf({timedRun("eager", 1.0), timedRun("inductor", 8.0)}),
        reportOf({failedRun("eager", "forward raised RuntimeError: deliberate"),
                  failedRun("inductor", "not run, the model failed")})};
    const Suite s = aggregateSuite(jobs, reports);
    const auto& ind = totals(s, "inductor");
    EXPECT_EQ(ind.jobs, 3);
    EXPECT_EQ(ind.passed, 2);
    ASSERT_TRUE(ind.geomeanSpeedup);
    EXPECT_NEAR(*ind.geomeanSpeedup, 4.0, 0.05); // sqrt(2 * 8)
    ASSERT_TRUE(ind.speedupCi95);
    EXPECT_LT(ind.speedupCi95->lo, 2.0); // two jobs this far apart: a wide interval
    EXPECT_GT(ind.speedupCi95->hi, 8.0);
    EXPECT_NEAR(*ind.memoryCompression, 2.0, 1e-9);
    EXPECT_NEAR(*ind.medianCompileSeconds, 2.0, 1e-9);
    ASSERT_EQ(ind.failures.size(), 1u);
    EXPECT_EQ(ind.failures[0].job, "c");
    EXPECT_NE(ind.failures[0].reason.find("not run, the model failed"), std::string::npos);
    const auto& eager = totals(s, "eager");
    ASSERT_EQ(eager.failures.size(), 1u);
    EXPECT_NE(eager.failures[0].reason.find("deliberate"), std::string::npos);

    const auto json = suiteJson(s);
    EXPECT_EQ(json["jobs"].size(), 3u);
    EXPECT_EQ(json["jobs"][2]["status"], "failed");
    EXPECT_EQ(json["backends"][1]["name"], "inductor");
    EXPECT_NEAR(json["backends"][1]["pass_rate"].get<double>(), 2.0 / 3.0, 1e-9);
}

TEST(Suite, OverlappingIntervalsAreNoSingleWinnerAndSeparateOnesAre) {
    // Speedups 1.9 and 2.1 over three models each: the geomeans differ by 2 %, less than the
    // spread over jobs, so neither wins.
    std::vector<SuiteJob> jobs;
    std::vector<std::optional<Report>> close, apart;
    const double a[] = {1.5, 2.0, 2.4}, b[] = {1.6, 1.9, 2.5};
    for (int i = 0; i < 3; ++i) {
        jobs.push_back(job("j" + std::to_string(i), "m" + std::to_string(i), {"x", "y"}));
        close.push_back(reportOf({timedRun("x", a[i]), timedRun("y", b[i])}));
        apart.push_back(reportOf({timedRun("x", a[i]), timedRun("y", 4 * b[i])}));
    }
    const Suite tie = aggregateSuite(jobs, close);
    EXPECT_EQ(tie.winners.size(), 2u);
    EXPECT_NE(tie.verdict.find("No single winner"), std::string::npos) << tie.verdict;
    EXPECT_FALSE(suiteJson(tie)["single_winner"].get<bool>());

    const Suite win = aggregateSuite(jobs, apart);
    ASSERT_EQ(win.winners, std::vector<std::string>{"y"}) << win.verdict;
    EXPECT_NE(win.verdict.find("do not overlap"), std::string::npos) << win.verdict;
}

TEST(Suite, JobWithoutReportFailsEachBackendWithItsReasonAndUnfinishedJobsDoNotCount) {
    std::vector<SuiteJob> jobs = {job("a", "demo:mlp", {"eager"}), job("b", "m.py", {"eager"}, "failed"),
                                  job("c", "n.py", {"eager"}, "interrupted")};
    jobs[1].reason = "timeout: the job ran past the sweep's 5 s timeout, \"stopped\"";
    const Suite s = aggregateSuite(jobs, {reportOf({timedRun("eager", 1.0)}), std::nullopt, std::nullopt});
    const auto& e = totals(s, "eager");
    EXPECT_EQ(e.jobs, 2);
    EXPECT_EQ(e.passed, 1);
    ASSERT_EQ(e.failures.size(), 1u);
    EXPECT_NE(e.failures[0].reason.find("timeout"), std::string::npos);
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.back().find("not finished"), std::string::npos);
    EXPECT_EQ(s.cell(2, "eager"), nullptr);
    const std::string csv = suiteCsv(s);
    EXPECT_NE(csv.find("job not finished"), std::string::npos);
    EXPECT_NE(csv.find(R"("timeout: the job ran past the sweep's 5 s timeout, ""stopped""")"),
              std::string::npos)
        << csv;
}

TEST(Suite, LoadRefusesAFolderWithoutSweepStateAndNamesBadFields) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("fusescope-suite-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto missing = loadSuite(dir.string());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "suite_not_found");
    std::ofstream(dir / "sweep.json")
        << R"({"kind": "fusescope-sweep", "jobs": [{"id": "a", "backends": "eager"}]})";
    auto bad = loadSuite(dir.string());
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, "suite_corrupt");
    EXPECT_NE(bad.error().message.find("jobs[0].backends"), std::string::npos) << bad.error().message;
    std::filesystem::remove_all(dir);
}
