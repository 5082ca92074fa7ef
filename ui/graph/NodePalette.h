#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

namespace fusescope {

// Colours of GraphNode::category, chosen to stay apart in a legend and readable under dark
// text: matmul/conv/attention (the expensive ops) warm, pointwise/views cool, I/O grey.
QColor categoryColor(const QString& category);
// The categories in legend order (docs/graph-schema.json).
QStringList paletteCategories();
QColor kernelColor();
// Measured-time heat scale (docs/graph-view.md, "Time on the graph"): `t` in 0..1 of the
// largest share shown, pale yellow to dark red (sequential, readable under dark text to ~0.8).
QColor heatColor(double t);

} // namespace fusescope
