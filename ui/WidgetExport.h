#pragma once

#include <QString>

class QWidget;

namespace fusescope {

// Writes a picture of a widget (the whole window, say) for a review or a paper; the extension
// picks PNG (at `scale` device pixels per pixel), SVG or PDF.
bool exportWidget(QWidget* widget, const QString& path, double scale = 1.0, QString* error = nullptr);

} // namespace fusescope
