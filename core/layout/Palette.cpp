#include "Palette.h"

namespace fusescope::layout {

const std::vector<std::pair<std::string, std::string>>& categoryPalette() {
    static const std::vector<std::pair<std::string, std::string>> palette = {
        {"input", "#cfd8dc"}, {"output", "#b0bec5"},    {"constant", "#eceff1"},  {"matmul", "#ef9a9a"},
        {"conv", "#f48fb1"},  {"attention", "#ffcc80"}, {"pointwise", "#a5d6a7"}, {"reduction", "#80cbc4"},
        {"norm", "#ce93d8"},  {"view", "#bbdefb"},      {"extern", "#ffab91"},    {"other", "#e6ee9c"},
    };
    return palette;
}

const std::string& categoryHex(const std::string& category) {
    for (const auto& [name, hex] : categoryPalette())
        if (name == category)
            return hex;
    return categoryPalette().back().second;
}

} // namespace fusescope::layout
