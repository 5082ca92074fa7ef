#pragma once

#include "model/Report.h"
#include "model/Result.h"

#include <string>

namespace fusescope {

// Reads a .fscope report (docs/report-format.md). Every failure names the file: missing,
// empty, truncated or not JSON, not a FuseScope report, or written by a newer schema.
Result<Report> readReport(const std::string& path);

// Parses report text that came from `origin` (a path, for messages).
Result<Report> parseReport(const std::string& text, const std::string& origin);

// Writes the report atomically: a temporary file beside the target, fsync, then rename, so an
// interrupted write never leaves a corrupt file where a good one was.
Status writeReport(const Report& report, const std::string& path);

// The same atomic write for any text (summaries, exports).
Status writeFileAtomically(const std::string& path, const std::string& contents);

} // namespace fusescope
