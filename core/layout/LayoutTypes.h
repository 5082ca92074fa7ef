#pragma once

#include <string>
#include <vector>

namespace fusescope::layout {

// Scene units are Graphviz points (1/72 inch), with y growing downwards as in Qt.
struct Point {
    double x = 0;
    double y = 0;
};

// One box on screen: a node, a collapsed group (both "visible items"), or the frame of an
// open group that holds other boxes.
struct PlacedItem {
    int item = 0; // ItemRef encoding: node n -> n, group g -> -1 - g
    double x = 0; // centre
    double y = 0;
    double width = 0;
    double height = 0;
    bool expanded = false; // an open group's frame rather than a visible item
    int depth = 0;
};

// A visible edge as a cubic Bezier: points[0] is the start, then (control, control, end)
// triples; the last point is where the arrow head touches the target.
struct PlacedEdge {
    int from = 0;
    int to = 0;
    int count = 1;
    std::vector<Point> points;
};

struct StageLayout {
    std::vector<PlacedItem> items;
    std::vector<PlacedEdge> edges;
    double width = 0;
    double height = 0;
    std::string reason;     // why the stage has nothing to show (unsupported, failed, empty)
    bool cancelled = false; // a newer request won; the result is incomplete and must be dropped
    int levelsLaidOut = 0;  // Graphviz calls made for this result (0 when everything was cached)
};

// How big boxes are. Estimated from label lengths so the engine needs no fonts.
struct BoxMetrics {
    double nodeWidth = 150;
    double nodeHeight = 42;
    double groupWidth = 190;
    double groupHeight = 52;
    double padding = 14; // inside an open group's frame
    double titleHeight = 24;
};

} // namespace fusescope::layout
