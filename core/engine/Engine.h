#pragma once

#include "capture/BackendFamily.h"
#include "model/Report.h"
#include "model/RunRequest.h"

#include <QObject>
#include <QThread>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusescope {

// What the engine hands to the UI: immutable, shared, never written again by anyone. A view may
// keep one as long as it likes; the engine's own state moves on without it.
using RunSnapshot = std::shared_ptr<const BackendRun>;
using ReportSnapshot = std::shared_ptr<const Report>;

class EngineWorker;

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
    // Cancels the session current when the request is served: requests are served in order, so
    // it is the run asked for last.
    void cancelRun();
    // Reads a report; `ticket` comes back with reportOpened or openFailed. A failed open changes
    // nothing: a run in progress goes on.
    void openReport(const std::string& path, quint64 ticket);
    void saveReport(ReportSnapshot report, const std::string& path);
    // The next run creates its families afresh (another Python was chosen); a finished session
    // that still points at the old ones goes first.
    void reloadFamilies();

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
    void backendFinished(quint64 generation, int row, fusescope::RunSnapshot run,
                         fusescope::ReportSnapshot header);
    void runFinished(quint64 generation);
    void reportOpened(quint64 generation, quint64 ticket, fusescope::ReportSnapshot report,
                      const std::string& path);
    void openFailed(quint64 ticket, const std::string& path, const std::string& message);
    // `error` empty when the report was written.
    void saved(const std::string& path, const std::string& error);

private:
    FamilyFactory m_makeFamilies;
    QThread m_thread;
    EngineWorker* m_worker = nullptr; // lives on m_thread, deleted when it finishes
};

} // namespace fusescope

Q_DECLARE_METATYPE(fusescope::RunSnapshot)
Q_DECLARE_METATYPE(fusescope::ReportSnapshot)
Q_DECLARE_METATYPE(std::vector<fusescope::BackendInfo>)
