#pragma once

#include "Registry.h"
#include "capture/CompareSession.h"
#include "model/Report.h"

#include <QMainWindow>
#include <memory>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPlainTextEdit;
class QProgressBar;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QAction;
class QMenu;
class QTabWidget;

namespace fusescope {

class BreaksPanel;
class ComparisonModel;
class GraphPanel;
class ModuleAssignPanel;
class RecommendationPanel;
class ShapesPanel;
class WorkloadOptions;
class BackendCharts;
class TracePanel;

// The comparison window: pick a model and backends, run, and watch each backend's row fill in as
// its run finishes. Runs happen in worker processes driven by CompareSession; nothing here blocks.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void setModelSpec(const QString& spec);
    void setBackends(const QStringList& names);
    void startRun();
    // Stops the run (or the run still waiting for the probe); what finished stays.
    void cancelRun();
    bool openReport(const QString& path);
    // The status line's text (what the last open, run or export said).
    QString statusText() const;

    const Report& report() const { return *m_report; }
    ComparisonModel* comparisonModel() const { return m_model; }
    GraphPanel* graphPanel() const { return m_graphs; }
    BackendCharts* charts() const { return m_charts; }
    TracePanel* tracePanel() const { return m_traces; }
    RecommendationPanel* recommendationPanel() const { return m_recommendation; }
    BreaksPanel* breaksPanel() const { return m_breaks; }
    ShapesPanel* shapesPanel() const { return m_shapes; }
    ModuleAssignPanel* modulesPanel() const { return m_modules; }
    WorkloadOptions* workloadOptions() const { return m_workload; }
    QStringList checkedBackends() const;
    QListWidget* backendList() const { return m_backendList; }
    // A backend-list row with its mode/options changed to `label` (an entry as
    // parseBackendEntry reads it), or, with addAsNew, the variant added checked below it. The
    // problem when the label does not parse or its backend takes no options.
    Status setEntryVariant(int row, const QString& label, bool addAsNew);
    // The request every backend of the next run starts from (model, options, workload), or what
    // is wrong with the options.
    Result<RunRequest> baseRequest() const;
    // Opens whatever a user hands over: a .fscope report, or a model file / spec to run.
    void openPath(const QString& path);
    // Switches to the Graphs tab on a backend's stages.
    void showGraphs(const QString& backend);
    // A tab by its title: comparison, graphs, charts, traces, breaks, shapes or modules.
    void showTab(const QString& name);
    bool isRunning() const { return m_session && m_session->running(); }
    // The backend probe (Python workers importing torch, TVM, Thunder) runs at start-up; a run
    // asked for meanwhile waits for it, so the probe never competes with a timed sample.
    bool isProbing() const { return m_probing; }
    bool runWaitingForProbe() const { return m_runAfterProbe; }
    // Run > Python Interpreter: the Python the workers run in (PythonSetting.h); a new choice
    // probes the backends again in that environment. Not during a run.
    void choosePython();

signals:
    void runFinished();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildActions();
    void buildLayout();
    void probeBackends();
    void probeFinished();
    void openReportDialog();
    void openModelDialog();
    void saveReportDialog();
    void exportWindowDialog();
    void rebuildRecentMenu();
    void showGraphsOf(const QModelIndex& proxyIndex);
    // Every view over the report: table, charts, graphs, traces.
    void setViewsReport(const Report* report);
    void onKernelSelected(const QString& name);
    void showDetails();
    void updateRunState();
    // The panels that summarise every backend: recommendation, breaks, shapes, modules.
    void refreshSummaries();
    void updateModuleBackendChoices();
    void addBackendEntry(const QString& label);
    void editEntryOptions(QListWidgetItem* item);
    bool isTorchCompileBackend(const std::string& backend) const;
    void showWorkloadOf(const Report& report);
    void showRunSettingsOf(const Report& report);

    std::vector<std::unique_ptr<BackendFamily>> m_families;
    // Families replaced by a Python change: a finished session may still point at them.
    std::vector<std::unique_ptr<BackendFamily>> m_retiredFamilies;
    std::unique_ptr<CompareSession> m_session;
    std::unique_ptr<Report> m_loadedReport;
    const Report* m_report = nullptr;
    Report m_empty;

    ComparisonModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QComboBox* m_modelCombo = nullptr;
    QListWidget* m_backendList = nullptr;
    QCheckBox* m_fullgraph = nullptr;
    QComboBox* m_dynamic = nullptr;
    QLineEdit* m_inductorConfig = nullptr;
    QCheckBox* m_trace = nullptr;
    QSpinBox* m_threads = nullptr; // 0 shows "auto": the worker's default (docs/measurement.md)
    QTableView* m_table = nullptr;
    QTabWidget* m_tabs = nullptr;
    GraphPanel* m_graphs = nullptr;
    BackendCharts* m_charts = nullptr;
    TracePanel* m_traces = nullptr;
    RecommendationPanel* m_recommendation = nullptr;
    BreaksPanel* m_breaks = nullptr;
    ShapesPanel* m_shapes = nullptr;
    ModuleAssignPanel* m_modules = nullptr;
    WorkloadOptions* m_workload = nullptr;
    QLabel* m_workloadLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QPlainTextEdit* m_details = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_statusLabel = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_saveAction = nullptr;
    QString m_reportPath;
    bool m_probing = false;
    bool m_runAfterProbe = false;
};

} // namespace fusescope
