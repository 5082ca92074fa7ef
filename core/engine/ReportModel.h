#pragma once

#include "Engine.h"

#include <QObject>
#include <QString>
#include <functional>
#include <map>
#include <vector>

namespace fusescope {

// The report the window shows, on the UI thread (RenderDoc's CaptureContext): either a report
// opened from a file or the one a run is filling in. It takes the engine's snapshots of the
// current generation and drops the rest, so a run cancelled by opening a file can never touch
// the new report. Views subscribe to its signals themselves and read report(); after
// reportReset() they must re-read everything (the report may be another object).
class ReportModel : public QObject {
    Q_OBJECT
public:
    explicit ReportModel(Engine& engine, QObject* parent = nullptr);
    ~ReportModel() override;

    const Report& report() const { return *m_report; }
    // The generation of the report shown: the engine's session that produced it.
    quint64 generation() const { return m_generation; }
    // A run was asked for or is in progress (false once it finished or a report replaced it).
    bool running() const { return m_running; }
    // The running backend's samples so far, or null when `row` is not running.
    const BackendRun* liveRun(int row) const;
    // Row `row`'s final run with its derived records (time on the graph, kernel links), computed
    // once on the engine thread; null while the row has not finished. Keep it as long as needed.
    RunViewSnapshot runView(int row) const;
    // One per row of report() (null for rows not finished).
    const RunViews& runViews() const { return m_views; }
    // A large report was opened without its stage graphs and they are being read: every row's
    // `stages` is empty until the whole report replaces it: reportReset(), then stagesLoaded().
    Q_INVOKABLE bool stagesPending() const { return m_stagesPending; }
    // The file the report was opened from or last saved to, else empty.
    QString path() const { return m_path; }
    // Snapshots of an older generation that arrived and were dropped.
    int droppedSnapshots() const { return m_dropped; }

    void startRun(std::vector<std::string> backends, RunRequest base, bool searchAssignments);
    // A tuning of `base`'s model (docs/tuning.md): a run whose rows the tuner chooses; tuneFailed
    // when it cannot start.
    void startTune(RunRequest base, TuneSettings settings);
    void cancelRun();
    // Asks the engine to read `path`; the ticket comes back with opened() or openFailed().
    quint64 open(const QString& path);
    void save(const QString& path);
    // The report shown as one self-contained HTML page (docs/html-report.md), laid out and written
    // on the engine thread; htmlExported() follows.
    void exportHtml(const QString& path);

signals:
    void reportReset();
    void backendAdded(int row);
    void backendStarted(int row);
    void backendProgress(int row, const QString& phase, double fraction, const QString& message);
    void samplesArrived(int row);
    void backendFinished(int row);
    // The stages of a report opened without them have arrived (stagesPending() is now false).
    void stagesLoaded();
    void runFinished();
    void tuneFailed(const QString& message);
    void opened(quint64 ticket, const QString& path);
    void openFailed(quint64 ticket, const QString& path, const QString& message);
    void saved(const QString& path);
    void saveFailed(const QString& path, const QString& message);
    void htmlExported(const QString& path, const QString& error); // error empty when written

private:
    // The report shown as a snapshot for the engine: shared when opened, copied once when a run's.
    ReportSnapshot snapshot() const;
    // Whether a snapshot of `generation` belongs to the report shown; counts the ones dropped.
    bool isCurrent(quint64 generation);
    // The report shown becomes `live` (a run) or `opened`, and every view is told.
    void replace(ReportSnapshot opened, const Report* live, RunViews views, bool stagesFollow = false);

    Engine& m_engine;
    ReportSnapshot m_opened; // a report read from a file: shared with the engine, never copied
    bool m_stagesPending = false;
    std::vector<std::function<void()>> m_afterStages; // saves asked for while the stages were read
    Report m_live;                                    // the report of a run, assembled from its snapshots
    Report m_empty;
    const Report* m_report = &m_empty;
    std::map<int, BackendRun> m_liveRuns; // node addresses are stable: views keep the pointer
    RunViews m_views;
    quint64 m_generation = 0;
    quint64 m_nextTicket = 0;
    QString m_path;
    bool m_running = false;
    int m_dropped = 0;
};

} // namespace fusescope
