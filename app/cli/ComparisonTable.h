#pragma once

#include "analysis/Summary.h"
#include "model/Report.h"

#include <string>

namespace fusescope::cli {

// The comparison as a plain-text table, one row per backend, then one line per error, then what
// the workload added (graph breaks, shape lists, mixed parts, the search) and the recommendation.
std::string comparisonTable(const Report& report, const SummaryOptions& summary = {});

} // namespace fusescope::cli
