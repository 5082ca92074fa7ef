#include "NodePalette.h"

#include <QHash>
#include <algorithm>

namespace fusescope {

QColor categoryColor(const QString& category) {
    static const QHash<QString, QColor> colors = {
        {"input", QColor("#cfd8dc")},     {"output", QColor("#b0bec5")},    {"constant", QColor("#eceff1")},
        {"matmul", QColor("#ef9a9a")},    {"conv", QColor("#f48fb1")},      {"attention", QColor("#ffcc80")},
        {"pointwise", QColor("#a5d6a7")}, {"reduction", QColor("#80cbc4")}, {"norm", QColor("#ce93d8")},
        {"view", QColor("#bbdefb")},      {"extern", QColor("#ffab91")},    {"other", QColor("#e6ee9c")},
    };
    return colors.value(category, QColor("#e6ee9c"));
}

QStringList paletteCategories() {
    return {"input",     "output",    "constant", "matmul", "conv",   "attention",
            "pointwise", "reduction", "norm",     "view",   "extern", "other"};
}

QColor kernelColor() {
    return QColor("#fff3e0");
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
