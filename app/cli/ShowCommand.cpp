#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "analysis/Summary.h"
#include "codec/Json.h"
#include "report/ReportFile.h"

#include <cstdio>
#include <iostream>

namespace fusescope::cli {

std::optional<Report> openReportPrintingNotes(const std::string& path) {
    auto report = readReport(path);
    if (!report) {
        std::fprintf(stderr, "error: %s\n", report.error().message.c_str());
        return std::nullopt;
    }
    for (const auto& note : report.value().readNotes)
        std::fprintf(stderr, "note: report %s: %s\n", path.c_str(), note.c_str());
    return std::move(report.value());
}

int runShow(const std::string& path, bool json, const SummaryOptions& summary) {
    const auto report = openReportPrintingNotes(path);
    if (!report)
        return kExitError;
    if (json)
        std::cout << codec::dumpJson(summaryJson(*report, summary), 2) << std::endl;
    else
        std::cout << comparisonTable(*report, summary);
    return kExitOk;
}

} // namespace fusescope::cli
