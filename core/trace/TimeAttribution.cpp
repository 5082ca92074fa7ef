#include "TimeAttribution.h"

#include "trace/KernelStats.h"

#include <algorithm>
#include <map>
#include <set>

namespace fusescope {

namespace {

const FusionGroup* findGroup(const StageGraph& stage, const std::string& id) {
    for (const auto& g : stage.groups)
        if (g.id == id)
            return &g;
    return nullptr;
}

std::string lineKey(const GraphNode& node) {
    if (!node.source || node.source->file.empty())
        return kNoSourceLine;
    return node.source->file + ":" + std::to_string(node.source->line);
}

template <typename Rows> void sortRows(Rows& rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        if (a.unattributed != b.unattributed)
            return b.unattributed;
        return a.ns > b.ns;
    });
}

} // namespace

const char* toString(TimeGrouping grouping) {
    return grouping == TimeGrouping::Module ? "module" : "line";
}

TimeAttribution attributeKernelTime(const BackendRun& run) {
    if (!run.trace || run.trace->events.empty())
        return {};
    return attributeKernelTime(run, linkKernelsToGroups(*run.trace, afterFusionStages(run)));
}

TimeAttribution attributeKernelTime(const BackendRun& run, const KernelLinks& links) {
    TimeAttribution out;
    if (!run.trace || run.trace->events.empty())
        return out;
    const KernelTrace& trace = *run.trace;
    const KernelStatsTable stats = computeKernelStats(trace, KernelStatsOptions::forTrace(trace));
    out.iterations = stats.iterations;
    const bool byIteration = stats.iterations > 0;
    const double divisor = byIteration ? stats.iterations : std::max(trace.iterations, 1);

    std::vector<bool> counted(8, false);
    for (EventKind k : KernelStatsOptions::forTrace(trace).kinds)
        counted[static_cast<size_t>(k)] = true;

    std::vector<double> groupNs(links.linked.size(), 0);
    std::vector<std::set<std::string>> groupKernels(links.linked.size());
    std::set<std::string> unlinked;
    for (size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        if (!counted[static_cast<size_t>(e.kind)] || e.name < 0 ||
            static_cast<size_t>(e.name) >= trace.names.size())
            continue;
        if (byIteration && e.iteration < 0)
            continue;
        const double ns = static_cast<double>(e.durationNs) / divisor;
        out.tracedNs += ns;
        const int32_t g = i < links.eventGroup.size() ? links.eventGroup[i] : -1;
        if (g < 0) {
            out.unattributedNs += ns;
            unlinked.insert(trace.names[static_cast<size_t>(e.name)]);
            continue;
        }
        groupNs[static_cast<size_t>(g)] += ns;
        groupKernels[static_cast<size_t>(g)].insert(trace.names[static_cast<size_t>(e.name)]);
    }

    std::map<std::pair<const StageGraph*, std::string>, size_t> nodeIndex;
    for (size_t g = 0; g < links.linked.size(); ++g) {
        const GroupRef& ref = links.linked[g];
        out.groups.emplace_back(ref, groupNs[g]);
        const FusionGroup* group = ref.stage ? findGroup(*ref.stage, ref.id) : nullptr;
        std::vector<const GraphNode*> members;
        if (group) {
            for (const auto& id : group->nodes)
                if (const GraphNode* n = ref.stage->findNode(id); n && n->isCompute())
                    members.push_back(n);
            if (members.empty())
                for (const auto& id : group->nodes)
                    if (const GraphNode* n = ref.stage->findNode(id))
                        members.push_back(n);
        }
        if (members.empty()) {
            out.unattributedNs += groupNs[g];
            unlinked.insert(groupKernels[g].begin(), groupKernels[g].end());
            continue;
        }
        const double each = groupNs[g] / static_cast<double>(members.size());
        for (const GraphNode* n : members) {
            auto [it, added] = nodeIndex.try_emplace({ref.stage, n->id}, out.nodes.size());
            if (added)
                out.nodes.push_back({ref.stage, n->id, 0, {}});
            NodeTime& nt = out.nodes[it->second];
            nt.ns += each;
            for (const auto& k : groupKernels[g])
                if (std::find(nt.kernels.begin(), nt.kernels.end(), k) == nt.kernels.end())
                    nt.kernels.push_back(k);
        }
    }
    for (auto& n : out.nodes)
        std::sort(n.kernels.begin(), n.kernels.end());
    std::stable_sort(out.nodes.begin(), out.nodes.end(),
                     [](const NodeTime& a, const NodeTime& b) { return a.ns > b.ns; });
    out.unlinked.assign(unlinked.begin(), unlinked.end());
    return out;
}

