#pragma once

#include "BackendListPane.h"
#include "ComparisonTab.h"
#include "ModelPicker.h"
#include "RunOptionsPane.h"
#include "RunStatusLine.h"
#include "capture/CompareSession.h"
#include "capture/TuneSetup.h"
#include "engine/ReportModel.h"
#include "model/Report.h"
#include "model/Result.h"
#include "model/RunRequest.h"

#include <QMainWindow>
#include <memory>

class QListWidget;
class QTabWidget;

namespace fusescope {

class BackendCharts;
class BackendListPane;
class BreaksPanel;
class ComparisonModel;
class ComparisonTab;
class Engine;
class MainMenus;
class GraphPanel;
class ModelPicker;
class ModuleAssignPanel;
class TuningPanel;
class RecommendationPanel;
class ReportModel;
class RunOptionsPane;
class RunStatusLine;
class ShapesPanel;
class TracePanel;
class WorkloadOptions;

// The comparison window: it lays out the views and routes the user's actions. The engine thread
// (core/engine/Engine) runs the comparisons and reads and writes reports; the ReportModel holds
// the report shown, and every view subscribes to it itself (docs/architecture.md).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void setModelSpec(const QString& spec) { m_modelCombo->setSpec(spec); }
    void setBackends(const QStringList& names) { m_backends->setBackends(names); }
    void startRun();
    // A tuning of the model with the Options pane's settings (Run > Tune..., docs/tuning.md);
    // the Tuning tab shows it as it goes and when it ends.
    void startTune(const TuneSettings& settings);
    // Stops the run (or the run still waiting for the probe); what finished stays.
    void cancelRun();
    // Opens a report and waits for the engine's answer (the command line, tests); the menus and
    // drops open without waiting. False, with the problem in the status line, when it is refused.
    bool openReport(const QString& path);
    // The status line's text (what the last open, run or export said).
    QString statusText() const { return m_status->text(); }

    const Report& report() const { return m_reportModel->report(); }
    ReportModel* reportModel() const { return m_reportModel; }
    ComparisonModel* comparisonModel() const { return m_comparison->model(); }
    GraphPanel* graphPanel() const { return m_graphs; }
    BackendCharts* charts() const { return m_charts; }
    TracePanel* tracePanel() const { return m_traces; }
    RecommendationPanel* recommendationPanel() const { return m_comparison->recommendation(); }
    BreaksPanel* breaksPanel() const { return m_breaks; }
    ShapesPanel* shapesPanel() const { return m_shapes; }
    ModuleAssignPanel* modulesPanel() const { return m_modules; }
    WorkloadOptions* workloadOptions() const { return m_options->workload(); }
    QStringList checkedBackends() const { return m_backends->checkedBackends(); }
    QListWidget* backendList() const { return m_backends->list(); }
    // BackendListPane::setEntryVariant: a row's mode/options changed, or added as a new entry.
    Status setEntryVariant(int row, const QString& label, bool addAsNew) {
        return m_backends->setEntryVariant(row, label, addAsNew);
    }
    // The request every backend of the next run starts from, or what is wrong with the options.
    Result<RunRequest> baseRequest() const { return m_options->baseRequest(m_modelCombo->spec()); }
    // The request a run or a tuning starts from, or nullopt with the problem in the status line
    // (no model, a model path that is not a model, a bad option).
    std::optional<RunRequest> runnableRequest();
    // Opens whatever a user hands over: a .fscope report, or a model file / spec to run.
    void openPath(const QString& path);
    // Switches to the Graphs tab on a backend's stages.
    void showGraphs(const QString& backend);
    // A tab by its title: comparison, graphs, charts, traces, breaks, shapes or modules.
    void showTab(const QString& name);
    bool isRunning() const { return m_reportModel->running(); }
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
    void buildLayout();
    void routeActions();
    void subscribeToReport();
    void probeBackends();
    void onReportOpened(const QString& path);
    void onKernelSelected(const QString& name);
    void updateRunState();
    void setStatus(const QString& text);

    std::unique_ptr<Engine> m_engine;
    ReportModel* m_reportModel = nullptr;
    ModelPicker* m_modelCombo = nullptr;
    BackendListPane* m_backends = nullptr;
    RunOptionsPane* m_options = nullptr;
    QTabWidget* m_tabs = nullptr;
    ComparisonTab* m_comparison = nullptr;
    GraphPanel* m_graphs = nullptr;
    BackendCharts* m_charts = nullptr;
    TracePanel* m_traces = nullptr;
    BreaksPanel* m_breaks = nullptr;
    ShapesPanel* m_shapes = nullptr;
    ModuleAssignPanel* m_modules = nullptr;
    TuningPanel* m_tuning = nullptr;
    bool m_tuneStarted = false; // the run in progress is a tuning: its end shows the Tuning tab
    RunStatusLine* m_status = nullptr;
    MainMenus* m_menus = nullptr;
    bool m_probing = false;
    bool m_runAfterProbe = false;
    std::optional<TuneSettings> m_tuneAfterProbe; // a tuning asked for while the probe ran
};

} // namespace fusescope
