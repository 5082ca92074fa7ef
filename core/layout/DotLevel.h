#pragma once

#include "LayoutTypes.h"

#include <utility>
#include <vector>

namespace fusescope::layout {

// One level of the hierarchy as Graphviz sees it: boxes of known size and edges.
struct LevelGraph {
    std::vector<Point> sizes; // width, height in points
    std::vector<std::pair<int, int>> edges;
};

// Box centres and edge Beziers with the level's bounding box at (0, 0), y down.
struct LevelResult {
    double width = 0;
    double height = 0;
    std::vector<Point> centres;
    std::vector<std::vector<Point>> edgePoints; // same order as LevelGraph::edges
    std::string error;
};

// Lays out one level with libgvc's "dot" in this process. Graphviz keeps global state
// (the context, the cgraph string pool, error handlers), so calls from any thread are
// serialised by one mutex; this function is safe to call from worker threads.
LevelResult layoutLevelWithDot(const LevelGraph& level);

} // namespace fusescope::layout
