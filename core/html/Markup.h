#pragma once

#include "codec/Markup.h"

#include <string>

namespace fusescope::html {

// Every string from a report goes into the page through this (codec/Markup.h): no report can put
// markup or script into a page.
inline std::string escape(const std::string& text) {
    return codec::escapeMarkup(text);
}

// A number for SVG coordinates: fixed, short, and never "nan"/"inf" (0 instead).
std::string num(double value);

} // namespace fusescope::html
