#pragma once

#include "model/Report.h"
#include "model/Result.h"

#include <optional>
#include <string>
#include <vector>

namespace fusescope::import {

// `fusescope-cli import` and the GUI's File > Open of a directory or a log (docs/import.md):
// files other tools wrote, turned into a Report in the usual schema. Each format is one entry of
// importers(); the input's format is found from its content, never from its name alone.

// What the first bytes of a file (and the names in a directory) say about it.
struct ImportProbe {
    std::string path;
    bool isDirectory = false;
    std::string head;                  // the first kProbeBytes of the file (empty for a directory)
    std::vector<std::string> children; // a directory's regular files (names only), sorted
};

inline constexpr size_t kProbeBytes = 64 * 1024;

struct Importer {
    const char* name;        // "torch_trace", "kineto": what the report records as its source format
    const char* description; // for messages: "TORCH_TRACE log (directory or .log)"
    bool (*detect)(const ImportProbe& probe);
    Result<Report> (*run)(const std::string& path);
};

// Every importer, in the order detection tries them.
const std::vector<Importer>& importers();

// The probe of `path`: error import_not_found / import_unreadable naming the path.
Result<ImportProbe> probeImportPath(const std::string& path);

// The importer whose detect() accepts `path`, or import_unknown_format naming the path, what its
// first bytes look like, and the formats that were tried.
Result<const Importer*> detectImporter(const std::string& path);

// Detects and runs; the report's settings.import records {format, source}.
Result<Report> importPath(const std::string& path);

// For setForeignReportReader (report/ReportFile.h): a path that is not a .fscope file and that an
// importer detects is imported; anything else (nullopt) is left to readReport.
std::optional<Result<Report>> importIfForeign(const std::string& path);

} // namespace fusescope::import
