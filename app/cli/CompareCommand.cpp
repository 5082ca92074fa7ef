#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "Registry.h"
#include "SessionLoop.h"
#include "analysis/Summary.h"
#include "capture/CompareSession.h"
#include "codec/Json.h"

#include <cstdio>
#include <iostream>

namespace fusescope::cli {

int runCompare(const CompareOptions& options) {
    auto families = createBackendFamilies();
    CompareSession session(familyPointers(families));
    session.setSearchAssignments(options.plan.searchAssignments);
    const bool saved = runSessionLoop(session, options.plan.backends, options.plan.base,
                                      {options.out, options.quiet, options.progressJson});

    const Report& report = session.report();
    if (options.json)
        std::cout << codec::dumpJson(summaryJson(report, options.summary), 2) << std::endl;
    else
        std::cout << comparisonTable(report, options.summary);

    // --out was checked before the run; should the write still fail, the run's results are lost
    // and the exit code says so, whatever the backends did.
    if (!saved) {
        std::fprintf(stderr, "error: the report was not saved to %s\n", options.out.c_str());
        return kExitError;
    }
    const bool cancelled = std::any_of(report.backends.begin(), report.backends.end(),
                                       [](const BackendRun& r) { return r.status == RunStatus::Cancelled; });
    if (cancelled)
        return kExitCancelled;
    switch (completionOf(report)) {
    case Completion::Complete:
        return kExitOk;
    case Completion::Partial:
        return kExitPartial;
    case Completion::Failed:
        return kExitAllFailed;
    }
    return kExitAllFailed;
}

} // namespace fusescope::cli
