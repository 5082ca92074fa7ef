#include "ShapesPanel.h"

#include "WorkloadOptions.h"
#include "analysis/Format.h"
#include "analysis/LatencyStats.h"
#include "engine/ReportModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

const ShapeRun* runWith(const ShapeStudy& study, bool dynamic) {
    for (const auto& r : study.runs)
        if (r.dynamic == dynamic)
            return &r;
    return nullptr;
}

const ShapePoint* pointAt(const ShapeRun* run, int index) {
    if (!run)
        return nullptr;
    for (const auto& p : run->points)
        if (p.index == index)
            return &p;
    return nullptr;
}

std::optional<double> median(const std::vector<double>& samples) {
    if (samples.empty())
        return std::nullopt;
    return computeLatencyStats(samples).median;
}

std::optional<double> speedup(const ShapePoint* p) {
    if (!p)
        return std::nullopt;
    const auto eager = median(p->eagerMs);
    const auto compiled = median(p->compiledMs);
    if (!eager || !compiled || *compiled <= 0)
        return std::nullopt;
    return *eager / *compiled;
}

QString counts(const ShapeRun* run) {
    if (!run)
        return QObject::tr("not run");
    auto n = [](int v) { return v < 0 ? QString("?") : QString::number(v); };
    QString text =
        QObject::tr("%1 recompiles, %2 guard failures").arg(n(run->recompiles), n(run->guardFailures));
    if (run->recompileLimit >= 0)
        text += QObject::tr(" (limit %1)").arg(run->recompileLimit);
    if (run->limitHit)
        text += QObject::tr(" - LIMIT HIT");
    return text;
}

} // namespace

ShapesPanel::ShapesPanel(QWidget* parent)
    : QWidget(parent)
    , m_warning(new QLabel)
    , m_empty(new QLabel)
    , m_tree(new QTreeWidget) {
    m_warning->setWordWrap(true);
    m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_warning->setStyleSheet("QLabel { background: #fdecea; color: #8a1c1c; border: 1px solid #e57373;"
                             " padding: 6px; font-weight: bold; }");
    m_warning->setVisible(false);
    m_empty->setWordWrap(true);
    m_tree->setHeaderLabels({tr("Input set"), tr("Eager (ms)"), tr("Static (ms)"), tr("Dynamic (ms)"),
                             tr("Static speedup"), tr("Dynamic speedup"), tr("Recompiled"), tr("Status")});
    m_tree->headerItem()->setToolTip(StaticMs, tr("Median latency compiled with dynamic=False"));
    m_tree->headerItem()->setToolTip(DynamicMs, tr("Median latency compiled with dynamic=True"));
    m_tree->headerItem()->setToolTip(StaticSpeedup, tr("Median eager / median compiled, dynamic=False"));
    m_tree->headerItem()->setToolTip(DynamicSpeedup, tr("Median eager / median compiled, dynamic=True"));
    m_tree->headerItem()->setToolTip(
        Recompiled, tr("Whether this input set triggered a recompile (dynamic=False / True)"));
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_warning);
    layout->addWidget(m_empty);
    layout->addWidget(m_tree, 1);
}

void ShapesPanel::setReport(const Report* report) {
    m_report = report;
    refresh();
}

QString ShapesPanel::warningText() const {
    return m_warning->isHidden() ? QString() : m_warning->text();
}

