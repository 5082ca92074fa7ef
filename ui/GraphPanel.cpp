#include "GraphPanel.h"

#include "BreaksPanel.h"
#include "GraphExport.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "StageCompareWidget.h"
#include "TimeTable.h"
#include "WidgetExport.h"
#include "engine/ReportModel.h"
#include "trace/KernelLinks.h"
#include "trace/TimeAttribution.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString stageTitle(const StageGraph& s) {
    QString title = q(s.key());
    // Mixed runs: which submodule and backend this graph belongs to.
    if (!s.module.empty())
        title += QString(" [%1 \u2192 %2]").arg(q(s.module), q(s.backend));
    if (s.status != StageStatus::Ok)
        title += QString(" (%1)").arg(q(toString(s.status)));
    return title;
}

} // namespace

GraphPanel::GraphPanel(QWidget* parent)
    : QWidget(parent)
    , m_backend(new QComboBox)
    , m_left(new QComboBox)
    , m_right(new QComboBox)
    , m_sideBySide(new QCheckBox(tr("Side by side")))
    , m_search(new QLineEdit)
    , m_searchStatus(new QLabel)
    , m_stats(new QLabel)
    , m_stack(new QStackedWidget)
    , m_banners(new QWidget)
    , m_bannerLayout(new QVBoxLayout(m_banners))
    , m_single(new GraphView)
    , m_compare(new StageCompareWidget)
    , m_timeShown(new QCheckBox(tr("Time")))
    , m_heatScale(new QComboBox)
    , m_timeTable(new TimeTable) {
    m_timeShown->setToolTip(tr("Colour nodes by measured kernel time and list it per module or source line "
                               "(Ctrl+T; needs a traced run)"));
    m_heatScale->addItem(tr("share of time"));
    m_heatScale->addItem(tr("fraction of roof"));
    m_heatScale->setEnabled(false);
    m_heatScale->setToolTip(
        tr("With Time: colour by each node's share of the traced time, or by its kernel's "
           "fraction of the machine's roof (after-fusion stages; Ctrl+Shift+T)"));
    m_backend->setToolTip(tr("Backend whose stages are shown"));
    m_left->setToolTip(tr("Stage shown on the left (or alone)"));
    m_right->setToolTip(tr("Stage shown on the right, linked to the left one"));
    m_left->setMinimumContentsLength(14);
    m_right->setMinimumContentsLength(14);
    m_sideBySide->setChecked(true);
    m_stats->setTextFormat(Qt::PlainText); // stage names and reasons come from the report
    m_search->setPlaceholderText(tr("Search nodes (name or op)"));
    m_search->setClearButtonEnabled(true);
    m_search->setToolTip(tr("Ctrl+F; Enter or F3 for the next match, Shift+F3 for the previous"));

    auto* prev = new QToolButton;
    prev->setText(QString::fromUtf8("\u25B2"));
    prev->setToolTip(tr("Previous match (Shift+F3)"));
    auto* next = new QToolButton;
    next->setText(QString::fromUtf8("\u25BC"));
    next->setToolTip(tr("Next match (F3)"));
    auto* fit = new QPushButton(tr("Fit"));
    fit->setToolTip(tr("Fit the graph to the window"));
    auto* exportButton = new QPushButton(tr("Export..."));
    exportButton->setToolTip(tr("Export the left graph as PNG, SVG or PDF"));

    m_searchRow = {m_search, prev, next, m_searchStatus};
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Backend:")));
    bar->addWidget(m_backend);
    bar->addWidget(new QLabel(tr("Stage:")));
    bar->addWidget(m_left);
    bar->addWidget(m_sideBySide);
    bar->addWidget(m_right);
    bar->addWidget(m_timeShown);
    bar->addWidget(m_heatScale);
    bar->addStretch(1);
    bar->addWidget(m_search, 1);
    bar->addWidget(prev);
    bar->addWidget(next);
    bar->addWidget(m_searchStatus);
    bar->addWidget(fit);
    bar->addWidget(exportButton);

    m_stack->addWidget(m_single);
    m_stack->addWidget(m_compare);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    m_bannerLayout->setContentsMargins(0, 0, 0, 0);
    m_bannerLayout->setSpacing(2);
    m_banners->setVisible(false);
    layout->addWidget(m_banners);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_stack);
    split->addWidget(m_timeTable);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    m_timeTable->setVisible(false);
    layout->addWidget(split, 1);
    layout->addWidget(m_stats);
    connect(m_timeShown, &QCheckBox::toggled, this, [this](bool on) {
        m_timeTable->setVisible(on);
        m_heatScale->setEnabled(on);
        updateTime();
    });
    connect(m_heatScale, &QComboBox::currentIndexChanged, this, [this] { updateTime(); });
    auto* roofKey = new QShortcut(QKeySequence(tr("Ctrl+Shift+T")), this);
    connect(roofKey, &QShortcut::activated, this, [this] {
        if (!m_timeShown->isChecked())
            m_timeShown->setChecked(true);
        setRoofHeat(!isRoofHeat());
    });
    connect(m_timeTable, &TimeTable::nodesSelected, this, &GraphPanel::onTimeRowSelected);
    auto* timeKey = new QShortcut(QKeySequence(tr("Ctrl+T")), this);
    connect(timeKey, &QShortcut::activated, m_timeShown, &QCheckBox::toggle);

    connect(m_backend, &QComboBox::currentIndexChanged, this, &GraphPanel::onBackendChanged);
    connect(m_left, &QComboBox::currentIndexChanged, this, &GraphPanel::onStagesChanged);
    connect(m_right, &QComboBox::currentIndexChanged, this, &GraphPanel::onStagesChanged);
    connect(m_sideBySide, &QCheckBox::toggled, this, &GraphPanel::onStagesChanged);
    connect(m_search, &QLineEdit::textChanged, this, &GraphPanel::runSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &GraphPanel::findNext);
    connect(next, &QToolButton::clicked, this, &GraphPanel::findNext);
    connect(prev, &QToolButton::clicked, this, &GraphPanel::findPrevious);
    connect(fit, &QPushButton::clicked, this, [this] {
        primaryView()->fitToWindow();
        if (sideBySide())
            m_compare->afterView()->fitToWindow();
    });
    connect(exportButton, &QPushButton::clicked, this, &GraphPanel::exportPrimary);
    for (auto* view : {m_single, m_compare->beforeView()})
        connect(view, &GraphView::searchMoved, this, [this](int index, int count) {
            m_searchStatus->setText(count ? tr("%1 of %2").arg(index + 1).arg(count) : tr("no match"));
        });
}

