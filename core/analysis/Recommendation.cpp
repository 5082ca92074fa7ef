#include "Recommendation.h"

#include "Format.h"
#include "LatencyStats.h"
#include "RunWarnings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fusescope {

using nlohmann::json;

const char* toString(Goal goal) {
    switch (goal) {
    case Goal::Latency:
        return "latency";
    case Goal::Throughput:
        return "throughput";
    case Goal::Memory:
        return "memory";
    case Goal::Compile:
        return "compile";
    }
    return "latency";
}

std::optional<Goal> goalFromString(const std::string& text) {
    for (auto goal : {Goal::Latency, Goal::Throughput, Goal::Memory, Goal::Compile})
        if (text == toString(goal))
            return goal;
    return std::nullopt;
}

namespace {

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

std::string sci(double value) {
    return format::scientific(value);
}

bool isTraining(const BackendRun& run) {
    return run.workload && run.workload->isTraining();
}

std::string precisionOf(const BackendRun& run) {
    if (run.accuracy && !run.accuracy->precision.empty())
        return run.accuracy->precision;
    return run.workload ? run.workload->precision : std::string("fp32");
}

std::string speedupPhrase(const SpeedupEstimate& s, const char* what) {
    // The 95 % confidence interval of the median ratio is what ranking uses (Speedup.h); under 6
    // pairs there is none, and the quartiles are all there is to show.
    const std::string range = s.ci95
                                  ? "95% CI " + format::ratio(s.ci95->lo) + "-" + format::ratio(s.ci95->hi) +
                                        " over " + std::to_string(s.pairs) + " pairs"
                                  : "IQR " + format::ratio(s.q1) + "-" + format::ratio(s.q3) + " over " +
                                        std::to_string(s.pairs) + " pairs, too few for a confidence interval";
    const double lo = s.ci95 ? s.ci95->lo : s.q1;
    const double hi = s.ci95 ? s.ci95->hi : s.q3;
    if (lo <= 1.0 && hi >= 1.0)
        return std::string(what) + " the same as eager within the uncertainty (" + format::ratio(s.median) +
               ", " + range + ")";
    const bool faster = s.median >= 1.0;
    const double factor = faster ? s.median : 1.0 / s.median;
    return std::string(what) + " " + format::ratio(factor) + (faster ? " faster" : " slower") +
           " than eager (" + range + ")";
}

std::string compilePhrase(const BackendRun& run) {
    if (run.training && (run.training->compileForwardSeconds || run.training->compileBackwardSeconds))
        return format::seconds(run.training->compileForwardSeconds) + " s forward + " +
               format::seconds(run.training->compileBackwardSeconds) + " s backward compile";
    if (!run.compileSeconds)
        return "compile time not measured";
    return format::seconds(run.compileSeconds) + " s compile";
}

std::string throughputPhrase(const BackendRun& run) {
    if (!run.training || !run.training->batchSize || run.compiledSamplesMs.empty())
        return {};
    const double ms = computeLatencyStats(run.compiledSamplesMs).median;
    if (ms <= 0)
        return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f samples/s",
                  static_cast<double>(*run.training->batchSize) * 1000.0 / ms);
    return buf;
}

std::string sentenceFor(const BackendRun& run, Goal goal, const RankedBackend& entry) {
    std::string s = run.name + ": ";
    if (goal == Goal::Memory) {
        s += "peak " + format::bytes(run.peakMemoryBytes);
        if (run.eagerPeakMemoryBytes && *run.eagerPeakMemoryBytes > 0 && run.peakMemoryBytes) {
            const double change =
                100.0 * (static_cast<double>(*run.peakMemoryBytes) / *run.eagerPeakMemoryBytes - 1.0);
            char buf[64];
            std::snprintf(buf, sizeof buf, " (%+.0f%% vs eager's ", change);
            s += buf + format::bytes(run.eagerPeakMemoryBytes) + ")";
        }
        if (entry.speedup)
            s += "; " + speedupPhrase(*entry.speedup, goal == Goal::Throughput ? "step" : "latency");
        return s;
    }
    s += speedupPhrase(*entry.speedup, goal == Goal::Throughput ? "training step" : "latency");
    if (goal == Goal::Throughput)
        if (auto t = throughputPhrase(run); !t.empty())
            s += ", " + t;
    s += ", " + compilePhrase(run);
    if (run.peakMemoryBytes)
        s += ", peak " + format::bytes(run.peakMemoryBytes);
    if (precisionOf(run) != "fp32")
        s += ", accuracy ok at " + precisionOf(run);
    return s;
}

std::string valueText(const RankedBackend& r, Goal goal) {
    if (goal == Goal::Memory)
        return format::bytes(static_cast<int64_t>(r.value));
    return format::ratio(r.value);
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ")) + names[i];
    return out;
}