void ShapesPanel::refresh() {
    m_tree->clear();
    QStringList warnings;
    int studies = 0;
    const QBrush red(QColor(0xb0, 0x20, 0x20));
    // Both branches lvalues of one type: the loop binds to the report's runs, never to a copy of
    // them (a prvalue branch copied every run with its stage graphs at each refresh).
    static const std::vector<BackendRun> noRuns;
    for (const BackendRun& run : m_report ? m_report->backends : noRuns) {
        if (!run.shapes)
            continue;
        ++studies;
        const ShapeStudy& study = *run.shapes;
        const ShapeRun* fixed = runWith(study, false);
        const ShapeRun* dynamic = runWith(study, true);
        auto* top = new QTreeWidgetItem(m_tree);
        top->setText(InputSet, tr("%1    dynamic=False: %2    dynamic=True: %3")
                                   .arg(q(run.name), counts(fixed), counts(dynamic)));
        top->setFirstColumnSpanned(true);
        QFont bold = top->font(InputSet);
        bold.setBold(true);
        top->setFont(InputSet, bold);
        if (!study.error.empty()) {
            top->setText(InputSet, tr("%1    shape list not run: %2").arg(q(run.name), q(study.error)));
            continue;
        }
        for (const ShapeRun* r : {fixed, dynamic})
            if (r && r->limitHit) {
                warnings
                    << tr("%1 with dynamic=%2 hit the recompile limit (%3): torch silently ran the "
                          "remaining input sets in eager, so those timings are eager's, not the backend's.")
                           .arg(q(run.name), r->dynamic ? "True" : "False")
                           .arg(r->recompileLimit < 0 ? QString("?") : QString::number(r->recompileLimit));
                top->setForeground(InputSet, red);
            }
        const int sets = static_cast<int>(study.sets.size());
        int count = sets;
        for (const ShapeRun* r : {fixed, dynamic})
            if (r)
                for (const auto& p : r->points)
                    count = std::max(count, p.index + 1);
        for (int i = 0; i < count; ++i) {
            const ShapePoint* s = pointAt(fixed, i);
            const ShapePoint* d = pointAt(dynamic, i);
            auto* item = new QTreeWidgetItem(top);
            item->setText(InputSet, i < sets ? q(format::inputSet(study.sets[static_cast<size_t>(i)]))
                                             : tr("set %1").arg(i));
            // Eager runs the same inputs in both compiles; either series is eager's latency.
            const ShapePoint* any = s ? s : d;
            item->setText(EagerMs, q(format::milliseconds(any ? median(any->eagerMs) : std::nullopt)));
            item->setText(StaticMs, q(format::milliseconds(s ? median(s->compiledMs) : std::nullopt)));
            item->setText(DynamicMs, q(format::milliseconds(d ? median(d->compiledMs) : std::nullopt)));
            item->setText(StaticSpeedup, q(format::ratio(speedup(s))));
            item->setText(DynamicSpeedup, q(format::ratio(speedup(d))));
            auto yesNo = [](const ShapePoint* p) {
                return p ? (p->recompiled ? QString("yes") : QString("no")) : QString("-");
            };
            item->setText(Recompiled, yesNo(s) + " / " + yesNo(d));
            QStringList status, errors;
            for (const ShapePoint* p : {s, d}) {
                if (!p)
                    continue;
                status << q(p->status);
                if (!p->error.empty())
                    errors << q(p->error);
            }
            status.removeDuplicates();
            errors.removeDuplicates();
            item->setText(Status, (status.isEmpty() ? QString("-") : status.join(" / ")) +
                                      (errors.isEmpty() ? QString() : ": " + errors.join("; ")));
            item->setToolTip(Status, errors.join("\n"));
            if (!errors.isEmpty() || status.contains("failed"))
                item->setForeground(Status, red);
            for (int c = EagerMs; c <= Recompiled; ++c)
                item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        }
    }
    m_tree->expandAll();
    for (int c = 1; c < ColumnCount - 1; ++c)
        m_tree->resizeColumnToContents(c);
    // The backend rows span every column: size the first column to the input sets alone.
    int width = m_tree->header()->sectionSizeHint(InputSet);
    const QFontMetrics metrics(m_tree->font());
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        for (int c = 0; c < m_tree->topLevelItem(i)->childCount(); ++c)
            width =
                std::max(width, metrics.horizontalAdvance(m_tree->topLevelItem(i)->child(c)->text(InputSet)) +
                                    2 * m_tree->indentation() + 32);
    m_tree->setColumnWidth(InputSet, width);
    m_warning->setText(QString::fromUtf8("\u26A0 ") + warnings.join("\n\u26A0 "));
    m_warning->setVisible(!warnings.isEmpty());
    m_empty->setText(studies ? QString()
                             : tr("No shape study in this report: enter input sets under Options > Shapes "
                                  "(e.g. 1x8:int64;4x8:int64) and run."));
    m_empty->setVisible(studies == 0);
    m_tree->setVisible(studies > 0);
}

void ShapesPanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        setReport(&model->report());
        refresh();
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendFinished, this, &ShapesPanel::refresh);
}

} // namespace fusescope
