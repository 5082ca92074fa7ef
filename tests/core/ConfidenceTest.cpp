// Confidence intervals of medians, the stopping rule's record and run-wide warnings
// (docs/measurement.md, "Stopping rule", "Confidence intervals", "Machine check and warnings").
#include "analysis/Confidence.h"

#include "TestData.h"
#include "analysis/ComparisonColumns.h"
#include "analysis/Format.h"
#include "analysis/Recommendation.h"
#include "analysis/RunWarnings.h"
#include "analysis/Speedup.h"
#include "analysis/Summary.h"
#include "capture/MachineCheck.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <random>

using namespace fusescope;

namespace {

// Ranks from exact integers: the largest k with sum_{i<k} C(n, i) / 2^n <= 1/40 (0.025).
std::optional<std::pair<int, int>> exactRanks(int n) {
    uint64_t c = 1, sum = 0; // C(n, i), running sum
    const uint64_t total = uint64_t{1} << n;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        sum += c;
        if (sum * 40 > total)
            break;
        k = i + 1;
        c = c * static_cast<uint64_t>(n - i) / static_cast<uint64_t>(i + 1);
    }
    if (k < 1)
        return std::nullopt;
    return std::make_pair(k, n + 1 - k);
}

// An ok run of `pairs` interleaved samples: eager 10 ms, compiled 10 / speedup ms times a
// uniform jitter of +-`spread`.
BackendRun pairedRun(const std::string& name, double speedup, double spread, int pairs, unsigned seed) {
    BackendRun run;
    run.name = name;
    run.status = RunStatus::Ok;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(-spread, spread);
    for (int i = 0; i < pairs; ++i) {
        run.eagerSamplesMs.push_back(10.0);
        run.compiledSamplesMs.push_back(10.0 / speedup * (1.0 + jitter(rng)));
    }
    Accuracy a;
    a.pass = true;
    a.status = "pass";
    a.rule = "allclose";
    a.tolerance = 1e-3;
    run.accuracy = a;
    run.compileSeconds = 1.0;
    return run;
}

bool hasCode(const std::vector<RunWarning>& warnings, const std::string& code) {
    for (const auto& w : warnings)
        if (w.code == code)
            return true;
    return false;
}

} // namespace

TEST(Confidence, RanksMatchExactBinomialArithmetic) {
    for (int n = 0; n <= 62; ++n)
        EXPECT_EQ(medianCiRanks(n), exactRanks(n)) << n;
    EXPECT_FALSE(medianCiRanks(5).has_value());
    EXPECT_EQ(medianCiRanks(6), std::make_pair(1, 6));
}

TEST(Confidence, RanksStayInsideTheSampleAndNarrowRelativelyAsNGrows) {
    double previous = 1.0;
    for (int n : {20, 100, 1000, 10000, 100000}) {
        const auto r = medianCiRanks(n);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->first + r->second, n + 1);
        const double share = static_cast<double>(r->second - r->first) / n;
        EXPECT_LT(share, previous) << n;
        previous = share;
    }
}

TEST(Confidence, IntervalTakesTheOrderStatisticsAtTheRanks) {
    const std::vector<double> samples = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10}; // n = 10: ranks 2 and 9
    const auto ci = medianConfidenceInterval(samples);
    ASSERT_TRUE(ci.has_value());
    EXPECT_DOUBLE_EQ(ci->median, 5.5);
    EXPECT_DOUBLE_EQ(ci->lo, 2);
    EXPECT_DOUBLE_EQ(ci->hi, 9);
    EXPECT_EQ(ci->lowerRank, 2);
    EXPECT_EQ(ci->upperRank, 9);
    EXPECT_DOUBLE_EQ(ci->halfWidthPercent(), 100.0 * 3.5 / 5.5);
    EXPECT_FALSE(medianConfidenceInterval(std::vector<double>{1, 2, 3, 4, 5}).has_value());
}

TEST(Confidence, SpeedupRanksOnNonOverlappingIntervals) {
    const auto fast = pairedSpeedup(pairedRun("a", 1.5, 0.05, 60, 1));
    const auto slow = pairedSpeedup(pairedRun("b", 1.2, 0.05, 60, 2));
    const auto close = pairedSpeedup(pairedRun("c", 1.49, 0.05, 60, 3));
    ASSERT_TRUE(fast && slow && close && fast->ci95 && slow->ci95);
    EXPECT_LE(fast->ci95->lo, fast->median);
    EXPECT_GE(fast->ci95->hi, fast->median);
    EXPECT_TRUE(clearlyFaster(*fast, *slow));
    EXPECT_FALSE(clearlyFaster(*slow, *fast));
    EXPECT_FALSE(clearlyFaster(*fast, *close)); // 1 % apart, +-5 % noise, 60 pairs: intervals overlap
    // Under 6 pairs there is no interval, and nothing is clearly faster.
    const auto few = pairedSpeedup(pairedRun("d", 3.0, 0.0, 5, 4));
    ASSERT_TRUE(few.has_value());
    EXPECT_FALSE(few->ci95.has_value());
    EXPECT_FALSE(clearlyFaster(*few, *slow));
}