// Appended to the verdict when a timing it ranks on was taken while the machine was busy.
std::string busyMachineSentence(const Recommendation& rec, const Report& report) {
    if (rec.goal == Goal::Memory)
        return {};
    std::vector<std::string> busy;
    for (const auto& r : rec.ranked)
        if (const auto* run = report.findBackend(r.backend); run && sampledOnBusyMachine(*run))
            busy.push_back(r.backend);
    if (busy.empty())
        return {};
    return " This verdict rests on samples taken on a busy machine (machine_busy for " + joinNames(busy) +
           "): rerun on a quiet machine before relying on it.";
}

// Appended when a ranked backend's timing stopped at a cap before its confidence target.
std::string lowConfidenceSentence(const Recommendation& rec, const Report& report) {
    if (rec.goal == Goal::Memory)
        return {};
    std::vector<std::string> wide;
    for (const auto& r : rec.ranked)
        if (const auto* run = report.findBackend(r.backend)) {
            const auto c = confidenceOutcome(*run);
            if (c && c->targetPct > 0 && !c->reached)
                wide.push_back(r.backend);
        }
    if (wide.empty())
        return {};
    return " The confidence target was not reached for " + joinNames(wide) +
           " (low_confidence): a cap stopped the timing first, so a real difference may read as a tie.";
}

std::string verdictFor(const Recommendation& rec, const Report& report, const RecommendOptions& options) {
    const std::string goal = toString(rec.goal);
    if (rec.ranked.empty()) {
        // An imported TORCH_TRACE log or profiler trace: compiles and kernels, no timed samples.
        const bool anySamples =
            std::any_of(report.backends.begin(), report.backends.end(), [](const BackendRun& r) {
                return !r.compiledSamplesMs.empty() || !r.eagerSamplesMs.empty();
            });
        const bool allRan = std::all_of(report.backends.begin(), report.backends.end(),
                                        [](const BackendRun& r) { return r.status == RunStatus::Ok; });
        if (!report.backends.empty() && !anySamples && allRan && rec.goal != Goal::Memory)
            return "No backend can be recommended for " + goal +
                   ": the report has no latency samples (an imported log or trace carries none); run "
                   "`fusescope-cli compare` on the model to measure them.";
        std::string why = "every backend failed, was unavailable, failed accuracy";
        if (rec.goal == Goal::Throughput)
            why += " or was not run in training mode (use --mode training)";
        if (rec.goal == Goal::Compile)
            why += " or compiled over the " + format::seconds(options.compileBudgetSeconds) + " s budget";
        return "No backend can be recommended for " + goal + ": " + why + ".";
    }
    const auto& best = rec.ranked.front();
    const std::string what = rec.goal == Goal::Memory ? "peak memory" : "speedup over eager";
    if (rec.winners.size() == 1) {
        if (rec.ranked.size() == 1)
            return "For " + goal + ": " + best.backend + " (" + valueText(best, rec.goal) +
                   ") is the only backend that ran and passed accuracy.";
        const auto& next = rec.ranked[1];
        std::string v = "For " + goal + ": " + best.backend + " (" + what + " " + valueText(best, rec.goal) +
                        "), ahead of " + next.backend + " (" + valueText(next, rec.goal) +
                        ") beyond the uncertainty (their speedups' 95% confidence intervals do not overlap).";
        if (rec.goal == Goal::Compile)
            v += " Only backends compiling within " + format::seconds(options.compileBudgetSeconds) +
                 " s were considered.";
        return v;
    }
    std::vector<std::string> names, values, compiles;
    for (const auto& r : rec.ranked) {
        if (r.tier != 1)
            break;
        names.push_back(r.backend);
        values.push_back(r.backend + " " + valueText(r, rec.goal));
        if (const auto* run = report.findBackend(r.backend))
            compiles.push_back(r.backend + " " + format::seconds(run->compileSeconds) + " s");
    }
    std::string why =
        rec.goal == Goal::Memory
            ? "their peaks differ by less than " + std::to_string(int(options.memoryTieFraction * 100)) + "%"
            : "their speedups' 95% confidence intervals overlap";
    return "For " + goal + ": no single winner. " + joinNames(names) + " tie (" + joinNames(values) +
           "): " + why + ". Choose among them by compile time (" + joinNames(compiles) +
           ") or measure longer.";
}

} // namespace