bool GraphPanel::sideBySide() const {
    return m_stack->currentWidget() == m_compare;
}

GraphView* GraphPanel::primaryView() const {
    return sideBySide() ? m_compare->beforeView() : m_single;
}

void GraphPanel::setReport(const Report* report, RunViews views) {
    m_report = report;
    m_views = std::move(views);
    const QString current = m_backend->currentText();
    QSignalBlocker block(m_backend);
    m_backend->clear();
    if (report)
        for (const auto& run : report->backends)
            if (!run.stages.empty())
                m_backend->addItem(q(run.name));
    const int idx = m_backend->findText(current);
    m_backend->setCurrentIndex(idx >= 0 ? idx : 0);
    onBackendChanged();
}

void GraphPanel::showBackend(const QString& name) {
    const int idx = m_backend->findText(name);
    if (idx >= 0)
        m_backend->setCurrentIndex(idx);
}

void GraphPanel::backendUpdated(int index, RunViewSnapshot view) {
    if (!m_report || index < 0 || index >= static_cast<int>(m_report->backends.size()))
        return;
    m_views.resize(m_report->backends.size());
    m_views[static_cast<size_t>(index)] = std::move(view);
    const auto& run = m_report->backends[index];
    if (run.stages.empty())
        return;
    if (m_backend->findText(q(run.name)) < 0) {
        m_backend->addItem(q(run.name));
        if (m_backend->count() == 1)
            onBackendChanged();
    } else if (m_backend->currentText() == q(run.name)) {
        onBackendChanged();
    }
}

RunViewSnapshot GraphPanel::currentView() const {
    if (!m_report)
        return nullptr;
    const std::string name = m_backend->currentText().toStdString();
    for (size_t i = 0; i < m_report->backends.size() && i < m_views.size(); ++i)
        if (m_report->backends[i].name == name)
            return m_views[i];
    return nullptr;
}