TEST(Confidence, TargetMissedIsALowConfidenceWarningAndTheSummarySaysSo) {
    auto wide = pairedRun("inductor", 1.5, 0.3, 40, 5);
    wide.measure = RunMeasure{2.0, "max_time", std::nullopt, std::nullopt};
    auto tight = pairedRun("aot_eager", 1.1, 0.005, 40, 6);
    tight.measure = RunMeasure{2.0, "confidence", std::nullopt, std::nullopt};
    auto old = pairedRun("eager", 1.0, 0.005, 40, 7); // a report from before the rule: no record

    const auto w = confidenceOutcome(wide);
    ASSERT_TRUE(w.has_value());
    EXPECT_FALSE(w->reached);
    ASSERT_TRUE(w->halfWidthPct.has_value());
    EXPECT_GT(*w->halfWidthPct, 2.0);
    const auto warnings = derivedWarnings(wide);
    ASSERT_TRUE(hasCode(warnings, "low_confidence"));
    EXPECT_NE(warnings.back().message.find("max_time_s"), std::string::npos) << warnings.back().message;
    EXPECT_TRUE(confidenceOutcome(tight)->reached);
    EXPECT_FALSE(hasCode(derivedWarnings(tight), "low_confidence"));
    EXPECT_FALSE(confidenceOutcome(old).has_value());
    EXPECT_FALSE(hasCode(derivedWarnings(old), "low_confidence"));

    Report report;
    report.backends = {wide, tight, old};
    report.warnings = {{"machine_busy", "other processes used 0.95 of 2 cores in the 0.5 s before ..."}};
    const auto summary = summaryJson(report);
    const auto& b = summary["backends"];
    const auto ci = medianConfidenceInterval(wide.compiledSamplesMs);
    EXPECT_EQ(b[0]["latency_ms"]["ci95"], nlohmann::json::array({ci->lo, ci->hi}));
    const auto s = pairedSpeedup(wide);
    EXPECT_EQ(b[0]["speedup_ci95"], nlohmann::json::array({s->ci95->lo, s->ci95->hi}));
    EXPECT_EQ(b[0]["speedup"]["ci95"], b[0]["speedup_ci95"]);
    EXPECT_EQ(b[0]["measure"]["confidence_reached"], false);
    EXPECT_EQ(b[0]["measure"]["stopped_by"], "max_time");
    EXPECT_DOUBLE_EQ(b[0]["measure"]["half_width_pct"].get<double>(), *w->halfWidthPct);
    EXPECT_EQ(b[1]["measure"]["confidence_reached"], true);
    // The table's interval column, in the CLI and the GUI (ComparisonColumns.h).
    EXPECT_EQ(cellText(wide, column::SpeedupCi),
              format::ratio(s->ci95->lo).substr(0, 4) + "-" + format::ratio(s->ci95->hi));
    EXPECT_EQ(cellSortValue(wide, column::SpeedupCi), s->ci95->halfWidthPercent());
    EXPECT_EQ(cellText(pairedRun("few", 2.0, 0.0, 5, 8), column::SpeedupCi), "-");
    EXPECT_TRUE(b[2]["measure"].is_null());
    const auto line = confidenceText(wide);
    EXPECT_EQ(line.rfind("speedup " + format::ratio(s->median) + " [" + format::ratio(s->ci95->lo) + "-", 0),
              0u)
        << line;
    EXPECT_NE(line.find("NOT reached (stopped by max_time)"), std::string::npos) << line;
    EXPECT_NE(confidenceText(tight).find("reached (stopped by confidence)"), std::string::npos);
    EXPECT_EQ(confidenceText(old).find("target"), std::string::npos);
    EXPECT_EQ(summary["warnings"][0]["code"], "machine_busy");
    // The verdict says which ranked backend missed its target.
    const auto verdict = summary["recommendation"]["verdict"].get<std::string>();
    EXPECT_NE(verdict.find("not reached for inductor (low_confidence)"), std::string::npos) << verdict;
    EXPECT_EQ(verdict.find("aot_eager (low_confidence)"), std::string::npos) << verdict;
}

