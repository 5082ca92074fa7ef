#pragma once

#include "model/BackendRun.h"

#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// The columns of the comparison, one row per backend: the CLI's `compare`/`show` table and the
// GUI's Comparison tab are both drawn from this list, so a cell reads the same in both.
namespace column {
// In table order. To add a column: an id here (where it goes in the table) and its row in
// comparisonColumns() (ComparisonColumns.cpp); both front ends show it from then on.
enum Id : int {
    Backend,
    Status,
    CompileSeconds,
    MedianMs,
    IqrMs,
    Speedup,
    SpeedupCi,
    PeakMemory,
    Accuracy,
    Graphs,
    GraphBreaks,
    NodesBeforeFusion,
    KernelsAfterFusion,
    Count
};
} // namespace column

struct ComparisonColumn {
    column::Id id;
    std::string key;         // stable name in code and tests: "compile_s"
    std::string header;      // the GUI's header: "Compile (s)"
    std::string tableHeader; // the CLI's text table, short and lower case: "compile s"
    std::string tip;         // what the column means, one sentence (the GUI's header tooltip)
    bool numeric = true;     // numbers right-aligned; names and words left-aligned
    // The cell's text; "-" when the run has no such value.
    std::string (*text)(const BackendRun& run) = nullptr;
    // The number to sort by; nullopt sorts by text.
    std::optional<double> (*sortValue)(const BackendRun& run) = nullptr;
};

// Every column, indexed by column::Id.
const std::vector<ComparisonColumn>& comparisonColumns();
const ComparisonColumn& comparisonColumn(column::Id id);

// The text of one cell, and a whole row in column order.
std::string cellText(const BackendRun& run, column::Id id);
std::vector<std::string> rowCells(const BackendRun& run);
// nullopt where the column has no number for this run (or sorts by text).
std::optional<double> cellSortValue(const BackendRun& run, column::Id id);

// True when the run's gradients (training) failed the accuracy check: the accuracy cell says
// "grad FAIL" after the outputs' verdict.
bool gradientsFailed(const BackendRun& run);

} // namespace fusescope
