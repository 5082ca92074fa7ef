#include "StageGraph.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fusescope {

using nlohmann::json;

namespace {

json shapeToJson(const std::vector<std::string>& dims) {
    json out = json::array();
    for (const auto& d : dims) {
        // Integral sizes round-trip as numbers, symbolic ones (s0, 2*s1) as strings.
        const bool numeric = !d.empty() && std::all_of(d.begin(), d.end(), [](char c) {
            return (c >= '0' && c <= '9') || c == '-';
        });
        if (numeric)
            out.push_back(std::stoll(d));
        else
            out.push_back(d);
    }
    return out;
}

json nodeToJson(const GraphNode& n) {
    json j = {{"id", n.id}, {"name", n.name}, {"op", n.op}, {"kind", n.kind}, {"category", n.category}};
    json shapes = json::array();
    for (const auto& s : n.shapes)
        shapes.push_back(shapeToJson(s));
    j["shapes"] = std::move(shapes);
    j["dtypes"] = n.dtypes;
    j["module"] = n.module;
    if (!n.moduleType.empty())
        j["module_type"] = n.moduleType;
    if (n.source)
        j["source"] = {{"file", n.source->file}, {"line", n.source->line}, {"code", n.source->code}};
    j["group"] = n.group.empty() ? json(nullptr) : json(n.group);
    if (!n.origins.empty())
        j["origins"] = n.origins;
    return j;
}

} // namespace

bool GraphNode::isCompute() const {
    return kind != "placeholder" && kind != "output" && kind != "get_attr" && kind != "nop";
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

void to_json(json& j, const StageGraph& s) {
    j = {{"name", s.name},
         {"graph", s.graph},
         {"label", s.label},
         {"level", s.level},
         {"fusion", s.fusion},
         {"status", toString(s.status)},
         {"reason", s.reason.empty() ? json(nullptr) : json(s.reason)}};
    if (!s.pass.empty())
        j["pass"] = s.pass;
    if (!s.module.empty())
        j["module"] = s.module;
    if (!s.backend.empty())
        j["backend"] = s.backend;
    json nodes = json::array();
    for (const auto& n : s.nodes)
        nodes.push_back(nodeToJson(n));
    j["nodes"] = std::move(nodes);
    json edges = json::array();
    for (const auto& e : s.edges)
        edges.push_back({{"src", e.src}, {"dst", e.dst}});
    j["edges"] = std::move(edges);
    json groups = json::array();
    for (const auto& g : s.groups) {
        groups.push_back({{"id", g.id},
                          {"name", g.name},
                          {"kind", g.kind},
                          {"nodes", g.nodes},
                          {"provenance", g.provenance},
                          {"code", g.code.empty() ? json(nullptr) : json(g.code)}});
    }
    j["groups"] = std::move(groups);
}

} // namespace fusescope
