#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "analysis/Summary.h"
#include "report/ReportFile.h"

#include <cstdio>
#include <iostream>

namespace fusescope::cli {

int runShow(const std::string& path, bool json, const SummaryOptions& summary) {
    auto report = readReport(path);
    if (!report) {
        std::fprintf(stderr, "error: %s\n", report.error().message.c_str());
        return kExitError;
    }
    if (json)
        std::cout << summaryJson(report.value(), summary).dump(2) << std::endl;
    else
        std::cout << comparisonTable(report.value(), summary);
    return kExitOk;
}

} // namespace fusescope::cli
