#pragma once

#include "analysis/Roofline.h"
#include "model/BackendRun.h"
#include "model/Report.h"
#include "trace/KernelLinks.h"
#include "trace/TimeAttribution.h"

#include <memory>
#include <optional>
#include <vector>

namespace fusescope {

// What the engine hands to the UI: immutable, shared, never written again by anyone. A view may
// keep one as long as it likes; the engine's own state moves on without it.
using RunSnapshot = std::shared_ptr<const BackendRun>;
using ReportSnapshot = std::shared_ptr<const Report>;

// One backend's run as the views show it, with what is derived from it computed once, on the
// engine thread, when the snapshot is made (hotspot computes its bottom-up and caller/callee data
// once per parse in the same way): the views read these, they never recompute them. The derived
// records point into `run` (stage pointers, node ids), so they share its lifetime: hand them out
// with timeOf()/linksOf(), which keep the whole view alive.
struct RunView {
    RunSnapshot run;                     // never null
    std::optional<KernelLinks> links;    // when the run has a kernel trace
    std::optional<TimeAttribution> time; // when the run has a kernel trace
    BackendRoofline roofline;            // bytes per call always; kernels when traced (docs/roofline.md)
};
using RunViewSnapshot = std::shared_ptr<const RunView>;
using RunViews = std::vector<RunViewSnapshot>; // one per backend row; null for a row not finished

// The derived records of `run`, computed here and now (the engine thread calls it).
RunViewSnapshot analyzeRun(RunSnapshot run);
// One view per backend of `report`, each sharing the report (no run is copied).
RunViews analyzeReport(const ReportSnapshot& report);

// Shared pointers into a view that keep the view (and its run) alive; null when absent.
std::shared_ptr<const TimeAttribution> timeOf(const RunViewSnapshot& view);
std::shared_ptr<const KernelLinks> linksOf(const RunViewSnapshot& view);
std::shared_ptr<const KernelTrace> traceOf(const RunViewSnapshot& view);

} // namespace fusescope
