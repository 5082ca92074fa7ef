// The tuner (docs/tuning.md) on scripted candidates with known speedups: racing, dropping, the
// budget, the accuracy gate, advice that measures itself, the snippet, the space and its file,
// the `tuning` record's codec. No torch, no processes: each run is a scripted row.
#include "analysis/Tuner.h"

#include "TestData.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "model/BackendEntry.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>

using namespace fusescope;
using testdata::timedRun;

namespace {

struct Script {
    double speedup = 1;
    double spread = 0.01;
    bool pass = true;
    bool fails = false;
    double wall = 10;
    std::optional<int64_t> eagerPeak; // set to trigger memory advice
};

struct Simulation {
    Report report;
    double elapsed = 0;
    std::vector<TuneStep> steps;
};

// Runs the tuner to its end, each step a scripted row (or a round of one), each taking its wall time.
Simulation simulate(Tuner& tuner, const std::map<std::string, Script>& script) {
    Simulation sim;
    sim.report.device = "cpu";
    while (auto step = tuner.next(sim.report, sim.elapsed)) {
        const auto& s = script.at(step->entry);
        BackendRun run = timedRun(step->entry, s.speedup, s.spread, s.pass);
        if (s.fails) {
            run = BackendRun{};
            run.name = step->entry;
            run.status = RunStatus::Failed;
            run.error =
                RunError{"compile_failed", "backend " + step->entry + ": InductorError: boom", {}, {}};
        }
        run.wallSeconds = s.wall;
        run.eagerPeakMemoryBytes = s.eagerPeak;
        if (step->row < 0)
            sim.report.backends.push_back(run);
        else
            appendRound(sim.report.backends[step->row], run, "warm");
        sim.elapsed += s.wall;
        sim.steps.push_back(*step);
        if (sim.steps.size() > 200)
            break;
    }
    return sim;
}

std::vector<TuneSpaceEntry> spaceOf(const std::vector<std::string>& entries) {
    std::vector<TuneSpaceEntry> out;
    for (const auto& e : entries)
        out.push_back({e, "space", "test"});
    return out;
}

const TuneCandidate& candidate(const TuneOutcome& t, const std::string& entry) {
    for (const auto& c : t.candidates)
        if (c.entry == entry)
            return c;
    throw std::runtime_error("no candidate " + entry);
}

} // namespace

