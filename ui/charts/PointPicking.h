#pragma once

#include <QPoint>
#include <cmath>
#include <cstddef>
#include <qcustomplot.h>
#include <utility>

namespace fusescope {

// The index of the point nearest `pos` within `radius` pixels on `plot`'s main axes, or -1.
// `at(i)` gives point i's plot coordinates (key, value). The charts' click lookup (Roofline,
// Tuning): their graphs keep points sorted by key, so a chart looks its own list up, not the graph.
template <typename At>
int nearestPoint(const QCustomPlot& plot, size_t count, At at, const QPoint& pos, double radius) {
    int found = -1;
    double bestDistance = radius;
    for (size_t i = 0; i < count; ++i) {
        const std::pair<double, double> point = at(i);
        const double dx = plot.xAxis->coordToPixel(point.first) - pos.x();
        const double dy = plot.yAxis->coordToPixel(point.second) - pos.y();
        const double distance = std::hypot(dx, dy);
        if (distance <= bestDistance) {
            bestDistance = distance;
            found = static_cast<int>(i);
        }
    }
    return found;
}

} // namespace fusescope
