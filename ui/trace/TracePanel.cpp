#include "TracePanel.h"

#include "KernelTableModel.h"
#include "RooflineChart.h"
#include "TimelineView.h"
#include "TraceCompareWidget.h"
#include "engine/ReportModel.h"
#include "trace/ChromeTraceExport.h"
#include "trace/KernelLinks.h"
#include "trace/KernelStats.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

namespace fusescope {

TracePanel::TracePanel(QWidget* parent)
    : QWidget(parent)
    , m_backendPicker(new QComboBox(this))
    , m_comparePicker(new QComboBox(this))
    , m_info(new QLabel(this))
    , m_timelines(new TraceCompareWidget(this))
    , m_table(new KernelTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_tableView(new QTableView(this))
    , m_roofline(new RooflineChart(this)) {
    m_info->setTextFormat(Qt::PlainText); // the trace's source and names come from the report
    auto* chromeButton = new QPushButton(tr("Export Chrome trace…"), this);
    chromeButton->setToolTip(tr("JSON trace that Perfetto (ui.perfetto.dev) and chrome://tracing open"));
    auto* csvButton = new QPushButton(tr("Export kernel table (CSV)…"), this);
    connect(chromeButton, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(csvButton, &QPushButton::clicked, this, [this] { exportWithDialog(false); });

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Backend:"), this));
    bar->addWidget(m_backendPicker);
    bar->addWidget(new QLabel(tr("Compare with:"), this));
    bar->addWidget(m_comparePicker);
    bar->addWidget(m_info, 1);
    bar->addWidget(chromeButton);
    bar->addWidget(csvButton);

    m_proxy->setSourceModel(m_table);
    m_proxy->setSortRole(KernelTableModel::SortRole);
    m_tableView->setModel(m_proxy);
    m_tableView->setSortingEnabled(true);
    m_tableView->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setSelectionMode(QAbstractItemView::SingleSelection);
    // The numbers keep their headers readable; the kernel name takes the rest.
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tableView->horizontalHeader()->setSectionResizeMode(KernelTableModel::Name, QHeaderView::Stretch);
    m_tableView->verticalHeader()->hide();

    // The table and the Roofline chart of the same kernels (docs/roofline.md), one selection.
    auto* below = new QTabWidget(this);
    below->addTab(m_tableView, tr("Kernels"));
    below->addTab(m_roofline, tr("Roofline"));
    below->setObjectName(QStringLiteral("traceBelowTabs"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_timelines);
    splitter->addWidget(below);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);

    connect(m_backendPicker, &QComboBox::currentIndexChanged, this, [this](int) {
        if (!m_updatingPickers)
            showBackend(m_backendPicker->currentData().toInt());
    });
    connect(m_comparePicker, &QComboBox::currentIndexChanged, this, [this](int) {
        if (!m_updatingPickers)
            compareWith(m_comparePicker->currentData().toInt());
    });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                const QString name = current.data(KernelTableModel::KernelNameRole).toString();
                m_timelines->setHighlightedKernel(name);
                m_roofline->selectKernel(name);
                emit kernelSelected(name);
            });
    connect(m_roofline, &RooflineChart::kernelClicked, this, [this](const QString& name) {
        selectKernel(name);
        emit kernelSelected(name);
    });
    connect(m_timelines, &TraceCompareWidget::eventSelected, this, [this](const QString& name) {
        selectKernel(name);
        emit kernelSelected(name);
    });
}

TracePanel::~TracePanel() = default;

QString TracePanel::backendName(int index) const {
    if (!m_report || index < 0 || index >= static_cast<int>(m_report->backends.size()))
        return {};
    return QString::fromStdString(m_report->backends[static_cast<size_t>(index)].name);
}

RunViewSnapshot TracePanel::viewAt(int index) const {
    return index >= 0 && index < static_cast<int>(m_views.size()) ? m_views[static_cast<size_t>(index)]
                                                                  : nullptr;
}

std::shared_ptr<const KernelTrace> TracePanel::traceAt(int index) const {
    return traceOf(viewAt(index));
}

void TracePanel::setReport(const Report* report, RunViews views) {
    m_report = report;
    m_views = std::move(views);
    m_views.resize(report ? report->backends.size() : 0);
    m_shown = -1;
    m_compared = -1;
    fillPickers();
    // The first backend that has a trace, so the tab is not empty when one exists.
    for (int i = 0; report && i < static_cast<int>(report->backends.size()); ++i)
        if (traceAt(i)) {
            showBackend(i);
            return;
        }
    refresh();
}

void TracePanel::backendChanged(int index, RunViewSnapshot view) {
    if (index < 0 || !m_report || index >= static_cast<int>(m_report->backends.size()))
        return;
    m_views.resize(m_report->backends.size());
    m_views[static_cast<size_t>(index)] = std::move(view);
    fillPickers();
    if (m_shown < 0 && traceAt(index))
        m_shown = index;
    if (index == m_shown || index == m_compared)
        refresh();
}

void TracePanel::fillPickers() {
    m_updatingPickers = true;
    m_backendPicker->clear();
    m_comparePicker->clear();
    m_comparePicker->addItem(tr("(none)"), -1);
    const int n = m_report ? static_cast<int>(m_report->backends.size()) : 0;
    for (int i = 0; i < n; ++i) {
        const bool hasTrace = traceAt(i) != nullptr;
        const QString label = hasTrace ? backendName(i) : tr("%1 (no trace)").arg(backendName(i));
        for (QComboBox* picker : {m_backendPicker, m_comparePicker}) {
            picker->addItem(label, i);
            // Backends without a trace stay listed, greyed out, so the user sees which lack one.
            if (auto* items = qobject_cast<QStandardItemModel*>(picker->model()); items && !hasTrace)
                items->item(picker->count() - 1)->setEnabled(false);
        }
    }
    m_backendPicker->setCurrentIndex(m_backendPicker->findData(m_shown));
    m_comparePicker->setCurrentIndex(std::max(0, m_comparePicker->findData(m_compared)));
    m_updatingPickers = false;
}

void TracePanel::showBackend(int index) {
    m_shown = index;
    if (m_compared == index)
        m_compared = -1;
    refresh();
}

void TracePanel::compareWith(int index) {
    m_compared = index == m_shown ? -1 : index;
    refresh();
}

void TracePanel::refresh() {
    m_updatingPickers = true;
    m_backendPicker->setCurrentIndex(m_backendPicker->findData(m_shown));
    m_comparePicker->setCurrentIndex(std::max(0, m_comparePicker->findData(m_compared)));
    m_updatingPickers = false;

    const auto shown = traceAt(m_shown);
    const auto compared = traceAt(m_compared);
    m_timelines->setTraces(shown, backendName(m_shown), compared, backendName(m_compared));
    // Per kernel name, the graph nodes its groups came from (by name and launch order).
    QHash<QString, int> nodes;
    bool linkable = false;
    if (const auto view = viewAt(m_shown); shown && view->links) {
        linkable = !afterFusionStages(*view->run).empty();
        for (const auto& [name, refs] : view->links->groups) {
            std::set<std::string> covered;
            for (const auto& ref : refs)
                for (const auto& g : ref.stage->groups)
                    if (g.id == ref.id)
                        covered.insert(g.nodes.begin(), g.nodes.end());
            nodes.insert(QString::fromStdString(name), static_cast<int>(covered.size()));
        }
    }
    const auto view = viewAt(m_shown);
    const BackendRun* run = view ? view->run.get() : nullptr;
    const Roofs* roofs = run && run->roofs ? &*run->roofs : nullptr;
    std::vector<KernelRoofline> roofline =
        shown && view ? rooflineByTraceName(view->roofline, roofs) : std::vector<KernelRoofline>{};
    m_roofline->setRoofline(roofline, roofs, backendName(m_shown));
    m_table->setStats(shown ? computeKernelStats(*shown, KernelStatsOptions::forTrace(*shown))
                            : KernelStatsTable{},
                      std::move(nodes), linkable, std::move(roofline));
    if (!shown) {
        m_info->setText(m_shown < 0 ? tr("No backend with a kernel trace.")
                                    : tr("This backend has no kernel trace."));
        return;
    }
    QString info = tr("%1 events, %2 iterations, source %3")
                       .arg(shown->events.size())
                       .arg(shown->iterations)
                       .arg(QString::fromStdString(shown->source));
    if (shown->dropped > 0)
        info += tr(" — %1 records dropped by the tracer: totals are lower bounds").arg(shown->dropped);
    m_info->setText(info);
}

void TracePanel::showRoofline() {
    if (auto* tabs = findChild<QTabWidget*>(QStringLiteral("traceBelowTabs")))
        tabs->setCurrentWidget(m_roofline);
}

void TracePanel::selectKernel(const QString& name) {
    m_timelines->setHighlightedKernel(name);
    m_roofline->selectKernel(name);
    const int row = m_table->rowOf(name);
    const QSignalBlocker blocker(m_tableView->selectionModel());
    if (row < 0) {
        m_tableView->clearSelection();
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_table->index(row, 0));
    m_tableView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
    m_tableView->scrollTo(index);
}

bool TracePanel::exportChromeTrace(const QString& path, QString* error) const {
    const auto& trace = m_timelines->topView()->trace();
    if (!trace) {
        if (error)
            *error = tr("There is no kernel trace to export.");
        return false;
    }
    const Status status = writeChromeTrace(*trace, backendName(m_shown).toStdString(), path.toStdString());
    if (status && error)
        *error = QString::fromStdString(status->message);
    return !status;
}

bool TracePanel::exportKernelCsv(const QString& path, QString* error) const {
    if (!m_timelines->topView()->trace()) {
        if (error)
            *error = tr("There is no kernel table to export.");
        return false;
    }
    const Status status = writeKernelStatsCsv(m_table->stats(), path.toStdString());
    if (status && error)
        *error = QString::fromStdString(status->message);
    return !status;
}

void TracePanel::exportWithDialog(bool chrome) {
    // Row labels may hold {options} or mixed[...]: keep a file name any system takes.
    QString stem = backendName(m_shown).isEmpty() ? QStringLiteral("trace") : backendName(m_shown);
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._@=-]+")), QStringLiteral("_"));
    const QString path =
        chrome
            ? QFileDialog::getSaveFileName(this, tr("Export Chrome trace"),
                                           stem + QStringLiteral(".trace.json"), tr("Chrome trace (*.json)"))
            : QFileDialog::getSaveFileName(this, tr("Export kernel table"),
                                           stem + QStringLiteral("-kernels.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!(chrome ? exportChromeTrace(path, &error) : exportKernelCsv(path, &error)))
        QMessageBox::warning(this, tr("Export"), error);
}

void TracePanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] { setReport(&model->report(), model->runViews()); };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    auto changed = [this, model](int row) { backendChanged(row, model->runView(row)); };
    connect(model, &ReportModel::backendAdded, this, changed);
    connect(model, &ReportModel::backendFinished, this, changed);
}

} // namespace fusescope
