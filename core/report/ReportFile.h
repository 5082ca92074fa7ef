#pragma once

#include "model/Report.h"
#include "model/Result.h"

#include <functional>
#include <optional>
#include <string>

namespace fusescope {

// Reads a .fscope report (docs/report-format.md). Every failure names the file: missing,
// empty, truncated or not JSON, not a FuseScope report, or written by a newer schema.
Result<Report> readReport(const std::string& path);

// Inputs that are not .fscope reports (a TORCH_TRACE log, a profiler trace: docs/import.md). The
// apps register import::importerReader() (fusescope_import sits above the core); it answers nullopt
// for a path it does not take, which then goes to readReport.
using ForeignReportReader = std::function<std::optional<Result<Report>>(const std::string& path)>;
void setForeignReportReader(ForeignReportReader reader);

// What the engine opens: the foreign reader's report when it takes `path`, else readReport(path).
Result<Report> openReportOrImport(const std::string& path);

// Parses report text that came from `origin` (a path, for messages).
Result<Report> parseReport(const std::string& text, const std::string& origin);

// Writes the report atomically: a temporary file beside the target, fsync, then rename, so an
// interrupted write never leaves a corrupt file where a good one was.
Status writeReport(const Report& report, const std::string& path);

// The same atomic write for any text (summaries, exports).
Status writeFileAtomically(const std::string& path, const std::string& contents);

} // namespace fusescope
