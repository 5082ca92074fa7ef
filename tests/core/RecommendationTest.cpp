#include "analysis/Recommendation.h"

#include "TestData.h"
#include "analysis/AssignmentSearch.h"
#include "analysis/Summary.h"
#include "model/WorkloadText.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

using testdata::timedRun;

Report reportOf(std::vector<BackendRun> runs) {
    Report r;
    r.backends = std::move(runs);
    return r;
}

} // namespace

TEST(Speedup, PairedRatiosGiveMedianAndQuartiles) {
    const auto s = pairedSpeedup({10, 10, 10, 10}, {5, 5, 4, 10});
    ASSERT_TRUE(s.has_value());
    EXPECT_DOUBLE_EQ(s->median, 2.0);
    EXPECT_EQ(s->pairs, 4);
    EXPECT_LT(s->q1, s->median);
    EXPECT_FALSE(pairedSpeedup({}, {1}).has_value());
}

TEST(Recommendation, ClearWinnerIsNamedWithItsLead) {
    const auto rec =
        recommend(reportOf({timedRun("eager", 1.0, 0.02), timedRun("inductor", 1.8, 0.02)}), Goal::Latency);
    ASSERT_EQ(rec.ranked.size(), 2u);
    EXPECT_EQ(rec.ranked[0].backend, "inductor");
    EXPECT_EQ(rec.ranked[0].tier, 1);
    EXPECT_EQ(rec.ranked[1].tier, 2);
    ASSERT_EQ(rec.winners, std::vector<std::string>{"inductor"});
    EXPECT_NE(rec.verdict.find("inductor"), std::string::npos);
    EXPECT_NE(rec.verdict.find("ahead of eager"), std::string::npos);
    EXPECT_NE(rec.ranked[0].sentence.find("1.80x faster than eager"), std::string::npos)
        << rec.ranked[0].sentence;
    EXPECT_NE(rec.ranked[0].sentence.find("10.00 s compile"), std::string::npos) << rec.ranked[0].sentence;
}

TEST(Recommendation, RefusesToRankInsideTheSpread) {
    // 2% apart with +-5% per-iteration noise: not a win.
    const auto rec = recommend(
        reportOf({timedRun("aot_eager", 1.00, 0.05), timedRun("inductor", 1.02, 0.05)}), Goal::Latency);
    ASSERT_EQ(rec.ranked.size(), 2u);
    EXPECT_EQ(rec.ranked[0].tier, 1);
    EXPECT_EQ(rec.ranked[1].tier, 1);
    EXPECT_EQ(rec.winners.size(), 2u);
    EXPECT_NE(rec.verdict.find("no single winner"), std::string::npos) << rec.verdict;
    // The same 2% with a tight spread is a real difference.
    const auto tight = recommend(
        reportOf({timedRun("aot_eager", 1.00, 0.002), timedRun("inductor", 1.02, 0.002)}), Goal::Latency);
    EXPECT_EQ(tight.winners, std::vector<std::string>{"inductor"});
}

TEST(Recommendation, FailedAccuracyAndFailedRunsAreExcludedWithTheReason) {
    auto wrong = timedRun("tvm", 3.0, 0.01, /*pass=*/false);
    wrong.accuracy->precision = "bf16";
    BackendRun broken;
    broken.name = "cudagraphs";
    broken.status = RunStatus::Unavailable;
    broken.error = RunError{"backend_unavailable", "needs CUDA\nmore", {}, {}};
    const auto rec = recommend(reportOf({timedRun("inductor", 1.5, 0.01), wrong, broken}), Goal::Latency);
    ASSERT_EQ(rec.ranked.size(), 1u);
    ASSERT_EQ(rec.excluded.size(), 2u);
    EXPECT_NE(rec.excluded[0].reason.find("failed accuracy at bf16"), std::string::npos)
        << rec.excluded[0].reason;
    EXPECT_EQ(rec.excluded[1].reason, "unavailable (backend_unavailable): needs CUDA");
    EXPECT_NE(rec.verdict.find("only backend"), std::string::npos);
}

TEST(Recommendation, NncOnItsInterpreterIsNotRanked) {
    // issue 33: without LLVM NNC runs its IR interpreter; that latency is not NNC's speed.
    auto nnc = timedRun("torchscript_nnc", 0.002, 0.01);
    nnc.warnings.push_back({"nnc_interpreter", "this LibTorch has no LLVM, ..."});
    const auto rec = recommend(reportOf({timedRun("inductor", 1.5, 0.01), nnc}), Goal::Latency);
    ASSERT_EQ(rec.ranked.size(), 1u);
    EXPECT_EQ(rec.ranked[0].backend, "inductor");
    ASSERT_EQ(rec.excluded.size(), 1u);
    EXPECT_EQ(rec.excluded[0].reason,
              "NNC ran on its IR interpreter (no LLVM in this LibTorch): the latency is not NNC's speed");
}

