#include "ComparisonModel.h"

#include "analysis/ComparisonColumns.h"
#include "analysis/Format.h"
#include "analysis/RunWarnings.h"
#include "engine/ReportModel.h"

#include <QBrush>
#include <QColor>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

std::optional<int> nonNegative(int v) {
    return v >= 0 ? std::optional<int>(v) : std::nullopt;
}

QString accuracyLine(const char* what, const fusescope::Accuracy& a) {
    QString line = QString("%1: max abs %2, max rel %3, cosine %4 at %5 (tolerance %6): %7")
                       .arg(what, q(format::scientific(a.maxAbs)), q(format::scientific(a.maxRel)))
                       .arg(a.cosine, 0, 'f', 6)
                       .arg(a.precision.empty() ? QString("fp32") : q(a.precision),
                            q(format::scientific(a.tolerance)), a.pass ? "pass" : "FAIL");
    if (!a.pass)
        line += QString(" [%1]").arg(q(accuracyStatus(a)));
    if (!a.reason.empty())
        line += QString(": %1").arg(q(a.reason));
    return line;
}

} // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

void ComparisonModel::setReport(const Report* report) {
    beginResetModel();
    m_report = report;
    m_rows = report ? static_cast<int>(report->backends.size()) : 0;
    m_liveStatus.assign(static_cast<size_t>(m_rows), QString());
    endResetModel();
}

void ComparisonModel::backendsAdded() {
    const int count = m_report ? static_cast<int>(m_report->backends.size()) : 0;
    if (count <= m_rows)
        return;
    beginInsertRows({}, m_rows, count - 1);
    m_rows = count;
    m_liveStatus.resize(static_cast<size_t>(count));
    endInsertRows();
}

void ComparisonModel::backendChanged(int row) {
    if (!m_report || row < 0 || row >= rowCount())
        return;
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void ComparisonModel::setLiveStatus(int row, const QString& text) {
    if (row < 0 || row >= static_cast<int>(m_liveStatus.size()))
        return;
    m_liveStatus[row] = text;
    emit dataChanged(index(row, Status), index(row, Status));
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : m_rows;
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (section < 0 || section >= ColumnCount)
        return {};
    const auto& c = comparisonColumn(Column(section));
    if (role == Qt::DisplayRole)
        return q(c.header);
    if (role == Qt::ToolTipRole)
        return q(c.tip);
    return {};
}

QVariant ComparisonModel::toolTip(const BackendRun& run, int column) const {
    const auto& t = run.training;
    switch (column) {
    case Status: {
        QStringList lines;
        for (const auto& note : run.notes)
            lines << q("note: " + note);
        for (const auto& w : runWarnings(run))
            lines << q("warning [" + w.code + "]: " + w.message);
        return lines.isEmpty() ? QVariant() : QVariant(lines.join('\n'));
    }
    case Backend: {
        if (run.parts.empty())
            return {};
        QStringList lines{QStringLiteral("Mixed run: every other module runs eager")};
        for (const auto& p : run.parts)
            lines << QString("%1 -> %2: %3 graphs, %4 breaks, %5 s compile")
                         .arg(q(p.module), q(p.backend), q(format::count(nonNegative(p.graphs))),
                              q(format::count(nonNegative(p.graphBreaks))),
                              q(format::seconds(p.compileSeconds)));
        return lines.join('\n');
    }
    case CompileSeconds:
        if (t && (t->compileForwardSeconds || t->compileBackwardSeconds))
            return QString("Training: forward compile %1 s, backward compile %2 s")
                .arg(q(format::seconds(t->compileForwardSeconds)),
                     q(format::seconds(t->compileBackwardSeconds)));
        return {};
    case MedianMs:
    case Speedup:
        if (t)
            return QString("Training steps (forward, loss, backward, optimizer step)%1")
                .arg(t->batchSize ? QString(", batch %1").arg(*t->batchSize) : QString());
        return {};
    case Accuracy: {
        QStringList lines;
        if (run.accuracy)
            lines << accuracyLine(t ? "outputs (first step)" : "outputs", *run.accuracy);
        if (t && t->gradientAccuracy)
            lines << accuracyLine("gradients", *t->gradientAccuracy) +
                         (t->worstParameter.empty() ? QString()
                                                    : QString(", worst %1").arg(q(t->worstParameter)));
        return lines.isEmpty() ? QVariant() : QVariant(lines.join('\n'));
    }
    default:
        return {};
    }
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
    if (!m_report || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto& run = m_report->backends[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == Status && run.status == RunStatus::Running &&
            !m_liveStatus[index.row()].isEmpty())
            return m_liveStatus[index.row()];
        // Counted from the stages, which a large report reads after it shows (stagesLoaded).
        if (m_stagesPending &&
            (index.column() == column::NodesBeforeFusion || index.column() == column::KernelsAfterFusion))
            return QStringLiteral("\u2026");
        return q(cellText(run, Column(index.column())));
    case SortRole: {
        // Numbers sort as numbers (an absent one as null), names and words as text.
        if (!comparisonColumn(Column(index.column())).numeric)
            return q(cellText(run, Column(index.column())));
        const auto v = cellSortValue(run, Column(index.column()));
        return v ? QVariant(*v) : QVariant();
    }
    case Qt::TextAlignmentRole:
        return comparisonColumn(Column(index.column())).numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (run.error)
            return q("[" + run.error->code + "] " + run.error->message);
        return toolTip(run, index.column());
    case Qt::ForegroundRole:
        if (index.column() == Status) {
            if (run.status == RunStatus::Ok)
                return QBrush(QColor(0x1b, 0x7f, 0x3b));
            if (run.status == RunStatus::Failed || run.status == RunStatus::Cancelled)
                return QBrush(QColor(0xb0, 0x20, 0x20));
            if (run.status == RunStatus::Unavailable)
                return QBrush(QColor(0x80, 0x80, 0x80));
        }
        if (index.column() == Accuracy && ((run.accuracy && !run.accuracy->pass) || gradientsFailed(run)))
            return QBrush(QColor(0xb0, 0x20, 0x20));
        return {};
    default:
        return {};
    }
}

void ComparisonModel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        m_stagesPending = model->stagesPending();
        setReport(&model->report());
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendAdded, this, [this] { backendsAdded(); });
    connect(model, &ReportModel::backendStarted, this, &ComparisonModel::backendChanged);
    connect(model, &ReportModel::backendFinished, this, &ComparisonModel::backendChanged);
    connect(model, &ReportModel::backendProgress, this,
            [this](int row, const QString& phase, double fraction, const QString&) {
                setLiveStatus(row, phase + (fraction >= 0 ? QString(" %1%").arg(int(fraction * 100)) : ""));
            });
}

} // namespace fusescope
