#pragma once

#include "Speedup.h"
#include "model/Report.h"

#include <string>
#include <utility>
#include <vector>

namespace fusescope {

// Searching backend assignments over a model's top-level submodules (`compare --search-assign`,
// docs/workloads.md "Mixed backends"). Pure logic: it proposes mixed runs as report labels
// (`mixed[encoder=inductor,decoder=eager]`), reads their results back from the report, and decides.
// Exhaustive when backends^modules is small, else greedy one module at a time from the best
// single backend. Every candidate stays a report row, so its numbers are kept.
class AssignmentSearch {
public:
    AssignmentSearch(std::vector<std::string> modules, std::vector<std::string> backends,
                     std::vector<std::string> singleRuns, int exhaustiveLimit = 16);

    // Labels to run next, given what `report` holds so far; empty when the search is over.
    std::vector<std::string> next(const Report& report);

    // The outcome so far: candidates with their speedups, the best single backend, and the pick,
    // which is a mixed assignment only when it beats the best single backend beyond the spread.
    SearchOutcome outcome(const Report& report) const;

    const std::string& strategy() const { return m_strategy; }

private:
    using Assignment = std::vector<std::pair<std::string, std::string>>;
    std::optional<SpeedupEstimate> speedupOf(const Report& report, const std::string& label) const;
    std::string bestSingle(const Report& report) const;
    std::string label(const Assignment& assignment) const;

    std::vector<std::string> m_modules;
    std::vector<std::string> m_backends;
    std::vector<std::string> m_singleRuns; // whole-model runs of the same backends, the baseline
    std::string m_strategy;
    std::vector<std::string> m_candidates; // every label proposed, in order
    // Greedy state: the assignment kept so far and the module being decided.
    Assignment m_current;
    int m_step = -1; // -1: not started
    std::vector<std::string> m_pending;
};

} // namespace fusescope
