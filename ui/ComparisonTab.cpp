#include "ComparisonTab.h"

#include "AdvicePanel.h"
#include "BackendDetails.h"
#include "ComparisonModel.h"
#include "RecommendationPanel.h"
#include "RunWarningsBanner.h"
#include "WorkloadOptions.h"
#include "engine/ReportModel.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace fusescope {

ComparisonTab::ComparisonTab(QWidget* parent)
    : QWidget(parent) {
    m_model = new ComparisonModel(this);
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
            &ComparisonTab::showDetails);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& proxyIndex) {
        const QModelIndex source = m_proxy->mapToSource(proxyIndex);
        if (source.isValid() && m_report)
            emit graphsRequested(QString::fromStdString(m_report->report().backends[source.row()].name));
    });

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
    m_warnings = new RunWarningsBanner;
    tableLayout->addWidget(m_warnings);
    tableLayout->addWidget(m_workloadLabel);
    tableLayout->addWidget(m_table, 1);
    m_recommendation = new RecommendationPanel;
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(tablePane);
    splitter->addWidget(m_recommendation);
    // The selected backend's details, and its advice with "Add row" buttons under them.
    m_advice = new AdvicePanel;
    connect(m_advice, &AdvicePanel::addRowRequested, this, &ComparisonTab::addRowRequested);
    auto* detailsPane = new QWidget;
    auto* detailsLayout = new QVBoxLayout(detailsPane);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_advice);
    detailsLayout->addWidget(m_details, 1);
    splitter->addWidget(detailsPane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

void ComparisonTab::subscribe(const ReportModel* model) {
    m_report = model;
    m_model->subscribe(model);
    m_recommendation->subscribe(model);
    m_warnings->subscribe(model);
    auto update = [this] {
        const Report& report = m_report->report();
        m_workloadLabel->setText(
            tr("Workload: %1").arg(workloadSummary(report.settings.workload.value_or(Workload{}))));
        m_workloadLabel->setVisible(!report.backends.empty());
        showDetails();
    };
    update();
    connect(model, &ReportModel::reportReset, this, update);
    connect(model, &ReportModel::backendFinished, this, update);
}

void ComparisonTab::selectFirstRow(bool onlyIfNone) {
    if (!onlyIfNone || !m_table->currentIndex().isValid())
        m_table->selectRow(0);
}

void ComparisonTab::showDetails() {
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!m_report || !current.isValid() ||
        current.row() >= static_cast<int>(m_report->report().backends.size())) {
        m_details->clear();
        m_advice->showRun(Report{}, nullptr); // clears it
        return;
    }
    const auto& run = m_report->report().backends[current.row()];
    m_details->setPlainText(backendDetailsText(m_report->report(), run));
    m_advice->showRun(m_report->report(), &run);
}

} // namespace fusescope
