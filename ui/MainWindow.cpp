#include "MainWindow.h"

#include "BackendCharts.h"
#include "BackendDetails.h"
#include "BackendListPane.h"
#include "BreaksPanel.h"
#include "ComparisonModel.h"
#include "ComparisonTab.h"
#include "DiffWindow.h"
#include "GraphPanel.h"
#include "MainMenus.h"
#include "ModelPicker.h"
#include "ModuleAssignPanel.h"
#include "PythonSetting.h"
#include "RecentFiles.h"
#include "RecommendationPanel.h"
#include "Registry.h"
#include "RunOptionsPane.h"
#include "RunStatusLine.h"
#include "ShapesPanel.h"
#include "SuiteView.h"
#include "TracePanel.h"
#include "TuneDialog.h"
#include "TuningPanel.h"
#include "WorkloadOptions.h"
#include "engine/Engine.h"
#include "engine/ReportModel.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_engine(std::make_unique<Engine>(&createBackendFamilies)) {
    setWindowTitle("FuseScope");
    m_reportModel = new ReportModel(*m_engine, this);
    m_menus = new MainMenus(this, m_reportModel);
    connect(m_menus, &MainMenus::compareRequested, this,
            [this] { openDiffDialog(this, *m_engine, m_reportModel->path()); });
    buildLayout();
    routeActions();
    subscribeToReport();
    updateRunState();
    resize(1440, 800);
    probeBackends();
}

// The engine goes first (its destructor cancels the run and joins its thread); the views go after.
MainWindow::~MainWindow() = default;

void MainWindow::routeActions() {
    connect(m_menus, &MainMenus::runRequested, this, &MainWindow::startRun);
    connect(m_menus, &MainMenus::tuneRequested, this, [this] {
        TuneDialog dialog(this);
        if (dialog.exec() == QDialog::Accepted)
            if (auto settings = dialog.settings())
                startTune(settings.value());
    });
    connect(m_menus, &MainMenus::cancelRequested, this, &MainWindow::cancelRun);
    connect(m_menus, &MainMenus::pythonRequested, this, &MainWindow::choosePython);
    connect(m_menus, &MainMenus::pathChosen, this, &MainWindow::openPath);
    connect(m_menus, &MainMenus::reportChosen, m_reportModel,
            [this](const QString& path) { m_reportModel->open(path); });
    connect(m_menus, &MainMenus::modelChosen, this, &MainWindow::setModelSpec);
    // Written on the engine thread; saved() or saveFailed() says how it went.
    connect(m_menus, &MainMenus::saveChosen, m_reportModel,
            [this](const QString& path) { m_reportModel->save(path); });
    // Laid out and written on the engine thread (a large report takes a while); htmlExported()
    // says how it went.
    connect(m_menus, &MainMenus::exportHtmlChosen, m_reportModel, [this](const QString& path) {
        setStatus(tr("Writing %1...").arg(path));
        m_reportModel->exportHtml(path);
    });
    connect(m_menus, &MainMenus::exportGraphRequested, m_graphs,
            [this](bool rightHand) { rightHand ? m_graphs->exportSecondary() : m_graphs->exportPrimary(); });
    connect(m_menus, &MainMenus::findNodeRequested, this, [this] {
        m_tabs->setCurrentWidget(m_graphs);
        m_graphs->focusSearch();
    });
    connect(m_menus, &MainMenus::findNextRequested, m_graphs, &GraphPanel::findNext);
    connect(m_menus, &MainMenus::findPreviousRequested, m_graphs, &GraphPanel::findPrevious);
    connect(m_menus, &MainMenus::tabRequested, m_tabs, &QTabWidget::setCurrentIndex);
    connect(m_menus, &MainMenus::goalRequested, this, [this] {
        m_tabs->setCurrentIndex(0);
        recommendationPanel()->goalBox()->setFocus();
    });
    connect(m_menus, &MainMenus::message, this, &MainWindow::setStatus);
}

