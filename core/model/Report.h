#pragma once

#include "BackendRun.h"
#include "Provenance.h"
#include "RunSettings.h"
#include "SearchOutcome.h"
#include "TuneOutcome.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fusescope {

// The schema version this build writes and the newest it reads (docs/report-format.md).
inline constexpr int kReportSchemaVersion = 1;
inline constexpr const char* kReportFormatName = "fusescope-report";

// What the capture worker said about itself in its handshake.
struct WorkerEnvironment {
    int protocolVersion = 0;
    std::string worker;
    std::string python;
    std::string torch;
    std::string torchGit;   // torch.version.git_version; empty from workers and reports before it
    std::string torchBuild; // "cuda 12.4", "rocm 6.2", "cpu"; empty likewise
    std::vector<std::string> devices;
    nlohmann::json cuda; // null when no CUDA
};

// Everything a report says besides its backend rows: what was compared, where, how, and what
// came of it run-wide. One record, so a copy of the header (the engine's snapshots, the live
// report in the UI) is one assignment and can never leave a member behind.
struct ReportHeader {
    int schema = kReportSchemaVersion;
    std::string created; // ISO 8601, UTC
    std::string generator;
    std::string modelSpec; // what the user asked for: demo:mlp, /path/model.py
    ModelInfo model;
    std::string device = "cpu";
    WorkerEnvironment environment;
    RunSettings settings;
    // `--search-assign`: the assignment search's outcome (analysis/AssignmentSearch), or none.
    std::optional<SearchOutcome> search;
    // `fusescope-cli tune`: the tuner's candidates and answer (analysis/Tuner), or none.
    std::optional<TuneOutcome> tuning;
    // Run-wide warnings (docs/measurement.md, "Machine check and warnings"), e.g. machine_busy from
    // the check before the first backend; each run has its own in BackendRun::warnings.
    std::vector<RunWarning> warnings;
    // What produced the report (FuseScope, command line, torch build, compile environment, machine);
    // absent in reports written before it.
    std::optional<Provenance> provenance;
    // What the reader had to repair, e.g. ill-formed UTF-8 replaced; shown, never saved.
    std::vector<std::string> readNotes;
};

// One comparison: a model, a device, and one BackendRun per requested backend.
struct Report : ReportHeader {
    std::vector<BackendRun> backends;

    const ReportHeader& header() const { return *this; }
    ReportHeader& header() { return *this; }
    BackendRun* findBackend(const std::string& name);
    const BackendRun* findBackend(const std::string& name) const;
};

// Encoders and decoders: codec/ReportCodec.h.

// ISO 8601 UTC "now", for Report::created.
std::string utcTimestamp();

} // namespace fusescope