std::vector<TimeRow> TimeAttribution::rows(TimeGrouping grouping) const {
    std::map<std::string, TimeRow> byKey;
    std::map<std::string, std::set<std::string>> kernelsOf;
    for (const NodeTime& nt : nodes) {
        const GraphNode* node = nt.stage->findNode(nt.node);
        if (!node)
            continue;
        std::string key = grouping == TimeGrouping::Module
                              ? (node->module.empty() ? kTopLevelModule : node->module)
                              : lineKey(*node);
        TimeRow& row = byKey[key];
        row.key = key;
        if (grouping == TimeGrouping::Line && node->source && row.code.empty())
            row.code = node->source->code;
        row.ns += nt.ns;
        row.nodes.emplace_back(nt.stage, nt.node);
        kernelsOf[key].insert(nt.kernels.begin(), nt.kernels.end());
    }
    std::vector<TimeRow> out;
    for (auto& [key, row] : byKey) {
        row.kernels.assign(kernelsOf[key].begin(), kernelsOf[key].end());
        out.push_back(std::move(row));
    }
    if (unattributedNs > 0) {
        TimeRow row;
        row.key = kNotLinked;
        row.ns = unattributedNs;
        row.kernels = unlinked;
        row.unattributed = true;
        out.push_back(std::move(row));
    }
    for (auto& row : out)
        row.share = tracedNs > 0 ? row.ns / tracedNs : 0;
    sortRows(out);
    return out;
}

std::map<std::string, double> TimeAttribution::shareOfNodes(const StageGraph& stage) const {
    std::map<std::string, double> out;
    if (tracedNs <= 0)
        return out;
    for (const NodeTime& nt : nodes)
        if (nt.stage == &stage)
            out[nt.node] += nt.ns / tracedNs;
    return out;
}

std::map<std::string, double> TimeAttribution::shareOfBeforeFusionNodes(const StageGraph& before) const {
    std::map<std::string, double> out;
    if (tracedNs <= 0)
        return out;
    // A before-fusion stage names its nodes after FX nodes (post_grad: the node is the FX node) or
    // lists the FX nodes it came from in `origins` (Inductor's pre_fusion scheduler nodes).
    std::map<std::string, std::vector<std::string>> byName, byOrigin;
    for (const auto& n : before.nodes) {
        byName[n.name].push_back(n.id);
        for (const auto& o : n.origins)
            byOrigin[o].push_back(n.id);
    }
    for (const auto& [ref, ns] : groups) {
        if (!ref.stage || ref.stage->graph != before.graph || ref.stage->pass != before.pass)
            continue;
        const FusionGroup* group = findGroup(*ref.stage, ref.id);
        if (!group)
            continue;
        std::set<std::string> ids;
        for (const auto& name : group->provenance)
            if (auto it = byName.find(name); it != byName.end())
                ids.insert(it->second.begin(), it->second.end());
        if (ids.empty())
            for (const auto& name : group->provenance)
                if (auto it = byOrigin.find(name); it != byOrigin.end())
                    ids.insert(it->second.begin(), it->second.end());
        for (const auto& id : ids)
            out[id] += ns / tracedNs / static_cast<double>(ids.size());
    }
    return out;
}

} // namespace fusescope
