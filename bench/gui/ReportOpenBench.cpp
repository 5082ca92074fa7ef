// Opening a large report in the GUI and switching to its graphs (docs/performance.md, "Opening a
// large report"). Drives the real main window, the way a user does, through the public API only
// (MainWindow::openReport, showGraphs), so the same source builds against an older tree for a
// before/after comparison in one sitting.
//
//   fusescope_bench_report_open REPORT BACKEND OTHER [ROUNDS]
//
// Prints, in milliseconds:
//   open        openReport() until the report is shown (read, derived data, every tab reset) and
//               painted: the first paint of its table and charts
//   stages      openReport() until a large report's stage graphs, read after it shows, are in
//               every view (ReportModel::stagesPending; the same as `open` for a report read whole
//               and for a tree before the two-step read)
//   call        a showGraphs() call itself: the work it does on the UI thread before returning
//   ready       from the call until every graph view it shows has its layout and has painted
// for the first switch to BACKEND, then ROUNDS (default 5) switches OTHER -> BACKEND, with the
// median and the range. The backend probe is pointed at an interpreter that does not exist so no
// Python process competes with the measurement (FUSESCOPE_PYTHON).
//
// FUSESCOPE_BENCH_EXIT=first-paint or =graphs ends the process after `open`, or after the graphs
// of BACKEND are laid out and painted, printing the wall clock (`now`, seconds since the epoch)
// first: against the time the command was started, a user's start-to-first-picture and
// start-to-graphs. It ends with _Exit, so that the engine still reading stages is not waited for.
#include "GraphPanel.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "MainWindow.h"
#include "StageCompareWidget.h"
#include "engine/ReportModel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

using namespace fusescope;

namespace {

bool layoutPending(const GraphPanel* panel) {
    if (panel->sideBySide())
        return panel->compareWidget()->beforeView()->graphScene()->isLayoutPending() ||
               panel->compareWidget()->afterView()->graphScene()->isLayoutPending();
    return panel->primaryView()->graphScene()->isLayoutPending();
}

struct Switch {
    double callMs = 0;
    double readyMs = 0;
};

// Shows `backend`'s graphs and waits until they are laid out and painted (at most 10 minutes).
Switch showAndWait(MainWindow& window, const QString& backend) {
    Switch out;
    QElapsedTimer timer;
    timer.start();
    window.showGraphs(backend);
    out.callMs = double(timer.nsecsElapsed()) / 1e6;
    while (layoutPending(window.graphPanel()) && timer.elapsed() < 600000)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    (void)window.grab(); // paints every visible widget once
    out.readyMs = double(timer.nsecsElapsed()) / 1e6;
    return out;
}

void printStats(const char* what, std::vector<double> values) {
    std::sort(values.begin(), values.end());
    std::printf("%-22s median %9.1f  min %9.1f  max %9.1f  (n=%zu)\n", what, values[values.size() / 2],
                values.front(), values.back(), values.size());
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s REPORT BACKEND OTHER [ROUNDS]\n", argv[0]);
        return 2;
    }
    qputenv("FUSESCOPE_PYTHON", "/nonexistent/fusescope-bench-python");
    QApplication app(argc, argv);
    const QString report = QString::fromLocal8Bit(argv[1]);
    const QString backend = QString::fromLocal8Bit(argv[2]), other = QString::fromLocal8Bit(argv[3]);
    const int rounds = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;

    const QByteArray exitAfter = qgetenv("FUSESCOPE_BENCH_EXIT");
    MainWindow window;
    window.resize(1440, 900);
    window.show();
    QCoreApplication::processEvents();
    QElapsedTimer timer;
    timer.start();
    if (!window.openReport(report)) {
        std::fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    (void)window.grab();
    std::printf("%-22s %9.1f\n", "open", double(timer.nsecsElapsed()) / 1e6);
    auto exitNow = [] {
        timespec now{};
        clock_gettime(CLOCK_REALTIME, &now);
        std::printf("%-22s %ld.%09ld\n", "now", static_cast<long>(now.tv_sec), now.tv_nsec);
        std::fflush(stdout);
        std::_Exit(0);
    };
    if (exitAfter == "first-paint")
        exitNow();
    // Asked by name, so that the same source builds against a tree that reads reports in one step.
    auto stagesPending = [&window] {
        bool pending = false;
        return QMetaObject::invokeMethod(window.reportModel(), "stagesPending", Qt::DirectConnection,
                                         Q_RETURN_ARG(bool, pending)) &&
               pending;
    };
    while (stagesPending() && timer.elapsed() < 600000)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    std::printf("%-22s %9.1f\n", "stages", double(timer.nsecsElapsed()) / 1e6);
    const Switch first = showAndWait(window, backend);
    if (exitAfter == "graphs") {
        std::printf("%-22s %9.1f\n", "graphs ready", double(timer.nsecsElapsed()) / 1e6);
        exitNow();
    }
    std::printf("%-22s %9.1f\n%-22s %9.1f\n", "first switch: call", first.callMs, "first switch: ready",
                first.readyMs);
    std::vector<double> calls, ready;
    for (int i = 0; i < rounds; ++i) {
        (void)showAndWait(window, other);
        const Switch s = showAndWait(window, backend);
        calls.push_back(s.callMs);
        ready.push_back(s.readyMs);
    }
    printStats("switch back: call", calls);
    printStats("switch back: ready", ready);
    return 0;
}
