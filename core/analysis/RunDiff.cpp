#include "RunDiff.h"

#include "Format.h"
#include "LatencyStats.h"
#include "RunWarnings.h"
#include "trace/KernelLinks.h"
#include "trace/TimeAttribution.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>

namespace fusescope {

using nlohmann::json;

const char* toString(DiffVerdict verdict) {
    switch (verdict) {
    case DiffVerdict::Faster:
        return "faster";
    case DiffVerdict::Slower:
        return "slower";
    case DiffVerdict::Tie:
        return "tie";
    case DiffVerdict::Unknown:
        return "unknown";
    }
    return "unknown";
}

double ChangedKernels::overlap() const {
    const size_t all = shared.size() + onlyA.size() + onlyB.size();
    return all == 0 ? 0 : static_cast<double>(shared.size()) / static_cast<double>(all);
}

namespace {

constexpr double kTwoSidedZ95 = 1.959963984540054;
// C(66, 33) < 2^64: up to n + m = 66 the Mann-Whitney counts are exact in 64-bit integers.
constexpr int kExactLimit = 66;
// n * m pairwise differences are kept in memory; above this each sample is thinned to evenly
// spaced order statistics, which only widens the interval (fewer effective samples).
constexpr size_t kMaxPairs = 4'000'000;

// The largest k with P(U < k) <= 2.5 % (U: the Mann-Whitney statistic under no shift), so that
// [d_(k), d_(nm+1-k)] (1-based) covers the shift with at least 95 %. 0: no such bound exists.
size_t criticalRank(size_t n, size_t m) {
    const size_t nm = n * m;
    if (n + m <= kExactLimit) {
        // The counts of U are the coefficients of the Gaussian binomial [n+m choose n]_q:
        // prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i). Unsigned arithmetic wraps, and the final
        // coefficients fit, so intermediate "negative" values are harmless.
        std::vector<uint64_t> c(nm + 1, 0);
        c[0] = 1;
        for (size_t i = 1; i <= n; ++i) {
            const size_t up = m + i;
            for (size_t u = nm; u >= up; --u)
                c[u] -= c[u - up];
            for (size_t u = i; u <= nm; ++u)
                c[u] += c[u - i];
        }
        long double total = 0;
        for (uint64_t v : c)
            total += static_cast<long double>(v);
        long double below = 0;
        size_t k = 0;
        while (k < nm && below + static_cast<long double>(c[k]) <= 0.025L * total) {
            below += static_cast<long double>(c[k]);
            ++k;
        }
        return k;
    }
    const double sd = std::sqrt(static_cast<double>(nm) * static_cast<double>(n + m + 1) / 12.0);
    const double k = std::floor(static_cast<double>(nm) / 2.0 - kTwoSidedZ95 * sd);
    return k < 1 ? 0 : static_cast<size_t>(k);
}

std::vector<double> thinned(std::vector<double> values, size_t keep) {
    std::sort(values.begin(), values.end());
    if (values.size() <= keep)
        return values;
    std::vector<double> out;
    out.reserve(keep);
    for (size_t i = 0; i < keep; ++i)
        out.push_back(values[(i * (values.size() - 1)) / (keep - 1)]);
    return out;
}

std::vector<double> positiveLogs(const std::vector<double>& ms) {
    std::vector<double> out;
    out.reserve(ms.size());
    for (double v : ms)
        if (v > 0 && std::isfinite(v))
            out.push_back(std::log(v));
    return out;
}

template <typename T> std::optional<double> ratioOf(std::optional<T> a, std::optional<T> b) {
    if (!a || !b || *a <= 0)
        return std::nullopt;
    return static_cast<double>(*b) / static_cast<double>(*a);
}

std::string ciText(const LatencyRatio& r) {
    return "95% CI " + (r.low ? format::ratio(*r.low) : std::string("unbounded")) + " to " +
           (r.high ? format::ratio(*r.high) : std::string("unbounded"));
}

// The verdict and its sentence, from the latency samples of both runs.
void judgeLatency(const BackendRun& a, const BackendRun& b, BackendDiff& d) {
    const std::string pair = d.nameA == d.nameB ? d.nameA : d.nameB + " against " + d.nameA;
    if (!d.latency) {
        d.verdict = DiffVerdict::Unknown;
        d.sentence = pair + ": no latency to compare (" + (a.compiledSamplesMs.empty() ? "A" : "B") +
                     " has no compiled samples).";
        return;
    }
    const auto& r = *d.latency;
    const LatencyStats sa = computeLatencyStats(a.compiledSamplesMs);
    const LatencyStats sb = computeLatencyStats(b.compiledSamplesMs);
    const bool ciBelow = r.high && *r.high < 1.0;
    const bool ciAbove = r.low && *r.low > 1.0;
    const bool apartBelow = sb.q3 < sa.q1;
    const bool apartAbove = sb.q1 > sa.q3;
    const std::string ratio = format::ratio(r.ratio) + " (" + ciText(r) + ", " + std::to_string(r.samplesA) +
                              " vs " + std::to_string(r.samplesB) + " samples)";
    if (ciBelow && apartBelow) {
        d.verdict = DiffVerdict::Faster;
        d.sentence = pair + ": B is faster, latency ratio B/A " + ratio + "; the quartile ranges are apart.";
    } else if (ciAbove && apartAbove) {
        d.verdict = DiffVerdict::Slower;
        d.sentence = pair + ": B is slower, latency ratio B/A " + ratio + "; the quartile ranges are apart.";
    } else {
        d.verdict = DiffVerdict::Tie;
        std::string why;
        if (!r.low || !r.high)
            why = "too few samples for a 95% interval on both sides";
        else if (ciBelow || ciAbove)
            why = "the interval excludes 1 but the quartile ranges overlap: the change is inside the spread";
        else
            why = "the 95% interval contains 1";
        d.sentence = pair + ": no change beyond the noise, latency ratio B/A " + ratio + ": " + why + ".";
    }
    if (d.eagerRatio && std::abs(*d.eagerRatio - 1.0) > 0.05)
        d.sentence += " Eager moved too (B/A " + format::ratio(*d.eagerRatio) +
                      "): not only the backend changed (the machine, torch or the workload did too).";
    if (sampledOnBusyMachine(a) || sampledOnBusyMachine(b))
        d.sentence += " Samples were taken on a busy machine (machine_busy): rerun on a quiet machine "
                      "before relying on this.";
}

std::string scopeOf(const StageGraph& s) {
    return s.key();
}

// The post-grad FX nodes a kernel covers: its provenance; else the origins of its nodes; else the
// names of its nodes (a stage without provenance still pairs with itself).
std::vector<std::string> coveredNodes(const StageGraph& stage, const FusionGroup& g) {
    std::set<std::string> names(g.provenance.begin(), g.provenance.end());
    if (names.empty())
        for (const auto& id : g.nodes)
            if (const GraphNode* n = stage.findNode(id))
                names.insert(n->origins.begin(), n->origins.end());
    if (names.empty())
        for (const auto& id : g.nodes) {
            const GraphNode* n = stage.findNode(id);
            names.insert(n && !n->name.empty() ? n->name : id);
        }
    if (names.empty())
        names.insert(g.id);
    return {names.begin(), names.end()};
}

// Per-iteration time of each kernel group ("stage key\n group id"), from the run's trace: the
// calls KernelLinks links to that group (eventGroup), summed as TimeAttribution sums them. Two
// extern groups of one op (aten::addmm called by three extern_kernels.addmm) each get the time of
// their own calls, so extern kernels have a time too; a group no call links to has none.
std::map<std::string, double> kernelTimes(const BackendRun& run) {
    std::map<std::string, double> out;
    if (!run.trace || run.trace->events.empty())
        return out;
    const TimeAttribution attribution = attributeKernelTime(run);
    for (const auto& [ref, ns] : attribution.groups)
        if (ref.stage)
            out[scopeOf(*ref.stage) + "\n" + ref.id] += ns / 1e6;
    return out;
}

std::vector<DiffKernel> kernelsOf(const StageGraph* stage, const std::map<std::string, double>& times) {
    std::vector<DiffKernel> out;
    if (!stage)
        return out;
    for (const auto& g : stage->groups) {
        if (!g.isKernel())
            continue;
        DiffKernel k;
        k.stage = scopeOf(*stage);
        k.id = g.id;
        k.name = g.name;
        k.kind = g.kind;
        k.nodes = coveredNodes(*stage, g);
        if (auto it = times.find(k.stage + "\n" + k.id); it != times.end())
            k.timeMs = it->second;
        out.push_back(std::move(k));
    }
    return out;
}

KernelDiff diffKernelLists(std::vector<DiffKernel> a, std::vector<DiffKernel> b) {
    KernelDiff out;
    // 1. Same node set: matched, in order (two identical extern calls pair first with first).
    std::vector<bool> usedA(a.size(), false), usedB(b.size(), false);
    std::map<std::vector<std::string>, std::vector<size_t>> bySet;
    for (size_t i = 0; i < a.size(); ++i)
        bySet[a[i].nodes].push_back(i);
    for (size_t j = 0; j < b.size(); ++j) {
        auto it = bySet.find(b[j].nodes);
        if (it == bySet.end() || it->second.empty())
            continue;
        const size_t i = it->second.front();
        it->second.erase(it->second.begin());
        usedA[i] = usedB[j] = true;
        MatchedKernel m{a[i], b[j], std::nullopt};
        if (m.a.timeMs && m.b.timeMs)
            m.timeDeltaMs = *m.b.timeMs - *m.a.timeMs;
        out.matched.push_back(std::move(m));
    }
    // 2. The rest: kernels sharing a node are one component (union-find over A then B indices).
    const size_t na = a.size();
    std::vector<size_t> parent(na + b.size());
    std::iota(parent.begin(), parent.end(), size_t{0});
    auto find = [&](size_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    std::map<std::string, size_t> owner; // node -> first unmatched kernel seen covering it
    auto visit = [&](size_t index, const DiffKernel& k) {
        for (const auto& node : k.nodes) {
            auto [it, inserted] = owner.emplace(node, index);
            if (!inserted)
                parent[find(index)] = find(it->second);
        }
    };
    for (size_t i = 0; i < na; ++i)
        if (!usedA[i])
            visit(i, a[i]);
    for (size_t j = 0; j < b.size(); ++j)
        if (!usedB[j])
            visit(na + j, b[j]);
    std::map<size_t, ChangedKernels> components;
    std::vector<size_t> order; // components in the order they first appear
    auto add = [&](size_t index, const DiffKernel& k, bool sideA) {
        const size_t root = find(index);
        auto [it, inserted] = components.try_emplace(root);
        if (inserted)
            order.push_back(root);
        (sideA ? it->second.a : it->second.b).push_back(k);
    };
    for (size_t i = 0; i < na; ++i)
        if (!usedA[i])
            add(i, a[i], true);
    for (size_t j = 0; j < b.size(); ++j)
        if (!usedB[j])
            add(na + j, b[j], false);
    for (size_t root : order) {
        ChangedKernels& c = components[root];
        if (c.b.empty()) {
            out.removed.insert(out.removed.end(), c.a.begin(), c.a.end());
            continue;
        }
        if (c.a.empty()) {
            out.added.insert(out.added.end(), c.b.begin(), c.b.end());
            continue;
        }
        std::set<std::string> sa, sb;
        for (const auto& k : c.a)
            sa.insert(k.nodes.begin(), k.nodes.end());
        for (const auto& k : c.b)
            sb.insert(k.nodes.begin(), k.nodes.end());
        std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(c.shared));
        std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(c.onlyA));
        std::set_difference(sb.begin(), sb.end(), sa.begin(), sa.end(), std::back_inserter(c.onlyB));
        // As many kernels on both sides: B fused more when its kernels gained nodes and lost none.
        if (c.b.size() != c.a.size())
            c.how = c.b.size() < c.a.size() ? "fused more" : "fused less";
        else if (c.onlyA.empty() != c.onlyB.empty())
            c.how = c.onlyA.empty() ? "fused more" : "fused less";
        else
            c.how = "regrouped";
        out.changed.push_back(std::move(c));
    }
    return out;
}

bool sameBreak(const GraphBreak& x, const GraphBreak& y) {
    return x.reason == y.reason && x.file == y.file && x.line == y.line;
}

BreakDiff diffBreaks(const std::vector<GraphBreak>& a, const std::vector<GraphBreak>& b) {
    BreakDiff out;
    std::vector<bool> used(b.size(), false);
    for (const auto& x : a) {
        bool found = false;
        for (size_t j = 0; j < b.size() && !found; ++j)
            if (!used[j] && sameBreak(x, b[j]))
                used[j] = found = true;
        if (!found)
            out.removed.push_back(x);
    }
    for (size_t j = 0; j < b.size(); ++j)
        if (!used[j])
            out.added.push_back(b[j]);
    return out;
}

json optionalNumber(std::optional<double> v) {
    return v ? json(*v) : json(nullptr);
}

json toJson(const DiffKernel& k) {
    return {{"stage", k.stage}, {"id", k.id},       {"name", k.name},
            {"kind", k.kind},   {"nodes", k.nodes}, {"time_ms", optionalNumber(k.timeMs)}};
}

json kernelList(const std::vector<DiffKernel>& ks) {
    json out = json::array();
    for (const auto& k : ks)
        out.push_back(toJson(k));
    return out;
}

json breakList(const std::vector<GraphBreak>& bs) {
    json out = json::array();
    for (const auto& b : bs)
        out.push_back({{"reason", b.reason}, {"file", b.file}, {"line", b.line}, {"graph", b.graph}});
    return out;
}

json accuracyJson(const std::optional<Accuracy>& a) {
    if (!a)
        return nullptr;
    return {{"status", accuracyStatus(*a)}, {"max_abs", a->maxAbs}, {"max_rel", a->maxRel}};
}

} // namespace

