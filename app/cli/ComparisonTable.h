#pragma once

#include "model/Report.h"

#include <string>

namespace fusescope::cli {

// The comparison as a plain-text table, one row per backend, then one line per error.
std::string comparisonTable(const Report& report);

} // namespace fusescope::cli
