#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fusescope::layout {

// Colours of GraphNode::category as "#rrggbb", chosen to stay apart in a legend and readable
// under dark text: matmul/conv/attention (the expensive ops) warm, pointwise/views cool, I/O
// grey. In legend order (docs/graph-schema.json). The GUI's graph items and the HTML report's
// SVG graphs both draw with these.
const std::vector<std::pair<std::string, std::string>>& categoryPalette();
// The colour of `category` ("other"'s for one not in the palette).
const std::string& categoryHex(const std::string& category);
// The fill of a kernel group's box.
inline constexpr const char* kKernelHex = "#fff3e0";

} // namespace fusescope::layout