std::string exclusionReason(const BackendRun& run) {
    if (run.status != RunStatus::Ok) {
        const std::string status = toString(run.status);
        if (!run.error)
            return status;
        return status + " (" + run.error->code + "): " + firstLine(run.error->message);
    }
    if (!run.accuracy)
        return "no accuracy check, so it cannot be trusted";
    if (!run.accuracy->pass) {
        const auto& a = *run.accuracy;
        const std::string status = accuracyStatus(a);
        // Only a tolerance verdict has numbers to quote; the other statuses say what happened instead.
        std::string why =
            "failed accuracy at " + precisionOf(run) +
            (status == "fail_accuracy" ? " (max abs " + sci(a.maxAbs) + ", max rel " + sci(a.maxRel) +
                                             ", tolerance " + sci(a.tolerance) + ")"
                                       : " (" + status + ")");
        return a.reason.empty() ? why : why + ": " + firstLine(a.reason);
    }
    if (run.training && run.training->gradientAccuracy && !run.training->gradientAccuracy->pass) {
        const auto& g = *run.training->gradientAccuracy;
        return "gradients differ from eager at " + precisionOf(run) + " (max rel " + sci(g.maxRel) + " in " +
               (run.training->worstParameter.empty() ? std::string("a parameter")
                                                     : run.training->worstParameter) +
               ", tolerance " + sci(g.tolerance) + ")";
    }
    if (!pairedSpeedup(run))
        return "no latency samples";
    for (const auto& w : run.warnings)
        if (w.code == "nnc_interpreter") // issue 33: a 10.5 s call was NNC's interpreter, not NNC
            return "NNC ran on its IR interpreter (no LLVM in this LibTorch): the latency is not NNC's speed";
    return {};
}

Recommendation recommend(const Report& report, Goal goal, const RecommendOptions& options) {
    Recommendation rec;
    rec.goal = goal;
    for (const auto& run : report.backends) {
        std::string why = exclusionReason(run);
        if (why.empty() && goal == Goal::Throughput && !isTraining(run))
            why = "inference run: throughput ranks training steps (run with --mode training)";
        if (why.empty() && goal == Goal::Memory && !run.peakMemoryBytes)
            why = "peak memory not measured" +
                  (run.memoryMethod.empty() ? std::string() : " (" + run.memoryMethod + ")");
        if (why.empty() && goal == Goal::Compile) {
            const auto compile = run.compileSeconds;
            if (!compile)
                why = "compile time not measured";
            else if (*compile > options.compileBudgetSeconds)
                why = "compiled in " + format::seconds(compile) + " s, over the " +
                      format::seconds(options.compileBudgetSeconds) + " s budget";
        }
        if (!why.empty()) {
            rec.excluded.push_back({run.name, why});
            continue;
        }
        RankedBackend entry;
        entry.backend = run.name;
        entry.speedup = pairedSpeedup(run);
        entry.value =
            goal == Goal::Memory ? static_cast<double>(*run.peakMemoryBytes) : entry.speedup->median;
        entry.sentence = sentenceFor(run, goal, entry);
        rec.ranked.push_back(std::move(entry));
    }
    const bool lowerIsBetter = goal == Goal::Memory;
    std::stable_sort(rec.ranked.begin(), rec.ranked.end(),
                     [&](const RankedBackend& a, const RankedBackend& b) {
                         return lowerIsBetter ? a.value < b.value : a.value > b.value;
                     });
    // Tiers: a backend joins the current tier unless the tier's leader beats it beyond the 95 % confidence
    // intervals (clearlyFaster).
    size_t leader = 0;
    int tier = 1;
    for (size_t i = 0; i < rec.ranked.size(); ++i) {
        auto& r = rec.ranked[i];
        const auto& lead = rec.ranked[leader];
        const bool worse = lowerIsBetter ? r.value > lead.value * (1.0 + options.memoryTieFraction)
                                         : clearlyFaster(*lead.speedup, *r.speedup);
        if (i > 0 && worse) {
            ++tier;
            leader = i;
        }
        r.tier = tier;
        if (tier == 1)
            rec.winners.push_back(r.backend);
    }
    rec.verdict = verdictFor(rec, report, options);
    rec.verdict += busyMachineSentence(rec, report);
    rec.verdict += lowConfidenceSentence(rec, report);
    return rec;
}

json toJson(const Recommendation& rec) {
    json ranked = json::array();
    for (const auto& r : rec.ranked) {
        json entry = {{"backend", r.backend}, {"tier", r.tier}, {"value", r.value}, {"sentence", r.sentence}};
        if (r.speedup)
            entry["speedup"] = {{"median", r.speedup->median},
                                {"q1", r.speedup->q1},
                                {"q3", r.speedup->q3},
                                {"pairs", r.speedup->pairs},
                                {"ci95", r.speedup->ci95
                                             ? json::array({r.speedup->ci95->lo, r.speedup->ci95->hi})
                                             : json(nullptr)}};
        else
            entry["speedup"] = nullptr;
        ranked.push_back(std::move(entry));
    }
    json excluded = json::array();
    for (const auto& e : rec.excluded)
        excluded.push_back({{"backend", e.backend}, {"reason", e.reason}});
    return {{"goal", toString(rec.goal)},
            {"verdict", rec.verdict},
            {"winners", rec.winners},
            {"ranked", std::move(ranked)},
            {"excluded", std::move(excluded)}};
}

} // namespace fusescope
