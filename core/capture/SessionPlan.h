#pragma once

#include "model/Result.h"
#include "model/RunRequest.h"

#include <string>
#include <vector>

namespace fusescope {

// The accuracy bisect's budget per backend when the user names none (docs/accuracy.md).
constexpr double kDefaultBisectBudgetSeconds = 120;

// The settings of one comparison as the user gives them, on the command line (fusescope-cli
// compare) or in the window's Options box: text where the user types text, checked here once for
// both front ends by planSession().
struct CompareSettings {
    std::string model;                 // demo:transformer, /path/model.py, /path/model.pt
    std::vector<std::string> backends; // entries in run order (parseBackendList of --backends)
    std::string device = "cpu";
    std::string compileMode;                 // torch.compile mode for every entry; empty: torch's default
    bool fullgraph = false;                  // torch.compile(fullgraph=True)
    std::string dynamic = "auto";            // torch.compile(dynamic=...): true, false or auto
    std::vector<std::string> inductorConfig; // Inductor options, KEY=VALUE each
    std::string inputs;                      // input spec for TorchScript files: 4x16:float32,4:int64
    std::string mode = "inference";          // inference | training
    std::string precision = "fp32";          // fp32 | bf16 | fp16
    std::string shapes;                      // input sets after the main measurement, ';'-separated
    std::string assign;                      // module=backend,...: one more row, a mixed run
    bool searchAssign = false;               // then search per-submodule assignments
    MeasureSettings measure;
    Placement placement;
    double timeoutSeconds = 900;
    bool warmCache = false;
    bool captureStages = true;
    bool captureTrace = false;
    std::string roofs = "cached"; // with a trace: cached | measure | skip (docs/roofline.md)
    // Bisect accuracy failures (--bisect, "Bisect accuracy failures"), each within this budget.
    std::optional<double> bisectBudgetSeconds;
};

// What CompareSession runs: setSearchAssignments(searchAssignments), start(backends, base).
struct SessionPlan {
    std::vector<std::string> backends; // row labels in run order: the entries, then the --assign run
    RunRequest base;                   // model, device and settings every row shares
    bool searchAssignments = false;
};

// The setting a problem is in, so each front end can name it its own way (--shapes, "Shapes").
enum class Setting { Backends, Dynamic, InductorConfig, Inputs, Mode, Precision, Shapes, Assign };
// The command-line option: "--backends", "--inductor-config", ...
const char* settingFlag(Setting setting);

// The plan for `settings`, or the first problem (bare message; `*bad` names the setting). Every
// backend entry is read as the session will read it (requestFor), so nothing fails after the
// first backend started that could have been refused before.
Result<SessionPlan> planSession(const CompareSettings& settings, Setting* bad = nullptr);

// The request every row starts from (planSession's `base`), without the rows: for the GUI, whose
// backend list is checked as it is edited. `settings.backends` and `assign` are not read.
Result<RunRequest> baseRequestFor(const CompareSettings& settings, Setting* bad = nullptr);

// A --backends list as both front ends read it: split at the commas outside {...}, [...] and
// "..." (splitBackendList), each entry checked with requestFor. An error when it names none.
Result<std::vector<std::string>> parseBackendList(const std::string& text);

} // namespace fusescope
