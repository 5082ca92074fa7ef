#include "Tuner.h"

#include "Advice.h"
#include "Format.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fusescope {

using nlohmann::json;

namespace {

int roundsOf(const BackendRun& row) {
    if (!row.rounds.empty())
        return static_cast<int>(std::count_if(row.rounds.begin(), row.rounds.end(),
                                              [](const MeasureRound& r) { return r.status == "ok"; }));
    return row.status == RunStatus::Ok ? 1 : 0;
}

// Every process the row took, ok or not: how many rounds it was given.
int attemptsOf(const BackendRun& row) {
    return row.rounds.empty() ? (row.finished() ? 1 : 0) : static_cast<int>(row.rounds.size());
}

// The wall time the row's next round is likely to take: its last round's (warm caches after the
// first), else the row's own.
double roundCost(const BackendRun& row) {
    for (auto it = row.rounds.rbegin(); it != row.rounds.rend(); ++it)
        if (it->wallSeconds > 0)
            return it->wallSeconds;
    return row.wallSeconds;
}

std::string interval(const PooledSpeedup& s) {
    std::string out = format::ratio(s.median);
    if (s.ci95)
        out += " (" + format::ratio(s.ci95->first) + "-" + format::ratio(s.ci95->second) + ")";
    return out;
}

const BackendRun* rowOf(const Report& report, const std::string& entry) {
    return report.findBackend(entry);
}

int rowIndex(const Report& report, const std::string& entry) {
    for (size_t i = 0; i < report.backends.size(); ++i)
        if (report.backends[i].name == entry)
            return static_cast<int>(i);
    return -1;
}

// a clearly above b: a's interval entirely above b's.
bool clearlyAbove(const PooledSpeedup& a, const PooledSpeedup& b) {
    return a.ci95 && b.ci95 && a.ci95->first > b.ci95->second;
}

std::string pyValue(const json& v) {
    if (v.is_boolean())
        return v.get<bool>() ? "True" : "False";
    if (v.is_null())
        return "None";
    return v.dump(); // numbers, and strings in double quotes with JSON escapes, which Python reads alike
}

std::string compileCall(const std::string& target, const BackendEntry& e) {
    std::string call = "torch.compile(" + target + ", backend=" + json(e.backend).dump();
    if (!e.mode.empty())
        call += ", mode=" + json(e.mode).dump();
    if (e.options.contains("fullgraph"))
        call += ", fullgraph=" + pyValue(e.options["fullgraph"]);
    if (e.options.contains("dynamic"))
        call += ", dynamic=" + pyValue(e.options["dynamic"]);
    if (e.options.contains("inductor") && !e.options["inductor"].empty()) {
        call += ", options={";
        bool first = true;
        for (const auto& [key, value] : e.options["inductor"].items()) {
            call += (first ? "" : ", ") + json(key).dump() + ": " + pyValue(value);
            first = false;
        }
        call += "}";
    }
    return call + ")";
}

} // namespace

std::vector<double> roundMedians(const BackendRun& row) {
    std::vector<double> medians;
    const auto n = static_cast<int64_t>(std::min(row.eagerSamplesMs.size(), row.compiledSamplesMs.size()));
    for (size_t i = 0; i < row.rounds.size(); ++i) {
        if (row.rounds[i].status != "ok")
            continue;
        int64_t end = n;
        for (size_t k = i + 1; k < row.rounds.size(); ++k)
            if (row.rounds[k].status == "ok") {
                end = row.rounds[k].firstSample;
                break;
            }
        const auto first = std::clamp<int64_t>(row.rounds[i].firstSample, 0, n);
        end = std::clamp<int64_t>(end, first, n);
        std::vector<double> e(row.eagerSamplesMs.begin() + first, row.eagerSamplesMs.begin() + end);
        std::vector<double> c(row.compiledSamplesMs.begin() + first, row.compiledSamplesMs.begin() + end);
        if (auto s = pairedSpeedup(e, c); s && s->ci95 && s->median > 0)
            medians.push_back(s->median);
    }
    return medians;
}

namespace {

// Sum of squared log deviations from their mean, and its degrees of freedom.
std::pair<double, int> logSquares(const std::vector<double>& medians) {
    if (medians.size() < 2)
        return {0, 0};
    double mean = 0;
    for (double m : medians)
        mean += std::log(m);
    mean /= double(medians.size());
    double ss = 0;
    for (double m : medians)
        ss += (std::log(m) - mean) * (std::log(m) - mean);
    return {ss, static_cast<int>(medians.size()) - 1};
}

} // namespace