void GraphPanel::onBackendChanged() {
    // The engine's snapshot, shared: the row in the report may be replaced while it is shown.
    m_view = currentView();
    m_run = m_view ? m_view->run : nullptr;
    m_time = timeOf(m_view);
    m_timeTable->setAttribution(m_time, m_backend->currentText());
    QSignalBlocker blockLeft(m_left);
    QSignalBlocker blockRight(m_right);
    m_left->clear();
    m_right->clear();
    if (!m_run) {
        m_stats->setText(m_stagesPending ? tr("Reading the report's graphs: they show here in a moment.")
                                         : tr("No captured stages yet: run a comparison or open a report."));
        m_stats->setVisible(true);
        updateBreakBanners();
        return;
    }
    int pre = -1, post = -1;
    for (const auto& s : m_run->stages) {
        m_left->addItem(stageTitle(s), q(s.key()));
        m_right->addItem(stageTitle(s), q(s.key()));
        // Before/after fusion, whatever a backend calls its stages: the last stage captured
        // before fusion and the first one after it (Inductor's pre_fusion/post_fusion, TVM's
        // relax_folded/relax_fused).
        if (s.graph == 0 && s.status == StageStatus::Ok && s.fusion == "before" && post < 0)
            pre = m_left->count() - 1;
        if (s.graph == 0 && s.status == StageStatus::Ok && s.fusion == "after" && post < 0)
            post = m_right->count() - 1;
    }
    // Defaults: before/after fusion when the backend fuses, else its first stage alone.
    const bool fuses = pre >= 0 && post >= 0;
    m_left->setCurrentIndex(fuses ? pre : 0);
    m_right->setCurrentIndex(fuses ? post : std::max(0, m_right->count() - 1));
    {
        QSignalBlocker blockCheck(m_sideBySide);
        m_sideBySide->setChecked(fuses);
    }
    onStagesChanged();
    showFirstDivergence();
}

bool GraphPanel::showFirstDivergence() {
    if (!m_run || !m_run->accuracy || !m_run->accuracy->firstDivergence)
        return false;
    const auto run = m_run; // showKernel/showDynamoGraph may replace m_run
    const FirstDivergence& d = *run->accuracy->firstDivergence;
    if (!d.kernel.empty() && showKernel(m_backend->currentText(), q(d.kernel)) > 0)
        return true;
    if (d.node.empty() || d.graph < 0 || !showDynamoGraph(m_backend->currentText(), d.graph))
        return false;
    primaryView()->selectNode(q(d.node));
    return true;
}

void GraphPanel::onStagesChanged() {
    updateBreakBanners();
    if (!m_run)
        return;
    const QString left = m_left->currentData().toString();
    const QString right = m_right->currentData().toString();
    m_right->setEnabled(m_sideBySide->isChecked());
    // Side by side, each view has its own search box and the compare widget its own stats.
    for (auto* w : m_searchRow)
        w->setVisible(!m_sideBySide->isChecked());
    m_stats->setVisible(!m_sideBySide->isChecked());
    if (m_sideBySide->isChecked()) {
        m_stack->setCurrentWidget(m_compare);
        m_compare->setStages(m_run, left, right);
    } else {
        m_stack->setCurrentWidget(m_single);
        const StageGraph* stage = m_run->findStage(left.toStdString());
        if (!stage)
            return;
        m_single->setStage(std::make_shared<const StageGraph>(*stage));
        if (m_run->quantization && stage->fusion == "after")
            m_single->setKernelBadges(int8Badges(*m_run, *stage));
        QString stats = tr("%1: %2 nodes").arg(left).arg(stage->computeNodeCount());
        if (stage->fusion == "after")
            stats += tr(", %1 kernels").arg(stage->kernelCount());
        if (stage->status != StageStatus::Ok)
            stats += tr(" - %1: %2").arg(q(toString(stage->status)), q(stage->reason));
        else if (!stage->reason.empty()) // a stage copied from an identical graph says so
            stats += tr(" - %1").arg(q(stage->reason));
        m_stats->setText(stats);
    }
    runSearch();
    updateTime();
}

void GraphPanel::setTimeShown(bool on) {
    m_timeShown->setChecked(on);
}

bool GraphPanel::isTimeShown() const {
    return m_timeShown->isChecked();
}

void GraphPanel::setRoofHeat(bool on) {
    m_heatScale->setCurrentIndex(on ? 1 : 0);
}

bool GraphPanel::isRoofHeat() const {
    return m_heatScale->currentIndex() == 1;
}

