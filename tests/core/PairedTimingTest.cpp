// The LibTorch runner's interleaved timing loop and its stopping rule (core/capture/PairedTiming.h,
// analysis/Confidence.h ConfidenceRule; docs/libtorch.md "Interleaved timing"), on scripted calls
// and scripted /proc snapshots: no timing is asserted, only what the loop does with what it gets.
#include "capture/PairedTiming.h"

#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace fusescope;

namespace {

MeasureSettings counted(int minRuns, int maxRuns, double confidence = 0, int settle = 1, int warmup = 2) {
    MeasureSettings s;
    s.warmup = warmup;
    s.minRuns = minRuns;
    s.minTimeSeconds = 0;
    s.maxRuns = maxRuns;
    s.maxTimeSeconds = 3600;
    s.confidencePct = confidence;
    s.settle = settle;
    return s;
}

// Scripted sides: eager answers from a list of times (the worker's clock), compiled calls are
// logged; every call is recorded in order.
struct Script {
    std::vector<std::string> log;
    std::vector<double> eagerMs;
    std::optional<int64_t> faults = 3;
    size_t next = 0;
    std::map<std::string, std::vector<double>> samples;
    std::vector<size_t> chunkSizes;

    PairedCalls calls() {
        PairedCalls c;
        c.eager = [this](int untimed, bool timed) {
            log.push_back("E" + std::to_string(untimed) + (timed ? "t" : ""));
            EagerSample s;
            if (timed) {
                s.ms = eagerMs.empty() ? 1.0 : eagerMs[next++ % eagerMs.size()];
                s.faults = faults;
            }
            return s;
        };
        c.compiled = [this] { log.push_back("C"); };
        c.onSamples = [this](const std::string& series, std::vector<double> ms) {
            chunkSizes.push_back(ms.size());
            auto& all = samples[series];
            all.insert(all.end(), ms.begin(), ms.end());
        };
        c.snapshot = [] { return MachineSnapshot{}; }; // nothing readable: the check is skipped
        return c;
    }
};

} // namespace

TEST(ConfidenceRuleTest, ChecksAtSixPairsThenEveryFiveOrFivePercentMore) {
    ConfidenceRule rule(2.0);
    ASSERT_TRUE(rule.enabled());
    for (int i = 0; i < 5; ++i)
        rule.add(1.0, 1.0);
    EXPECT_FALSE(rule.reached(5)); // before the first check point: not even computed
    EXPECT_FALSE(rule.lastHalfWidth().has_value());
    rule.add(1.0, 1.0);
    EXPECT_TRUE(rule.reached(6)); // six identical ratios: the interval is the point 1.0
    ASSERT_TRUE(rule.lastHalfWidth().has_value());
    EXPECT_DOUBLE_EQ(*rule.lastHalfWidth(), 0.0);

    // Widely spread ratios never reach +-2 %; after a check at 6 the next is at 11, then at
    // 200 the next is 210 (5 % of 200).
    ConfidenceRule wide(2.0);
    for (int i = 0; i < 400; ++i)
        wide.add(i % 2 ? 1.0 : 2.0, 1.0);
    EXPECT_FALSE(wide.reached(6));
    const auto first = wide.lastHalfWidth();
    ASSERT_TRUE(first.has_value());
    EXPECT_GT(*first, 2.0);
    EXPECT_FALSE(wide.reached(10)); // not a check point: the last half-width stays
    EXPECT_FALSE(wide.reached(11));
    EXPECT_FALSE(wide.reached(200));
    EXPECT_FALSE(wide.reached(209));
    EXPECT_FALSE(wide.reached(210));
}

TEST(ConfidenceRuleTest, LeavesOutPairsWithoutATimeAndIsOffAtZero) {
    ConfidenceRule rule(5.0);
    for (int i = 0; i < 6; ++i)
        rule.add(0.0, 1.0); // no eager time: no ratio
    EXPECT_FALSE(rule.reached(6));
    EXPECT_FALSE(rule.lastHalfWidth().has_value()); // no interval from zero ratios
    ConfidenceRule off(0.0);
    EXPECT_FALSE(off.enabled());
    off.add(1, 1);
    EXPECT_FALSE(off.reached(100));
}

TEST(PairedTimingTest, StopReasonCapsWinThenMinimumsThenTheTarget) {
    ConfidenceRule off(0);
    const MeasureSettings s = counted(10, 20);
    EXPECT_EQ(stopReason(5, 0.0, s, off), "");
    EXPECT_EQ(stopReason(10, 0.0, s, off), "min");
    EXPECT_EQ(stopReason(20, 0.0, s, off), "max_runs");
    MeasureSettings timed = s;
    timed.minTimeSeconds = 1.0;
    timed.maxTimeSeconds = 2.0;
    EXPECT_EQ(stopReason(15, 0.5, timed, off), ""); // runs reached, time not
    EXPECT_EQ(stopReason(3, 2.0, timed, off), "max_time");
    ConfidenceRule on(2.0);
    for (int i = 0; i < 10; ++i)
        on.add(1.0, 1.0);
    EXPECT_EQ(stopReason(10, 0.0, s, on), "confidence");
}

