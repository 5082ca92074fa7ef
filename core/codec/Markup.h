#pragma once

#include <string>
#include <string_view>

namespace fusescope::codec {

// Text for HTML or XML content and attribute values: & < > " ' become entities, control
// characters other than tab and newline are dropped (XML 1.0 allows no others). Every string
// taken from a report that goes into a page, a JUnit file or a Markdown comment goes through it:
// a report is shared and can be hostile, and no markup or script of its own may get through.
std::string escapeMarkup(std::string_view text);

} // namespace fusescope::codec
