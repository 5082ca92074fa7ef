#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "ProgressPrinter.h"
#include "Registry.h"
#include "analysis/Summary.h"
#include "capture/CompareSession.h"
#include "codec/Json.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

namespace fusescope::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void onSignal(int) {
    g_interrupted = true;
}

// False when the report was asked for and could not be written.
bool saveReport(const Report& report, const std::string& path, bool quiet) {
    if (path.empty())
        return true;
    if (auto err = writeReport(report, path)) {
        std::fprintf(stderr, "error: %s\n", err->message.c_str());
        return false;
    }
    if (!quiet)
        std::fprintf(stderr, "report saved to %s\n", path.c_str());
    return true;
}

} // namespace

int runCompare(const CompareOptions& options) {
    auto families = createBackendFamilies();
    CompareSession session(familyPointers(families));
    session.setSearchAssignments(options.plan.searchAssignments);
    ProgressPrinter progress(static_cast<int>(options.plan.backends.size()), !options.quiet,
                             options.progressJson ? ProgressPrinter::Style::Json
                                                  : ProgressPrinter::Style::Text);

    QObject::connect(&session, &CompareSession::backendAdded, [&](int) { progress.added(); });
    QObject::connect(&session, &CompareSession::backendStarted,
                     [&](int index) { progress.started(index, session.report().backends[index].name); });
    QObject::connect(&session, &CompareSession::backendEvent,
                     [&](int, const StreamEvent& ev) { progress.event(ev); });
    QObject::connect(&session, &CompareSession::backendFinished, [&](int index) {
        const auto& run = session.report().backends[index];
        progress.finished(index, run.name, toString(run.status),
                          run.error ? run.error->message : std::string());
        // Saved after every backend: an interrupted or crashed session keeps what finished.
        if (!session.running() || index + 1 < static_cast<int>(session.report().backends.size()))
            saveReport(session.report(), options.out, true);
    });
    QObject::connect(&session, &CompareSession::finished, qApp, &QCoreApplication::quit);

    // Ctrl+C cancels the run in progress, then the report of what finished is written.
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    QTimer interruptPoll;
    QObject::connect(&interruptPoll, &QTimer::timeout, [&] {
        if (g_interrupted.exchange(false)) {
            std::fprintf(stderr, "\ninterrupted: stopping the current backend...\n");
            session.cancel();
        }
    });
    interruptPoll.start(100);

    session.start(options.plan.backends, options.plan.base);
    QCoreApplication::exec();

    const Report& report = session.report();
    const bool saved = saveReport(report, options.out, options.quiet);
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
