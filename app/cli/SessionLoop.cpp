#include "SessionLoop.h"

#include "ProgressPrinter.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>

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

bool runSessionLoop(CompareSession& session, const std::vector<std::string>& backends, const RunRequest& base,
                    const SessionLoopOptions& options) {
    ProgressPrinter progress(static_cast<int>(backends.size()), !options.quiet,
                             options.progressJson ? ProgressPrinter::Style::Json
                                                  : ProgressPrinter::Style::Text);
    QObject::connect(&session, &CompareSession::backendAdded, [&](int) { progress.added(); });
    QObject::connect(&session, &CompareSession::backendStarted, [&](int index) {
        std::string name = session.report().backends[index].name;
        if (session.currentRound() > 1) // the tuner's revisit of a finished row
            name += " (round " + std::to_string(session.currentRound()) + ")";
        progress.started(index, name);
    });
    QObject::connect(&session, &CompareSession::backendEvent,
                     [&](int, const StreamEvent& ev) { progress.event(ev); });
    QObject::connect(&session, &CompareSession::backendFinished, [&](int index) {
        const auto& run = session.report().backends[index];
        progress.finished(index, run.name, toString(run.status),
                          run.error ? run.error->message : std::string());
        // Saved after every backend: an interrupted or crashed session keeps what finished.
        if (session.running())
            saveReport(session.report(), options.out, true);
    });
    QObject::connect(&session, &CompareSession::finished, qApp, &QCoreApplication::quit);

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

    session.start(backends, base);
    QCoreApplication::exec();
    return saveReport(session.report(), options.out, options.quiet);
}

} // namespace fusescope::cli
