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

} // namespace fusescope
