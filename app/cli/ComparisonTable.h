#pragma once

#include "analysis/Summary.h"
#include "model/Report.h"

#include <string>

namespace fusescope::cli {

// The comparison as a plain-text table, one row per backend, then one line per error, then what
// the workload added (graph breaks, shape lists, mixed parts, the search) and the recommendation.
std::string comparisonTable(const Report& report, const SummaryOptions& summary = {});
// `tune`'s answer (docs/tuning.md): every candidate with its interval, compile time, peak, rounds
// and status or why it was dropped; the verdict, the Pareto front, advice outcomes, the snippet.
std::string tuningTable(const TuneOutcome& tuning);

} // namespace fusescope::cli
