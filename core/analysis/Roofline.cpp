#include "Roofline.h"

#include "Speedup.h"
#include "trace/KernelStats.h"

#include <algorithm>
#include <map>

namespace fusescope {

std::optional<double> BackendRoofline::bytesRatio() const {
    if (!bytesPerCall || !eagerBytesPerCall || *eagerBytesPerCall <= 0)
        return std::nullopt;
    return static_cast<double>(*bytesPerCall) / static_cast<double>(*eagerBytesPerCall);
}

std::optional<double> computeRoof(const Roofs& roofs, const std::string& dtype, std::string* why) {
    const std::string key = dtype.empty() ? "float32" : dtype;
    if (auto it = roofs.gflops.find(key); it != roofs.gflops.end())
        return it->second;
    if (why) {
        auto u = roofs.unmeasured.find(key);
        *why = u != roofs.unmeasured.end() ? "no " + key + " compute roof: " + u->second
                                           : "no compute roof measured for " + key;
    }
    return std::nullopt;
}

namespace {

void addReason(std::string& to, const std::string& reason) {
    if (reason.empty() || to.find(reason) != std::string::npos)
        return;
    if (!to.empty())
        to += "; ";
    to += reason;
}

} // namespace

void applyRoofs(KernelRoofline& k, const Roofs* roofs) {
    const double seconds = k.timeMs / 1e3;
    if (!(seconds > 0)) {
        addReason(k.unknownReason, "no measured time");
        return;
    }
    if (k.bytes)
        k.gbs = static_cast<double>(*k.bytes) / seconds / 1e9;
    if (k.flops)
        k.gflops = static_cast<double>(*k.flops) / seconds / 1e9;
    if (k.bytes && k.flops && *k.bytes > 0)
        k.intensity = static_cast<double>(*k.flops) / static_cast<double>(*k.bytes);
    if (!k.bytes || !k.flops) // the worker's reason is already in unknownReason
        return;
    if (!roofs || !roofs->error.empty() || !roofs->bandwidthGbs) {
        addReason(k.unknownReason, roofs && !roofs->error.empty() ? "no roofs: " + roofs->error
                                                                  : "no roofs measured for this run");
        return;
    }
    const double bandwidth = *roofs->bandwidthGbs;
    if (*k.bytes == 0) { // arithmetic on registers only: held to the compute roof
        std::string why;
        auto peak = computeRoof(*roofs, k.dtype, &why);
        if (!peak || !k.gflops) {
            addReason(k.unknownReason, why.empty() ? "moves no bytes and does no arithmetic" : why);
            return;
        }
        k.roofFraction = *k.gflops / *peak;
        k.bound = "compute";
        return;
    }
    const double intensity = k.intensity.value_or(0);
    if (*k.flops == 0) { // pure data movement: the bandwidth roof
        k.roofFraction = *k.gbs / bandwidth;
        k.bound = "memory";
        return;
    }
    std::string why;
    auto peak = computeRoof(*roofs, k.dtype, &why);
    if (!peak) {
        addReason(k.unknownReason, why);
        return;
    }
    const double ridge = *peak / bandwidth; // FLOPs per byte where the two roofs meet
    const double attainable = std::min(*peak, intensity * bandwidth);
    k.bound = intensity < ridge ? "memory" : "compute";
    k.roofFraction = attainable > 0 ? *k.gflops / attainable : 0;
}

void noteAboveRoof(KernelRoofline& k, const Roofs& roofs) {
    if (!k.roofFraction || *k.roofFraction <= 1.0 || k.bound != "memory")
        return;
    k.note = "above the main-memory bandwidth roof: the bytes it moves per call were in the CPU's caches";
    const auto llc = roofs.samples.value("stream", nlohmann::json::object())
                         .value("last_level_cache_bytes", nlohmann::json());
    if (llc.is_number_integer() && k.bytes && *k.bytes < llc.get<int64_t>())
        k.note += " (" + std::to_string(*k.bytes) + " bytes, last-level cache " +
                  std::to_string(llc.get<int64_t>() >> 20) + " MiB)";
}

namespace {

std::optional<int64_t> addOpt(std::optional<int64_t> a, std::optional<int64_t> b) {
    if (!a || !b)
        return std::nullopt;
    return *a + *b;
}

void perCallTotals(const BackendRun& run, BackendRoofline& out) {
    const auto stages = afterFusionStages(run);
    if (stages.empty()) {
        out.bytesUnknownReason = run.stages.empty() ? "no stages were captured"
                                                    : "backend " + run.name + " has no kernels after fusion";
        return;
    }
    std::optional<int64_t> bytes = 0, eager = 0, matrix = 0, pointwise = 0;
    for (const StageGraph* stage : stages) {
        if (stage->status != StageStatus::Ok)
            continue;
        if (!stage->cost) {
            if (!stage->groups.empty())
                addReason(out.bytesUnknownReason,
                          "stage " + stage->key() + " has no byte counts (an older worker)");
            bytes = eager = matrix = pointwise = std::nullopt;
            continue;
        }
        const KernelCost& c = *stage->cost;
        addReason(out.bytesUnknownReason,
                  c.unknownReason.empty() ? "" : stage->key() + ": " + c.unknownReason);
        bytes = addOpt(bytes, c.bytes);
        eager = addOpt(eager, c.eagerBytes);
        matrix = addOpt(matrix, c.flopsMatrix);
        pointwise = addOpt(pointwise, c.flopsPointwise);
    }
    out.bytesPerCall = bytes;
    out.eagerBytesPerCall = eager;
    out.flopsMatrixPerCall = matrix;
    out.flopsPointwisePerCall = pointwise;
}

void fromCost(KernelRoofline& k, const FusionGroup& group) {
    if (!group.cost) {
        k.unknownReason =
            "no byte and FLOP counts for this kernel (captured by an older worker, or not Inductor)";
        return;
    }
    const KernelCost& c = *group.cost;
    k.bytes = c.bytes;
    k.bytesSource = c.bytesSource;
    k.flops = c.flops;
    k.eagerBytes = c.eagerBytes;
    k.dtype = c.dtype;
    k.unknownReason = c.unknownReason;
}

} // namespace

BackendRoofline computeRoofline(const BackendRun& run, const KernelLinks* links) {
    BackendRoofline out;
    out.backend = run.name;
    perCallTotals(run, out);
    if (auto s = pairedSpeedup(run))
        out.speedup = s->median;
    if (!run.trace || !links)
        return out;
    out.traced = true;
    const KernelTrace& trace = *run.trace;
    const KernelStatsTable table = computeKernelStats(trace, KernelStatsOptions::forTrace(trace));
    out.iterations = table.iterations;
    std::vector<bool> counted(8, false);
    for (EventKind kind : KernelStatsOptions::forTrace(trace).kinds)
        counted[static_cast<size_t>(kind)] = true;

    struct Acc {
        int64_t calls = 0;
        int64_t ns = 0;
    };
    std::vector<Acc> byGroup(links->linked.size());
    std::vector<std::string> traceNames(links->linked.size());
    std::map<int32_t, Acc> unlinkedByName;
    for (size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        if (!counted[static_cast<size_t>(e.kind)])
            continue;
        const int32_t g = i < links->eventGroup.size() ? links->eventGroup[i] : -1;
        Acc& acc = g >= 0 && static_cast<size_t>(g) < byGroup.size() ? byGroup[static_cast<size_t>(g)]
                                                                     : unlinkedByName[e.name];
        acc.calls += 1;
        acc.ns += e.durationNs;
        if (g >= 0 && static_cast<size_t>(g) < traceNames.size() &&
            traceNames[static_cast<size_t>(g)].empty() && e.name >= 0 &&
            static_cast<size_t>(e.name) < trace.names.size())
            traceNames[static_cast<size_t>(g)] = trace.names[static_cast<size_t>(e.name)];
    }
    const Roofs* roofs = run.roofs ? &*run.roofs : nullptr;
    std::vector<std::pair<int64_t, KernelRoofline>> rows;
    for (size_t g = 0; g < links->linked.size(); ++g) {
        const Acc& acc = byGroup[g];
        const GroupRef& ref = links->linked[g];
        if (acc.calls == 0 || !ref.stage)
            continue;
        const FusionGroup* group = nullptr;
        for (const auto& candidate : ref.stage->groups)
            if (candidate.id == ref.id)
                group = &candidate;
        if (!group)
            continue;
        KernelRoofline k;
        k.name = group->name;
        k.traceName = traceNames[g];
        k.stageKey = ref.stage->key();
        k.groupId = group->id;
        k.kind = group->kind;
        k.calls = acc.calls;
        k.timeMs = static_cast<double>(acc.ns) / static_cast<double>(acc.calls) / 1e6;
        fromCost(k, *group);
        applyRoofs(k, roofs);
        if (roofs)
            noteAboveRoof(k, *roofs);
        rows.emplace_back(acc.ns, std::move(k));
    }
    for (const auto& [name, acc] : unlinkedByName) {
        KernelRoofline k;
        k.name = name >= 0 && static_cast<size_t>(name) < trace.names.size()
                     ? trace.names[static_cast<size_t>(name)]
                     : std::string("?");
        k.calls = acc.calls;
        k.timeMs = static_cast<double>(acc.ns) / static_cast<double>(acc.calls) / 1e6;
        k.traceName = k.name;
        k.unknownReason =
            "not linked to a kernel of the graph after fusion, so its bytes and FLOPs are not known";
        rows.emplace_back(acc.ns, std::move(k));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [ns, k] : rows)
        out.kernels.push_back(std::move(k));
    return out;
}

std::vector<KernelRoofline> rooflineByTraceName(const BackendRoofline& roofline, const Roofs* roofs) {
    struct Sum {
        KernelRoofline row;
        double totalMs = 0;
        std::optional<double> bytes = 0, flops = 0;
        std::vector<std::string> dtypes;
    };
    std::vector<Sum> sums;
    std::map<std::string, size_t> index;
    for (const auto& k : roofline.kernels) {
        auto [it, added] = index.try_emplace(k.traceName, sums.size());
        if (added) {
            sums.push_back({});
            sums.back().row.name = sums.back().row.traceName = k.traceName;
            sums.back().row.bytesSource = k.bytesSource;
            sums.back().row.kind = k.kind;
        }
        Sum& s = sums[it->second];
        const double calls = static_cast<double>(k.calls);
        s.row.calls += k.calls;
        s.totalMs += k.timeMs * calls;
        s.bytes = s.bytes && k.bytes ? std::optional<double>(*s.bytes + static_cast<double>(*k.bytes) * calls)
                                     : std::nullopt;
        s.flops = s.flops && k.flops ? std::optional<double>(*s.flops + static_cast<double>(*k.flops) * calls)
                                     : std::nullopt;
        if (!k.dtype.empty() && std::find(s.dtypes.begin(), s.dtypes.end(), k.dtype) == s.dtypes.end())
            s.dtypes.push_back(k.dtype);
        if (!k.bytes || !k.flops)
            addReason(s.row.unknownReason, k.unknownReason);
    }
    std::vector<KernelRoofline> rows;
    for (auto& s : sums) {
        KernelRoofline& k = s.row;
        const double calls = static_cast<double>(std::max<int64_t>(k.calls, 1));
        k.timeMs = s.totalMs / calls;
        if (s.bytes)
            k.bytes = static_cast<int64_t>(*s.bytes / calls + 0.5);
        if (s.flops)
            k.flops = static_cast<int64_t>(*s.flops / calls + 0.5);
        if (s.dtypes.size() == 1)
            k.dtype = s.dtypes.front();
        else if (s.dtypes.size() > 1)
            addReason(k.unknownReason, "its calls mix dtypes");
        if (s.dtypes.size() <= 1) {
            applyRoofs(k, roofs);
            if (roofs)
                noteAboveRoof(k, *roofs);
        }
        rows.push_back(std::move(k));
    }
    return rows;
}

} // namespace fusescope