TEST(Confidence, MeasureRecordAndRunWideWarningsRoundTripAndOldReportsRead) {
    Report report = testdata::sampleReport();
    report.backends[0].measure = RunMeasure{2.5, "max_runs", std::nullopt, std::nullopt};
    report.warnings = {{"machine_busy", "busy before"}};
    const nlohmann::json saved = report;
    auto back = codec::decodeReport(saved);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back.value().backends[0].measure.has_value());
    EXPECT_DOUBLE_EQ(back.value().backends[0].measure->confidencePct, 2.5);
    EXPECT_EQ(back.value().backends[0].measure->stoppedBy, "max_runs");
    EXPECT_FALSE(back.value().backends[1].measure.has_value());
    EXPECT_EQ(back.value().warnings, report.warnings);

    nlohmann::json older = saved;
    older.erase("warnings");
    older["backends"][0].erase("measure");
    auto oldBack = codec::decodeReport(older);
    ASSERT_TRUE(oldBack.ok()) << oldBack.error().message;
    EXPECT_TRUE(oldBack.value().warnings.empty());
    EXPECT_FALSE(oldBack.value().backends[0].measure.has_value());

    nlohmann::json bad = saved;
    bad["backends"][0]["measure"]["confidence_pct"] = -1;
    auto refused = codec::decodeReport(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("confidence_pct"), std::string::npos) << refused.error().message;
}

TEST(MachineCheck, ParsesProcStatAndPidStat) {
    const auto cpus = parseProcStat("cpu  10 0 5 100 1 0 0 0 0 0\n"
                                    "cpu0 6 1 2 50 1 1 1 3 0 0\n"
                                    "cpu1 4 0 3 50 0 0 0 0 0 0\n"
                                    "intr 1 2 3\nprocs_running 3\n");
    ASSERT_EQ(cpus.size(), 2u);
    EXPECT_EQ(cpus.at(0).busy, 6 + 1 + 2 + 1 + 1);
    EXPECT_EQ(cpus.at(0).idle, 51);
    EXPECT_EQ(cpus.at(0).steal, 3);
    // The command name may hold spaces and parentheses.
    EXPECT_EQ(parsePidStatTicks("42 (a (b) c) S 1 42 42 0 -1 4194304 10 0 0 0 7 3 2 1 20 0 1 0"),
              7 + 3 + 2 + 1);
    EXPECT_FALSE(parsePidStatTicks("garbage").has_value());
}

TEST(MachineCheck, OtherProcessesKeepingACoreBusyWarnOursDoNot) {
    // 2 CPUs, a 50-tick window (0.5 s at 100 Hz).
    auto snapshot = [](int64_t busy0, int64_t busy1, int64_t t, int64_t own, int64_t steal = 0) {
        MachineSnapshot s;
        s.cpus[0] = {busy0, t - busy0 - steal, steal};
        s.cpus[1] = {busy1, t - busy1, 0};
        s.ownTicks = own;
        return s;
    };
    const auto before = snapshot(0, 0, 0, 0);
    const auto busy =
        assessWindow(before, snapshot(50, 2, 50, 1), {0, 1}, "in the 0.5 s before the first backend");
    ASSERT_EQ(busy.size(), 1u);
    EXPECT_EQ(busy[0].code, "machine_busy");
    EXPECT_NE(
        busy[0].message.find("other processes used 1.02 of 2 cores in the 0.5 s before the first backend"),
        std::string::npos)
        << busy[0].message;
    // The same load, all of it ours: no warning.
    EXPECT_TRUE(assessWindow(before, snapshot(50, 2, 50, 52), {0, 1}, "x").empty());
    // A few ticks of someone else: inside the tick resolution.
    EXPECT_TRUE(assessWindow(before, snapshot(3, 2, 50, 0), {0, 1}, "x").empty());
    // Only CPU 1 is ours: the load on CPU 0 does not count.
    EXPECT_TRUE(assessWindow(before, snapshot(50, 2, 50, 1), {1}, "x").empty());
    // Steal over 5 % of the window.
    EXPECT_EQ(assessWindow(before, snapshot(0, 0, 50, 0, 10), {0, 1}, "x").at(0).code, "cpu_steal");
    // Unreadable /proc: nothing to judge.
    EXPECT_TRUE(assessWindow(MachineSnapshot{}, MachineSnapshot{}, {}, "x").empty());
}

TEST(Json, ACutInsideAStringIsTruncated) {
    auto cut = codec::parseJson(R"({"a": ["xy)");
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().code, "json_truncated") << cut.error().message;
    auto quote = codec::parseJson(R"({"a": ")");
    ASSERT_FALSE(quote.ok());
    EXPECT_EQ(quote.error().code, "json_truncated") << quote.error().message;
}