std::optional<LatencyRatio> latencyRatio(const std::vector<double>& aMs, const std::vector<double>& bMs) {
    std::vector<double> la = positiveLogs(aMs), lb = positiveLogs(bMs);
    if (la.empty() || lb.empty())
        return std::nullopt;
    LatencyRatio r;
    r.samplesA = static_cast<int>(la.size());
    r.samplesB = static_cast<int>(lb.size());
    const double ma = computeLatencyStats(aMs).median;
    r.ratio = ma > 0 ? computeLatencyStats(bMs).median / ma : 0;
    if (la.size() * lb.size() > kMaxPairs) {
        const size_t keep = static_cast<size_t>(std::sqrt(static_cast<double>(kMaxPairs)));
        la = thinned(std::move(la), keep);
        lb = thinned(std::move(lb), keep);
    }
    const size_t n = la.size(), m = lb.size();
    const size_t k = criticalRank(n, m);
    if (k == 0)
        return r;
    std::vector<double> d;
    d.reserve(n * m);
    for (double x : la)
        for (double y : lb)
            d.push_back(y - x);
    const size_t nm = d.size();
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k - 1), d.end());
    r.low = std::exp(d[k - 1]);
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(nm - k), d.end());
    r.high = std::exp(d[nm - k]);
    return r;
}

