#pragma once

#include "Recommendation.h"
#include "model/Report.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace fusescope {

// Speedup of a run's compiled samples over the eager samples interleaved with them in the same
// worker process (docs/measurement.md): the median of the per-iteration ratios eager[k] / compiled[k]
// (pairedSpeedup), so drift between the series cancels and the table agrees with the recommendation.
std::optional<double> speedupOverEager(const BackendRun& run);

// Numbers for one stage row of the summary: compute nodes, and kernels on post-fusion stages.
struct StageCounts {
    int nodes = 0;
    std::optional<int> kernels;
};
StageCounts stageCounts(const StageGraph& stage);

// "Nodes before fusion" and "kernels after fusion" as the comparison table shows them, summed
// over Dynamo graphs: compute nodes of the last stage before fusion, kernels of the stages after.
std::optional<int> nodesBeforeFusion(const BackendRun& run);
std::optional<int> kernelsAfterFusion(const BackendRun& run);

// The machine-readable summary printed by `compare --json` and `show --json`. Field names are a
// public contract (docs/report-format.md#summary): add, never rename.
struct SummaryOptions {
    Goal goal = Goal::Latency; // what `recommendation` ranks for
    RecommendOptions recommend;
};
nlohmann::json summaryJson(const Report& report, const SummaryOptions& options = {});

// Exit status of a comparison: every backend ok, some ok, none ok.
enum class Completion { Complete, Partial, Failed };
Completion completionOf(const Report& report);

} // namespace fusescope
