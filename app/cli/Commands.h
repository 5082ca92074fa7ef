#pragma once

#include "analysis/Summary.h"
#include "capture/SessionPlan.h"

#include <optional>
#include <string>
#include <vector>

namespace fusescope::cli {

struct CompareOptions {
    CompareSettings settings; // as given on the command line
    SessionPlan plan;         // planSession(settings): the rows and the request they share
    std::string out;
    bool json = false;
    bool quiet = false;
    bool progressJson = false; // `--progress-json`: progress as JSON lines (docs/cli.md)
    SummaryOptions summary;    // the goal the recommendation ranks for
};

// `tune MODEL --budget DURATION` (docs/tuning.md).
struct TuneOptions {
    CompareSettings settings; // model, device, workload, measurement, placement (no backends)
    std::string budget;       // as typed: 300, 90s, 5m, 1h
    std::string goal = "latency";
    std::string space; // FILE.toml, or empty
    std::string out;
    bool json = false;
    bool quiet = false;
    bool progressJson = false;
};

struct ExportOptions {
    std::string report;
    std::string backend;
    std::string stage;
    std::string out;
    double scale = 2.0;
    bool trace = false;        // the backend's kernel trace instead of a stage graph
    bool measuredTime = false; // colour the graph by traced kernel time (`--time`)
    std::string html;          // `--html FILE`: the whole report as one HTML page instead
};

struct DiffOptions {
    std::string reportA;
    std::string reportB;
    std::string backend;  // only this backend (in A; in B too unless backendB)
    std::string backendB; // B's backend to compare with A's `backend`
    bool json = false;
};

// `check NEW --baseline OLD` (docs/ci.md): reports, or sweep folders job by job.
struct CheckOptions {
    std::string candidate;
    std::string baseline;
    double maxSlowdownPct = 5;
    double maxCompileGrowthPct = 25;
    std::string markdown; // write the Markdown summary here
    std::string junit;    // write JUnit XML here
};

// `import INPUT --out R.fscope` (docs/import.md).
struct ImportOptions {
    std::string input;
    std::string out;
    // `--into R.fscope --backend NAME`: a profiler trace attached to that backend of R instead.
    std::string into;
    std::string backend;
    bool quiet = false;
};

int runCompare(const CompareOptions& options);
// Exit codes: kExitOk with a best setting, kExitAllFailed without one, kExitCancelled on Ctrl+C
// (what was measured is saved), kExitUsage for a bad budget, goal or space file, before anything ran.
int runTune(const TuneOptions& options);
int runImport(const ImportOptions& options);
// Reads a report for a command that shows it: on failure prints the error and gives nothing,
// else prints the notes of what reading repaired.
std::optional<Report> openReportPrintingNotes(const std::string& path);
int runShow(const std::string& path, bool json, const SummaryOptions& summary);
// `show --by module|line`: traced kernel time per module or source line.
int runShowTime(const std::string& path, const std::string& by, const std::string& backend, bool json);
// `show --roofline`: each traced kernel against the machine's roofs, bytes fusion saved per call.
int runShowRoofline(const std::string& path, const std::string& backend, bool json);
int runBackends(bool json);
int runDiff(const DiffOptions& options);
// Exit codes kCheckPass, kCheckRegressed, kCheckUnusable (ExitCodes.h, docs/ci.md).
int runCheck(const CheckOptions& options);
// Needs a QGuiApplication (fonts); main() creates one for this command.
int runExport(const ExportOptions& options);
// `export R.fscope --html FILE` (docs/html-report.md): no GUI application needed.
int runExportHtml(const ExportOptions& options);

} // namespace fusescope::cli
