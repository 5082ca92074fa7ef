#pragma once

#include <QString>

class QWidget;

namespace fusescope {

// Writes a picture of a widget (the whole window, say) for a review or a paper; the extension
// picks PNG (at `scale` device pixels per pixel), SVG or PDF.
bool exportWidget(QWidget* widget, const QString& path, double scale = 1.0, QString* error = nullptr);

// Where to export a picture and, for PNG, at what scale: a save dialog, then a scale prompt.
// False when the user cancels either.
struct ExportTarget {
    QString path;
    double scale = 1.0;
};
bool askExportTarget(QWidget* parent, const QString& title, ExportTarget& target);

} // namespace fusescope
