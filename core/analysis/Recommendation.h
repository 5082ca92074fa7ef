#pragma once

#include "Speedup.h"
#include "model/Report.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// What the user optimises for (`compare --goal`, the GUI's goal picker).
enum class Goal { Latency, Throughput, Memory, Compile };

const char* toString(Goal goal);
std::optional<Goal> goalFromString(const std::string& text);

struct RecommendOptions {
    double compileBudgetSeconds = 60; // Goal::Compile: fastest among those compiling within this
    double memoryTieFraction = 0.02;  // peaks are single measurements: closer than this is a tie
};

// One backend that passed accuracy, placed in a tier: tier 1 holds the best backend and every
// backend indistinguishable from it within the measured spread, and so on down.
struct RankedBackend {
    std::string backend;
    int tier = 1;
    double value = 0; // speedup over eager (latency, throughput, compile) or peak bytes (memory)
    std::optional<SpeedupEstimate> speedup;
    std::string sentence; // "inductor: 1.80x faster than eager (IQR 1.72-1.88x), 41 s compile, ..."
};

struct ExcludedBackend {
    std::string backend;
    std::string reason; // "failed accuracy at bf16 (max rel 0.2 > 0.05)", "compile_failed: ..."
};

struct Recommendation {
    Goal goal = Goal::Latency;
    std::vector<RankedBackend> ranked; // best first
    std::vector<ExcludedBackend> excluded;
    // One or two sentences: the pick, or why there is no single pick (a tie inside the spread).
    std::string verdict;
    std::vector<std::string> winners; // tier 1
};

// Why `run` cannot be ranked at all (not ok, no or failed accuracy, no samples, ...), or empty.
std::string exclusionReason(const BackendRun& run);

// Ranks the report's backends for `goal` from its own measurements only.
Recommendation recommend(const Report& report, Goal goal, const RecommendOptions& options = {});

nlohmann::json toJson(const Recommendation& recommendation);

} // namespace fusescope