TEST(Recommendation, AnAccuracyExclusionCarriesTheStatusAndReason) {
    auto noisy = timedRun("aot_eager", 2.0, 0.01, /*pass=*/false);
    noisy.accuracy->status = "eager_two_runs_differ";
    noisy.accuracy->reason =
        "eager run twice on the same inputs gives different outputs: output differs\nmore";
    auto wrong = timedRun("tvm", 3.0, 0.01, /*pass=*/false);
    wrong.accuracy->status = "fail_accuracy";
    wrong.accuracy->reason = "output[1].layers[0].keys is outside the tolerance";
    const auto rec = recommend(reportOf({timedRun("inductor", 1.5, 0.01), noisy, wrong}), Goal::Latency);
    ASSERT_EQ(rec.excluded.size(), 2u);
    EXPECT_EQ(rec.excluded[0].reason,
              "failed accuracy at fp32 (eager_two_runs_differ): eager run twice on the "
              "same inputs gives different outputs: output differs");
    EXPECT_NE(rec.excluded[1].reason.find("(max abs "), std::string::npos) << rec.excluded[1].reason;
    EXPECT_NE(rec.excluded[1].reason.find("): output[1].layers[0].keys is outside the tolerance"),
              std::string::npos)
        << rec.excluded[1].reason;
}

TEST(Recommendation, ThroughputNeedsTrainingRuns) {
    const auto none = recommend(reportOf({timedRun("inductor", 1.5, 0.01)}), Goal::Throughput);
    EXPECT_TRUE(none.ranked.empty());
    EXPECT_NE(none.verdict.find("--mode training"), std::string::npos);
    auto training = timedRun("inductor", 1.5, 0.01);
    training.workload = Workload{"training", "fp32", {}, {}};
    training.training = TrainingResult{};
    training.training->batchSize = 8;
    const auto rec = recommend(reportOf({training}), Goal::Throughput);
    ASSERT_EQ(rec.ranked.size(), 1u);
    EXPECT_NE(rec.ranked[0].sentence.find("samples/s"), std::string::npos) << rec.ranked[0].sentence;
}

TEST(Recommendation, CompileBudgetExcludesSlowCompilers) {
    auto slow = timedRun("inductor@max-autotune", 2.0, 0.01);
    slow.compileSeconds = 300;
    const auto rec = recommend(reportOf({timedRun("inductor", 1.5, 0.01), slow}), Goal::Compile,
                               {.compileBudgetSeconds = 60});
    ASSERT_EQ(rec.winners, std::vector<std::string>{"inductor"});
    ASSERT_EQ(rec.excluded.size(), 1u);
    EXPECT_NE(rec.excluded[0].reason.find("over the 60.00 s budget"), std::string::npos)
        << rec.excluded[0].reason;
}

TEST(Recommendation, MemoryRanksLowestPeakAndTiesCloseOnes) {
    auto a = timedRun("a", 1.0, 0.01);
    auto b = timedRun("b", 1.0, 0.01);
    auto c = timedRun("c", 1.0, 0.01);
    a.peakMemoryBytes = 1000;
    b.peakMemoryBytes = 1010; // within 2%
    c.peakMemoryBytes = 2000;
    const auto rec = recommend(reportOf({c, b, a}), Goal::Memory);
    ASSERT_EQ(rec.ranked.size(), 3u);
    EXPECT_EQ(rec.ranked[0].backend, "a");
    EXPECT_EQ(rec.winners.size(), 2u);
    EXPECT_EQ(rec.ranked[2].tier, 2);
}

TEST(Recommendation, SummaryCarriesTheRecommendationForTheGoal) {
    const auto j = summaryJson(reportOf({timedRun("inductor", 1.5, 0.01)}), {.goal = Goal::Memory});
    EXPECT_EQ(j["recommendation"]["goal"], "memory");
    EXPECT_EQ(j["backends"][0]["speedup"]["pairs"], 40);
    EXPECT_EQ(goalFromString("throughput"), Goal::Throughput);
    EXPECT_FALSE(goalFromString("speed").has_value());
}