TEST(PairedTimingTest, InterleavesWarmupSettleAndTimedCallsInOrder) {
    Script script;
    const auto result = timePairs(counted(3, 100, 0, /*settle=*/2, /*warmup=*/2), script.calls());
    // warm-up: one untimed eager call and one compiled call per pair; then per pair the eager side
    // gets its settle calls and its timed call in one request, the compiled side settle + 1 calls.
    const std::vector<std::string> expected = {"E1",  "C", "E1",  "C", // warm-up
                                               "E2t", "C", "C",   "C", "E2t", "C",
                                               "C",   "C", "E2t", "C", "C",   "C"};
    EXPECT_EQ(script.log, expected);
    EXPECT_EQ(result.pairs, 3);
    EXPECT_EQ(result.warmup, 2);
    EXPECT_EQ(result.stoppedBy, "min");
    EXPECT_EQ(result.measure.stoppedBy, "min");
    EXPECT_EQ(result.measure.settle, std::optional<int>(2));
    EXPECT_EQ(result.measure.confidencePct, 0.0);
    EXPECT_EQ(script.samples["eager"].size(), 3u);
    EXPECT_EQ(script.samples["compiled"].size(), 3u);
    ASSERT_TRUE(result.measure.eagerFaultsPerCall.has_value());
    EXPECT_DOUBLE_EQ(*result.measure.eagerFaultsPerCall, 3.0); // the worker's count per timed call
    EXPECT_TRUE(result.measure.compiledFaultsPerCall.has_value());
}

TEST(PairedTimingTest, StreamsBothSeriesInChunksOfFifty) {
    Script many;
    many.eagerMs = {2.0, 2.5};
    const auto result = timePairs(counted(120, 120, 0, 0, 0), many.calls());
    EXPECT_EQ(result.stoppedBy, "max_runs");
    ASSERT_EQ(many.samples["eager"].size(), 120u);
    EXPECT_EQ(many.samples["eager"][0], 2.0); // the eager side's own clock, as it answered
    EXPECT_EQ(many.samples["eager"][1], 2.5);
    EXPECT_EQ(many.samples["compiled"].size(), 120u);
    for (size_t n : many.chunkSizes)
        EXPECT_LE(n, 50u);
    EXPECT_EQ(result.measure.settle, std::optional<int>(0));
}

TEST(PairedTimingTest, AnEagerSideWithoutFaultCountsLeavesThemOut) {
    Script script;
    script.faults.reset();
    const auto result = timePairs(counted(2, 2), script.calls());
    EXPECT_FALSE(result.measure.eagerFaultsPerCall.has_value());
    EXPECT_TRUE(result.measure.compiledFaultsPerCall.has_value());
}

TEST(PairedTimingTest, FailuresPropagateAfterTheSamplesSoFarAndCancelStops) {
    Script script;
    PairedCalls calls = script.calls();
    int compiled = 0;
    calls.compiled = [&] {
        if (++compiled == 5)
            throw std::runtime_error("boom");
    };
    EXPECT_THROW(timePairs(counted(100, 100, 0, 0, 0), calls), std::runtime_error);
    EXPECT_EQ(script.log.size(), 5u); // the fifth pair's eager call ran, its compiled call threw

    Script stopped;
    PairedCalls cancelling = stopped.calls();
    int asked = 0;
    cancelling.cancelled = [&] { return ++asked > 3; };
    const auto result = timePairs(counted(100, 100, 0, 0, 0), cancelling);
    EXPECT_EQ(result.stoppedBy, "cancelled");
    EXPECT_LT(result.pairs, 100);
}

TEST(PairedTimingTest, TheTimingWindowGetsTheMachineCheck) {
    // Scripted /proc: every CPU this process may use was busy the whole window and none of it
    // was ours: machine_busy, named with the window.
    Script script;
    PairedCalls calls = script.calls();
    int snapshots = 0;
    calls.snapshot = [&] {
        MachineSnapshot s;
        const int64_t t = snapshots++ == 0 ? 0 : 1000;
        for (int cpu : ownAffinity())
            s.cpus[cpu] = CpuTicks{t, 0, 0};
        s.ownTicks = 0;
        return s;
    };
    calls.window = "while the scripted runner took samples";
    const auto result = timePairs(counted(2, 2), calls);
    EXPECT_EQ(snapshots, 2);
    ASSERT_EQ(result.machineWarnings.size(), 1u);
    EXPECT_EQ(result.machineWarnings[0].code, "machine_busy");
    EXPECT_NE(result.machineWarnings[0].message.find("while the scripted runner took samples"),
              std::string::npos);
}

TEST(MachineCheckTest, ProcessesNamedAsOursAddTheirTicks) {
    // Burn some CPU so this process has ticks (10 ms each), then count it twice: once as self and
    // once named in alsoOurs. A pid that does not exist adds nothing.
    volatile double x = 0;
    const MachineSnapshot start = readMachineSnapshot();
    ASSERT_TRUE(start.ownTicks.has_value());
    while (readMachineSnapshot().ownTicks.value_or(0) < *start.ownTicks + 5)
        for (int i = 0; i < 100000; ++i)
            x = x + i * 0.5;
    const MachineSnapshot self = readMachineSnapshot();
    const MachineSnapshot twice = readMachineSnapshot({static_cast<int>(::getpid())});
    const MachineSnapshot gone = readMachineSnapshot({-1});
    ASSERT_TRUE(self.ownTicks && twice.ownTicks && gone.ownTicks);
    EXPECT_GE(*twice.ownTicks, 2 * *self.ownTicks);
    EXPECT_LT(*gone.ownTicks, *twice.ownTicks);
}
