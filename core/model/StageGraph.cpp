#include "StageGraph.h"

#include "JsonUtil.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fusescope {

using nlohmann::json;

namespace {

using jsonutil::valueOr;

std::vector<std::string> shapeToStrings(const json& shape) {
    std::vector<std::string> dims;
    if (!shape.is_array())
        return dims;
    dims.reserve(shape.size());
    for (const auto& d : shape)
        dims.push_back(d.is_string() ? d.get<std::string>() : d.dump());
    return dims;
}

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

void nodeFromJson(const json& j, GraphNode& n) {
    n.id = j.at("id").get<std::string>();
    n.name = valueOr<std::string>(j, "name", n.id);
    n.op = valueOr<std::string>(j, "op", "");
    n.kind = valueOr<std::string>(j, "kind", "");
    n.category = valueOr<std::string>(j, "category", "");
    if (auto it = j.find("shapes"); it != j.end() && it->is_array())
        for (const auto& s : *it)
            n.shapes.push_back(shapeToStrings(s));
    n.dtypes = valueOr<std::vector<std::string>>(j, "dtypes", {});
    n.module = valueOr<std::string>(j, "module", "");
    n.moduleType = valueOr<std::string>(j, "module_type", "");
    if (auto it = j.find("source"); it != j.end() && it->is_object()) {
        SourceLocation loc;
        loc.file = valueOr<std::string>(*it, "file", "");
        loc.line = valueOr<int>(*it, "line", 0);
        loc.code = valueOr<std::string>(*it, "code", "");
        n.source = loc;
    }
    n.group = valueOr<std::string>(j, "group", "");
    n.origins = valueOr<std::vector<std::string>>(j, "origins", {});
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

void from_json(const json& j, StageGraph& s) {
    s.name = j.at("name").get<std::string>();
    s.graph = valueOr<int>(j, "graph", 0);
    s.label = valueOr<std::string>(j, "label", s.name);
    s.level = valueOr<std::string>(j, "level", "");
    s.fusion = valueOr<std::string>(j, "fusion", "none");
    s.status = stageStatusFromString(valueOr<std::string>(j, "status", "ok"));
    s.reason = valueOr<std::string>(j, "reason", "");
    s.pass = valueOr<std::string>(j, "pass", "");
    s.module = valueOr<std::string>(j, "module", "");
    s.backend = valueOr<std::string>(j, "backend", "");
    s.nodes.clear();
    if (auto it = j.find("nodes"); it != j.end() && it->is_array()) {
        s.nodes.reserve(it->size());
        for (const auto& n : *it) {
            GraphNode node;
            nodeFromJson(n, node);
            s.nodes.push_back(std::move(node));
        }
    }
    s.edges.clear();
    if (auto it = j.find("edges"); it != j.end() && it->is_array()) {
        s.edges.reserve(it->size());
        for (const auto& e : *it)
            s.edges.push_back({e.at("src").get<std::string>(), e.at("dst").get<std::string>()});
    }
    s.groups.clear();
    if (auto it = j.find("groups"); it != j.end() && it->is_array()) {
        for (const auto& g : *it) {
            FusionGroup group;
            group.id = g.at("id").get<std::string>();
            group.name = valueOr<std::string>(g, "name", group.id);
            group.kind = valueOr<std::string>(g, "kind", "kernel");
            group.nodes = valueOr<std::vector<std::string>>(g, "nodes", {});
            group.provenance = valueOr<std::vector<std::string>>(g, "provenance", {});
            group.code = valueOr<std::string>(g, "code", "");
            s.groups.push_back(std::move(group));
        }
    }
}

} // namespace fusescope