TEST(Tuner, DropsTheClearlySlowerAndRacesTheCloseOnesToMaxRounds) {
    Tuner tuner(spaceOf({"inductor", "eager", "slow", "close"}), Goal::Latency, 1000, false, 4);
    auto sim = simulate(tuner, {{"inductor", {1.50}}, {"eager", {1.0}}, {"slow", {1.2}}, {"close", {1.49}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    ASSERT_TRUE(t.best);
    EXPECT_EQ(t.best->entry, "inductor");
    EXPECT_EQ(t.stoppedBy, "max_rounds");
    ASSERT_TRUE(candidate(t, "eager").dropped);
    EXPECT_NE(candidate(t, "eager").dropped->find("slower than inductor beyond the uncertainty"),
              std::string::npos);
    EXPECT_TRUE(candidate(t, "slow").dropped);
    // 1.50x against 1.49x cannot be told apart: both raced to 4 rounds, the dropped ones stayed at 1.
    EXPECT_FALSE(candidate(t, "close").dropped);
    EXPECT_EQ(candidate(t, "close").rounds, 4);
    EXPECT_EQ(candidate(t, "inductor").rounds, 4);
    EXPECT_EQ(candidate(t, "slow").rounds, 1);
    EXPECT_EQ(t.runnersUp, std::vector<std::string>{"close"});
    EXPECT_NE(t.verdict.find("not separated from close"), std::string::npos);
    // Rounds merged into one row each, with their boundaries.
    const auto* row = sim.report.findBackend("close");
    ASSERT_EQ(row->rounds.size(), 4u);
    EXPECT_EQ(row->rounds[1].firstSample, 40);
    EXPECT_EQ(row->rounds[1].cache, "warm");
    EXPECT_EQ(row->eagerSamplesMs.size(), 160u);
}

TEST(Tuner, MoreRoundsSeparateWhatOneRoundCannot) {
    Tuner tuner(spaceOf({"inductor", "near"}), Goal::Latency, 1000, false, 5);
    auto sim = simulate(tuner, {{"inductor", {1.50}}, {"near", {1.38}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    EXPECT_EQ(t.stoppedBy, "separated");
    EXPECT_GT(sim.steps.size(), 2u); // one round each could not separate them
    ASSERT_TRUE(candidate(t, "near").dropped);
    EXPECT_TRUE(t.runnersUp.empty());
    // The interval is wider than one process's and narrows with rounds.
    const auto one = pooledSpeedup(timedRun("x", 1.5));
    ASSERT_TRUE(one && one->ci95);
    const auto pooled = pooledSpeedup(*sim.report.findBackend("inductor"));
    ASSERT_TRUE(pooled && pooled->ci95);
    EXPECT_GT(pooled->rounds, 1);
    EXPECT_LT(pooled->ci95->second - pooled->ci95->first, one->ci95->second - one->ci95->first);
    // One round is at least t(kappa) * the prior spread wide on each side.
    const double h = studentT975(kRowSpreadPriorDof) * kProcessSpreadPrior;
    EXPECT_NEAR(one->ci95->first, one->median * std::exp(-h), 1e-9);
    EXPECT_NEAR(one->ci95->second, one->median * std::exp(h), 1e-9);
}

TEST(Tuner, StudentQuantiles) {
    EXPECT_NEAR(studentT975(1), 12.706, 1e-3);
    EXPECT_NEAR(studentT975(4), 2.776, 1e-3);
    EXPECT_NEAR(studentT975(11), 2.201, 2e-3);
    EXPECT_NEAR(studentT975(20), 2.086, 2e-3);
    EXPECT_NEAR(studentT975(30), 2.042, 2e-3);
    EXPECT_NEAR(studentT975(120), 1.980, 2e-3);
    EXPECT_TRUE(std::isinf(studentT975(0)));
    for (int dof = 1; dof < 200; ++dof)
        EXPECT_GT(studentT975(dof), studentT975(dof + 1)) << dof;
}

TEST(Tuner, BetweenProcessSpreadIsPooledFromRepeatedRoundsAndShrunkTowardThePrior) {
    Report report;
    // No repeated rounds: the prior alone.
    report.backends.push_back(timedRun("a", 1.5));
    auto spread = processSpread(report);
    EXPECT_EQ(spread.measuredDof, 0);
    EXPECT_EQ(spread.dof, kProcessSpreadPriorDof);
    EXPECT_DOUBLE_EQ(spread.sigma, kProcessSpreadPrior);
    // Rounds that agree exactly: the estimate shrinks below the prior as degrees of freedom add up.
    for (int k = 0; k < 4; ++k)
        appendRound(report.backends[0], timedRun("a", 1.5), "warm");
    ASSERT_EQ(roundMedians(report.backends[0]).size(), 5u);
    spread = processSpread(report);
    EXPECT_EQ(spread.measuredDof, 4);
    EXPECT_NEAR(spread.sigma, kProcessSpreadPrior * std::sqrt(0.5), 1e-3);
    // Rounds 10 % apart (a process-level effect): the spread grows past the prior.
    report.backends.push_back(timedRun("b", 1.2));
    appendRound(report.backends[1], timedRun("b", 1.32), "warm");
    const auto medians = roundMedians(report.backends[1]);
    ASSERT_EQ(medians.size(), 2u);
    spread = processSpread(report);
    EXPECT_EQ(spread.measuredDof, 5);
    const double d = std::log(medians[1] / medians[0]);
    EXPECT_NEAR(
        spread.sigma,
        std::sqrt((kProcessSpreadPriorDof * kProcessSpreadPrior * kProcessSpreadPrior + d * d / 2) / 9),
        1e-9);
    // Each row's own rounds, shrunk toward the pooled spread: b's disagreement widens b's interval,
    // a's five agreeing rounds narrow a's.
    const auto b = pooledSpeedup(report.backends[1], spread);
    const auto a = pooledSpeedup(report.backends[0], spread);
    ASSERT_TRUE(a && a->ci95 && b && b->ci95);
    const double k = kRowSpreadPriorDof, s2 = spread.sigma * spread.sigma;
    EXPECT_NEAR(std::log(b->ci95->second / b->median),
                studentT975(kRowSpreadPriorDof + 1) * std::sqrt((k * s2 + d * d / 2) / (k + 1)) /
                    std::sqrt(2.0),
                1e-9);
    EXPECT_NEAR(std::log(a->ci95->second / a->median),
                studentT975(kRowSpreadPriorDof + 4) * std::sqrt(k * s2 / (k + 4)) / std::sqrt(5.0), 1e-9);
    EXPECT_LT(a->ci95->second / a->median, b->ci95->second / b->median);
    // A failed round counts for nothing.
    BackendRun failed;
    failed.name = "b";
    failed.status = RunStatus::Failed;
    appendRound(report.backends[1], failed, "warm");
    EXPECT_EQ(processSpread(report).measuredDof, 5);
}

TEST(Tuner, AccuracyAndFailuresAreDroppedWithTheirReason) {
    Tuner tuner(spaceOf({"inductor", "wrong", "broken"}), Goal::Latency, 1000, false, 2);
    auto sim = simulate(
        tuner, {{"inductor", {1.3}}, {"wrong", {3.0, 0.01, false}}, {"broken", {2.0, 0.01, true, true}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    ASSERT_TRUE(t.best);
    EXPECT_EQ(t.best->entry, "inductor"); // 3.0x fails accuracy: never the answer
    EXPECT_EQ(candidate(t, "wrong").accuracyStatus, "fail_accuracy");
    EXPECT_NE(candidate(t, "wrong").dropped->find("failed accuracy"), std::string::npos);
    EXPECT_NE(candidate(t, "broken").dropped->find("compile_failed"), std::string::npos);
    EXPECT_EQ(candidate(t, "broken").status, "failed");
    EXPECT_EQ(t.stoppedBy, "separated"); // nothing left to race
    EXPECT_EQ(t.pareto, std::vector<std::string>{"inductor"});
}

TEST(Tuner, TheBudgetIsAPromise) {
    Tuner tuner(spaceOf({"a", "b", "c", "d", "e"}), Goal::Latency, 25, false);
    auto sim = simulate(tuner, {{"a", {1.1}}, {"b", {1.2}}, {"c", {1.3}}, {"d", {1.4}}, {"e", {1.5}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    EXPECT_EQ(t.stoppedBy, "budget");
    EXPECT_LE(sim.elapsed, 25); // a run costs 10 s: the third would not have fit
    EXPECT_EQ(sim.steps.size(), 2u);
    EXPECT_EQ(candidate(t, "e").status, "pending");
    EXPECT_EQ(t.best->entry, "b");
}

TEST(Tuner, MemoryGoalRanksByPeakWithoutRacing) {
    Tuner tuner(spaceOf({"inductor", "lean"}), Goal::Memory, 1000, false);
    Report report;
    auto a = timedRun("inductor", 1.5);
    auto b = timedRun("lean", 1.1);
    b.peakMemoryBytes = 500;
    ASSERT_EQ(tuner.next(report, 0)->entry, "inductor");
    report.backends.push_back(a);
    ASSERT_EQ(tuner.next(report, 1)->entry, "lean");
    report.backends.push_back(b);
    EXPECT_FALSE(tuner.next(report, 2));
    const auto t = tuner.outcome(report, 2);
    EXPECT_EQ(t.stoppedBy, "exhausted");
    EXPECT_EQ(t.best->entry, "lean");
}

TEST(Tuner, AdviceBecomesACandidateAndSaysWhetherItHelped) {
    Tuner tuner(spaceOf({"inductor"}), Goal::Latency, 1000, true, 3);
    Script base{1.5};
    base.eagerPeak = 500; // inductor's 1000 bytes peak is +100 %: memory_above_eager fires
    auto sim = simulate(tuner, {{"inductor", base}, {"inductor{memory_planning=true}", {1.5}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    const auto& c = candidate(t, "inductor{memory_planning=true}");
    EXPECT_EQ(c.origin, "advice");
    EXPECT_EQ(c.advice, "memory_above_eager");
    ASSERT_EQ(t.adviceOutcomes.size(), 1u);
    EXPECT_EQ(t.adviceOutcomes[0].rule, "memory_above_eager");
    EXPECT_EQ(t.adviceOutcomes[0].base, "inductor");
    EXPECT_EQ(t.adviceOutcomes[0].outcome, "no_difference");
    EXPECT_NE(t.adviceOutcomes[0].reason.find("vs inductor"), std::string::npos);
}

TEST(Tuner, AdviceThatLosesAccuracyHurt) {
    Tuner tuner(spaceOf({"inductor"}), Goal::Latency, 1000, true, 1);
    Script base{1.5};
    base.eagerPeak = 500;
    auto sim = simulate(tuner, {{"inductor", base}, {"inductor{memory_planning=true}", {2.0, 0.01, false}}});
    const auto t = tuner.outcome(sim.report, sim.elapsed);
    ASSERT_EQ(t.adviceOutcomes.size(), 1u);
    EXPECT_EQ(t.adviceOutcomes[0].outcome, "hurt");
    EXPECT_NE(t.adviceOutcomes[0].reason.find("failed accuracy"), std::string::npos);
}

TEST(Tuner, AfterScreeningItRacesAssignmentsOfTheTwoFastest) {
    Tuner tuner(spaceOf({"inductor", "inductor@max-autotune", "inductor{freezing=true}", "tvm"}),
                Goal::Latency, 1000, false, 1);
    Report report;
    report.device = "cpu";
    report.model.modules = {{"enc", "Linear", 10, 1}, {"dec", "Linear", 10, 1}, {"enc.w", "P", 1, 2}};
    const std::map<std::string, double> speedups = {
        {"inductor", 1.3}, {"inductor@max-autotune", 1.4}, {"inductor{freezing=true}", 1.6}, {"tvm", 1.5}};
    std::vector<std::string> order;
    double elapsed = 0;
    while (auto step = tuner.next(report, elapsed)) {
        order.push_back(step->entry);
        ASSERT_LT(order.size(), 20u);
        const double speedup = speedups.count(step->entry) ? speedups.at(step->entry) : 1.45;
        auto run = timedRun(step->entry, speedup);
        run.wallSeconds = 1;
        if (step->entry == "tvm")
            run.family = "tvm"; // not a torch.compile backend: no submodule takes it
        report.backends.push_back(run);
        elapsed += 1;
    }
    // freezing has options and tvm is no torch.compile backend: the two fastest a submodule can
    // take are inductor@max-autotune and inductor, mixed 2^2 - 2 ways.
    EXPECT_EQ(order, (std::vector<std::string>{"inductor", "inductor@max-autotune", "inductor{freezing=true}",
                                               "tvm", "mixed[enc=inductor,dec=inductor@max-autotune]",
                                               "mixed[enc=inductor@max-autotune,dec=inductor]"}));
    const auto t = tuner.outcome(report, elapsed);
    EXPECT_EQ(candidate(t, "mixed[enc=inductor,dec=inductor@max-autotune]").origin, "assignment");
    EXPECT_EQ(t.best->entry, "inductor{freezing=true}");
    // Off in the space file: a note says so.
    Tuner off(spaceOf({"inductor"}), Goal::Latency, 1000, false, 1);
    off.setAssignments(false);
    Report one;
    one.model = report.model;
    ASSERT_EQ(off.next(one, 0)->entry, "inductor");
    one.backends.push_back(timedRun("inductor", 1.3));
    EXPECT_FALSE(off.next(one, 1));
    // Too few candidates for a mix: the reason is in the notes.
    Tuner lone(spaceOf({"inductor"}), Goal::Latency, 1000, false, 1);
    lone.next(one, 0);
    const auto notes = lone.outcome(one, 1).notes;
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("per-submodule assignments are not in the race: fewer than two") != std::string::npos;
    }));
}

TEST(TuneSnippet, IsTheTorchCompileCallOfTheEntry) {
    EXPECT_EQ(tuneSnippet("inductor@max-autotune{fullgraph,dynamic=false,freezing=true}"),
              "model = torch.compile(model, backend=\"inductor\", mode=\"max-autotune\", fullgraph=True, "
              "dynamic=False, options={\"freezing\": True})");
    EXPECT_EQ(tuneSnippet("inductor{cpp.simdlen=256,max_fusion_size=128}"),
              "model = torch.compile(model, backend=\"inductor\", options={\"cpp.simdlen\": 256, "
              "\"max_fusion_size\": 128})");
    EXPECT_EQ(tuneSnippet("inductor{dynamic=auto}"),
              "model = torch.compile(model, backend=\"inductor\", dynamic=None)");
    EXPECT_EQ(tuneSnippet("inductor{dynamo.capture_scalar_outputs=true}"),
              "torch._dynamo.config.capture_scalar_outputs = True\n"
              "model = torch.compile(model, backend=\"inductor\")");
    EXPECT_EQ(tuneSnippet("mixed[enc=inductor,dec=eager]"),
              "model.enc = torch.compile(model.enc, backend=\"inductor\")\n# model.dec stays eager\n");
    EXPECT_NE(tuneSnippet("aot_inductor", "libtorch").find("aoti_compile_and_package"), std::string::npos);
    EXPECT_NE(tuneSnippet("tvm", "tvm").find("# tvm is not a torch.compile backend"), std::string::npos);
}

TEST(TuneSpace, CpuDefaultsOneChangeAtATime) {
    std::vector<BackendChoice> backends = {{"inductor", "torch_compile", true, {}, {}},
                                           {"eager", "torch_compile", true, {}, {"debug"}},
                                           {"aot_eager", "torch_compile", true, {}, {"debug"}},
                                           {"cudagraphs", "torch_compile", false, "needs CUDA", {}},
                                           {"tvm", "tvm", true, {}, {}}};
    const auto dims = defaultTuneDimensions(backends, {"cpu", true, false});
    std::vector<std::string> entries;
    for (const auto& e : expandTuneSpace(dims))
        entries.push_back(e.entry);
    EXPECT_EQ(entries, (std::vector<std::string>{
                           "inductor", "tvm", "inductor@max-autotune", "inductor{dynamic=false}",
                           "inductor{dynamic=true}", "inductor{fullgraph}", "inductor{freezing=true}",
                           "inductor{cpp_wrapper=true}", "inductor{max_fusion_size=128}",
                           "inductor{aggressive_fusion=true}", "inductor{cpp.simdlen=256}"}));
    for (const auto& e : entries)
        EXPECT_TRUE(parseBackendEntry(e)) << e;
    const auto joined = [&] {
        std::string s;
        for (const auto& n : dims.notes)
            s += n + "\n";
        return s;
    }();
    EXPECT_NE(joined.find("cudagraphs is not in the space: unavailable here (needs CUDA)"),
              std::string::npos);
    EXPECT_NE(joined.find("precision is not in the space"), std::string::npos);
    // Training: no freezing; AVX2: no simdlen.
    const auto training = defaultTuneDimensions(backends, {"cpu", false, true});
    for (const auto& e : expandTuneSpace(training)) {
        EXPECT_EQ(e.entry.find("freezing"), std::string::npos);
        EXPECT_EQ(e.entry.find("simdlen"), std::string::npos);
    }
}

TEST(TuneSpace, AFileNarrowsAndExtends) {
    auto dims =
        applyTuneSpaceText(TuneDimensions{},
                           "backends = [\"inductor\", \"eager\"]\nmodes = []\ndynamic = [false]\n"
                           "fullgraph = false\nentries = [\"inductor@max-autotune{ freezing=true }\"]\n"
                           "max_rounds = 3\n[inductor_options]\nmax_fusion_size = [128, 256]\n",
                           "space.toml");
    ASSERT_TRUE(dims) << dims.error().message;
    std::vector<std::string> entries;
    for (const auto& e : expandTuneSpace(dims.value()))
        entries.push_back(e.entry);
    EXPECT_EQ(entries, (std::vector<std::string>{
                           "inductor", "eager", "inductor{dynamic=false}", "inductor{max_fusion_size=128}",
                           "inductor{max_fusion_size=256}", "inductor@max-autotune{freezing=true}"}));
    EXPECT_EQ(dims.value().maxRounds, 3);
}

TEST(TuneSpace, AnUnknownKeyIsRefusedNamingIt) {
    auto dims =
        applyTuneSpaceText(TuneDimensions{}, "backends = [\"inductor\"]\nbackend = [\"tvm\"]\n", "my.toml");
    ASSERT_FALSE(dims);
    EXPECT_NE(dims.error().message.find("my.toml: unknown key 'backend'"), std::string::npos)
        << dims.error().message;
    auto badType = applyTuneSpaceText(TuneDimensions{}, "max_rounds = \"many\"\n", "my.toml");
    ASSERT_FALSE(badType);
    EXPECT_NE(badType.error().message.find("max_rounds"), std::string::npos);
    auto badEntry = applyTuneSpaceText(TuneDimensions{}, "entries = [\"inductor{\"]\n", "my.toml");
    ASSERT_FALSE(badEntry);
    EXPECT_NE(badEntry.error().message.find("my.toml: entries"), std::string::npos);
    auto notToml = applyTuneSpaceText(TuneDimensions{}, "backends = [\n", "my.toml");
    ASSERT_FALSE(notToml);
    EXPECT_NE(notToml.error().message.find("my.toml: not TOML"), std::string::npos);
    EXPECT_FALSE(applyTuneSpaceFile(TuneDimensions{}, "/nonexistent/space.toml"));
}

TEST(TuneSpace, Budgets) {
    EXPECT_DOUBLE_EQ(parseTuneBudget("300").value(), 300);
    EXPECT_DOUBLE_EQ(parseTuneBudget("90s").value(), 90);
    EXPECT_DOUBLE_EQ(parseTuneBudget("5m").value(), 300);
    EXPECT_DOUBLE_EQ(parseTuneBudget("2.5m").value(), 150);
    EXPECT_DOUBLE_EQ(parseTuneBudget("1h").value(), 3600);
    for (const char* bad : {"", "0", "-5", "5x", "m", "1e3", "inf", "5 m"})
        EXPECT_FALSE(parseTuneBudget(bad)) << bad;
}

TEST(TuneCodec, TheReportKeepsTheTuningAndTheRounds) {
    Tuner tuner(spaceOf({"inductor", "close"}), Goal::Latency, 1000, false, 2);
    auto sim = simulate(tuner, {{"inductor", {1.50}}, {"close", {1.49}}});
    sim.report.tuning = tuner.outcome(sim.report, sim.elapsed);
    const nlohmann::json j = sim.report;
    // The contract's members (docs/tuning.md).
    const auto& t = j["tuning"];
    for (const char* key :
         {"budget_s", "elapsed_s", "goal", "candidates", "best", "pareto", "advice_outcomes"})
        EXPECT_TRUE(t.contains(key)) << key;
    for (const char* key : {"entry", "origin", "status", "speedup", "speedup_ci95", "compile_s",
                            "peak_memory_bytes", "accuracy_status", "dropped"})
        EXPECT_TRUE(t["candidates"][0].contains(key)) << key;
    for (const char* key : {"entry", "speedup", "speedup_ci95", "snippet"})
        EXPECT_TRUE(t["best"].contains(key)) << key;
    EXPECT_TRUE(t["candidates"][0]["speedup_ci95"].is_array());
    auto back = codec::decodeReport(j);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back.value().tuning, sim.report.tuning);
    EXPECT_EQ(back.value().backends[0].rounds, sim.report.backends[0].rounds);
    // A report without `tuning` (every compare report) reads as none.
    auto plain = j;
    plain.erase("tuning");
    EXPECT_FALSE(codec::decodeReport(plain).value().tuning);
}

TEST(TuneCodec, BadRecordsFailNamingTheField) {
    Report report;
    report.backends.push_back(timedRun("inductor", 1.5));
    report.backends[0].rounds = {{0, 1.0, "cold", "ok", {}, 3}, {20, 0.5, "warm", "ok", {}, 2}};
    nlohmann::json j = report;
    j["backends"][0]["rounds"][1]["first_sample"] = 999;
    auto bad = codec::decodeReport(j);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("backends[0].rounds[1].first_sample"), std::string::npos)
        << bad.error().message;
    nlohmann::json t = {{"goal", "speed"}};
    auto badGoal = codec::decodeTuneOutcome(t, "tuning");
    ASSERT_FALSE(badGoal);
    EXPECT_NE(badGoal.error().message.find("tuning.goal"), std::string::npos) << badGoal.error().message;
    nlohmann::json ci = {{"candidates", {{{"entry", "x"}, {"speedup_ci95", {2.0, 1.0}}}}}};
    auto badCi = codec::decodeTuneOutcome(ci, "tuning");
    ASSERT_FALSE(badCi);
    EXPECT_NE(badCi.error().message.find("speedup_ci95"), std::string::npos);
}
