#pragma once

#include "model/Report.h"
#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// What changed between two runs of a backend (docs/diff.md): a torch upgrade, a changed option,
// another machine, or two backends of one report.

// Latency ratio B/A of two independent sample sets, with a distribution-free 95 % confidence
// interval: the Hodges-Lehmann interval for the shift of log latency, i.e. order statistics of
// the n*m pairwise differences log b_j - log a_i at the Mann-Whitney critical rank (exact for
// n + m <= 66, normal approximation above). `ratio` is median(B) / median(A).
struct LatencyRatio {
    double ratio = 0;
    std::optional<double> low; // nullopt: too few samples for a 95 % bound on that side
    std::optional<double> high;
    int samplesA = 0;
    int samplesB = 0;
};

std::optional<LatencyRatio> latencyRatio(const std::vector<double>& aMs, const std::vector<double>& bMs);

// faster/slower: B against A. A change is called only when the 95 % interval excludes 1 and the
// two samples' quartile ranges do not overlap (the recommendation's rule, docs/workloads.md).
enum class DiffVerdict { Faster, Slower, Tie, Unknown };
const char* toString(DiffVerdict verdict);

// One kernel of one after-fusion stage, with the post-grad FX nodes it covers.
struct DiffKernel {
    std::string stage; // StageGraph::key(), e.g. post_fusion#1
    std::string id;    // FusionGroup id
    std::string name;
    std::string kind;
    std::vector<std::string> nodes; // sorted
    std::optional<double> timeMs;   // per traced iteration, when the trace links it to this kernel alone
};

struct MatchedKernel {
    DiffKernel a;
    DiffKernel b;
    std::optional<double> timeDeltaMs; // b - a
};

// Kernels of the two runs that cover overlapping but different node sets: fused more or less.
struct ChangedKernels {
    std::vector<DiffKernel> a;
    std::vector<DiffKernel> b;
    std::vector<std::string> shared; // nodes covered on both sides
    std::vector<std::string> onlyA;
    std::vector<std::string> onlyB;
    // "fused more": fewer kernels in B, or as many covering more nodes; "fused less" the reverse;
    // "regrouped": as many, each side covering nodes the other does not.
    std::string how;
    double overlap() const;
};

struct KernelDiff {
    std::vector<MatchedKernel> matched;
    std::vector<DiffKernel> added;
    std::vector<DiffKernel> removed;
    std::vector<ChangedKernels> changed;

    bool unchanged() const { return added.empty() && removed.empty() && changed.empty(); }
};

struct BreakDiff {
    std::vector<GraphBreak> added;
    std::vector<GraphBreak> removed;
};

struct BackendDiff {
    std::string nameA;
    std::string nameB;
    RunStatus statusA = RunStatus::Pending;
    RunStatus statusB = RunStatus::Pending;
    std::optional<LatencyRatio> latency;
    std::optional<double> eagerRatio; // each run's own eager baseline, B/A: did the machine move?
    DiffVerdict verdict = DiffVerdict::Unknown;
    std::string sentence;
    std::optional<double> compileRatio;
    std::optional<double> memoryRatio;
    std::optional<Accuracy> accuracyA;
    std::optional<Accuracy> accuracyB;
    int graphsA = -1;
    int graphsB = -1;
    KernelDiff kernels;
    BreakDiff breaks;
    std::vector<std::string> notes; // what could not be compared, and why
};

BackendDiff diffBackends(const BackendRun& a, const BackendRun& b);

// The graphs of one pair of kernel stages (StageGraph::key() equal on both sides).
KernelDiff diffKernelStages(const StageGraph* a, const StageGraph* b, const BackendRun* runA = nullptr,
                            const BackendRun* runB = nullptr);

struct ReportDiff {
    std::vector<BackendDiff> backends;
    std::vector<std::string> onlyA; // backends in A only (when not picked by name)
    std::vector<std::string> onlyB;
};

// Every backend in both reports, in A's order; or `backend` in A against `backendB` (default: the
// same name) in B. An Error names the missing backend and the file's backends.
Result<ReportDiff> diffReports(const Report& a, const Report& b, const std::string& backend = {},
                               const std::string& backendB = {}, const std::string& labelA = "A",
                               const std::string& labelB = "B");

nlohmann::json toJson(const BackendDiff& diff);
nlohmann::json toJson(const ReportDiff& diff);

} // namespace fusescope
