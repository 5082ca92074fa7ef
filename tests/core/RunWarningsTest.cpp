// Warnings (docs/measurement.md, "Warnings"): the worker's stored ones round-trip through a report;
// high_variance is derived from the samples and never stored; the recommendation names busy runs.
#include "analysis/RunWarnings.h"

#include "TestData.h"
#include "analysis/Recommendation.h"
#include "analysis/Summary.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "report/ReportFile.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace fusescope;
namespace fs = std::filesystem;

namespace {

const RunWarning kBusy{"machine_busy",
                       "other processes used 0.93 of 2 cores while eager/compiled samples were "
                       "taken; timings are distorted (docs/measurement.md)"};

Report busyReport() {
    Report r = testdata::sampleReport();
    r.backends[0].warnings = {kBusy,
                              {"cpu_governor", "CPU frequency governor is powersave, not performance"}};
    r.backends[0].placement = RunPlacement{1, std::nullopt, {0, 1}, {}, "steady"};
    return r;
}

std::vector<std::string> codes(const std::vector<RunWarning>& warnings) {
    std::vector<std::string> out;
    for (const auto& w : warnings)
        out.push_back(w.code);
    return out;
}

} // namespace

TEST(RunWarningsTest, StoredWarningsAndPlacementRoundTripThroughAReportFile) {
    const fs::path path =
        fs::temp_directory_path() / ("fscope-warnings-" + std::to_string(::getpid()) + ".fscope");
    ASSERT_FALSE(writeReport(busyReport(), path.string()).has_value());
    auto back = readReport(path.string());
    fs::remove(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    const auto& run = back.value().backends[0];
    EXPECT_EQ(run.warnings, busyReport().backends[0].warnings);
    ASSERT_TRUE(run.placement.has_value());
    EXPECT_EQ(run.placement->threads, 1);
    EXPECT_FALSE(run.placement->threadsRequested.has_value());
    EXPECT_EQ(run.placement->affinity, (std::vector<int>{0, 1}));
    EXPECT_EQ(run.placement->malloc, "steady");
    EXPECT_TRUE(back.value().backends[1].warnings.empty());
}

// Page faults per timed call (docs/measurement.md "The allocator"): decoded from a result's
// `measure`, kept in the report, printed with the confidence line; many of them under an
// allocator policy other than steady are the derived warning page_faults, under steady none.
TEST(RunWarningsTest, PageFaultsPerCallDecodeAndWarnOnlyOffTheSteadyPolicy) {
    BackendRun run = testdata::sampleReport().backends[0];
    const nlohmann::json result = {
        {"type", "result"},
        {"backend", run.name},
        {"status", "ok"},
        {"placement", {{"threads", 1}, {"affinity", {0}}, {"pin", nullptr}, {"malloc", "system"}}},
        {"measure",
         {{"confidence_pct", 0.0},
          {"stopped_by", "min"},
          {"faults_per_call", {{"eager", 2976.0}, {"compiled", 12.5}}}}}};
    ASSERT_FALSE(codec::decodeRunResult(result, run));
    ASSERT_TRUE(run.measure && run.placement);
    EXPECT_EQ(run.placement->malloc, "system");
    EXPECT_EQ(run.measure->eagerFaultsPerCall, 2976.0);
    EXPECT_EQ(run.measure->compiledFaultsPerCall, 12.5);
    EXPECT_NE(confidenceText(run).find("page faults per call: eager 2976, compiled 12"), std::string::npos)
        << confidenceText(run);
    auto found = codes(derivedWarnings(run));
    EXPECT_NE(std::find(found.begin(), found.end(), "page_faults"), found.end());

    Report report = testdata::sampleReport();
    report.backends[0] = run;
    auto back = parseReport(codec::dumpJson(nlohmann::json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().backends[0].measure->eagerFaultsPerCall, 2976.0);
    EXPECT_EQ(summaryJson(back.value())["backends"][0]["measure"]["faults_per_call"]["eager"], 2976.0);

    run.placement->malloc = "steady"; // large tensors fault under steady too: not an artefact
    found = codes(derivedWarnings(run));
    EXPECT_EQ(std::find(found.begin(), found.end(), "page_faults"), found.end());

    nlohmann::json negative = result;
    negative["measure"]["faults_per_call"]["eager"] = -1;
    BackendRun bad;
    auto status = codec::decodeRunResult(negative, bad, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("measure.faults_per_call.eager"), std::string::npos) << status->message;
}

// short_calls (docs/measurement.md, "Settle calls"): a 0.11 ms median measured with settle 1
// warns, with settle 4 it does not, nor does a 2 ms call at settle 1; `measure.settle` is decoded,
// round-trips through the report, and a negative count is refused with its path.
TEST(RunWarningsTest, ShortCallsWarnBelowFourSettleCallsOnly) {
    BackendRun run = testdata::sampleReport().backends[0];
    nlohmann::json result = {{"type", "result"},
                             {"backend", run.name},
                             {"status", "ok"},
                             {"measure", {{"confidence_pct", 0.0}, {"stopped_by", "min"}, {"settle", 1}}}};
    ASSERT_FALSE(codec::decodeRunResult(result, run));
    ASSERT_TRUE(run.measure && run.measure->settle);
    EXPECT_EQ(*run.measure->settle, 1);
    run.status = RunStatus::Ok;
    run.eagerSamplesMs = {0.10, 0.11, 0.10, 0.11, 0.10, 0.11};
    run.compiledSamplesMs = {0.12, 0.11, 0.12, 0.11, 0.12, 0.11};
    auto found = codes(derivedWarnings(run));
    ASSERT_NE(std::find(found.begin(), found.end(), "short_calls"), found.end());
    for (const auto& w : derivedWarnings(run))
        if (w.code == "short_calls")
            EXPECT_NE(w.message.find("settle 1"), std::string::npos) << w.message;

    Report report = testdata::sampleReport();
    report.backends[0] = run;
    auto back = parseReport(codec::dumpJson(nlohmann::json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back.value().backends[0].measure);
    EXPECT_EQ(back.value().backends[0].measure->settle, 1);

    run.measure->settle = kShortCallSettle;
    found = codes(derivedWarnings(run));
    EXPECT_EQ(std::find(found.begin(), found.end(), "short_calls"), found.end());

    run.measure->settle = 1;
    run.eagerSamplesMs = {2.0, 2.1, 2.0, 2.1, 2.0, 2.1};
    run.compiledSamplesMs = {1.0, 1.1, 1.0, 1.1, 1.0, 1.1};
    found = codes(derivedWarnings(run));
    EXPECT_EQ(std::find(found.begin(), found.end(), "short_calls"), found.end());

    result["measure"]["settle"] = -1;
    BackendRun bad;
    auto status = codec::decodeRunResult(result, bad, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("measure.settle"), std::string::npos) << status->message;
}

TEST(RunWarningsTest, AReportWithoutWarningsStillLoads) {
    nlohmann::json j = busyReport();
    for (auto& b : j["backends"]) {
        b.erase("warnings");
        b.erase("placement");
    }
    auto back = codec::decodeReport(j);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(back.value().backends[0].warnings.empty());
    EXPECT_FALSE(back.value().backends[0].placement.has_value());
}

TEST(RunWarningsTest, AWarningWithoutACodeIsRefusedWithItsPath) {
    nlohmann::json j = busyReport();
    j["backends"][0]["warnings"] = {{{"message", "no code"}}};
    auto back = codec::decodeReport(j);
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message.find("warnings[0]"), std::string::npos) << back.error().message;
}

TEST(RunWarningsTest, HighVarianceIsDerivedFromTheSamplesNotStored) {
    BackendRun run;
    run.eagerSamplesMs = {10.0, 10.1, 10.2, 10.3, 10.4};    // IQR 0.2 of a 10.2 median: 2 %
    run.compiledSamplesMs = {10.0, 11.0, 12.0, 13.0, 14.0}; // IQR 2 of a 12 median: 17 %
    const auto derived = derivedWarnings(run);
    ASSERT_EQ(codes(derived), std::vector<std::string>{"high_variance"});
    EXPECT_NE(derived[0].message.find("compiled samples vary: IQR 2.000 ms is 17 % of the 12.000 ms median"),
              std::string::npos)
        << derived[0].message;
    run.warnings = {kBusy};
    EXPECT_EQ(codes(runWarnings(run)), (std::vector<std::string>{"machine_busy", "high_variance"}));
    // Saved: only the stored one; summarised: both.
    const nlohmann::json saved = run;
    EXPECT_EQ(saved["warnings"].size(), 1u);
    Report report;
    report.backends = {run};
    const auto summary = summaryJson(report);
    EXPECT_EQ(summary["backends"][0]["warnings"].size(), 2u);
    EXPECT_EQ(summary["backends"][0]["warnings"][1]["code"], "high_variance");
    // Too few samples to call it variance.
    run.compiledSamplesMs = {10.0, 14.0, 12.0};
    EXPECT_TRUE(derivedWarnings(run).empty());
}

TEST(RunWarningsTest, TheVerdictSaysWhenItRestsOnABusyMachine) {
    Report report = busyReport();
    const auto rec = recommend(report, Goal::Latency);
    EXPECT_NE(rec.verdict.find("busy machine (machine_busy for inductor)"), std::string::npos) << rec.verdict;
    report.backends[0].warnings.clear();
    EXPECT_EQ(recommend(report, Goal::Latency).verdict.find("busy machine"), std::string::npos);
}

namespace {

// `n` samples of `ms`, the last quarter (by position) scaled by `endFactor`, a +-4 % wobble on all.
std::vector<double> series(int n, double ms, double endFactor) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
        const double wobble = (i % 3 == 0) ? 1.04 : (i % 3 == 1 ? 0.96 : 1.0);
        out.push_back(ms * wobble * (i >= n - n / 4 ? endFactor : 1.0));
    }
    return out;
}

std::optional<RunWarning> find(const std::vector<RunWarning>& warnings, const std::string& code) {
    for (const auto& w : warnings)
        if (w.code == code)
            return w;
    return std::nullopt;
}

} // namespace

