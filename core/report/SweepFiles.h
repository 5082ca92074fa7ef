#pragma once

#include "model/Report.h"
#include "model/Result.h"
#include "model/Sweep.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// What a sweep folder holds (docs/sweeps.md, "The suite"): DIR/sweep.json, kept by the sweep
// driver, and the .fscope report of each finished job. analysis/Suite aggregates them.
struct SweepFiles {
    std::string dir;
    SweepState state;
    std::vector<std::optional<Report>> reports; // one per job; nullopt: no report to read yet
    std::vector<std::string> notes;             // reports that exist but could not be read
};

// Errors: suite_not_found (no sweep.json), suite_corrupt (it does not decode; the message names
// the file and the field).
Result<SweepFiles> readSweepFiles(const std::string& dir);

// Writes DIR/suite.json atomically.
Status writeSuiteFile(const std::string& dir, const nlohmann::json& suite);

} // namespace fusescope