void MainWindow::buildLayout() {
    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->addWidget(new QLabel(tr(" Model: ")));
    m_modelCombo = new ModelPicker;
    toolbar->addWidget(m_modelCombo);
    toolbar->addAction(m_menus->runAction());
    toolbar->addAction(m_menus->tuneAction());
    toolbar->addAction(m_menus->cancelAction());

    auto* backendPane = new QWidget;
    auto* backendLayout = new QVBoxLayout(backendPane);
    backendLayout->setContentsMargins(0, 0, 0, 0);
    m_backends = new BackendListPane(*m_engine);
    m_options = new RunOptionsPane;
    backendLayout->addWidget(m_backends, 1);
    backendLayout->addWidget(m_options);
    connect(m_backends, &BackendListPane::message, this, &MainWindow::setStatus);
    auto* dock = new QDockWidget(tr("Backends"), this);
    dock->setObjectName("backendsDock");
    dock->setWidget(backendPane);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_tabs = new QTabWidget;
    m_comparison = new ComparisonTab;
    m_tabs->addTab(m_comparison, tr("Comparison"));
    connect(m_comparison, &ComparisonTab::graphsRequested, this, &MainWindow::showGraphs);
    connect(m_comparison, &ComparisonTab::addRowRequested, m_backends, &BackendListPane::addEntry);
    m_graphs = new GraphPanel;
    m_tabs->addTab(m_graphs, tr("Graphs"));
    m_charts = new BackendCharts;
    m_tabs->addTab(m_charts, tr("Charts"));
    m_traces = new TracePanel;
    m_tabs->addTab(m_traces, tr("Traces"));
    m_breaks = new BreaksPanel;
    m_tabs->addTab(m_breaks, tr("Breaks"));
    m_shapes = new ShapesPanel;
    m_tabs->addTab(m_shapes, tr("Shapes"));
    m_modules = new ModuleAssignPanel;
    m_tabs->addTab(m_modules, tr("Modules"));
    m_tuning = new TuningPanel;
    m_tabs->addTab(m_tuning, tr("Tuning"));
    connect(m_tuning, &TuningPanel::graphsRequested, this, &MainWindow::showGraphs);
    connect(m_tuning, &TuningPanel::message, this, &MainWindow::setStatus);
    const QStringList tips = {tr("Alt+1"),
                              tr("Alt+2"),
                              tr("Alt+3"),
                              tr("Alt+4"),
                              tr("Alt+5: graph breaks and their source"),
                              tr("Alt+6: latency per input shape"),
                              tr("Alt+7: pick backends per submodule for a mixed run"),
                              tr("Alt+8: a tune report's candidates, answer and snippet")};
    for (int i = 0; i < m_tabs->count() && i < tips.size(); ++i)
        m_tabs->setTabToolTip(i, tips[i]);
    setCentralWidget(m_tabs);
    setAcceptDrops(true);

    // Cross-view navigation: a kernel to its nodes, a break to its source and back.
    connect(m_traces, &TracePanel::kernelSelected, this, &MainWindow::onKernelSelected);
    connect(m_graphs, &GraphPanel::breakActivated, this, [this](const QString& backend, int index) {
        m_breaks->showBreak(backend, index);
        m_tabs->setCurrentWidget(m_breaks);
    });
    connect(m_breaks, &BreaksPanel::showGraphRequested, this, [this](const QString& backend, int graph) {
        if (m_graphs->showDynamoGraph(backend, graph))
            m_tabs->setCurrentWidget(m_graphs);
        else
            setStatus(tr("%1 has no captured Dynamo graph %2").arg(backend).arg(graph));
    });
    connect(m_modules, &ModuleAssignPanel::mixedRunRequested, m_backends, &BackendListPane::addEntry);
    auto updateChoices = [this] { m_modules->setBackendChoices(m_backends->assignableEntries()); };
    connect(m_backends, &BackendListPane::entriesChanged, this, updateChoices);
    updateChoices();

    m_status = new RunStatusLine;
    statusBar()->addWidget(m_status, 1);
}

