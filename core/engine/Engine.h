#pragma once

#include "RunView.h"
#include "analysis/RunDiff.h"
#include "analysis/Suite.h"
#include "capture/BackendFamily.h"
#include "capture/TuneSetup.h"
#include "model/Report.h"
#include "model/RunRequest.h"

#include <QObject>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusescope {

// A run's row handed over to the one receiver that keeps it by value (ReportModel's live report):
// a copy made on the engine thread that nobody else holds, so the receiver moves it instead of
// copying it on its own thread. A receiver that finds it shared (use_count() > 1) copies.
using RunHandover = std::shared_ptr<BackendRun>;

// Two reports read and diffed for the Diff window (docs/diff.md).
struct DiffRequest {
    std::string pathA, pathB;
    std::string backendA, backendB; // empty: every backend the two share
    std::string labelA, labelB;     // how the diff names each side
};
struct DiffLoad {
    ReportSnapshot a, b;                    // null when that side could not be read
    std::vector<std::string> errors;        // "A: <why>", "B: <why>", each naming the file
    std::optional<Result<ReportDiff>> diff; // when both were read
};
using DiffLoadSnapshot = std::shared_ptr<const DiffLoad>;
using SuiteSnapshot = std::shared_ptr<const Result<Suite>>;

class EngineWorker;
class EngineLoader;
struct EngineFamilies;

// The engine thread (RenderDoc's ReplayManager: one owner thread, tagged requests). It owns the
// backend families, the comparison session and its jobs, so worker stdout is parsed, reports are
// read and written and analysis runs there, never on the caller's thread. Requests are queued and
// served in order; results come back as signals carrying snapshots tagged with the session
// generation that made them (hotspot's JobTracker). A new run or a successfully opened report
// starts a new generation: the old session is disconnected and cancelled first, so nothing of it
// is emitted afterwards, and a receiver drops anything tagged with an older generation anyway.
//
// Every signal is emitted on the engine thread; connect receivers living on another thread
// (queued delivery, the default across threads).
class Engine : public QObject {
    Q_OBJECT
public:
    using FamilyFactory = std::function<std::vector<std::unique_ptr<BackendFamily>>()>;

    // The families are created on the engine thread, once, by `makeFamilies`.
    explicit Engine(FamilyFactory makeFamilies, QObject* parent = nullptr);
    // Cancels the session (its worker processes end with it) and joins the thread.
    ~Engine() override;

    // Requests; each returns at once.
    // Lists every family's backends (seconds: it starts workers) and answers with probed().
    void probe();
    void startRun(std::vector<std::string> backends, RunRequest base, bool searchAssignments);
    // A tuning (docs/tuning.md) of `base`'s model: the families probed on the engine thread, then
    // the tuner's rows and rounds as a run; tuneFailed when the space leaves nothing to run.
    void startTune(RunRequest base, TuneSettings settings);
    // Cancels the session current when the request is served: requests are served in order, so
    // it is the run asked for last.
    void cancelRun();
    // Reads a report; `ticket` comes back with reportOpened or openFailed. A failed open changes
    // nothing: a run in progress goes on.
    void openReport(const std::string& path, quint64 ticket);
    void saveReport(ReportSnapshot report, const std::string& path);
    // The report as one self-contained HTML page (docs/html-report.md), laid out and written on
    // the load thread; answered by htmlExported.
    void exportHtml(ReportSnapshot report, const std::string& path);
    // The next run creates its families afresh (another Python was chosen); a finished session
    // that still points at the old ones goes first.
    void reloadFamilies();
    // Reads two reports and diffs them (diffLoaded); reads a sweep folder (suiteLoaded). Neither
    // touches the session or the report shown, and both run on the engine's load thread, so a
    // large one never delays a run. Each returns the ticket its answer carries: tickets are unique
    // per engine, so any number of windows can share it.
    quint64 loadDiff(DiffRequest request);
    quint64 loadSuite(std::string dir);

    // The id of the family that would run `backend` ("torch_compile", "libtorch", "tvm"), or ""
    // when none takes it. Any thread; answered by the engine's own families (created on first use
    // by whichever thread asks first, again after reloadFamilies), never by a second set. Safe
    // while a session runs because handles() and id() read nothing a run changes.
    std::string familyOf(const std::string& backend) const;

signals:
    void probed(const std::vector<fusescope::BackendInfo>& backends);
    // A new run: its report with one pending row per backend.
    void runStarted(quint64 generation, fusescope::ReportSnapshot report);
    void backendAdded(quint64 generation, int row, const std::string& label);
    void backendStarted(quint64 generation, int row);
    void backendProgress(quint64 generation, int row, const std::string& phase, double fraction,
                         const std::string& message);
    // Samples the running backend measured since the last call (live charts).
    void samplesArrived(quint64 generation, int row, const std::vector<double>& eager,
                        const std::vector<double>& compiled);
    // A row's final state, with what the report learnt meanwhile (model, environment, search):
    // `header` is the session's report without its backends.
    // `view` is the row's final run with its derived records (RunView); `handover` is the same run
    // handed over for a receiver that keeps runs by value.
    void backendFinished(quint64 generation, int row, fusescope::RunViewSnapshot view,
                         fusescope::ReportSnapshot header, fusescope::RunHandover handover);
    void runFinished(quint64 generation);
    // startTune could not start: the space file or the space is bad (no run was started).
    void tuneFailed(const std::string& message);
    // The report read, with one view per backend (their runs point into `report`, nothing copied).
    // `stagesFollow`: a large report was read without its stage graphs (report/ReportFile.h,
    // DeferredStages); stagesLoaded brings the whole report next, in the same generation.
    void reportOpened(quint64 generation, quint64 ticket, fusescope::ReportSnapshot report,
                      fusescope::RunViews views, const std::string& path, bool stagesFollow);
    // The opened report again, with its stages, and views derived from it.
    void stagesLoaded(quint64 generation, fusescope::ReportSnapshot report, fusescope::RunViews views);
    void openFailed(quint64 ticket, const std::string& path, const std::string& message);
    // `error` empty when the report was written.
    void saved(const std::string& path, const std::string& error);
    void htmlExported(const std::string& path, const std::string& error); // error empty when written
    void diffLoaded(quint64 ticket, fusescope::DiffLoadSnapshot load);
    void suiteLoaded(quint64 ticket, fusescope::SuiteSnapshot suite);

private:
    FamilyFactory m_makeFamilies;
    std::shared_ptr<EngineFamilies> m_families; // shared with the worker; guarded by its mutex
    QThread m_loadThread;                       // diff, suite and HTML loads (EngineLoader)
    EngineLoader* m_loader = nullptr;
    std::atomic<quint64> m_nextLoadTicket{0};
    QThread m_thread;
    EngineWorker* m_worker = nullptr; // lives on m_thread, deleted when it finishes
};

} // namespace fusescope

Q_DECLARE_METATYPE(fusescope::RunSnapshot)
Q_DECLARE_METATYPE(fusescope::ReportSnapshot)
Q_DECLARE_METATYPE(fusescope::RunViewSnapshot)
Q_DECLARE_METATYPE(fusescope::RunViews)
Q_DECLARE_METATYPE(fusescope::RunHandover)
Q_DECLARE_METATYPE(fusescope::DiffLoadSnapshot)
Q_DECLARE_METATYPE(fusescope::SuiteSnapshot)
Q_DECLARE_METATYPE(std::vector<fusescope::BackendInfo>)