KernelDiff diffKernelStages(const StageGraph* a, const StageGraph* b, const BackendRun* runA,
                            const BackendRun* runB) {
    const auto timesA = runA ? kernelTimes(*runA) : std::map<std::string, double>{};
    const auto timesB = runB ? kernelTimes(*runB) : std::map<std::string, double>{};
    return diffKernelLists(kernelsOf(a, timesA), kernelsOf(b, timesB));
}

BackendDiff diffBackends(const BackendRun& a, const BackendRun& b) {
    BackendDiff d;
    d.nameA = a.name;
    d.nameB = b.name;
    d.statusA = a.status;
    d.statusB = b.status;
    d.latency = latencyRatio(a.compiledSamplesMs, b.compiledSamplesMs);
    if (!a.eagerSamplesMs.empty() && !b.eagerSamplesMs.empty()) {
        const double ea = computeLatencyStats(a.eagerSamplesMs).median;
        if (ea > 0)
            d.eagerRatio = computeLatencyStats(b.eagerSamplesMs).median / ea;
    }
    judgeLatency(a, b, d);
    d.compileRatio = ratioOf(a.compileSeconds, b.compileSeconds);
    d.memoryRatio = ratioOf(a.peakMemoryBytes, b.peakMemoryBytes);
    d.accuracyA = a.accuracy;
    d.accuracyB = b.accuracy;
    d.graphsA = a.graphs;
    d.graphsB = b.graphs;

    // Kernel stages pair by key (post_fusion#g on both sides); a graph only one side has is all
    // added or all removed.
    const auto timesA = kernelTimes(a), timesB = kernelTimes(b);
    const auto stagesA = afterFusionStages(a), stagesB = afterFusionStages(b);
    std::vector<std::string> keys;
    for (const auto* s : stagesA)
        keys.push_back(s->key());
    for (const auto* s : stagesB)
        if (std::find(keys.begin(), keys.end(), s->key()) == keys.end())
            keys.push_back(s->key());
    for (const auto& key : keys) {
        auto stageOf = [&key](const std::vector<const StageGraph*>& stages) -> const StageGraph* {
            for (const auto* s : stages)
                if (s->key() == key)
                    return s;
            return nullptr;
        };
        KernelDiff part =
            diffKernelLists(kernelsOf(stageOf(stagesA), timesA), kernelsOf(stageOf(stagesB), timesB));
        auto append = [](auto& to, auto& from) { to.insert(to.end(), from.begin(), from.end()); };
        append(d.kernels.matched, part.matched);
        append(d.kernels.added, part.added);
        append(d.kernels.removed, part.removed);
        append(d.kernels.changed, part.changed);
    }
    if (stagesA.empty())
        d.notes.push_back("A (" + a.name +
                          ") has no kernel stage after fusion: its kernels are not compared");
    if (stagesB.empty())
        d.notes.push_back("B (" + b.name +
                          ") has no kernel stage after fusion: its kernels are not compared");
    if ((a.trace != std::nullopt) != (b.trace != std::nullopt))
        d.notes.push_back(std::string("only ") + (a.trace ? "A" : "B") +
                          " has a kernel trace: no kernel time deltas");
    d.breaks = diffBreaks(a.breakReasons, b.breakReasons);
    return d;
}