TEST(RunWarningsTest, DriftComparesTheFirstAndLastQuarterOfASeriesInTheOrderTaken) {
    BackendRun run = testdata::sampleReport().backends[0];
    run.status = RunStatus::Ok;
    run.eagerSamplesMs = series(40, 6.0, 1.30);
    run.compiledSamplesMs = series(40, 3.0, 1.0);
    auto w = find(derivedWarnings(run), "drift");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->message.rfind("eager calls took 6.000 ms (median) in the first quarter", 0), 0u)
        << w->message;
    EXPECT_NE(w->message.find("7.800 ms in the last (+30 %)"), std::string::npos) << w->message;

    // The same samples in another order: a spread, not a drift (high_variance's business).
    std::vector<double> shuffled;
    for (int i = 0; i < 10; ++i)
        for (int k = 0; k < 4; ++k)
            shuffled.push_back(run.eagerSamplesMs[static_cast<size_t>(k * 10 + i)]);
    run.eagerSamplesMs = shuffled;
    EXPECT_FALSE(find(derivedWarnings(run), "drift"));

    // Faster at the end counts too; the larger change of the two series is the one named.
    run.eagerSamplesMs = series(40, 6.0, 0.85);
    run.compiledSamplesMs = series(40, 3.0, 0.75);
    w = find(derivedWarnings(run), "drift");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->message.rfind("compiled calls took 3.000 ms", 0), 0u) << w->message;
    EXPECT_NE(w->message.find("(-25 %)"), std::string::npos) << w->message;

    // Up to 10 % is not drift; nor is any change on fewer than 16 samples.
    run.eagerSamplesMs = series(40, 6.0, 1.09);
    run.compiledSamplesMs = series(40, 3.0, 0.92);
    EXPECT_FALSE(find(derivedWarnings(run), "drift"));
    run.eagerSamplesMs = series(kDriftMinSamples - 1, 6.0, 2.0);
    run.compiledSamplesMs = series(kDriftMinSamples - 1, 3.0, 2.0);
    EXPECT_FALSE(find(derivedWarnings(run), "drift"));
    run.eagerSamplesMs = series(kDriftMinSamples, 6.0, 2.0);
    EXPECT_TRUE(find(derivedWarnings(run), "drift"));
}

