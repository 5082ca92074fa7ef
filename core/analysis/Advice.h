#pragma once

#include "model/Report.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fusescope {

// What to try next, from a report's own measurements (docs/advice.md). A rule fires only on its
// evidence, and its advice names that evidence with its numbers; there is no generic advice.
// Computed from the report each time it is shown (never stored), like the derived warnings.
struct Advice {
    std::string rule;     // stable id, docs/advice.md's table: compile_kernel_compilation, ...
    std::string backend;  // the row it is about (its label)
    std::string message;  // what to try, and why
    std::string evidence; // the measurement that triggered the rule, with its numbers
    // A `--backends` entry to add (parseBackendEntry reads it back), the row's own entry with the
    // one change the advice suggests; empty when the advice is not a new row (e.g. a missing package)
    // or when the report already has that row.
    std::string tryEntry;
    // Every row it applies to, `backend` first: one row's advice names only it; the report-wide list
    // (adviceFor(report)) says advice that several rows share once, naming them all.
    std::vector<std::string> backends;
    bool operator==(const Advice&) const = default;
};

// The thresholds of docs/advice.md, one constant per trigger.
// compile_kernel_compilation / compile_autotuning: the phase takes at least this share of compile_s,
// and compile_s is at least kAdviceCompileMinSeconds (below it, a compile is not worth a new row).
inline constexpr double kAdviceCompilePhaseShare = 0.5;
inline constexpr double kAdviceCompileMinSeconds = 1.0;
// recompiles: at least this many recompiles in one compile (a single one is what automatic
// dynamic shapes spends once on the first new shape), or Dynamo's recompile limit hit.
inline constexpr int kAdviceRecompilesMin = 2;
// memory_above_eager: compiled peak at least this share above eager's peak (peaks are single
// measurements; the recommendation treats 2 % as a tie, this is well clear of it).
inline constexpr double kAdviceMemoryAboveEager = 0.10;

// The rule ids in docs/advice.md order.
const std::vector<std::string>& adviceRuleIds();

// The advice for one row of `report` (the report gives the device and the other rows).
std::vector<Advice> adviceFor(const Report& report, const BackendRun& run);
// Every row's advice, in row order, each piece once: advice that several rows share (the same
// rule, message, evidence and try entry, e.g. a graph break Dynamo meets under every backend) is
// one Advice naming them all in `backends`.
std::vector<Advice> adviceFor(const Report& report);

// `advice` of the summary JSON: [{rule, backend, backends, message, evidence, try}], try null when none.
nlohmann::json toJson(const std::vector<Advice>& advice);
// One line for the CLI and the GUI's details:
// "inductor [recompiles] ... (evidence: ...); try --backends 'inductor{dynamic=true}'"; shared
// advice starts with every row it applies to: "aot_eager, inductor [graph_break_hint] ...".
std::string adviceLine(const Advice& advice);
// The rows it applies to, comma-separated ("aot_eager, inductor"); `backend` when none are listed.
std::string adviceScope(const Advice& advice);

} // namespace fusescope
