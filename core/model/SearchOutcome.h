#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// A speedup over eager as a record stores it: the median of the paired ratios and its quartiles
// (analysis/Speedup.h computes it from the samples).
struct SpeedupRecord {
    double median = 0;
    double q1 = 0;
    double q3 = 0;
    int64_t pairs = 0;
    bool operator==(const SpeedupRecord&) const = default;
};

// One mixed assignment the search proposed, and how its run went.
struct SearchCandidate {
    std::string label;                // mixed[encoder=inductor,decoder=eager]
    std::string status;               // a run status, or pending
    std::optional<bool> accuracyPass; // unknown until the run has an accuracy
    std::optional<SpeedupRecord> speedup;
    bool operator==(const SearchCandidate&) const = default;
};

// The outcome of `--search-assign` (report `search`, docs/workloads.md "Mixed backends"): written
// by analysis/AssignmentSearch, read by the CLI table, the GUI and the summary alike.
struct SearchOutcome {
    std::string error;    // why the search did not run; every other member is empty then
    std::string strategy; // exhaustive | greedy
    std::vector<std::string> modules;
    std::vector<std::string> backends;
    std::vector<SearchCandidate> candidates;
    std::string bestMixed; // empty: no mixed candidate ran
    std::optional<SpeedupRecord> bestMixedSpeedup;
    std::string bestSingle; // empty: no single backend ran
    std::optional<SpeedupRecord> bestSingleSpeedup;
    std::string pick; // the label to use; a mixed one only when it beats the best single clearly
    std::optional<double> gainOverBestSingle;
    std::string verdict; // one sentence for people

    bool ran() const { return error.empty(); }
    int candidatesOk() const {
        int n = 0;
        for (const auto& c : candidates)
            n += c.status == "ok";
        return n;
    }
    bool operator==(const SearchOutcome&) const = default;
};

} // namespace fusescope
