#pragma once

#include "model/RunSettings.h"
#include "model/SearchOutcome.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusescope::format {

// Human-readable numbers shared by the CLI table and the GUI, so both say the same thing.
std::string bytes(std::optional<int64_t> value);       // "12.3 MiB", "-" when absent
std::string milliseconds(std::optional<double> value); // "1.234", "-" when absent
std::string seconds(std::optional<double> value);      // "12.3", "-" when absent
std::string ratio(std::optional<double> value);        // "1.84x", "-" when absent
std::string scientific(std::optional<double> value);   // "3.1e-06", "-" when absent
std::string count(std::optional<int> value);           // "12", "-" when absent
// Where a graph break is, from GraphBreak::graph (the graphs Dynamo produced before it):
// "before graph 0", "after graph 2", "" when unknown (< 0).
std::string breakPlacement(int graphsBefore);

// "4x16:float32,4:int64", as --inputs and --shapes take it; a dtype not said is float32, the
// worker's default.
std::string inputSet(const InputSet& set);
// Input sets joined by ';', as --shapes takes them.
std::string shapeList(const std::vector<InputSet>& sets);
// The assignment search in a line: "exhaustive, 6 candidates, 5 ran ok: <verdict>", or
// "not run: <why>".
std::string searchSummary(const SearchOutcome& search);

} // namespace fusescope::format