void GraphPanel::updateTime() {
    // Each view: its stage's nodes with their share; a before-fusion stage gets the times of the
    // kernels its nodes were fused into, through provenance.
    // With "fraction of roof": after-fusion nodes take their kernel's fraction (docs/roofline.md).
    const bool roof = isRoofHeat();
    const HeatScale scale = roof ? HeatScale::RoofFraction : HeatScale::TimeShare;
    auto heatOf = [this, roof](const QString& key) {
        const StageGraph* stage = m_run ? m_run->findStage(key.toStdString()) : nullptr;
        if (!m_timeShown->isChecked() || !m_time || !stage)
            return QHash<QString, NodeHeat>{};
        if (roof)
            return m_view ? roofHeatOfStage(*m_time, m_view->roofline.kernels, *stage)
                          : QHash<QString, NodeHeat>{};
        return heatOfStage(*m_time, *stage);
    };
    if (sideBySide()) {
        m_compare->beforeView()->graphScene()->setHeat(heatOf(m_left->currentData().toString()), scale);
        m_compare->afterView()->graphScene()->setHeat(heatOf(m_right->currentData().toString()), scale);
    } else {
        m_single->graphScene()->setHeat(heatOf(m_left->currentData().toString()), scale);
    }
    if (m_timeShown->isChecked() && m_run && !m_time)
        m_stats->setText(
            tr("%1 has no kernel trace: run it with Trace kernels (compare --trace) to see its time "
               "on the graph")
                .arg(q(m_run->name)));
}

void GraphPanel::onTimeRowSelected(const QStringList& stageKeys, const QStringList& nodeIds) {
    if (!m_run || nodeIds.isEmpty())
        return;
    // The rows name after-fusion nodes: show that stage on the right (or alone) and mark them.
    const int idx = m_right->findData(stageKeys.front());
    if (sideBySide()) {
        if (idx >= 0 && m_right->currentIndex() != idx)
            m_right->setCurrentIndex(idx);
        QStringList ids;
        for (int i = 0; i < nodeIds.size(); ++i)
            if (stageKeys[i] == m_right->currentData().toString())
                ids << nodeIds[i];
        m_compare->afterView()->highlightNodes(ids);
        if (!ids.isEmpty())
            m_compare->afterView()->selectNode(ids.front());
    } else {
        if (idx >= 0 && m_left->currentData().toString() != stageKeys.front())
            m_left->setCurrentIndex(m_left->findData(stageKeys.front()));
        m_single->highlightNodes(nodeIds);
        m_single->selectNode(nodeIds.front());
    }
}

int GraphPanel::showKernel(const QString& backend, const QString& kernel) {
    if (!backend.isEmpty() && m_backend->currentText() != backend)
        showBackend(backend);
    if (!m_run)
        return 0;
    if (!m_sideBySide->isChecked())
        m_sideBySide->setChecked(true);
    const StageGraph* after = m_run->findStage(m_right->currentData().toString().toStdString());
    if (!after)
        return 0;
    QStringList nodes;
    QString first;
    // A generated kernel has its group's name; an extern call's kernels (aten::addmm, a cuBLAS
    // kernel) are linked by launch order (trace/KernelLinks.h).
    std::vector<GroupRef> linked;
    if (m_view && m_view->links)
        if (const auto* refs = m_view->links->groupsOf(kernel.toStdString()))
            linked = *refs;
    for (const auto& group : after->groups) {
        if (q(group.name) != kernel &&
            std::find(linked.begin(), linked.end(), GroupRef{after, group.id}) == linked.end())
            continue;
        if (first.isEmpty())
            first = q(group.id);
        nodes += m_compare->beforeNodesOfKernel(q(group.id));
    }
    if (first.isEmpty())
        return 0;
    m_compare->selectKernel(first);
    // The same kernel launched in other blocks came from other nodes: mark those too.
    m_compare->beforeView()->highlightNodes(nodes);
    return nodes.size();
}

bool GraphPanel::showDynamoGraph(const QString& backend, int graph) {
    showBackend(backend);
    if (!m_run || m_backend->currentText() != backend)
        return false;
    for (const auto& s : m_run->stages)
        if (s.name == "dynamo_fx" && s.graph == graph) {
            const int idx = m_left->findData(q(s.key()));
            if (idx < 0)
                return false;
            {
                QSignalBlocker blockCheck(m_sideBySide);
                QSignalBlocker blockLeft(m_left);
                m_sideBySide->setChecked(false);
                m_left->setCurrentIndex(idx);
            }
            onStagesChanged();
            return true;
        }
    return false;
}

