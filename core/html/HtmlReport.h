#pragma once

#include "analysis/Recommendation.h"
#include "model/Report.h"

#include <string>

namespace fusescope::html {

// The self-contained HTML report (docs/html-report.md): one file that opens offline in any
// browser. No network request of any kind: styles and the one small script are inline, charts
// and graphs are inline SVG, and a Content-Security-Policy forbids loading anything else. Every
// string from the report is escaped (Markup.h): no report can put markup or script into the page.
struct HtmlOptions {
    Goal goal = Goal::Latency;
    int maxVisible = 60;         // boxes per graph, as the GUI opens a stage
    int maxGraphsPerBackend = 4; // Dynamo graphs drawn per backend; the rest are counted
    int maxTimeRows = 15;        // rows of "time by module" and of the roofline's kernels per backend
};

std::string htmlReport(const Report& report, const HtmlOptions& options = {});

} // namespace fusescope::html
