#include "SvgGraph.h"

#include "CollapsedGraph.h"
#include "GraphvizLayout.h"
#include "GroupTree.h"
#include "Markup.h"
#include "Palette.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace fusescope::html {

using layout::CollapsedGraph;
using layout::GraphGroup;
using layout::GroupTree;
using layout::ItemRef;

StageDrawing drawStage(const StageGraph& stage, const std::string& prefix, int maxVisible) {
    StageDrawing out;
    out.boxOfNode.resize(stage.nodes.size());
    out.boxesOfGroup.resize(stage.groups.size());
    if (stage.nodes.empty()) {
        out.reason = "this stage has no nodes";
        return out;
    }
    auto shared = std::make_shared<const StageGraph>(stage);
    auto tree = std::make_shared<const GroupTree>(GroupTree::build(*shared));
    CollapsedGraph collapsed(*shared, *tree);
    collapsed.expandInitially(maxVisible);
    layout::GraphvizLayout engine(shared, tree);
    const layout::StageLayout placed = engine.layout(collapsed.expandedState());
    if (placed.items.empty()) {
        out.reason = placed.reason.empty() ? "the layout produced nothing" : placed.reason;
        return out;
    }
    out.width = placed.width;
    out.height = placed.height;
    std::map<int, std::string> idOfItem;
    int n = 0;
    // Frames first, so boxes are drawn on top of the frames that hold them.
    for (const bool frames : {true, false})
        for (const auto& item : placed.items) {
            if (item.expanded != frames)
                continue;
            SvgBox box;
            box.id = prefix + "-" + std::to_string(n++);
            box.x = item.x - item.width / 2;
            box.y = item.y - item.height / 2;
            box.width = item.width;
            box.height = item.height;
            box.frame = item.expanded;
            if (ItemRef::isGroup(item.item)) {
                const GraphGroup& g = tree->group(ItemRef::index(item.item));
                box.kernel = g.kind == GraphGroup::Kind::Kernel;
                box.title = g.name;
                box.detail = std::to_string(g.nodeCount) + (g.nodeCount == 1 ? " node" : " nodes");
                box.fill = box.kernel ? layout::kKernelHex : "#ffffff";
                box.tip = (box.kernel ? "kernel " : "") + g.name + " (" + box.detail + ")";
            } else {
                const GraphNode& node = stage.nodes[size_t(ItemRef::index(item.item))];
                box.title = node.op.empty() ? node.name : node.op;
                box.detail = shapeText(node);
                box.fill = layout::categoryHex(node.category);
                box.tip = node.name + (node.module.empty() ? "" : " in " + node.module) +
                          (box.detail.empty() ? "" : "\n" + box.detail);
            }
            idOfItem[item.item] = box.id;
            out.boxes.push_back(std::move(box));
        }
    for (const auto& e : placed.edges) {
        if (e.points.size() < 4)
            continue;
        SvgEdge edge;
        edge.path = "M" + num(e.points[0].x) + " " + num(e.points[0].y);
        for (size_t i = 1; i + 2 < e.points.size(); i += 3)
            edge.path += " C" + num(e.points[i].x) + " " + num(e.points[i].y) + " " + num(e.points[i + 1].x) +
                         " " + num(e.points[i + 1].y) + " " + num(e.points[i + 2].x) + " " +
                         num(e.points[i + 2].y);
        const auto& tip = e.points.back();
        auto from = e.points.front();
        for (size_t i = e.points.size() - 1; i-- > 0;)
            if (std::abs(e.points[i].x - tip.x) + std::abs(e.points[i].y - tip.y) > 1.0) {
                from = e.points[i];
                break;
            }
        edge.tipX = tip.x;
        edge.tipY = tip.y;
        edge.fromX = from.x;
        edge.fromY = from.y;
        edge.count = e.count;
        out.edges.push_back(std::move(edge));
    }
    for (size_t i = 0; i < stage.nodes.size(); ++i) {
        auto it = idOfItem.find(collapsed.representative(int(i)));
        if (it != idOfItem.end())
            out.boxOfNode[i] = it->second;
    }
    std::map<std::string, size_t> groupIndex;
    for (size_t g = 0; g < stage.groups.size(); ++g)
        groupIndex[stage.groups[g].id] = g;
    for (size_t i = 0; i < stage.nodes.size(); ++i) {
        auto g = groupIndex.find(stage.nodes[i].group);
        if (g == groupIndex.end() || out.boxOfNode[i].empty())
            continue;
        auto& boxes = out.boxesOfGroup[g->second];
        if (std::find(boxes.begin(), boxes.end(), out.boxOfNode[i]) == boxes.end())
            boxes.push_back(out.boxOfNode[i]);
    }
    return out;
}

