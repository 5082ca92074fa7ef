#include "RecommendationPanel.h"

#include "analysis/Format.h"
#include "engine/ReportModel.h"

#include <QBrush>
#include <QColor>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fusescope {

namespace {

const char* const kGoalKey = "recommendation/goal";
const char* const kBudgetKey = "recommendation/compileBudgetSeconds";

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QTreeWidget* makeList(const QStringList& headers) {
    auto* list = new QTreeWidget;
    list->setHeaderLabels(headers);
    list->setRootIsDecorated(false);
    list->setAlternatingRowColors(true);
    // Sentences are the point of the lists: wrap them rather than elide.
    list->setUniformRowHeights(false);
    list->setWordWrap(true);
    list->header()->setStretchLastSection(true);
    return list;
}

} // namespace

RecommendationPanel::RecommendationPanel(QWidget* parent)
    : QWidget(parent)
    , m_goal(new QComboBox)
    , m_budget(new QDoubleSpinBox)
    , m_verdict(new QLabel)
    , m_ranked(makeList({tr("Tier"), tr("Backend"), tr("Why")}))
    , m_excluded(makeList({tr("Excluded"), tr("Reason")}))
    , m_search(new QLabel) {
    m_goal->addItem(tr("Latency"), int(Goal::Latency));
    m_goal->addItem(tr("Training throughput"), int(Goal::Throughput));
    m_goal->addItem(tr("Memory"), int(Goal::Memory));
    m_goal->addItem(tr("Compile budget"), int(Goal::Compile));
    m_goal->setToolTip(tr("What to optimise for: lowest latency, most training samples per second, "
                          "lowest peak memory, or the fastest backend that compiles within the budget"));
    m_budget->setRange(0.1, 36000);
    m_budget->setDecimals(1);
    m_budget->setValue(RecommendOptions{}.compileBudgetSeconds);
    m_budget->setSuffix(tr(" s"));
    m_budget->setToolTip(tr("Compile budget: backends whose compile takes longer are excluded"));
    m_budget->setEnabled(false);

    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_search->setWordWrap(true);
    m_search->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_search->setVisible(false);
    m_ranked->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_ranked->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_excluded->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);

    auto* goalLabel = new QLabel(tr("&Goal:"));
    goalLabel->setBuddy(m_goal);
    auto* budgetLabel = new QLabel(tr("B&udget:"));
    budgetLabel->setBuddy(m_budget);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("<b>Recommendation</b>")));
    bar->addSpacing(12);
    bar->addWidget(goalLabel);
    bar->addWidget(m_goal);
    bar->addWidget(budgetLabel);
    bar->addWidget(m_budget);
    bar->addStretch(1);

    auto* lists = new QHBoxLayout;
    lists->addWidget(m_ranked, 3);
    lists->addWidget(m_excluded, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_verdict);
    layout->addLayout(lists, 1);
    layout->addWidget(m_search);

    // The goal and budget a user picked stay picked in the next session.
    QSettings settings;
    if (const int saved = m_goal->findData(settings.value(kGoalKey, int(Goal::Latency)).toInt()); saved >= 0)
        m_goal->setCurrentIndex(saved);
    m_budget->setValue(settings.value(kBudgetKey, m_budget->value()).toDouble());
    m_budget->setEnabled(goal() == Goal::Compile);

    connect(m_goal, &QComboBox::currentIndexChanged, this, [this] {
        m_budget->setEnabled(goal() == Goal::Compile);
        QSettings().setValue(kGoalKey, int(goal()));
        refresh();
    });
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this] {
        QSettings().setValue(kBudgetKey, m_budget->value());
        if (goal() == Goal::Compile)
            refresh();
    });
}

Goal RecommendationPanel::goal() const {
    return static_cast<Goal>(m_goal->currentData().toInt());
}

void RecommendationPanel::setGoal(Goal goal) {
    m_goal->setCurrentIndex(m_goal->findData(int(goal)));
}

void RecommendationPanel::setReport(const Report* report) {
    m_report = report;
    refresh();
}

QString RecommendationPanel::verdictText() const {
    return m_verdict->text();
}

QString RecommendationPanel::searchText() const {
    return m_search->isHidden() ? QString() : m_search->text();
}

void RecommendationPanel::refresh() {
    m_ranked->clear();
    m_excluded->clear();
    const bool finished = m_report && std::any_of(m_report->backends.begin(), m_report->backends.end(),
                                                  [](const BackendRun& b) { return b.finished(); });
    if (!finished) {
        m_recommendation = Recommendation{};
        m_verdict->setText(tr("No finished backend yet: run a comparison or open a report."));
        showSearch();
        return;
    }
    RecommendOptions options;
    options.compileBudgetSeconds = m_budget->value();
    m_recommendation = recommend(*m_report, goal(), options);
    // Rows still waiting or running are not "excluded": they have no result yet.
    const auto pending = std::erase_if(m_recommendation.excluded, [this](const ExcludedBackend& e) {
        const BackendRun* run = m_report->findBackend(e.backend);
        return run && !run->finished();
    });
    QString verdict = q(m_recommendation.verdict);
    if (pending > 0)
        verdict += (pending == 1 ? tr(" (1 backend still to run.)")
                                 : tr(" (%1 backends still to run.)").arg(pending));
    m_verdict->setText(verdict);

    const QBrush winner(QColor(0xdc, 0xf0, 0xdc));
    for (const auto& r : m_recommendation.ranked) {
        auto* item = new QTreeWidgetItem(m_ranked, {QString::number(r.tier), q(r.backend), q(r.sentence)});
        item->setToolTip(2, q(r.sentence));
        item->setTextAlignment(0, Qt::AlignCenter);
        if (r.tier == 1)
            for (int c = 0; c < 3; ++c)
                item->setBackground(c, winner);
    }
    for (const auto& e : m_recommendation.excluded) {
        auto* item = new QTreeWidgetItem(m_excluded, {q(e.backend), q(e.reason)});
        item->setToolTip(1, q(e.reason));
    }
    showSearch();
}

void RecommendationPanel::showSearch() {
    if (!m_report || !m_report->search) {
        m_search->setVisible(false);
        return;
    }
    const SearchOutcome& search = *m_report->search;
    // One line as the CLI prints it (format::searchSummary), then the pick.
    QString text = tr("<b>Assignment search:</b> %1").arg(q(format::searchSummary(search)).toHtmlEscaped());
    if (search.ran() && !search.pick.empty())
        text += tr("<br><b>Pick:</b> %1").arg(q(search.pick).toHtmlEscaped());
    m_search->setText(text);
    m_search->setVisible(true);
}

void RecommendationPanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        setReport(&model->report());
        refresh();
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendAdded, this, &RecommendationPanel::refresh);
    connect(model, &ReportModel::backendFinished, this, &RecommendationPanel::refresh);
}

} // namespace fusescope