QStringList GraphPanel::breakBanners() const {
    QStringList out;
    if (!m_banners->isHidden())
        for (auto* b : m_bannerButtons)
            out << b->text();
    return out;
}

void GraphPanel::updateBreakBanners() {
    for (auto* b : m_bannerButtons) {
        m_bannerLayout->removeWidget(b);
        b->hide();
        b->deleteLater();
    }
    m_bannerButtons.clear();
    // A break sits between Dynamo graphs: mark it on the Dynamo graph it ended (or, for a break
    // before any graph, on graph 0), and on the backend's later stages of that graph, which all
    // compile it.
    QList<const StageGraph*> shown;
    if (m_run) {
        shown << m_run->findStage(m_left->currentData().toString().toStdString());
        if (m_sideBySide->isChecked())
            shown << m_run->findStage(m_right->currentData().toString().toStdString());
    }
    QList<int> graphs;
    QList<int> dynamoShown;
    for (const StageGraph* s : shown) {
        if (!s)
            continue;
        if (!graphs.contains(s->graph))
            graphs << s->graph;
        if (s->name == "dynamo_fx")
            dynamoShown << s->graph;
    }
    const QString backend = m_backend->currentText();
    for (int g : graphs)
        for (size_t i = 0; i < m_run->breakReasons.size(); ++i) {
            const GraphBreak& b = m_run->breakReasons[i];
            if (graphShowingBreak(b) != g)
                continue;
            QString where = b.file.empty() ? tr("no source location") : q(b.file);
            if (!b.file.empty() && b.line > 0)
                where += QString(":%1").arg(b.line);
            const QString graph = dynamoShown.contains(g) ? tr("this graph") : tr("Dynamo graph %1").arg(g);
            QString text =
                QString::fromUtf8("\u26A0 ") + (b.graph == 0 ? tr("Graph break before %1: %2 \u2014 %3")
                                                             : tr("Graph break after %1: %2 \u2014 %3"))
                                                   .arg(graph, q(b.reason), where);
            if (graphs.size() > 1)
                text = tr("[graph %1] ").arg(g) + text;
            auto* button = new QPushButton(text);
            button->setObjectName("graphBreakBanner");
            button->setToolTip(tr("%1\nClick (or Space) to open the source in the Breaks tab (Alt+5)")
                                   .arg(q(b.detail.empty() ? b.reason : b.detail)));
            button->setCursor(Qt::PointingHandCursor);
            button->setStyleSheet("QPushButton { text-align: left; padding: 5px 8px; font-weight: bold;"
                                  " background: #fff4d6; color: #6b4a00; border: 1px solid #e0a800; }"
                                  "QPushButton:focus { border: 2px solid #3a7bd5; }");
            connect(button, &QPushButton::clicked, this,
                    [this, backend, i] { emit breakActivated(backend, static_cast<int>(i)); });
            m_bannerLayout->addWidget(button);
            m_bannerButtons << button;
        }
    m_banners->setVisible(!m_bannerButtons.isEmpty());
}

void GraphPanel::focusSearch() {
    m_search->setFocus();
    m_search->selectAll();
}

void GraphPanel::runSearch() {
    const QString text = m_search->text().trimmed();
    if (text.isEmpty()) {
        m_searchStatus->clear();
        return;
    }
    const int count = primaryView()->search(text);
    if (count == 0)
        m_searchStatus->setText(tr("no match"));
}

void GraphPanel::findNext() {
    primaryView()->findNext();
}

void GraphPanel::findPrevious() {
    primaryView()->findPrevious();
}

void GraphPanel::exportPrimary() {
    exportView(primaryView());
}

void GraphPanel::exportSecondary() {
    if (sideBySide())
        exportView(m_compare->afterView());
}

void GraphPanel::exportView(GraphView* view) {
    ExportTarget target;
    if (!askExportTarget(this, tr("Export Graph"), target))
        return;
    QString error;
    if (!exportScene(view->graphScene(), target.path, target.scale, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

void GraphPanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        m_stagesPending = model->stagesPending();
        setReport(&model->report(), model->runViews());
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendFinished, this,
            [this, model](int row) { backendUpdated(row, model->runView(row)); });
}

} // namespace fusescope