ProcessSpread processSpread(const Report& report) {
    double ss = kProcessSpreadPriorDof * kProcessSpreadPrior * kProcessSpreadPrior;
    ProcessSpread out;
    for (const auto& row : report.backends) {
        const auto [rowSs, dof] = logSquares(roundMedians(row));
        ss += rowSs;
        out.measuredDof += dof;
    }
    out.dof = kProcessSpreadPriorDof + out.measuredDof;
    out.sigma = std::sqrt(ss / out.dof);
    return out;
}

double studentT975(int dof) {
    // Exact to three decimals for small dof; the Cornish-Fisher expansion beyond (error < 0.001).
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
    if (dof < 1)
        return std::numeric_limits<double>::infinity();
    if (dof <= 10)
        return table[dof - 1];
    const double z = 1.959964, v = dof;
    const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
    return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

std::optional<PooledSpeedup> pooledSpeedup(const BackendRun& row, const ProcessSpread& spread) {
    const auto all = pairedSpeedup(row);
    if (!all)
        return std::nullopt;
    PooledSpeedup out;
    out.median = all->median;
    out.pairs = all->pairs;
    out.rounds = std::max(1, roundsOf(row));
    if (!all->ci95 || out.median <= 0)
        return out;
    // The row's own rounds shrunk toward the tuning's spread.
    const auto [ss, own] = logSquares(roundMedians(row));
    const double sigma =
        std::sqrt((kRowSpreadPriorDof * spread.sigma * spread.sigma + ss) / (kRowSpreadPriorDof + own));
    const double h = studentT975(kRowSpreadPriorDof + own) * sigma / std::sqrt(double(out.rounds));
    out.ci95 = SpeedupInterval{std::min(all->ci95->lo, out.median * std::exp(-h)),
                               std::max(all->ci95->hi, out.median * std::exp(h))};
    return out;
}

Tuner::Tuner(std::vector<TuneSpaceEntry> space, Goal goal, double budgetSeconds, bool advice, int maxRounds,
             std::vector<std::string> notes)
    : m_goal(goal)
    , m_budget(budgetSeconds)
    , m_adviceOn(advice)
    , m_maxRounds(std::max(1, maxRounds))
    , m_notes(std::move(notes)) {
    for (auto& e : space)
        m_candidates.push_back({e.entry, e.origin, {}, std::nullopt});
}

void Tuner::addAdvice(const Report& report) {
    // Advice of the rows the space proposed (advice about advice would chain without end).
    for (const auto& row : report.backends) {
        const auto it = std::find_if(m_candidates.begin(), m_candidates.end(),
                                     [&](const Candidate& c) { return c.entry == row.name; });
        if (it == m_candidates.end() || it->origin == "advice" || !row.finished())
            continue;
        for (const auto& a : adviceFor(report, row)) {
            // An empty tryEntry: no new row to try (text-only advice, or the report has that row).
            const std::string& entry = a.tryEntry;
            if (entry.empty())
                continue;
            // One candidate per rule: the same advice on every variant of a row would fill the
            // budget with one idea (the first row it fires on is the plainest, the space's order).
            if (std::any_of(m_advice.begin(), m_advice.end(),
                            [&](const AdviceLink& l) { return l.rule == a.rule; }))
                continue;
            m_advice.push_back({entry, a.rule, row.name});
            const auto existing = std::find_if(m_candidates.begin(), m_candidates.end(),
                                               [&](const Candidate& c) { return c.entry == entry; });
            const int added =
                static_cast<int>(std::count_if(m_candidates.begin(), m_candidates.end(),
                                               [](const Candidate& c) { return c.origin == "advice"; }));
            if (existing == m_candidates.end() && added < kTuneMaxAdviceCandidates)
                m_candidates.push_back({entry, "advice", a.rule, std::nullopt});
        }
    }
}

void Tuner::addAssignments(const Report& report) {
    m_assignmentsDone = true;
    std::vector<std::string> modules;
    for (const auto& m : report.model.modules)
        if (m.depth == 1)
            modules.push_back(m.name);
    std::vector<std::pair<double, std::string>> fastest;
    for (const auto& c : m_candidates) {
        const auto* row = rowOf(report, c.entry);
        if (!row || row->family != "torch_compile" || !exclusionReason(*row).empty() ||
            !isAssignableEntry(c.entry))
            continue;
        if (const auto s = pairedSpeedup(*row)) // the median only: pooledSpeedup's is the same
            fastest.push_back({s->median, c.entry});
    }
    std::stable_sort(fastest.begin(), fastest.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string why;
    if (modules.size() < 2)
        why = "the model has fewer than two top-level submodules";
    else if (modules.size() > size_t(kTuneMaxAssignedModules))
        why = "the model has " + std::to_string(modules.size()) + " top-level submodules (more than " +
              std::to_string(kTuneMaxAssignedModules) + "; compare --search-assign searches them greedily)";
    else if (fastest.size() < 2)
        why = "fewer than two accurate torch.compile entries a submodule can take (NAME or NAME@MODE) ran";
    if (!why.empty()) {
        m_notes.push_back("per-submodule assignments are not in the race: " + why);
        return;
    }
    const std::string a = fastest[0].second, b = fastest[1].second;
    const size_t n = modules.size();
    for (size_t mask = 1; mask + 1 < (size_t(1) << n); ++mask) {
        std::vector<std::pair<std::string, std::string>> assign;
        for (size_t i = 0; i < n; ++i)
            assign.push_back({modules[i], (mask >> i) & 1 ? b : a});
        m_candidates.push_back({mixedLabel(assign), "assignment", {}, std::nullopt});
    }
}

int Tuner::leader(const Report& report) const {
    int best = -1;
    double bestValue = 0;
    for (size_t i = 0; i < m_candidates.size(); ++i) {
        const auto& c = m_candidates[i];
        const auto* row = rowOf(report, c.entry);
        if (c.dropped || !row || !exclusionReason(*row).empty())
            continue;
        const auto s = pairedSpeedup(*row); // the median only: pooledSpeedup's is the same
        double value = s ? s->median : 0;
        if (m_goal == Goal::Memory) {
            if (!row->peakMemoryBytes)
                continue;
            value = -double(*row->peakMemoryBytes);
        }
        if (best < 0 || value > bestValue) {
            best = static_cast<int>(i);
            bestValue = value;
        }
    }
    return best;
}

void Tuner::updateDrops(const Report& report) {
    for (auto& c : m_candidates) {
        const auto* row = rowOf(report, c.entry);
        if (c.dropped || !row || !row->finished())
            continue;
        if (auto why = exclusionReason(*row); !why.empty())
            c.dropped = why;
        else if (m_goal == Goal::Compile && row->compileSeconds &&
                 *row->compileSeconds > kTuneCompileGoalSeconds)
            c.dropped = "compiles in " + format::seconds(row->compileSeconds) + " s, over the " +
                        format::seconds(kTuneCompileGoalSeconds) + " s the compile goal allows";
    }
    if (!racing())
        return;
    const int l = leader(report);
    if (l < 0)
        return;
    const auto spread = processSpread(report);
    const auto lead = pooledSpeedup(*rowOf(report, m_candidates[l].entry), spread);
    for (auto& c : m_candidates) {
        const auto* row = rowOf(report, c.entry);
        if (c.dropped || !row || c.entry == m_candidates[l].entry)
            continue;
        const auto s = pooledSpeedup(*row, spread);
        if (s && lead && clearlyAbove(*lead, *s))
            c.dropped = "slower than " + m_candidates[l].entry + " beyond the uncertainty: " + interval(*s) +
                        " vs " + interval(*lead) + " over eager";
    }
}

std::optional<TuneStep> Tuner::next(const Report& report, double elapsedSeconds) {
    if (m_adviceOn)
        addAdvice(report);
    updateDrops(report);
    const double left = m_budget - elapsedSeconds;
    // The cheapest round seen: a budget with less left cannot finish one.
    double cheapest = 0;
    for (const auto& row : report.backends)
        if (row.finished() && row.wallSeconds > 0)
            cheapest = cheapest > 0 ? std::min(cheapest, row.wallSeconds) : row.wallSeconds;
    const auto unscreened = [&] {
        return std::any_of(m_candidates.begin(), m_candidates.end(),
                           [&](const Candidate& c) { return !rowOf(report, c.entry); });
    };
    if (!m_assignmentsDone && !unscreened() && m_assignmentsOn)
        addAssignments(report);
    for (const auto& c : m_candidates)
        if (!rowOf(report, c.entry)) {
            if (left <= 0 || left < cheapest) {
                m_stoppedBy = "budget";
                return std::nullopt;
            }
            return TuneStep{c.entry, -1};
        }
    if (!racing()) {
        m_stoppedBy = "exhausted";
        return std::nullopt;
    }
    const int l = leader(report);
    if (l < 0) {
        m_stoppedBy = "exhausted";
        return std::nullopt;
    }
    // The leader and the candidates it is not separated from, fewest rounds first (the leader
    // first among equals: its interval is every comparison's other half).
    std::vector<int> close;
    for (size_t i = 0; i < m_candidates.size(); ++i) {
        const auto* row = rowOf(report, m_candidates[i].entry);
        if (!m_candidates[i].dropped && row && exclusionReason(*row).empty())
            close.push_back(static_cast<int>(i));
    }
    if (close.size() <= 1) {
        m_stoppedBy = "separated";
        return std::nullopt;
    }
    std::stable_sort(close.begin(), close.end(), [&](int a, int b) {
        const int ra = attemptsOf(*rowOf(report, m_candidates[a].entry));
        const int rb = attemptsOf(*rowOf(report, m_candidates[b].entry));
        if (ra != rb)
            return ra < rb;
        return a == l && b != l;
    });
    for (int i : close) {
        const auto* row = rowOf(report, m_candidates[i].entry);
        if (attemptsOf(*row) >= m_maxRounds)
            continue;
        if (left < roundCost(*row)) {
            m_stoppedBy = "budget";
            return std::nullopt;
        }
        return TuneStep{m_candidates[i].entry, rowIndex(report, m_candidates[i].entry)};
    }
    m_stoppedBy = "max_rounds";
    return std::nullopt;
}

TuneOutcome Tuner::outcome(const Report& report, double elapsedSeconds, const std::string& stoppedBy) const {
    TuneOutcome out;
    out.budgetSeconds = m_budget;
    out.elapsedSeconds = elapsedSeconds;
    out.goal = toString(m_goal);
    out.stoppedBy = stoppedBy.empty() ? m_stoppedBy : stoppedBy;
    out.notes = m_notes;
    out.notes.push_back("rounds after a candidate's first run with warm compile caches (Inductor's own "
                        "cache); compile_s is always the first, cold round's");
    const auto spread = processSpread(report);
    char note[320];
    std::snprintf(
        note, sizeof note,
        "speedup intervals hold across processes: one process's median moves by sigma = %.1f %% "
        "between processes (%d degrees of freedom of repeated rounds pooled with a prior of %.1f %% "
        "worth %d), each candidate's own rounds shrunk toward it (worth %d)",
        spread.sigma * 100, spread.measuredDof, kProcessSpreadPrior * 100, kProcessSpreadPriorDof,
        kRowSpreadPriorDof);
    out.notes.push_back(note);
    std::vector<std::optional<PooledSpeedup>> pooled;
    for (const auto& c : m_candidates) {
        TuneCandidate t;
        t.entry = c.entry;
        t.origin = c.origin;
        t.advice = c.advice;
        t.dropped = c.dropped;
        const auto* row = rowOf(report, c.entry);
        std::optional<PooledSpeedup> s;
        if (row) {
            t.status = toString(row->status);
            s = pooledSpeedup(*row, spread);
            if (s) {
                t.speedup = s->median;
                t.speedupCi95 = s->ci95;
            }
            t.compileSeconds = row->compileSeconds;
            t.peakMemoryBytes = row->peakMemoryBytes;
            if (row->accuracy)
                t.accuracyStatus = accuracyStatus(*row->accuracy);
            t.rounds = attemptsOf(*row);
        }
        pooled.push_back(s);
        out.candidates.push_back(std::move(t));
    }
    const int l = leader(report);
    if (l >= 0) {
        const auto* row = rowOf(report, m_candidates[l].entry);
        TuneBest best;
        best.entry = m_candidates[l].entry;
        if (pooled[l]) {
            best.speedup = pooled[l]->median;
            best.speedupCi95 = pooled[l]->ci95;
        }
        best.snippet = tuneSnippet(best.entry, row->family);
        out.best = std::move(best);
        for (size_t i = 0; i < m_candidates.size(); ++i) {
            const auto* r = rowOf(report, m_candidates[i].entry);
            if (int(i) == l || m_candidates[i].dropped || !r || !exclusionReason(*r).empty())
                continue;
            if (m_goal == Goal::Memory) {
                if (r->peakMemoryBytes && row->peakMemoryBytes &&
                    double(*r->peakMemoryBytes) <= double(*row->peakMemoryBytes) * 1.02)
                    out.runnersUp.push_back(m_candidates[i].entry);
            } else if (pooled[i] && pooled[l] && !clearlyAbove(*pooled[l], *pooled[i])) {
                out.runnersUp.push_back(m_candidates[i].entry);
            }
        }
    }
    // Pareto front over speedup (higher), compile_s and peak memory (lower), of the accurate rows.
    struct Point {
        std::string entry;
        double speedup, compile, peak;
    };
    std::vector<Point> points;
    for (size_t i = 0; i < m_candidates.size(); ++i) {
        const auto* r = rowOf(report, m_candidates[i].entry);
        if (!r || !exclusionReason(*r).empty() || !pooled[i])
            continue;
        points.push_back(
            {m_candidates[i].entry, pooled[i]->median, r->compileSeconds.value_or(0),
             r->peakMemoryBytes ? double(*r->peakMemoryBytes) : std::numeric_limits<double>::infinity()});
    }
    for (const auto& p : points) {
        const bool dominated = std::any_of(points.begin(), points.end(), [&](const Point& q) {
            return q.speedup >= p.speedup && q.compile <= p.compile && q.peak <= p.peak &&
                   (q.speedup > p.speedup || q.compile < p.compile || q.peak < p.peak);
        });
        if (!dominated)
            out.pareto.push_back(p.entry);
    }
    // Each piece of advice against the row it was about.
    for (const auto& link : m_advice) {
        AdviceOutcome a{link.entry, link.rule, link.base, {}, {}};
        const auto* tried = rowOf(report, link.entry);
        const auto* base = rowOf(report, link.base);
        const auto cand = std::find_if(m_candidates.begin(), m_candidates.end(),
                                       [&](const Candidate& c) { return c.entry == link.entry; });
        if (!tried || !tried->finished()) {
            a.reason = cand == m_candidates.end()
                           ? "not measured: the tuner takes at most " +
                                 std::to_string(kTuneMaxAdviceCandidates) + " advice entries"
                           : "not measured: the tuning stopped before it ran";
        } else if (auto why = exclusionReason(*tried); !why.empty()) {
            a.outcome = "hurt";
            a.reason = link.entry + " cannot be used: " + why;
        } else if (!base || !exclusionReason(*base).empty()) {
            a.reason = "its base row " + link.base + " has no accurate measurement to compare with";
        } else if (m_goal == Goal::Memory) {
            if (!tried->peakMemoryBytes || !base->peakMemoryBytes) {
                a.reason = "no peak memory to compare";
            } else {
                const double t = double(*tried->peakMemoryBytes), b = double(*base->peakMemoryBytes);
                a.outcome = t < b * 0.98 ? "helped" : t > b * 1.02 ? "hurt" : "no_difference";
                a.reason = "peak " + format::bytes(tried->peakMemoryBytes) + " vs " +
                           format::bytes(base->peakMemoryBytes) + " (a tie within 2 %)";
            }
        } else {
            const auto t = pooledSpeedup(*tried, spread), b = pooledSpeedup(*base, spread);
            if (!t || !b || !t->ci95 || !b->ci95) {
                a.reason = "too few samples for an interval";
            } else {
                a.outcome = clearlyAbove(*t, *b) ? "helped" : clearlyAbove(*b, *t) ? "hurt" : "no_difference";
                a.reason = interval(*t) + " vs " + link.base + " " + interval(*b) + " over eager";
            }
        }
        out.adviceOutcomes.push_back(std::move(a));
    }
    // The verdict.
    const auto measured = std::count_if(out.candidates.begin(), out.candidates.end(),
                                        [](const TuneCandidate& c) { return c.status != "pending"; });
    std::string v;
    if (!out.best) {
        v = "No candidate ran and passed accuracy (" + std::to_string(measured) + " of " +
            std::to_string(out.candidates.size()) + " measured).";
    } else {
        v = out.best->entry + " is the best setting found for " + out.goal;
        if (m_goal != Goal::Memory && pooled[l])
            v += ": " + interval(*pooled[l]) + " over eager";
        else if (m_goal == Goal::Memory)
            v += ": peak " + format::bytes(rowOf(report, out.best->entry)->peakMemoryBytes);
        v += ".";
        if (m_goal != Goal::Memory && pooled[l] && pooled[l]->ci95 && pooled[l]->ci95->second < 1)
            v += " Every candidate is slower than the uncompiled model beyond the uncertainty: leave it "
                 "uncompiled.";
        if (!out.runnersUp.empty()) {
            v += " It is not separated from ";
            for (size_t i = 0; i < out.runnersUp.size(); ++i)
                v += (i ? ", " : "") + out.runnersUp[i];
            v += " within the uncertainty";
            v += out.stoppedBy == "budget" ? " (the budget ended first)." : ".";
        }
    }
    v += " " + std::to_string(measured) + " of " + std::to_string(out.candidates.size()) +
         " candidates measured in " + format::seconds(elapsedSeconds) + " s of a " +
         format::seconds(m_budget) + " s budget.";
    out.verdict = v;
    return out;
}

std::string tuneSnippet(const std::string& entry, const std::string& family) {
    if (isMixedLabel(entry)) {
        const auto inner = entry.substr(std::string(kMixedBackend).size() + 1,
                                        entry.size() - std::string(kMixedBackend).size() - 2);
        auto assign = parseAssignment(inner);
        if (!assign)
            return "# " + entry;
        std::string out;
        for (const auto& [module, backend] : assign.value()) {
            auto e = parseBackendEntry(backend);
            if (!e)
                continue;
            const std::string target = "model." + module;
            out += e.value().backend == "eager" ? "# " + target + " stays eager\n"
                                                : target + " = " + compileCall(target, e.value()) + "\n";
        }
        return out;
    }
    auto parsed = parseBackendEntry(entry);
    if (!parsed)
        return "# " + entry;
    const auto& e = parsed.value();
    std::string prefix;
    if (auto p = entryPrecision(e); !p.empty())
        prefix =
            "# call it as FuseScope measured it: precision " + p + " (docs/workloads.md, \"Precision\")\n";
    // The other families, as FuseScope ran them (docs/libtorch.md, docs/tvm.md).
    if (e.backend == "aot_inductor")
        return prefix +
               "ep = torch.export.export(model, example_inputs)\n"
               "package = torch._inductor.aoti_compile_and_package(ep)  # model.pt2, loadable from C++ too\n"
               "model = torch._inductor.aoti_load_package(package)";
    if (e.backend == "torchscript")
        return prefix +
               "model = torch.jit.script(model)  # FuseScope ran it in LibTorch's simple executor, no "
               "fuser (docs/libtorch.md)";
    if (e.backend == "torchscript_nnc")
        return prefix +
               "model = torch.jit.script(model)  # run it with the NNC fuser on, as FuseScope did in "
               "LibTorch (docs/libtorch.md)";
    if (family != "torch_compile")
        return prefix + "# " + e.backend + " is not a torch.compile backend (" + family +
               " family): docs/tvm.md and docs/libtorch.md say how FuseScope ran it";
    // Dynamo options are process-wide settings, set before the compile (docs/cli.md).
    if (e.options.contains("dynamo"))
        for (const auto& [name, value] : e.options["dynamo"].items())
            prefix += "torch._dynamo.config." + name + " = " + pyValue(value) + "\n";
    return prefix + "model = " + compileCall("model", e);
}

void appendRound(BackendRun& row, const BackendRun& round, const std::string& cache) {
    if (row.rounds.empty())
        row.rounds.push_back({0, row.compileSeconds, "cold", toString(row.status), {}, row.wallSeconds});
    const size_t n = std::min(row.eagerSamplesMs.size(), row.compiledSamplesMs.size());
    row.eagerSamplesMs.resize(n);
    row.compiledSamplesMs.resize(n);
    MeasureRound r{static_cast<int64_t>(n), round.compileSeconds, cache, toString(round.status), {},
                   round.wallSeconds};
    const int number = static_cast<int>(row.rounds.size()) + 1;
    if (round.status == RunStatus::Ok) {
        const size_t m = std::min(round.eagerSamplesMs.size(), round.compiledSamplesMs.size());
        row.eagerSamplesMs.insert(row.eagerSamplesMs.end(), round.eagerSamplesMs.begin(),
                                  round.eagerSamplesMs.begin() + m);
        row.compiledSamplesMs.insert(row.compiledSamplesMs.end(), round.compiledSamplesMs.begin(),
                                     round.compiledSamplesMs.begin() + m);
        if (round.accuracy && !round.accuracy->pass && (!row.accuracy || row.accuracy->pass)) {
            row.notes.push_back("round " + std::to_string(number) + " failed accuracy where round 1 passed");
            row.accuracy = round.accuracy;
        }
    } else if (round.error) {
        r.error = round.error->message;
    }
    for (const auto& w : round.warnings)
        row.warnings.push_back({w.code, "round " + std::to_string(number) + ": " + w.message});
    row.rounds.push_back(std::move(r));
}

} // namespace fusescope
