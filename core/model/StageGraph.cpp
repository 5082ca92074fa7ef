#include "StageGraph.h"

#include <algorithm>

namespace fusescope {

bool GraphNode::isCompute() const {
    return kind != "placeholder" && kind != "output" && kind != "get_attr" && kind != "nop";
}

std::string shapeText(const GraphNode& n) {
    std::string out;
    for (size_t i = 0; i < n.shapes.size(); ++i) {
        if (i)
            out += ' ';
        if (i < n.dtypes.size())
            out += n.dtypes[i];
        out += '[';
        for (size_t d = 0; d < n.shapes[i].size(); ++d)
            out += (d ? ", " : "") + n.shapes[i][d];
        out += ']';
    }
    return out;
}

int StageGraph::computeNodeCount() const {
    return static_cast<int>(
        std::count_if(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.isCompute(); }));
}

int StageGraph::kernelCount() const {
    return static_cast<int>(
        std::count_if(groups.begin(), groups.end(), [](const FusionGroup& g) { return g.isKernel(); }));
}

std::string StageGraph::key() const {
    return graph == 0 ? name : name + "#" + std::to_string(graph);
}

const GraphNode* StageGraph::findNode(const std::string& id) const {
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const GraphNode& n) { return n.id == id; });
    return it == nodes.end() ? nullptr : &*it;
}

const char* toString(StageStatus status) {
    switch (status) {
    case StageStatus::Ok:
        return "ok";
    case StageStatus::Unsupported:
        return "unsupported";
    case StageStatus::Failed:
        return "failed";
    }
    return "failed";
}

StageStatus stageStatusFromString(const std::string& text) {
    if (text == "ok")
        return StageStatus::Ok;
    if (text == "unsupported")
        return StageStatus::Unsupported;
    return StageStatus::Failed;
}

} // namespace fusescope
