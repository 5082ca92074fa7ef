#include "NodePalette.h"

#include <QHash>

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

} // namespace fusescope
