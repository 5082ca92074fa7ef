#include "KernelStats.h"

#include <algorithm>
#include <limits>
#include <map>

namespace fusescope {

namespace {

// Wall time of the traced steps: for each iteration, first start to last end over every event
// of that iteration (any kind), summed. Gaps between iterations (profiler bookkeeping) are not
// step time, so they do not dilute the shares.
int64_t iterationStepTime(const KernelTrace& trace, int* iterations) {
    std::map<int32_t, std::pair<int64_t, int64_t>> spans;
    for (const auto& e : trace.events) {
        if (e.iteration < 0)
            continue;
        auto [it, inserted] = spans.try_emplace(e.iteration, e.startNs, e.endNs());
        if (!inserted) {
            it->second.first = std::min(it->second.first, e.startNs);
            it->second.second = std::max(it->second.second, e.endNs());
        }
    }
    *iterations = static_cast<int>(spans.size());
    int64_t total = 0;
    for (const auto& [iteration, span] : spans)
        total += span.second - span.first;
    return total;
}

} // namespace

KernelStatsOptions KernelStatsOptions::forTrace(const KernelTrace& trace) {
    KernelStatsOptions options;
    if (trace.source == "cpu-profiler")
        options.kinds.push_back(EventKind::CpuOp);
    return options;
}

KernelStatsTable computeKernelStats(const KernelTrace& trace, const KernelStatsOptions& options) {
    KernelStatsTable table;
    table.stepTimeNs = iterationStepTime(trace, &table.iterations);
    const bool byIteration = table.iterations > 0;
    if (!byIteration)
        table.stepTimeNs = trace.events.empty() ? 0 : trace.endNs() - trace.beginNs();

    std::vector<bool> counted(8, false);
    for (EventKind k : options.kinds)
        counted[static_cast<size_t>(k)] = true;

    std::vector<KernelStat> byName(trace.names.size());
    std::vector<int64_t> inSteps(trace.names.size(), 0);
    for (const auto& e : trace.events) {
        if (!counted[static_cast<size_t>(e.kind)] || e.name < 0 ||
            static_cast<size_t>(e.name) >= byName.size())
            continue;
        KernelStat& s = byName[static_cast<size_t>(e.name)];
        if (s.calls == 0) {
            s.minNs = std::numeric_limits<int64_t>::max();
            s.maxNs = 0;
        }
        ++s.calls;
        s.totalNs += e.durationNs;
        s.minNs = std::min(s.minNs, e.durationNs);
        s.maxNs = std::max(s.maxNs, e.durationNs);
        if (!byIteration || e.iteration >= 0)
            inSteps[static_cast<size_t>(e.name)] += e.durationNs;
    }

    const int perIterationDivisor = byIteration ? table.iterations : std::max(trace.iterations, 1);
    for (size_t i = 0; i < byName.size(); ++i) {
        KernelStat& s = byName[i];
        if (s.calls == 0)
            continue;
        s.name = static_cast<int32_t>(i);
        s.label = trace.names[i];
        s.meanNs = static_cast<double>(s.totalNs) / static_cast<double>(s.calls);
        s.share = table.stepTimeNs > 0
                      ? static_cast<double>(inSteps[i]) / static_cast<double>(table.stepTimeNs)
                      : 0;
        s.perIterationNs = static_cast<double>(inSteps[i]) / perIterationDivisor;
        table.rows.push_back(std::move(s));
    }
    std::stable_sort(table.rows.begin(), table.rows.end(),
                     [](const KernelStat& a, const KernelStat& b) { return a.totalNs > b.totalNs; });
    return table;
}

} // namespace fusescope