Result<ReportDiff> diffReports(const Report& a, const Report& b, const std::string& backend,
                               const std::string& backendB, const std::string& labelA,
                               const std::string& labelB) {
    auto names = [](const Report& r) {
        std::string out;
        for (const auto& run : r.backends)
            out += (out.empty() ? "" : ", ") + run.name;
        return out.empty() ? std::string("none") : out;
    };
    ReportDiff out;
    if (!backend.empty() || !backendB.empty()) {
        const std::string nameA = backend.empty() ? backendB : backend;
        const std::string nameB = backendB.empty() ? nameA : backendB;
        const BackendRun* ra = a.findBackend(nameA);
        if (!ra)
            return Error{"diff_backend_missing",
                         labelA + " has no backend '" + nameA + "' (it has: " + names(a) + ")"};
        const BackendRun* rb = b.findBackend(nameB);
        if (!rb)
            return Error{"diff_backend_missing",
                         labelB + " has no backend '" + nameB + "' (it has: " + names(b) + ")"};
        out.backends.push_back(diffBackends(*ra, *rb));
        return out;
    }
    for (const auto& run : a.backends) {
        if (const BackendRun* rb = b.findBackend(run.name))
            out.backends.push_back(diffBackends(run, *rb));
        else
            out.onlyA.push_back(run.name);
    }
    for (const auto& run : b.backends)
        if (!a.findBackend(run.name))
            out.onlyB.push_back(run.name);
    if (out.backends.empty())
        return Error{"diff_nothing_in_common", "no backend is in both " + labelA + " (" + names(a) +
                                                   ") and " + labelB + " (" + names(b) +
                                                   "); pick two with --backend and --backend-b"};
    return out;
}