namespace {

// Plays the session's part: every proposed label "runs" with the speedup `speedOf` gives it.
Report runSearch(AssignmentSearch& search, Report report,
                 const std::function<double(const std::string&)>& speedOf) {
    for (int guard = 0; guard < 50; ++guard) {
        const auto labels = search.next(report);
        if (labels.empty())
            return report;
        for (const auto& l : labels)
            report.backends.push_back(timedRun(l, speedOf(l), 0.01));
    }
    ADD_FAILURE() << "search did not end";
    return report;
}

} // namespace

TEST(AssignmentSearch, ExhaustiveTriesEveryAssignmentAndKeepsThem) {
    Report report = reportOf({timedRun("eager", 1.0, 0.01), timedRun("inductor", 1.5, 0.01)});
    AssignmentSearch search({"encoder", "decoder"}, {"eager", "inductor"}, {"eager", "inductor"});
    EXPECT_EQ(search.strategy(), "exhaustive");
    // encoder on inductor is worth 1.4x, decoder on inductor 1.2x; decoder best on eager: 1.3x.
    report = runSearch(search, report, [](const std::string& l) {
        const bool enc = l.find("encoder=inductor") != std::string::npos;
        const bool dec = l.find("decoder=inductor") != std::string::npos;
        return enc && !dec ? 1.9 : enc && dec ? 1.5 : 1.0;
    });
    const auto out = search.outcome(report);
    EXPECT_EQ(out.candidates.size(), 4u);
    EXPECT_EQ(out.pick, "mixed[encoder=inductor,decoder=eager]");
    ASSERT_TRUE(out.gainOverBestSingle);
    EXPECT_NEAR(*out.gainOverBestSingle, 1.9 / 1.5, 0.01);
}

TEST(AssignmentSearch, NeverPicksAnAssignmentInsideTheSpreadOfTheBestSingleBackend) {
    Report report = reportOf({timedRun("eager", 1.0, 0.01), timedRun("inductor", 1.5, 0.05)});
    AssignmentSearch search({"encoder", "decoder"}, {"eager", "inductor"}, {"eager", "inductor"});
    report = runSearch(search, report, [](const std::string& l) {
        return l == "mixed[encoder=inductor,decoder=eager]" ? 1.52 : 1.0; // 1% better: noise
    });
    const auto out = search.outcome(report);
    EXPECT_EQ(out.pick, "inductor");
    EXPECT_NE(out.verdict.find("no assignment beats inductor"), std::string::npos);
}

TEST(AssignmentSearch, GreedyStartsFromTheBestSingleBackendAndImprovesModuleByModule) {
    Report report = reportOf(
        {timedRun("eager", 1.0, 0.01), timedRun("aot_eager", 1.0, 0.01), timedRun("inductor", 1.5, 0.01)});
    std::vector<std::string> modules = {"a", "b", "c"};
    AssignmentSearch search(modules, {"eager", "aot_eager", "inductor"}, {"eager", "aot_eager", "inductor"},
                            16);
    EXPECT_EQ(search.strategy(), "greedy"); // 27 > 16
    report = runSearch(search, report, [](const std::string& l) {
        // Module b is better off eager; everything else wants inductor.
        double s = 1.5;
        if (l.find("b=eager") != std::string::npos)
            s += 0.3;
        if (l.find("a=inductor") == std::string::npos || l.find("c=inductor") == std::string::npos)
            s -= 0.4;
        return s;
    });
    const auto out = search.outcome(report);
    EXPECT_EQ(out.pick, "mixed[a=inductor,b=eager,c=inductor]");
    // 1 start + 3 modules x 2 alternatives.
    EXPECT_EQ(out.candidates.size(), 7u);
}

// An imported TORCH_TRACE log has compiles and kernels but no timed samples: the verdict says
// that, not that every backend failed.
TEST(Recommendation, AReportWithoutSamplesSaysSoInsteadOfBlamingTheBackends) {
    BackendRun imported;
    imported.name = "inductor";
    imported.status = RunStatus::Ok;
    imported.compileSeconds = 4.0;
    const auto rec = recommend(reportOf({imported}), Goal::Latency);
    EXPECT_TRUE(rec.ranked.empty());
    EXPECT_NE(rec.verdict.find("no latency samples"), std::string::npos) << rec.verdict;
    EXPECT_EQ(rec.verdict.find("every backend failed"), std::string::npos) << rec.verdict;

    BackendRun failed = imported;
    failed.status = RunStatus::Failed;
    const auto other = recommend(reportOf({failed}), Goal::Latency);
    EXPECT_NE(other.verdict.find("every backend failed"), std::string::npos) << other.verdict;
}
