#pragma once

#include "codec/StageSpans.h"
#include "model/Report.h"
#include "model/Result.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace fusescope {

// What reading a report leaves behind once the Report is made: the file's bytes and its parsed
// JSON tree. Freeing a large report's tree takes about a sixth of reading it (21 MB: ~0.15 s,
// docs/performance.md), so a caller that is in a hurry (the engine, whose reader waits for the
// report) passes one and drops it after handing the report on; without one they are freed before
// the read returns.
struct ReadLeftovers {
    std::shared_ptr<const void> held;
};

// A large report's stage graphs, left in the file's bytes by readReport(path, ..., &deferred) and
// decoded by withDeferredStages: the GUI shows the table and the charts first and the graphs
// when they are read (docs/performance.md, "First paint").
struct DeferredStages {
    std::shared_ptr<const std::string> text; // the file's bytes
    std::vector<codec::StageSpan> spans;     // each backend's "stages" array in `text`
    std::string origin;                      // the file, for messages
    bool empty() const { return spans.empty(); }
};

// Stages are deferred only when they are at least this many bytes: below it they cost less to
// read than a second update of every view.
inline constexpr size_t kDeferStagesFromBytes = size_t(1) << 20;

// Reads a .fscope report (docs/report-format.md). Every failure names the file: missing,
// empty, truncated or not JSON, not a FuseScope report, or written by a newer schema.
// With `deferred`, a report whose stages are large is read without them (each backend's `stages`
// empty) and `deferred` says where they are; a file whose stages cannot be told apart by a scan,
// or whose rest does not read, is read whole, so its faults are named as they always were.
Result<Report> readReport(const std::string& path, ReadLeftovers* leftovers = nullptr,
                          DeferredStages* deferred = nullptr);

// `skeleton` (read with `deferred`) with its stages decoded. A backend whose stages do not read
// keeps none; the report's readNotes name the file, the member and the fault, and the rest stands.
Report withDeferredStages(const Report& skeleton, const DeferredStages& deferred);

// Inputs that are not .fscope reports (a TORCH_TRACE log, a profiler trace: docs/import.md). The
// apps register import::importerReader() (fusescope_import sits above the core); it answers nullopt
// for a path it does not take, which then goes to readReport.
using ForeignReportReader = std::function<std::optional<Result<Report>>(const std::string& path)>;
void setForeignReportReader(ForeignReportReader reader);

// What the engine opens: the foreign reader's report when it takes `path`, else readReport(path).
Result<Report> openReportOrImport(const std::string& path, ReadLeftovers* leftovers = nullptr,
                                  DeferredStages* deferred = nullptr);

// Parses report text that came from `origin` (a path, for messages).
Result<Report> parseReport(const std::string& text, const std::string& origin,
                           ReadLeftovers* leftovers = nullptr);

// Writes the report atomically: a temporary file beside the target, fsync, then rename, so an
// interrupted write never leaves a corrupt file where a good one was.
Status writeReport(const Report& report, const std::string& path);

// The same atomic write for any text (summaries, exports).
Status writeFileAtomically(const std::string& path, const std::string& contents);

} // namespace fusescope
