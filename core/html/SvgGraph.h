#pragma once

#include "model/StageGraph.h"

#include <map>
#include <string>
#include <vector>

namespace fusescope::html {

// One stage graph drawn as inline SVG, laid out as the GUI opens it (layout/GraphvizLayout over
// the stage's GroupTree, groups opened breadth first while at most `maxVisible` boxes show), so a
// 10,000-node stage is a few dozen boxes. No fonts are needed: box sizes come from label lengths.

struct SvgBox {
    std::string id; // unique in the page: <prefix>-<n>
    double x = 0;   // top-left
    double y = 0;
    double width = 0;
    double height = 0;
    bool frame = false;  // an open group's frame (drawn under its content, title at the top)
    bool kernel = false; // a kernel group (closed box or open frame)
    std::string title;   // op or group name
    std::string detail;  // shapes, or "N nodes"
    std::string fill;    // "#rrggbb"
    std::string tip;     // the tooltip (<title>)
};

struct SvgEdge {
    std::string path;                                // SVG path data of the cubic Bezier
    double tipX = 0, tipY = 0, fromX = 0, fromY = 0; // the arrow's tip and the point it comes from
    int count = 1;
};

struct StageDrawing {
    std::vector<SvgBox> boxes; // frames first (outer before inner), then the visible items
    std::vector<SvgEdge> edges;
    double width = 0;
    double height = 0;
    std::string reason; // why there is nothing to draw
    // Per stage node (index as in stage.nodes): the id of the box standing for it (the node, or
    // its outermost closed group).
    std::vector<std::string> boxOfNode;
    // Per stage group (index as in stage.groups): the ids of the visible boxes its nodes are in.
    std::vector<std::vector<std::string>> boxesOfGroup;
};

StageDrawing drawStage(const StageGraph& stage, const std::string& prefix, int maxVisible = 60);

// The <svg> element. `highlights`: per box id, the space-separated ids of boxes (usually of
// another graph) to highlight while the pointer is over it, written as its data-hl attribute.
std::string renderSvg(const StageDrawing& drawing, const std::map<std::string, std::string>& highlights = {});

} // namespace fusescope::html
