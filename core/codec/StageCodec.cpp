#include "StageCodec.h"

#include "Json.h"
#include "model/JsonUtil.h"

namespace fusescope {

using jsonutil::orNull;
using nlohmann::json;

namespace {

json nodeToJson(const GraphNode& n) {
    json j = {{"id", n.id}, {"name", n.name}, {"op", n.op}, {"kind", n.kind}, {"category", n.category}};
    json shapes = json::array();
    for (const auto& s : n.shapes) {
        json dims = json::array();
        for (const auto& d : s)
            dims.push_back(codec::sizeJson(d)); // integral sizes as numbers, symbolic ones (s0, 2*s1) as text
        shapes.push_back(std::move(dims));
    }
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

json costToJson(const KernelCost& c) {
    json j = {{"bytes", orNull(c.bytes)},
              {"bytes_read", orNull(c.bytesRead)},
              {"bytes_written", orNull(c.bytesWritten)},
              {"bytes_source", c.bytesSource.empty() ? json(nullptr) : json(c.bytesSource)},
              {"flops", orNull(c.flops)},
              {"flops_matrix", orNull(c.flopsMatrix)},
              {"flops_pointwise", orNull(c.flopsPointwise)},
              {"eager_bytes", orNull(c.eagerBytes)},
              {"dtype", c.dtype.empty() ? json(nullptr) : json(c.dtype)},
              {"unknown_reason", c.unknownReason.empty() ? json(nullptr) : json(c.unknownReason)}};
    return j;
}

} // namespace

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
    if (s.copiedFromGraph)
        j["copied_from_graph"] = *s.copiedFromGraph;
    if (s.cost)
        j["cost"] = costToJson(*s.cost);
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
        if (g.cost)
            groups.back()["cost"] = costToJson(*g.cost);
    }
    j["groups"] = std::move(groups);
}

} // namespace fusescope

namespace fusescope::codec {

namespace {

void readNode(const Reader& r, GraphNode& n) {
    if (!r.has("id"))
        r.fail("a node needs an \"id\"");
    n.id = r.str("id");
    n.name = r.str("name", n.id);
    n.op = r.str("op");
    n.kind = r.str("kind");
    n.category = r.str("category");
    r.each("shapes", [&](const Reader& s) {
        std::vector<std::string> dims;
        s.elements([&](const Reader& d) {
            const json& v = d.value();
            if (v.is_string())
                dims.push_back(v.get<std::string>());
            else if (v.is_number_integer())
                dims.push_back(v.dump());
            else
                d.fail(std::string("expected an integer or a symbolic size, got ") + describeType(v));
        });
        n.shapes.push_back(std::move(dims));
    });
    n.dtypes = r.strings("dtypes");
    n.module = r.str("module");
    n.moduleType = r.str("module_type");
    if (auto src = r.object("source")) {
        SourceLocation loc;
        loc.file = src->str("file");
        loc.line = src->integer("line");
        loc.code = src->str("code");
        n.source = std::move(loc);
    }
    n.group = r.str("group");
    n.origins = r.strings("origins");
}

// `cost` of a group or stage (docs/graph-schema.json): counts are integers >= 0 or null.
KernelCost readCost(const Reader& r) {
    KernelCost c;
    const auto count = [&](const char* key) -> std::optional<int64_t> {
        auto v = r.optInt64(key);
        if (v && *v < 0) {
            r.failAt(key, "must be >= 0");
            return std::nullopt;
        }
        return v;
    };
    c.bytes = count("bytes");
    c.bytesRead = count("bytes_read");
    c.bytesWritten = count("bytes_written");
    c.bytesSource = r.str("bytes_source");
    c.flops = count("flops");
    c.flopsMatrix = count("flops_matrix");
    c.flopsPointwise = count("flops_pointwise");
    c.eagerBytes = count("eager_bytes");
    c.dtype = r.str("dtype");
    c.unknownReason = r.str("unknown_reason");
    return c;
}

} // namespace

void readStageGraph(const Reader& r, StageGraph& s) {
    if (!r.has("name"))
        r.fail("a stage needs a \"name\"");
    s.name = r.str("name");
    s.graph = boundedInt(r, "graph", 0, 0);
    s.label = r.str("label", s.name);
    s.level = r.str("level");
    s.fusion = r.str("fusion", "none");
    s.status = stageStatusFromString(r.str("status", "ok"));
    s.reason = r.str("reason");
    s.pass = r.str("pass");
    s.module = r.str("module");
    s.backend = r.str("backend");
    if (r.has("copied_from_graph"))
        s.copiedFromGraph = boundedInt(r, "copied_from_graph", 0, 0);
    if (auto c = r.object("cost"))
        s.cost = readCost(*c);
    s.nodes.clear();
    r.each("nodes", [&](const Reader& n) {
        if (!n.expectObject())
            return;
        GraphNode node;
        readNode(n, node);
        s.nodes.push_back(std::move(node));
    });
    s.edges.clear();
    r.each("edges", [&](const Reader& e) {
        if (!e.expectObject())
            return;
        if (!e.has("src") || !e.has("dst"))
            e.fail("an edge needs \"src\" and \"dst\"");
        s.edges.push_back({e.str("src"), e.str("dst")});
    });
    s.groups.clear();
    r.each("groups", [&](const Reader& g) {
        if (!g.expectObject())
            return;
        if (!g.has("id"))
            g.fail("a group needs an \"id\"");
        FusionGroup group;
        group.id = g.str("id");
        group.name = g.str("name", group.id);
        group.kind = g.str("kind", "kernel");
        group.nodes = g.strings("nodes");
        group.provenance = g.strings("provenance");
        group.code = g.str("code");
        if (auto c = g.object("cost"))
            group.cost = readCost(*c);
        s.groups.push_back(std::move(group));
    });
}

Result<StageGraph> decodeStageGraph(const json& j, const std::string& origin) {
    return decodeWith<StageGraph>(j, origin, readStageGraph);
}

} // namespace fusescope::codec
