#pragma once

#include "Recommendation.h"
#include "Speedup.h"
#include "TuneSpace.h"
#include "model/Report.h"
#include "model/TuneOutcome.h"

#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// The tuner of `fusescope-cli tune` (docs/tuning.md): races the candidates of a space within a
// time budget. Pure logic over the report, like AssignmentSearch: it says which row to run next
// (a new candidate, or another round of one already measured), reads every result back from the
// report's rows, and writes its outcome. The session (capture/CompareSession) runs what it says.
//
// Racing, not a grid: every candidate is measured once (screening), candidates that fail, fail
// accuracy or are clearly worse than the leader are dropped with the reason, and the rest of the
// budget goes to more rounds (fresh worker processes, warm caches) of the candidates the leader
// is not yet separated from, fewest rounds first, until it is separated, each has maxRounds, or
// the budget ends.
struct TuneStep {
    std::string entry; // what to run
    int row = -1;      // -1: a new row named `entry`; else another round of report row `row`
    bool operator==(const TuneStep&) const = default;
};

// Intervals across processes (docs/tuning.md): a paired speedup moves between fresh worker
// processes by more than one process's interval says (a process-level effect: where memory lands,
// which core, the VM's neighbours). The tuner models it as the relative standard deviation sigma
// of one process's median speedup, in two levels:
// - the tuning's sigma, pooled over every candidate with two or more rounds (log-space deviations
//   of each round's median from the candidate's mean) and shrunk toward a prior worth
//   kProcessSpreadPriorDof observations: sigma^2 = (nu0 sigma0^2 + SS) / (nu0 + dof);
// - each candidate's own sigma, its rounds shrunk toward the tuning's, worth kRowSpreadPriorDof:
//   sigma_i^2 = (kappa sigma^2 + SS_i) / (kappa + dof_i), since backends differ (demo:cnn's
//   inductor moves twice as much as its eager).
// The constants are those with which bench/tune/calibrate.py's 20 fresh processes on two models
// covered the pooled median in at least 90 % of cases for every backend (docs/measurement.md).
inline constexpr double kProcessSpreadPrior = 0.05;
inline constexpr int kProcessSpreadPriorDof = 4;
inline constexpr int kRowSpreadPriorDof = 3;

struct ProcessSpread {
    double sigma = kProcessSpreadPrior; // relative standard deviation of one process's median
    int dof = kProcessSpreadPriorDof;   // the prior's and the measured degrees of freedom
    int measuredDof = 0;                // sum over rows of (ok rounds - 1)
};
// Pooled over the report's rows with two or more ok rounds (log-space deviations of each round's
// median from the row's mean).
ProcessSpread processSpread(const Report& report);
// Each ok round's own median paired speedup, in round order (rounds with under 6 pairs skipped).
std::vector<double> roundMedians(const BackendRun& row);
// The 97.5 % quantile of Student's t with `dof` degrees of freedom (1.96 as dof grows).
double studentT975(int dof);

// The compile goal races candidates that compile within this (Recommendation's compile budget).
inline constexpr double kTuneCompileGoalSeconds = 60;
// Advice adds at most this many candidates, so a budget is not spent on advice chains.
inline constexpr int kTuneMaxAdviceCandidates = 8;
// Per-submodule assignments of the two best backends are raced when the model has at most this
// many top-level submodules (2^n - 2 candidates); more is `compare --search-assign`'s greedy search.
inline constexpr int kTuneMaxAssignedModules = 3;

// A candidate's speedup across its rounds: the median of every paired ratio, with a 95 % interval
// that holds across processes: at least t(kappa + dof_i) * sigma_i / sqrt(rounds) on each side in
// log space, and never narrower than the order-statistic interval of the pooled pairs.
struct PooledSpeedup {
    double median = 0;
    std::optional<SpeedupInterval> ci95;
    int rounds = 0;
    int pairs = 0;
};
std::optional<PooledSpeedup> pooledSpeedup(const BackendRun& row, const ProcessSpread& spread = {});

class Tuner {
public:
    Tuner(std::vector<TuneSpaceEntry> space, Goal goal, double budgetSeconds, bool advice = true,
          int maxRounds = 5, std::vector<std::string> notes = {});

    // What to run next, given the report so far and the seconds spent; nullopt: the tuning is over
    // (stoppedBy() says why).
    std::optional<TuneStep> next(const Report& report, double elapsedSeconds);
    // The outcome so far; `stoppedBy` overrides the tuner's own reason (cancelled, budget).
    TuneOutcome outcome(const Report& report, double elapsedSeconds, const std::string& stoppedBy = {}) const;
    const std::string& stoppedBy() const { return m_stoppedBy; }
    // Whether to race per-submodule assignments after screening (the space's `assignments`, on by default).
    void setAssignments(bool enabled) { m_assignmentsOn = enabled; }

private:
    struct Candidate {
        std::string entry;
        std::string origin;
        std::string advice; // rule, origin advice
        std::optional<std::string> dropped;
    };
    struct AdviceLink {
        std::string entry, rule, base;
    };
    void addAdvice(const Report& report);
    // Once screening is done: the mixed assignments of the two fastest accurate torch.compile
    // entries a submodule can take (NAME or NAME@MODE), or a note why there are none.
    void addAssignments(const Report& report);
    void updateDrops(const Report& report);
    // The accurate, measured candidates' leader for the goal, or -1.
    int leader(const Report& report) const;
    bool racing() const { return m_goal != Goal::Memory; }

    std::vector<Candidate> m_candidates;
    std::vector<AdviceLink> m_advice;
    Goal m_goal;
    double m_budget;
    bool m_adviceOn;
    int m_maxRounds;
    std::vector<std::string> m_notes;
    std::string m_stoppedBy = "running";
    bool m_assignmentsDone = false;
    bool m_assignmentsOn = true;
};

// The torch.compile call to paste for `entry` (docs/tuning.md, "The snippet"). Entries of other
// families say what runs them instead, as a Python comment.
std::string tuneSnippet(const std::string& entry, const std::string& family = "torch_compile");

// Appends one more round of a row (a fresh worker process's run of the same entry) to `row`: its
// samples after the row's, its warnings under "round N", an accuracy failure over a pass. The
// row's compile time, stages and trace stay round 1's.
void appendRound(BackendRun& row, const BackendRun& round, const std::string& cache);

} // namespace fusescope
