#include "Markup.h"

#include <cmath>
#include <cstdio>

namespace fusescope::html {

std::string num(double value) {
    if (!std::isfinite(value))
        return "0";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

} // namespace fusescope::html