json toJson(const BackendDiff& d) {
    json matched = json::array();
    for (const auto& m : d.kernels.matched)
        matched.push_back({{"a", toJson(m.a)},
                           {"b", toJson(m.b)},
                           {"renamed", m.a.name != m.b.name},
                           {"time_delta_ms", optionalNumber(m.timeDeltaMs)}});
    json changed = json::array();
    for (const auto& c : d.kernels.changed)
        changed.push_back({{"a", kernelList(c.a)},
                           {"b", kernelList(c.b)},
                           {"how", c.how},
                           {"shared", c.shared},
                           {"only_a", c.onlyA},
                           {"only_b", c.onlyB},
                           {"overlap", c.overlap()}});
    json ci = json::array({nullptr, nullptr});
    if (d.latency)
        ci = json::array({optionalNumber(d.latency->low), optionalNumber(d.latency->high)});
    return {{"name", d.nameA},
            {"name_b", d.nameB},
            {"status", json::array({toString(d.statusA), toString(d.statusB)})},
            {"latency_ratio", d.latency ? json(d.latency->ratio) : json(nullptr)},
            {"latency_ratio_ci95", ci},
            {"latency_ci_method", "hodges-lehmann"},
            {"samples", d.latency ? json::array({d.latency->samplesA, d.latency->samplesB}) : json(nullptr)},
            {"eager_ratio", optionalNumber(d.eagerRatio)},
            {"verdict", toString(d.verdict)},
            {"sentence", d.sentence},
            {"compile_ratio", optionalNumber(d.compileRatio)},
            {"memory_ratio", optionalNumber(d.memoryRatio)},
            {"accuracy",
             {{"a", accuracyJson(d.accuracyA)},
              {"b", accuracyJson(d.accuracyB)},
              {"max_abs_delta",
               d.accuracyA && d.accuracyB ? json(d.accuracyB->maxAbs - d.accuracyA->maxAbs) : json(nullptr)},
              {"max_rel_delta", d.accuracyA && d.accuracyB ? json(d.accuracyB->maxRel - d.accuracyA->maxRel)
                                                           : json(nullptr)}}},
            {"graphs", json::array({d.graphsA, d.graphsB})},
            {"kernels",
             {{"matched", std::move(matched)},
              {"added", kernelList(d.kernels.added)},
              {"removed", kernelList(d.kernels.removed)},
              {"changed", std::move(changed)}}},
            {"breaks", {{"added", breakList(d.breaks.added)}, {"removed", breakList(d.breaks.removed)}}},
            {"notes", d.notes}};
}

json toJson(const ReportDiff& diff) {
    json backends = json::array();
    for (const auto& d : diff.backends)
        backends.push_back(toJson(d));
    return {{"backends", std::move(backends)}, {"only_a", diff.onlyA}, {"only_b", diff.onlyB}};
}

} // namespace fusescope