namespace {

std::string clip(const std::string& text, double width) {
    // About 6.2 px per character at the 11 px font; keep a margin of two characters.
    const size_t fits = width > 24 ? size_t((width - 12) / 6.2) : 0;
    if (text.size() <= fits)
        return text;
    if (fits < 2)
        return {};
    size_t cut = fits - 1;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    return text.substr(0, cut) + "\u2026";
}

} // namespace

std::string renderSvg(const StageDrawing& d, const std::map<std::string, std::string>& highlights) {
    if (d.boxes.empty())
        return {};
    const double pad = 10;
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" viewBox=\"" + num(-pad) +
                      " " + num(-pad) + " " + num(d.width + 2 * pad) + " " + num(d.height + 2 * pad) +
                      "\" width=\"" + num(d.width + 2 * pad) + "\" height=\"" + num(d.height + 2 * pad) +
                      "\">\n";
    out += "<g class=\"edges\">\n";
    for (const auto& e : d.edges) {
        out += "<path d=\"" + e.path + "\"" + (e.count > 1 ? " stroke-width=\"1.6\"" : "") + "/>";
        // The arrow head: a small triangle at the tip, along the last stretch of the curve.
        const double dx = e.tipX - e.fromX, dy = e.tipY - e.fromY, len = std::hypot(dx, dy);
        if (len > 0) {
            const double ux = dx / len, uy = dy / len, s = 6;
            out += "<polygon class=\"arrow\" points=\"" + num(e.tipX) + "," + num(e.tipY) + " " +
                   num(e.tipX - s * ux - s * 0.5 * uy) + "," + num(e.tipY - s * uy + s * 0.5 * ux) + " " +
                   num(e.tipX - s * ux + s * 0.5 * uy) + "," + num(e.tipY - s * uy - s * 0.5 * ux) + "\"/>";
        }
        out += "\n";
    }
    out += "</g>\n";
    for (const auto& b : d.boxes) {
        std::string cls = b.frame ? "frame" : "box";
        if (b.kernel)
            cls += " kernel";
        out += "<g id=\"" + escape(b.id) + "\" class=\"" + cls + "\"";
        if (auto it = highlights.find(b.id); it != highlights.end() && !it->second.empty())
            out += " data-hl=\"" + escape(it->second) + "\"";
        out += "><title>" + escape(b.tip) + "</title>";
        out += "<rect x=\"" + num(b.x) + "\" y=\"" + num(b.y) + "\" width=\"" + num(b.width) +
               "\" height=\"" + num(b.height) + "\" rx=\"3\" fill=\"" + escape(b.fill) + "\"/>";
        if (b.frame) {
            out += "<text x=\"" + num(b.x + 6) + "\" y=\"" + num(b.y + 14) + "\" class=\"ft\">" +
                   escape(clip(b.title + " \u00b7 " + b.detail, b.width)) + "</text>";
        } else {
            out += "<text x=\"" + num(b.x + 6) + "\" y=\"" + num(b.y + 16) + "\" class=\"t\">" +
                   escape(clip(b.title, b.width)) + "</text>";
            out += "<text x=\"" + num(b.x + 6) + "\" y=\"" + num(b.y + 30) + "\" class=\"d\">" +
                   escape(clip(b.detail, b.width)) + "</text>";
        }
        out += "</g>\n";
    }
    out += "</svg>";
    return out;
}

} // namespace fusescope::html
