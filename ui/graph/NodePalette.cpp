#include "NodePalette.h"

#include "Palette.h"

#include <algorithm>

namespace fusescope {

QColor categoryColor(const QString& category) {
    return QColor(QString::fromStdString(layout::categoryHex(category.toStdString())));
}

QStringList paletteCategories() {
    QStringList out;
    for (const auto& entry : layout::categoryPalette())
        out << QString::fromStdString(entry.first);
    return out;
}

QColor kernelColor() {
    return QColor(layout::kKernelHex);
}

QColor heatColor(double t) {
    t = std::clamp(t, 0.0, 1.0);
    // Stops of a YlOrRd-like ramp; linear in between.
    static const QColor stops[] = {QColor("#fff7bc"), QColor("#fec44f"), QColor("#fe9929"), QColor("#e31a1c"),
                                   QColor("#800026")};
    const double x = t * 4;
    const int i = std::min(3, int(x));
    const double f = x - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
                            float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

} // namespace fusescope