TEST(RunWarningsTest, DriftIsDerivedFromTheSamplesAndNeverStored) {
    Report report = testdata::sampleReport();
    BackendRun& run = report.backends[0];
    run.status = RunStatus::Ok;
    run.eagerSamplesMs = series(32, 2.0, 1.5);
    run.compiledSamplesMs = series(32, 1.0, 1.5);
    ASSERT_TRUE(find(runWarnings(run), "drift"));
    auto back = parseReport(codec::dumpJson(nlohmann::json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_FALSE(find(back.value().backends[0].warnings, "drift"));    // not written
    EXPECT_TRUE(find(runWarnings(back.value().backends[0]), "drift")); // recomputed on reading
    const auto summary = summaryJson(back.value());
    bool shown = false;
    for (const auto& b : summary["backends"])
        for (const auto& wj : b.value("warnings", nlohmann::json::array()))
            shown = shown || wj.value("code", "") == "drift";
    EXPECT_TRUE(shown) << summary.dump();
}

TEST(RunWarningsTest, BaselineDriftComparesTheEagerCallsTimedBesideEachComparableRow) {
    Report report = testdata::sampleReport();
    ASSERT_GE(report.backends.size(), 1u);
    BackendRun first = report.backends[0];
    first.status = RunStatus::Ok;
    first.name = "inductor";
    first.eagerSamplesMs = {6.0, 6.1, 5.9, 6.0, 6.0};
    BackendRun second = first;
    second.name = "aot_eager";
    second.eagerSamplesMs = {8.0, 8.1, 7.9, 8.0, 8.0};
    report.backends = {first, second};
    report.warnings = {kBusy};

    auto all = reportWarnings(report);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0], kBusy); // stored first
    EXPECT_EQ(all[1].code, "baseline_drift");
    EXPECT_EQ(all[1].message.rfind("the same eager calls took 6.000 ms (median) beside inductor and 8.000 ms "
                                   "beside aot_eager (+33 %)",
                                   0),
              0u)
        << all[1].message;

    // Shown in the summary's run-wide warnings, never written to the report.
    EXPECT_NE(summaryJson(report)["warnings"].dump().find("baseline_drift"), std::string::npos);
    auto back = parseReport(codec::dumpJson(nlohmann::json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().warnings, std::vector<RunWarning>{kBusy});
    EXPECT_EQ(derivedReportWarnings(back.value()).size(), 1u);

    // Within 10 %: nothing.
    report.backends[1].eagerSamplesMs = {6.5, 6.6, 6.4, 6.5, 6.5};
    EXPECT_TRUE(derivedReportWarnings(report).empty());

    // Rows whose eager work differs (another workload, another thread count) are not compared;
    // nor failed rows or rows with fewer than 4 eager samples.
    report.backends[1].eagerSamplesMs = {8.0, 8.1, 7.9, 8.0, 8.0};
    report.backends[1].workload = Workload{"training", "fp32", {}, {}};
    EXPECT_TRUE(derivedReportWarnings(report).empty());
    report.backends[1].workload = report.backends[0].workload;
    report.backends[1].placement = RunPlacement{2, std::nullopt, {0, 1}, {}, "steady"};
    report.backends[0].placement = RunPlacement{1, std::nullopt, {0, 1}, {}, "steady"};
    EXPECT_TRUE(derivedReportWarnings(report).empty());
    report.backends[1].placement = report.backends[0].placement;
    EXPECT_EQ(derivedReportWarnings(report).size(), 1u);
    report.backends[1].status = RunStatus::Failed;
    EXPECT_TRUE(derivedReportWarnings(report).empty());
    report.backends[1].status = RunStatus::Ok;
    report.backends[1].eagerSamplesMs = {8.0, 8.1, 7.9};
    EXPECT_TRUE(derivedReportWarnings(report).empty());
}