void MainWindow::subscribeToReport() {
    // Each view follows the report itself; the window only keeps its own lines up to date.
    m_comparison->subscribe(m_reportModel);
    m_status->subscribe(m_reportModel);
    m_graphs->subscribe(m_reportModel);
    m_charts->subscribe(m_reportModel);
    m_traces->subscribe(m_reportModel);
    m_breaks->subscribe(m_reportModel);
    m_shapes->subscribe(m_reportModel);
    m_modules->subscribe(m_reportModel);
    m_tuning->subscribe(m_reportModel);
    const ReportModel* rm = m_reportModel;
    connect(rm, &ReportModel::reportReset, this, &MainWindow::updateRunState);
    connect(rm, &ReportModel::runFinished, this, [this] {
        updateRunState();
        m_comparison->selectFirstRow(true);
        if (m_tuneStarted && report().tuning) {
            m_tabs->setCurrentWidget(m_tuning);
            setStatus(q(report().tuning->verdict));
        }
        m_tuneStarted = false;
        emit runFinished();
    });
    connect(rm, &ReportModel::tuneFailed, this, [this](const QString& message) {
        m_tuneStarted = false;
        updateRunState();
        setStatus(tr("Tune: %1").arg(message));
    });
    connect(rm, &ReportModel::opened, this, [this](quint64, const QString& path) { onReportOpened(path); });
    connect(rm, &ReportModel::openFailed, this, [this](quint64, const QString&, const QString& message) {
        // Not modal-blocking: a damaged report on the command line (or in a test) must not stop
        // the event loop; the message names the file and the first bad field.
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Cannot open report"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(rm, &ReportModel::saveFailed, this, [this](const QString&, const QString& message) {
        QMessageBox::warning(this, tr("Cannot save report"), message);
    });
    connect(rm, &ReportModel::htmlExported, this, [this](const QString& path, const QString& error) {
        if (error.isEmpty())
            setStatus(tr("Exported %1: one self-contained page, opens offline in any browser").arg(path));
        else
            QMessageBox::warning(this, tr("Cannot export the HTML report"), error);
    });
}

void MainWindow::probeBackends() {
    m_probing = true;
    connect(
        m_engine.get(), &Engine::probed, this,
        [this](const std::vector<BackendInfo>& backends) {
            m_backends->applyProbe(backends);
            m_probing = false;
            if (m_runAfterProbe) {
                m_runAfterProbe = false;
                startRun();
            } else if (auto tune = std::exchange(m_tuneAfterProbe, std::nullopt)) {
                startTune(*tune);
            }
        },
        Qt::SingleShotConnection);
    m_engine->probe();
}

void MainWindow::choosePython() {
    if (isRunning() || m_probing) {
        setStatus(tr("The Python interpreter can change once the run or the backend probe is over."));
        return;
    }
    PythonDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_engine->reloadFamilies();
    // What the old environment could not run may run in the new one: the probe marks it again.
    m_backends->forgetAvailability();
    setStatus(tr("Python: %1; probing its backends...")
                  .arg(dialog.chosen().isEmpty() ? tr("the default") : dialog.chosen()));
    probeBackends();
}

