#include "MainWindow.h"

#include "BackendCharts.h"
#include "BackendEntryDialog.h"
#include "BreaksPanel.h"
#include "DiffWindow.h"
#include "ComparisonModel.h"
#include "GraphPanel.h"
#include "ModuleAssignPanel.h"
#include "PythonSetting.h"
#include "RecentFiles.h"
#include "RecommendationPanel.h"
#include "ShapesPanel.h"
#include "SuiteView.h"
#include "TracePanel.h"
#include "WidgetExport.h"
#include "WorkloadOptions.h"
#include "analysis/Format.h"
#include "analysis/RunWarnings.h"
#include "capture/CompileOptions.h"
#include "files/PathChecks.h"
#include "report/ReportFile.h"

#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QVBoxLayout>

namespace fusescope {

namespace {

const QStringList kDefaultBackends = {"eager", "aot_eager", "inductor"};
const QStringList kModelChoices = {"demo:mlp",  "demo:cnn", "demo:transformer",
                                   "hf:bert",   "hf:gpt2",  "hf:llama",
                                   "hf:resnet", "hf:t5",    "hf:vit"};

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Why `path` cannot be run as a model (a directory, a FIFO, a name that is not UTF-8), or empty.
// Qt reads a file name's invalid bytes as U+FFFD, and that name then reaches no file.
QString modelPathProblem(const QString& path) {
    if (path.contains(QChar::ReplacementCharacter) && !QFileInfo::exists(path))
        return MainWindow::tr("The name of %1 is not valid UTF-8 (FuseScope keeps paths as UTF-8 text): "
                              "rename the file.")
            .arg(path);
    if (auto bad = files::checkModelPath(QFile::encodeName(path).toStdString()))
        return q(bad->message);
    return {};
}

// settings["workload"] of a report, or null (reports written before workloads have none).
nlohmann::json workloadSettings(const Report& report) {
    if (!report.settings.is_object() || !report.settings.contains("workload"))
        return nullptr;
    return report.settings["workload"];
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_families(createBackendFamilies()) {
    setWindowTitle("FuseScope");
    m_report = &m_empty;
    m_model = new ComparisonModel(this);
    m_model->setReport(m_report);
    buildActions();
    buildLayout();
    updateRunState();
    resize(1440, 800);
    probeBackends();
}

MainWindow::~MainWindow() {
    if (m_session)
        m_session->cancel();
}

void MainWindow::buildActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* openModel = file->addAction(tr("Open &Model..."), this, &MainWindow::openModelDialog);
    openModel->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    auto* openReport = file->addAction(tr("&Open Report..."), this, &MainWindow::openReportDialog);
    openReport->setShortcut(QKeySequence::Open);
    m_saveAction = file->addAction(tr("&Save Report As..."), this, &MainWindow::saveReportDialog);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addAction(tr("&Compare with Report..."), this, [this] { openDiffDialog(this); });
    file->addSeparator();
    auto* exportGraph = file->addAction(tr("&Export Graph..."), this, [this] { m_graphs->exportPrimary(); });
    exportGraph->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addAction(tr("Export Right-Hand Graph..."), this, [this] { m_graphs->exportSecondary(); });
    auto* exportWindow = file->addAction(tr("Export &Window..."), this, &MainWindow::exportWindowDialog);
    exportWindow->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run Comparison"), this, &MainWindow::startRun);
    m_runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    m_cancelAction = run->addAction(tr("&Cancel"), this, &MainWindow::cancelRun);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    run->addSeparator();
    run->addAction(tr("&Python Interpreter..."), this, &MainWindow::choosePython);

    auto* view = menuBar()->addMenu(tr("&View"));
    auto* find = view->addAction(tr("&Find Node..."), this, [this] {
        m_tabs->setCurrentWidget(m_graphs);
        m_graphs->focusSearch();
    });
    find->setShortcut(QKeySequence::Find);
    auto* next = view->addAction(tr("Find &Next"), this, [this] { m_graphs->findNext(); });
    next->setShortcut(QKeySequence::FindNext);
    auto* prev = view->addAction(tr("Find &Previous"), this, [this] { m_graphs->findPrevious(); });
    prev->setShortcut(QKeySequence::FindPrevious);
    auto* table = view->addAction(tr("&Comparison"), this, [this] { m_tabs->setCurrentIndex(0); });
    table->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    auto* graphs = view->addAction(tr("&Graphs"), this, [this] { m_tabs->setCurrentWidget(m_graphs); });
    graphs->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    auto* charts = view->addAction(tr("C&harts"), this, [this] { m_tabs->setCurrentWidget(m_charts); });
    charts->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    auto* traces = view->addAction(tr("&Traces"), this, [this] { m_tabs->setCurrentWidget(m_traces); });
    traces->setShortcut(QKeySequence(Qt::ALT | Qt::Key_4));
    auto* breaks = view->addAction(tr("&Breaks"), this, [this] { m_tabs->setCurrentWidget(m_breaks); });
    breaks->setShortcut(QKeySequence(Qt::ALT | Qt::Key_5));
    auto* shapes = view->addAction(tr("&Shapes"), this, [this] { m_tabs->setCurrentWidget(m_shapes); });
    shapes->setShortcut(QKeySequence(Qt::ALT | Qt::Key_6));
    auto* modules = view->addAction(tr("&Modules"), this, [this] { m_tabs->setCurrentWidget(m_modules); });
    modules->setShortcut(QKeySequence(Qt::ALT | Qt::Key_7));
    auto* recommendation = view->addAction(tr("&Recommendation Goal"), this, [this] {
        m_tabs->setCurrentIndex(0);
        m_recommendation->goalBox()->setFocus();
    });
    recommendation->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = RecentFiles::load();
    for (const QString& entry : recent)
        m_recentMenu->addAction(entry, this, [this, entry] { openPath(entry); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::openPath(const QString& path) {
    if (path.endsWith(".fscope")) {
        openReport(path);
        return;
    }
    if (isSweepDir(path)) { // a sweep folder: the Suite view (docs/sweeps.md)
        showSuiteTab(m_tabs, path, [this](const QString& report) { openPath(report); });
        return;
    }
    if (const QString problem = modelPathProblem(path); !problem.isEmpty()) {
        QMessageBox::warning(this, tr("Cannot use this model"), problem);
        m_statusLabel->setText(problem);
        return;
    }
    setModelSpec(QFileInfo::exists(path) ? QFileInfo(path).absoluteFilePath() : path);
    m_statusLabel->setText(tr("Model %1 selected: press Ctrl+R to run.").arg(path));
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

void MainWindow::exportWindowDialog() {
    ExportTarget target;
    if (!askExportTarget(this, tr("Export Window"), target))
        return;
    QString error;
    if (!exportWidget(this, target.path, target.scale, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        m_statusLabel->setText(tr("Exported %1").arg(target.path));
}

void MainWindow::setViewsReport(const Report* report) {
    m_model->setReport(report);
    m_graphs->setReport(report);
    m_charts->setReport(report);
    m_traces->setReport(report);
    m_recommendation->setReport(report);
    m_breaks->setReport(report);
    m_shapes->setReport(report);
    refreshSummaries();
}

void MainWindow::refreshSummaries() {
    m_recommendation->refresh();
    m_breaks->refresh();
    m_shapes->refresh();
    // The model's submodules arrive with the first backend that loaded it.
    const std::vector<ModuleInfo>* modules = &m_report->model.modules;
    for (const auto& run : m_report->backends)
        if (modules->empty() && run.model && !run.model->modules.empty())
            modules = &run.model->modules;
    const QString modelName = q(m_report->model.name.empty() ? m_report->modelSpec : m_report->model.name);
    m_modules->setModules(*modules, modelName);
    m_workloadLabel->setText(tr("Workload: %1").arg(workloadSummary(workloadSettings(*m_report))));
    m_workloadLabel->setVisible(!m_report->backends.empty());
}

void MainWindow::showWorkloadOf(const Report& report) {
    m_workload->showSettings(workloadSettings(report), report.search.is_object());
}

void MainWindow::showRunSettingsOf(const Report& report) {
    // Ctrl+R after opening a report runs the same comparison again: its rows (search candidates
    // come back from the search box, not as rows) and its run-wide options.
    // A run-wide torch.compile mode (`--compile-mode`) has no field here: it goes onto the
    // torch.compile rows that have no mode of their own, as NAME@MODE.
    const auto& options = report.settings.value("options", nlohmann::json::object());
    const auto mode = options.value("mode", nlohmann::json(nullptr));
    QStringList names;
    for (const auto& run : report.backends) {
        if (report.search.is_object() && isMixedLabel(run.name))
            continue;
        auto entry = parseBackendEntry(run.name);
        if (mode.is_string() && !isMixedLabel(run.name) && entry && entry.value().mode.empty() &&
            isTorchCompileBackend(entry.value().backend)) {
            entry.value().mode = mode.get<std::string>();
            names << q(formatBackendEntry(entry.value()));
        } else {
            names << q(run.name);
        }
    }
    if (!names.isEmpty())
        setBackends(names);
    m_fullgraph->setChecked(options.value("fullgraph", false));
    const auto placement = report.settings.value("placement", nlohmann::json::object());
    const auto threads = placement.value("threads", nlohmann::json());
    m_threads->setValue(threads.is_number_integer() ? threads.get<int>() : 0); // 0: auto
    const auto dynamic = options.value("dynamic", nlohmann::json(nullptr));
    m_dynamic->setCurrentText(dynamic.is_boolean() ? (dynamic.get<bool>() ? "true" : "false") : "auto");
    m_inductorConfig->setText(q(formatInductorOptions(options.value("inductor", nlohmann::json::object()))));
    m_trace->setChecked(
        std::any_of(report.backends.begin(), report.backends.end(),
                    [](const BackendRun& run) { return run.trace.has_value() || !run.traceInfo.is_null(); }));
}

void MainWindow::addBackendEntry(const QString& label) {
    QStringList names = checkedBackends();
    if (!names.contains(label))
        names << label;
    setBackends(names);
    m_statusLabel->setText(tr("%1 added to the backends: press Ctrl+R to run.").arg(label));
}

bool MainWindow::isTorchCompileBackend(const std::string& backend) const {
    const auto family = std::find_if(m_families.begin(), m_families.end(),
                                     [&backend](const auto& f) { return f->handles(backend); });
    return family != m_families.end() && (*family)->id() == "torch_compile";
}

Status MainWindow::setEntryVariant(int row, const QString& label, bool addAsNew) {
    auto* item = m_backendList->item(row);
    if (!item || !(item->flags() & Qt::ItemIsUserCheckable))
        return Error{"bad_option", "no backend entry to change there"};
    auto entry = parseBackendEntry(label.toStdString());
    if (!entry)
        return entry.error();
    const auto& e = entry.value();
    if ((!e.mode.empty() || e.hasOptions()) && !isTorchCompileBackend(e.backend))
        return Error{"bad_option",
                     e.backend + " is not a torch.compile backend: it takes no mode or options"};
    const QString canonical = q(formatBackendEntry(e));
    // Two rows of one label would be one row twice in the report.
    if (!m_backendList->findItems(canonical, Qt::MatchExactly).isEmpty() &&
        (addAsNew || canonical != item->text()))
        return Error{"bad_option", "the list already has " + canonical.toStdString()};
    if (addAsNew) {
        auto* added = new QListWidgetItem(canonical);
        added->setFlags(item->flags());
        added->setCheckState(Qt::Checked);
        m_backendList->insertItem(row + 1, added);
        m_backendList->setCurrentItem(added);
    } else {
        item->setText(canonical);
        item->setCheckState(Qt::Checked);
    }
    updateModuleBackendChoices();
    m_statusLabel->setText(tr("%1 is in the backends: press Ctrl+R to run.").arg(canonical));
    return std::nullopt;
}

void MainWindow::editEntryOptions(QListWidgetItem* item) {
    if (!item)
        return;
    if (!(item->flags() & Qt::ItemIsUserCheckable)) {
        m_statusLabel->setText(tr("%1: %2").arg(item->text(), item->toolTip()));
        return;
    }
    auto entry = parseBackendEntry(item->text().toStdString());
    if (!entry || isMixedLabel(item->text().toStdString())) {
        m_statusLabel->setText(tr("%1 has no mode or options to edit").arg(item->text()));
        return;
    }
    if (!isTorchCompileBackend(entry.value().backend)) {
        m_statusLabel->setText(tr("%1 is not a torch.compile backend: it takes no mode or options")
                                   .arg(q(entry.value().backend)));
        return;
    }
    BackendEntryDialog dialog(entry.value(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (auto problem = setEntryVariant(m_backendList->row(item), dialog.label(), dialog.addAsNew()))
        m_statusLabel->setText(q(problem->message));
}

void MainWindow::updateModuleBackendChoices() {
    // Submodules can only get torch.compile backends (docs/workloads.md, "Mixed backends").
    QStringList choices;
    for (int i = 0; i < m_backendList->count(); ++i) {
        const auto* item = m_backendList->item(i);
        const std::string name = item->text().toStdString();
        // Submodules take NAME or NAME@MODE (docs/workloads.md): entries with {options} stay out.
        if (!(item->flags() & Qt::ItemIsUserCheckable) || isMixedLabel(name) || !isAssignableEntry(name))
            continue;
        if (isTorchCompileBackend(parseBackendEntry(name).value().backend))
            choices << item->text();
    }
    m_modules->setBackendChoices(choices);
}

void MainWindow::onKernelSelected(const QString& name) {
    const int shown = m_traces->shownBackend();
    if (shown < 0 || shown >= static_cast<int>(m_report->backends.size()))
        return;
    const int nodes = m_graphs->showKernel(q(m_report->backends[shown].name), name);
    m_statusLabel->setText(nodes > 0
                               ? tr("Kernel %1 came from %2 nodes: see Graphs (Alt+2)").arg(name).arg(nodes)
                               : tr("Kernel %1: no provenance for it in this backend's stages").arg(name));
}

QString MainWindow::statusText() const {
    return m_statusLabel->text();
}

void MainWindow::showTab(const QString& name) {
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->tabText(i).compare(name, Qt::CaseInsensitive) == 0)
            m_tabs->setCurrentIndex(i);
}

void MainWindow::showGraphs(const QString& backend) {
    m_graphs->showBackend(backend);
    m_tabs->setCurrentWidget(m_graphs);
}

void MainWindow::showGraphsOf(const QModelIndex& proxyIndex) {
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    if (!source.isValid())
        return;
    m_graphs->showBackend(q(m_report->backends[source.row()].name));
    m_tabs->setCurrentWidget(m_graphs);
}

void MainWindow::buildLayout() {
    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->addWidget(new QLabel(tr(" Model: ")));
    m_modelCombo = new QComboBox;
    m_modelCombo->setEditable(true);
    m_modelCombo->addItems(kModelChoices);
    m_modelCombo->setMinimumContentsLength(28);
    m_modelCombo->setToolTip(tr("A demo, an hf: architecture, or a path to a .py or TorchScript .pt file"));
    toolbar->addWidget(m_modelCombo);
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_cancelAction);

    m_backendList = new QListWidget;
    m_backendList->setToolTip(tr("Backends to run, in order. Unavailable ones say why."));
    for (const auto& name : kDefaultBackends) {
        auto* item = new QListWidgetItem(name, m_backendList);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    auto* addBackend = new QLineEdit;
    addBackend->setPlaceholderText(tr("Add a backend (e.g. inductor@max-autotune{fullgraph})"));
    addBackend->setToolTip(
        tr("Any registered torch.compile backend, e.g. aot_eager_decomp_partition, as "
           "NAME[@MODE][{OPTION,...}]; Enter adds it. Double-click or F2 on a row edits its "
           "mode and options."));
    m_backendList->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_backendList, &QListWidget::itemDoubleClicked, this, &MainWindow::editEntryOptions);
    auto* editOptions = new QAction(tr("Mode and Options..."), m_backendList);
    editOptions->setShortcut(Qt::Key_F2);
    editOptions->setShortcutContext(Qt::WidgetShortcut);
    connect(editOptions, &QAction::triggered, this,
            [this] { editEntryOptions(m_backendList->currentItem()); });
    m_backendList->addAction(editOptions);
    connect(m_backendList, &QWidget::customContextMenuRequested, this, [this, editOptions](const QPoint& at) {
        auto* item = m_backendList->itemAt(at);
        if (!item)
            return;
        m_backendList->setCurrentItem(item);
        QMenu menu;
        menu.addAction(editOptions);
        auto* remove = menu.addAction(tr("Remove Entry"));
        if (menu.exec(m_backendList->viewport()->mapToGlobal(at)) == remove)
            delete m_backendList->takeItem(m_backendList->row(item));
    });
    connect(addBackend, &QLineEdit::returnPressed, this, [this, addBackend] {
        const QString name = addBackend->text().trimmed();
        if (name.isEmpty())
            return;
        if (auto entry = parseBackendEntry(name.toStdString()); !entry) {
            m_statusLabel->setText(q(entry.error().message));
            return; // the text stays for the user to fix
        }
        QStringList names = checkedBackends();
        if (!names.contains(name))
            names << name;
        setBackends(names);
        addBackend->clear();
    });
    auto* backendPane = new QWidget;
    auto* backendLayout = new QVBoxLayout(backendPane);
    backendLayout->setContentsMargins(0, 0, 0, 0);
    backendLayout->addWidget(m_backendList);
    backendLayout->addWidget(addBackend);
    auto* options = new QGroupBox(tr("Options"));
    auto* form = new QFormLayout(options);
    m_fullgraph = new QCheckBox(tr("fullgraph"));
    m_fullgraph->setToolTip(tr("torch.compile(fullgraph=True): a graph break fails the backend"));
    m_dynamic = new QComboBox;
    m_dynamic->addItems({"auto", "true", "false"});
    m_dynamic->setToolTip(tr("torch.compile(dynamic=...)"));
    m_inductorConfig = new QLineEdit;
    m_inductorConfig->setPlaceholderText(tr("key=value, ..."));
    m_inductorConfig->setToolTip(
        tr("Inductor options (torch.compile(options=...)); values as JSON, else strings"));
    m_trace = new QCheckBox(tr("Record kernel traces"));
    m_trace->setToolTip(tr("Trace 5 extra iterations per backend (PyTorch profiler on CPU, CUPTI on CUDA)"));
    m_trace->setChecked(true);
    form->addRow(m_fullgraph);
    form->addRow(tr("dynamic"), m_dynamic);
    form->addRow(tr("Inductor"), m_inductorConfig);
    form->addRow(m_trace);
    m_threads = new QSpinBox;
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("auto"));
    m_threads->setToolTip(tr("torch intra-op threads in the worker (--threads). auto: one CPU fewer than the "
                             "worker may use, so a busy core never leaves a thread spin-waiting"));
    form->addRow(tr("Threads"), m_threads);
    m_workload = new WorkloadOptions;
    form->addRow(m_workload);
    backendLayout->addWidget(options);
    connect(m_backendList->model(), &QAbstractItemModel::rowsInserted, this,
            &MainWindow::updateModuleBackendChoices);
    connect(m_backendList->model(), &QAbstractItemModel::rowsRemoved, this,
            &MainWindow::updateModuleBackendChoices);
    connect(m_backendList->model(), &QAbstractItemModel::dataChanged, this,
            &MainWindow::updateModuleBackendChoices);
    auto* dock = new QDockWidget(tr("Backends"), this);
    dock->setObjectName("backendsDock");
    dock->setWidget(backendPane);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ComparisonModel::SortRole);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    // Run order until the user asks for another.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_proxy->sort(-1);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::showDetails);

    m_details = new QPlainTextEdit;
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->setPlaceholderText(tr("Select a backend to see its stages, errors and worker log."));

    m_workloadLabel = new QLabel;
    m_workloadLabel->setVisible(false);
    m_workloadLabel->setToolTip(
        tr("What every backend of this comparison ran (Options: Mode, Precision, Shapes)"));
    auto* tablePane = new QWidget;
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_workloadLabel);
    tableLayout->addWidget(m_table, 1);
    m_recommendation = new RecommendationPanel;
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(tablePane);
    splitter->addWidget(m_recommendation);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 2);
    connect(m_table, &QTableView::doubleClicked, this, &MainWindow::showGraphsOf);

    m_graphs = new GraphPanel;
    m_graphs->setReport(m_report);
    m_tabs = new QTabWidget;
    m_tabs->addTab(splitter, tr("Comparison"));
    m_tabs->addTab(m_graphs, tr("Graphs"));
    m_charts = new BackendCharts;
    m_charts->setReport(m_report);
    m_tabs->addTab(m_charts, tr("Charts"));
    m_traces = new TracePanel;
    m_traces->setReport(m_report);
    m_tabs->addTab(m_traces, tr("Traces"));
    connect(m_traces, &TracePanel::kernelSelected, this, &MainWindow::onKernelSelected);
    m_breaks = new BreaksPanel;
    m_tabs->addTab(m_breaks, tr("Breaks"));
    m_shapes = new ShapesPanel;
    m_tabs->addTab(m_shapes, tr("Shapes"));
    m_modules = new ModuleAssignPanel;
    m_tabs->addTab(m_modules, tr("Modules"));
    const QStringList tips = {tr("Alt+1"),
                              tr("Alt+2"),
                              tr("Alt+3"),
                              tr("Alt+4"),
                              tr("Alt+5: graph breaks and their source"),
                              tr("Alt+6: latency per input shape"),
                              tr("Alt+7: pick backends per submodule for a mixed run")};
    for (int i = 0; i < m_tabs->count() && i < tips.size(); ++i)
        m_tabs->setTabToolTip(i, tips[i]);
    connect(m_graphs, &GraphPanel::breakActivated, this, [this](const QString& backend, int index) {
        m_breaks->showBreak(backend, index);
        m_tabs->setCurrentWidget(m_breaks);
    });
    connect(m_breaks, &BreaksPanel::showGraphRequested, this, [this](const QString& backend, int graph) {
        if (m_graphs->showDynamoGraph(backend, graph))
            m_tabs->setCurrentWidget(m_graphs);
        else
            m_statusLabel->setText(tr("%1 has no captured Dynamo graph %2").arg(backend).arg(graph));
    });
    connect(m_modules, &ModuleAssignPanel::mixedRunRequested, this, &MainWindow::addBackendEntry);
    updateModuleBackendChoices();
    setCentralWidget(m_tabs);
    setAcceptDrops(true);

    m_statusLabel = new QLabel(tr("Ready"));
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(260);
    m_progress->setRange(0, 1000);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
}

void MainWindow::probeBackends() {
    // Listing backends starts a Python worker (seconds): do it off the UI thread and merge the
    // answer in when it arrives, unless the window is gone by then.
    QPointer<MainWindow> self(this);
    m_probing = true;
    QThread* thread = QThread::create([self] {
        // The thread owns its families: the window (and its own) may be gone before it ends.
        const auto families = createBackendFamilies();
        std::vector<BackendInfo> all;
        for (const auto& family : families) {
            auto found = family->probe();
            all.insert(all.end(), found.begin(), found.end());
        }
        QMetaObject::invokeMethod(qApp, [self, all] {
            if (!self)
                return;
            for (const auto& info : all) {
                const QString name = q(info.name);
                auto matches = self->m_backendList->findItems(name, Qt::MatchExactly);
                QListWidgetItem* item = matches.isEmpty() ? nullptr : matches.front();
                const bool hidden = std::any_of(info.tags.begin(), info.tags.end(), [](const std::string& t) {
                    return t == "debug" || t == "experimental";
                });
                // Debug and experimental backends stay out of the list, as torch's own
                // list_backends() hides them; they can be added by name below it.
                if (!item && hidden)
                    continue;
                if (!item) {
                    item = new QListWidgetItem(name, self->m_backendList);
                    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                    item->setCheckState(Qt::Unchecked);
                }
                item->setToolTip(info.available ? q(info.family) : q("unavailable: " + info.reason));
                if (!info.available) {
                    item->setForeground(Qt::gray);
                    item->setCheckState(Qt::Unchecked);
                    item->setFlags(item->flags() & ~Qt::ItemIsUserCheckable);
                    item->setText(name + " (unavailable)");
                }
            }
            self->probeFinished();
        });
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void MainWindow::choosePython() {
    if (isRunning() || m_probing) {
        m_statusLabel->setText(
            tr("The Python interpreter can change once the run or the backend probe is over."));
        return;
    }
    PythonDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    for (auto& family : m_families)
        m_retiredFamilies.push_back(std::move(family));
    m_families = createBackendFamilies();
    // What the old environment could not run may run in the new one: the probe marks it again.
    for (int i = 0; i < m_backendList->count(); ++i) {
        QListWidgetItem* item = m_backendList->item(i);
        if (!item->text().endsWith(" (unavailable)"))
            continue;
        item->setText(item->text().chopped(int(qstrlen(" (unavailable)"))));
        item->setForeground(palette().text());
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    }
    m_statusLabel->setText(tr("Python: %1; probing its backends...")
                               .arg(dialog.chosen().isEmpty() ? tr("the default") : dialog.chosen()));
    probeBackends();
}

void MainWindow::probeFinished() {
    m_probing = false;
    if (m_runAfterProbe) {
        m_runAfterProbe = false;
        startRun();
    }
}

QStringList MainWindow::checkedBackends() const {
    QStringList out;
    for (int i = 0; i < m_backendList->count(); ++i)
        if (m_backendList->item(i)->checkState() == Qt::Checked)
            out << m_backendList->item(i)->text();
    return out;
}

void MainWindow::setModelSpec(const QString& spec) {
    const int idx = m_modelCombo->findText(spec);
    if (idx < 0)
        m_modelCombo->insertItem(0, spec);
    m_modelCombo->setCurrentText(spec);
}

void MainWindow::setBackends(const QStringList& names) {
    // The named entries go to the top, checked, in the given order (the run order); the rest stay
    // below, unchecked. Unavailable backends keep their greyed row.
    int at = 0;
    for (const auto& name : names) {
        if (!m_backendList->findItems(name + " (unavailable)", Qt::MatchExactly).isEmpty())
            continue;
        const auto found = m_backendList->findItems(name, Qt::MatchExactly);
        if (!found.isEmpty() && m_backendList->row(found.front()) < at)
            continue; // named twice: one row
        QListWidgetItem* item =
            found.isEmpty() ? nullptr : m_backendList->takeItem(m_backendList->row(found.front()));
        if (!item) {
            item = new QListWidgetItem(name);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        }
        m_backendList->insertItem(at++, item);
        item->setCheckState(Qt::Checked);
    }
    for (int i = at; i < m_backendList->count(); ++i)
        m_backendList->item(i)->setCheckState(Qt::Unchecked);
}

void MainWindow::startRun() {
    if (isRunning())
        return;
    if (m_probing) {
        // Two Python processes on a 2-core machine distort each other's timings: the first
        // backend would be measured while the probe imports torch.
        m_runAfterProbe = true;
        m_statusLabel->setText(tr("Waiting for the backend probe to finish before measuring..."));
        return;
    }
    const QStringList backends = checkedBackends();
    const QString model = m_modelCombo->currentText().trimmed();
    if (model.isEmpty() || backends.isEmpty()) {
        m_statusLabel->setText(tr("Choose a model and at least one backend."));
        return;
    }
    if (const QString problem = modelPathProblem(model); !problem.isEmpty()) {
        m_statusLabel->setText(problem);
        return;
    }
    auto request = baseRequest();
    if (!request) {
        m_statusLabel->setText(q(request.error().message));
        if (!m_workload->shapesProblem().isEmpty())
            m_workload->shapesEdit()->setFocus();
        return;
    }
    const RunRequest base = request.value();
    m_session = std::make_unique<CompareSession>(familyPointers(m_families));
    m_session->setSearchAssignments(m_workload->searchAssignments());
    std::vector<std::string> names;
    for (const auto& b : backends)
        names.push_back(b.toStdString());

    connect(m_session.get(), &CompareSession::backendAdded, this, [this](int row) {
        m_model->backendsAdded();
        m_charts->backendUpdated(row);
        m_traces->backendChanged(row);
        m_recommendation->refresh();
    });
    connect(m_session.get(), &CompareSession::backendStarted, this, [this](int row) {
        m_model->backendChanged(row);
        // The run streams into the job's BackendRun until it finishes: chart that one live.
        m_charts->setLiveRun(row, m_session->liveRun());
        m_statusLabel->setText(tr("Running %1...").arg(q(m_session->report().backends[row].name)));
    });
    connect(m_session.get(), &CompareSession::backendEvent, this, [this](int row, const StreamEvent& ev) {
        if (ev.kind == StreamEvent::Kind::Samples) {
            m_charts->samplesArrived(row);
            return;
        }
        if (ev.kind != StreamEvent::Kind::Progress)
            return;
        m_model->setLiveStatus(
            row, q(ev.phase) + (ev.fraction >= 0 ? QString(" %1%").arg(int(ev.fraction * 100)) : ""));
        // Search candidates append rows while running: the total is the report's, now.
        const double overall =
            (row + std::max(0.0, ev.fraction)) / double(m_session->report().backends.size());
        m_progress->setValue(int(overall * 1000));
        m_statusLabel->setText(tr("%1: %2").arg(q(m_session->report().backends[row].name), q(ev.message)));
    });
    connect(m_session.get(), &CompareSession::backendFinished, this, [this](int row) {
        m_model->backendChanged(row);
        m_charts->setLiveRun(row, nullptr);
        m_charts->backendUpdated(row);
        m_graphs->backendUpdated(row);
        m_traces->backendChanged(row);
        refreshSummaries();
        showDetails();
    });
    connect(m_session.get(), &CompareSession::finished, this, [this] {
        updateRunState();
        const auto& r = m_session->report();
        const auto ok = std::count_if(r.backends.begin(), r.backends.end(),
                                      [](const BackendRun& b) { return b.status == RunStatus::Ok; });
        m_statusLabel->setText(tr("Finished: %1 of %2 backends ran.").arg(ok).arg(r.backends.size()));
        if (!m_table->currentIndex().isValid())
            m_table->selectRow(0);
        emit runFinished();
    });

    m_session->start(names, base);
    m_loadedReport.reset();
    m_report = &m_session->report();
    setViewsReport(m_report);
    RecentFiles::add(model);
    rebuildRecentMenu();
    setWindowTitle(QString("FuseScope - %1 (%2)").arg(model, workloadSummary(base.workload.toProtocol())));
    updateRunState();
}

Result<RunRequest> MainWindow::baseRequest() const {
    RunRequest base;
    base.model = m_modelCombo->currentText().trimmed().toStdString();
    base.captureTrace = m_trace->isChecked();
    if (m_threads->value() > 0)
        base.placement.threads = m_threads->value();
    base.options["fullgraph"] = m_fullgraph->isChecked();
    const QString dynamic = m_dynamic->currentText();
    base.options["dynamic"] = dynamic == "auto" ? nlohmann::json(nullptr) : nlohmann::json(dynamic == "true");
    // Commas inside brackets or quotes belong to a value: x=[1,2], note="a,b".
    auto inductor = parseInductorConfig(splitBackendList(m_inductorConfig->text().toStdString()));
    if (!inductor)
        return inductor.error();
    base.options["inductor"] = inductor.value();
    auto workload = m_workload->workload();
    if (!workload)
        return workload.error();
    base.workload = workload.value();
    return base;
}

void MainWindow::cancelRun() {
    if (m_runAfterProbe) {
        m_runAfterProbe = false;
        m_statusLabel->setText(tr("Run cancelled before it started."));
    }
    if (isRunning()) {
        m_statusLabel->setText(tr("Cancelling..."));
        m_session->cancel();
    }
}

void MainWindow::updateRunState() {
    const bool running = isRunning();
    m_runAction->setEnabled(!running);
    m_cancelAction->setEnabled(running);
    m_saveAction->setEnabled(!running && !m_report->backends.empty());
    m_progress->setVisible(running);
    if (running)
        m_progress->setValue(0);
}

bool MainWindow::openReport(const QString& path) {
    auto loaded = readReport(path.toStdString());
    if (!loaded) {
        // Not modal-blocking: a damaged report on the command line (or in a test) must not stop
        // the event loop; the message names the file and the first bad field.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open report"), q(loaded.error().message),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        m_statusLabel->setText(q(loaded.error().message));
        return false;
    }
    if (isRunning())
        m_session->cancel();
    m_loadedReport = std::make_unique<Report>(std::move(loaded.value()));
    m_report = m_loadedReport.get();
    setViewsReport(m_report);
    m_reportPath = path;
    if (!m_report->modelSpec.empty())
        setModelSpec(q(m_report->modelSpec));
    showWorkloadOf(*m_report);
    showRunSettingsOf(*m_report);
    RecentFiles::add(QFileInfo(path).absoluteFilePath());
    rebuildRecentMenu();
    setWindowTitle(QString("FuseScope - %1 (%2)")
                       .arg(QFileInfo(path).fileName(), workloadSummary(workloadSettings(*m_report))));
    m_statusLabel->setText(tr("Opened %1").arg(path));
    m_table->selectRow(0);
    updateRunState();
    return true;
}

void MainWindow::openReportDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Report"), QString(),
                                                      tr("FuseScope reports (*.fscope);;All files (*)"));
    if (!path.isEmpty())
        openReport(path);
}

void MainWindow::openModelDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), QString(),
                                                      tr("Models (*.py *.pt);;All files (*)"));
    if (path.isEmpty())
        return;
    if (const QString problem = modelPathProblem(path); !problem.isEmpty()) {
        QMessageBox::warning(this, tr("Cannot use this model"), problem);
        return;
    }
    setModelSpec(path);
}

void MainWindow::saveReportDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Report"), m_reportPath,
                                                tr("FuseScope reports (*.fscope)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(".fscope"))
        path += ".fscope";
    if (auto err = writeReport(*m_report, path.toStdString())) {
        QMessageBox::warning(this, tr("Cannot save report"), q(err->message));
        return;
    }
    m_reportPath = path;
    m_statusLabel->setText(tr("Saved %1").arg(path));
}

void MainWindow::showDetails() {
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!current.isValid() || current.row() >= static_cast<int>(m_report->backends.size())) {
        m_details->clear();
        return;
    }
    const auto& run = m_report->backends[current.row()];
    QString text = QString("%1 (%2): %3\n").arg(q(run.name), q(run.family), q(toString(run.status)));
    if (run.error)
        text += QString("\nerror [%1]: %2\n").arg(q(run.error->code), q(run.error->message));
    for (const auto& note : run.notes)
        text += QString("\nnote: %1\n").arg(q(note));
    for (const auto& w : runWarnings(run))
        text += QString("\nwarning [%1]: %2\n").arg(q(w.code), q(w.message));
    if (run.placement) {
        QStringList cpus;
        for (int cpu : run.placement->affinity)
            cpus << QString::number(cpu);
        text += QString("\nthreads: %1%2, CPUs %3%4\n")
                    .arg(run.placement->threads)
                    .arg(run.placement->threadsRequested ? "" : " (default)")
                    .arg(cpus.join(','))
                    .arg(run.placement->pin.empty() ? "" : " (pinned)");
    }
    if (run.accuracy)
        text += QString("\naccuracy: max abs %1, max rel %2, cosine %3, rule %4 at %5: %6\n")
                    .arg(run.accuracy->maxAbs)
                    .arg(run.accuracy->maxRel)
                    .arg(run.accuracy->cosine, 0, 'f', 6)
                    .arg(q(run.accuracy->rule))
                    .arg(run.accuracy->tolerance)
                    .arg(run.accuracy->pass ? "pass" : "FAIL") +
                (run.accuracy->pass
                     ? QString()
                     : QString("accuracy status: %1%2\n")
                           .arg(q(accuracyStatus(*run.accuracy)),
                                run.accuracy->reason.empty() ? QString() : ": " + q(run.accuracy->reason)));
    if (!run.memoryMethod.empty())
        text += QString("memory: %1 (eager %2), method %3\n")
                    .arg(q(format::bytes(run.peakMemoryBytes)), q(format::bytes(run.eagerPeakMemoryBytes)),
                         q(run.memoryMethod));
    if (!run.stages.empty()) {
        text += "\nstages:\n";
        for (const auto& s : run.stages) {
            text += QString("  %1  %2 nodes").arg(q(s.key()), -16).arg(s.computeNodeCount());
            if (s.fusion == "after")
                text += QString(", %1 kernels").arg(s.kernelCount());
            if (s.status != StageStatus::Ok)
                text += QString("  [%1: %2]").arg(q(toString(s.status)), q(s.reason));
            text += "\n";
        }
    }
    for (const auto& b : run.breakReasons)
        text += QString("graph break: %1 (%2:%3)\n").arg(q(b.reason), q(b.file)).arg(b.line);
    if (run.error && !run.error->traceback.empty())
        text += "\ntraceback:\n" + q(run.error->traceback);
    if (!run.log.empty())
        text += "\nworker log (tail):\n" +
                q(run.log.size() > 4000 ? run.log.substr(run.log.size() - 4000) : run.log);
    m_details->setPlainText(text);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (isRunning())
        m_session->cancel();
    event->accept();
}

} // namespace fusescope
