#include "FusionLinks.h"

#include <unordered_map>
#include <unordered_set>

namespace fusescope {

std::vector<std::vector<int>> kernelOrigins(const StageGraph& after, const StageGraph& before) {
    std::unordered_map<std::string, const GraphNode*> afterById;
    for (const GraphNode& n : after.nodes)
        afterById.emplace(n.id, &n);
    std::vector<std::vector<int>> out(after.groups.size());
    for (size_t k = 0; k < after.groups.size(); ++k) {
        const FusionGroup& g = after.groups[k];
        if (!g.isKernel())
            continue;
        std::unordered_set<std::string> ids(g.nodes.begin(), g.nodes.end());
        std::unordered_set<std::string> names(g.provenance.begin(), g.provenance.end());
        for (const auto& id : g.nodes)
            if (auto it = afterById.find(id); it != afterById.end())
                names.insert(it->second->origins.begin(), it->second->origins.end());
        for (size_t i = 0; i < before.nodes.size(); ++i)
            if (ids.count(before.nodes[i].id) || names.count(before.nodes[i].name))
                out[k].push_back(static_cast<int>(i));
    }
    return out;
}

FusionPair fusionPair(const BackendRun& run, int graph) {
    FusionPair pair;
    const StageGraph* first = nullptr;
    for (const auto& s : run.stages) {
        if (s.graph != graph || s.status != StageStatus::Ok || s.nodes.empty())
            continue;
        if (!first)
            first = &s;
        if (s.fusion == "before" && !pair.after)
            pair.before = &s;
        if (s.fusion == "after" && !pair.after)
            pair.after = &s;
    }
    if (!pair.before || !pair.after)
        return {first, nullptr};
    return pair;
}

} // namespace fusescope