void MainWindow::openPath(const QString& path) {
    if (path.endsWith(".fscope")) {
        m_reportModel->open(path);
        return;
    }
    if (isSweepDir(path)) { // a sweep folder: the Suite view (docs/sweeps.md)
        showSuiteTab(m_tabs, *m_engine, path, [this](const QString& report) { openPath(report); });
        return;
    }
    if (const QString problem = modelPathProblem(path); !problem.isEmpty()) {
        QMessageBox::warning(this, tr("Cannot use this model"), problem);
        setStatus(problem);
        return;
    }
    setModelSpec(QFileInfo::exists(path) ? QFileInfo(path).absoluteFilePath() : path);
    setStatus(tr("Model %1 selected: press Ctrl+R to run.").arg(path));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    openPath(urls.front().toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::onKernelSelected(const QString& name) {
    const int shown = m_traces->shownBackend();
    if (shown < 0 || shown >= static_cast<int>(report().backends.size()))
        return;
    const int nodes = m_graphs->showKernel(q(report().backends[shown].name), name);
    setStatus(nodes > 0 ? tr("Kernel %1 came from %2 nodes: see Graphs (Alt+2)").arg(name).arg(nodes)
                        : tr("Kernel %1: no provenance for it in this backend's stages").arg(name));
}

void MainWindow::setStatus(const QString& text) {
    m_status->setText(text);
}

void MainWindow::showTab(const QString& name) {
    if (name.compare(QLatin1String("roofline"), Qt::CaseInsensitive) == 0) {
        m_traces->showRoofline();
        m_tabs->setCurrentWidget(m_traces);
        return;
    }
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->tabText(i).compare(name, Qt::CaseInsensitive) == 0)
            m_tabs->setCurrentIndex(i);
}

void MainWindow::showGraphs(const QString& backend) {
    m_graphs->showBackend(backend);
    m_tabs->setCurrentWidget(m_graphs);
}

void MainWindow::startRun() {
    if (isRunning())
        return;
    if (m_probing) {
        // Two Python processes on a 2-core machine distort each other's timings: the first
        // backend would be measured while the probe imports torch.
        m_runAfterProbe = true;
        setStatus(tr("Waiting for the backend probe to finish before measuring..."));
        return;
    }
    const QStringList backends = checkedBackends();
    const QString model = m_modelCombo->spec();
    if (backends.isEmpty()) {
        setStatus(tr("Choose a model and at least one backend."));
        return;
    }
    auto request = runnableRequest();
    if (!request)
        return;
    std::vector<std::string> names;
    for (const auto& b : backends)
        names.push_back(b.toStdString());
    m_reportModel->startRun(names, *request, workloadOptions()->searchAssignments());
    RecentFiles::add(model);
    m_menus->rebuildRecent();
    setWindowTitle(QString("FuseScope - %1 (%2)").arg(model, workloadSummary(request->workload)));
    updateRunState();
}

std::optional<RunRequest> MainWindow::runnableRequest() {
    const QString model = m_modelCombo->spec();
    if (model.isEmpty()) {
        setStatus(tr("Choose a model first."));
        return std::nullopt;
    }
    if (const QString problem = modelPathProblem(model); !problem.isEmpty()) {
        setStatus(problem);
        return std::nullopt;
    }
    auto request = baseRequest();
    if (!request) {
        setStatus(q(request.error().message));
        if (!workloadOptions()->shapesProblem().isEmpty())
            workloadOptions()->shapesEdit()->setFocus();
        return std::nullopt;
    }
    return request.value();
}

void MainWindow::startTune(const TuneSettings& settings) {
    if (isRunning())
        return;
    if (m_probing) { // as startRun: never measure beside the probe's Python
        m_tuneAfterProbe = settings;
        setStatus(tr("Waiting for the backend probe to finish before tuning..."));
        return;
    }
    const QString model = m_modelCombo->spec();
    auto request = runnableRequest();
    if (!request)
        return;
    m_tuneStarted = true;
    m_reportModel->startTune(*request, settings);
    setStatus(tr("Tuning %1 for %2 within %3 s: finding the backends available here...")
                  .arg(model, QString::fromLatin1(toString(settings.goal)))
                  .arg(settings.budgetSeconds, 0, 'f', 0));
    m_tabs->setCurrentWidget(m_tuning);
    RecentFiles::add(model);
    m_menus->rebuildRecent();
    setWindowTitle(QString("FuseScope - %1 (tuning)").arg(model));
    updateRunState();
}

void MainWindow::cancelRun() {
    if (m_runAfterProbe || m_tuneAfterProbe) {
        m_runAfterProbe = false;
        m_tuneAfterProbe.reset();
        setStatus(tr("Run cancelled before it started."));
    }
    if (isRunning()) {
        setStatus(tr("Cancelling..."));
        m_reportModel->cancelRun();
    }
}

void MainWindow::updateRunState() {
    const bool running = isRunning();
    m_menus->setRunState(running, !report().backends.empty());
    m_status->setRunning(running);
}

bool MainWindow::openReport(const QString& path) {
    const quint64 ticket = m_reportModel->open(path);
    QEventLoop loop;
    bool opened = false;
    connect(m_reportModel, &ReportModel::opened, &loop, [&](quint64 answered) {
        if (answered == ticket) {
            opened = true;
            loop.quit();
        }
    });
    connect(m_reportModel, &ReportModel::openFailed, &loop, [&](quint64 answered) {
        if (answered == ticket)
            loop.quit();
    });
    loop.exec();
    return opened;
}

void MainWindow::onReportOpened(const QString& path) {
    const Report& opened = report();
    // An imported log or trace (docs/import.md) names its file, not a model Run could load.
    const bool imported = opened.generator.ends_with("(import)");
    if (!opened.modelSpec.empty() && !imported)
        setModelSpec(q(opened.modelSpec));
    // Ctrl+R after opening a report runs the same comparison again: its rows and its options.
    m_backends->showEntriesOf(opened);
    m_options->showSettingsOf(opened);
    RecentFiles::add(QFileInfo(path).absoluteFilePath());
    m_menus->rebuildRecent();
    setWindowTitle(
        QString("FuseScope - %1 (%2)")
            .arg(QFileInfo(path).fileName(), workloadSummary(opened.settings.workload.value_or(Workload{}))));
    setStatus(tr("Opened %1").arg(path));
    m_comparison->selectFirstRow(false);
    updateRunState();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (isRunning())
        m_reportModel->cancelRun();
    event->accept();
}

} // namespace fusescope
