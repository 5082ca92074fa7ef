#include "SuiteModel.h"

#include "analysis/Format.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <algorithm>
#include <cmath>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// White at 1x, greener up to 4x faster, redder down to 4x slower (log scale).
QColor speedupColour(double speedup) {
    const double t = std::clamp(std::log2(std::max(speedup, 1e-9)) / 2.0, -1.0, 1.0);
    if (t >= 0)
        return QColor::fromRgbF(1.0 - 0.55 * t, 1.0 - 0.15 * t, 1.0 - 0.55 * t);
    return QColor::fromRgbF(1.0, 1.0 + 0.5 * t, 1.0 + 0.5 * t);
}

const QColor kFailed(0xf4, 0xb4, 0xb4);

} // namespace

SuiteModel::SuiteModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

void SuiteModel::setSuite(Suite suite) {
    beginResetModel();
    m_suite = std::move(suite);
    endResetModel();
}

QString SuiteModel::reportPath(int row) const {
    if (row < 0 || row >= totalsRow())
        return {};
    const auto& job = m_suite.jobs[row];
    if (job.report.empty() || !job.finished())
        return {};
    const QString path = QDir(q(m_suite.dir)).filePath(q(job.report));
    return QFileInfo::exists(path) ? path : QString();
}

int SuiteModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || m_suite.backendNames.empty() ? 0 : totalsRow() + 1;
}

int SuiteModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_suite.backendNames.size()) + 1;
}

QVariant SuiteModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal) {
        if (section == 0)
            return tr("Status");
        if (section - 1 < static_cast<int>(m_suite.backendNames.size()))
            return q(m_suite.backendNames[section - 1]);
        return {};
    }
    if (section == totalsRow())
        return tr("Totals");
    if (section >= 0 && section < totalsRow())
        return q(m_suite.jobs[section].label());
    return {};
}

QVariant SuiteModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    if (index.row() == totalsRow())
        return totalsData(index.column(), role);
    return cellData(index.row(), index.column(), role);
}

QVariant SuiteModel::cellData(int row, int column, int role) const {
    const auto& job = m_suite.jobs[row];
    if (role == ReportPathRole)
        return reportPath(row);
    if (column == 0) {
        if (role == Qt::DisplayRole)
            return q(job.status);
        if (role == Qt::ToolTipRole)
            return job.reason.empty() ? QVariant() : QVariant(q(job.reason));
        if (role == Qt::BackgroundRole && job.status == "failed")
            return QBrush(kFailed);
        return {};
    }
    const auto& cell = m_suite.cells[row][column - 1];
    if (!cell) {
        if (role == Qt::DisplayRole)
            return job.finished() ? QStringLiteral("") : tr("not run");
        return {};
    }
    if (role == PassedRole)
        return cell->passed;
    if (!cell->passed) {
        if (role == Qt::DisplayRole)
            return tr("FAIL");
        if (role == Qt::ToolTipRole)
            return q(cell->reason);
        if (role == Qt::BackgroundRole)
            return QBrush(kFailed);
        return {};
    }
    const auto& s = *cell->speedup;
    switch (role) {
    case Qt::DisplayRole:
        return q(format::ratio(s.median));
    case Qt::ToolTipRole:
        return tr("%1x over eager (IQR %2-%3 over %4 iterations), %5 s compile. Click to open the report.")
            .arg(s.median, 0, 'g', 3)
            .arg(q(format::ratio(s.q1)), q(format::ratio(s.q3)))
            .arg(s.pairs)
            .arg(q(format::seconds(cell->compileSeconds)));
    case Qt::BackgroundRole:
        return QBrush(speedupColour(s.median));
    case Qt::ForegroundRole:
        return QBrush(Qt::black);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant SuiteModel::totalsData(int column, int role) const {
    if (role == Qt::FontRole) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (column == 0)
        return role == Qt::DisplayRole ? tr("geomean") : QVariant();
    const auto& b = m_suite.backends[column - 1];
    if (role == Qt::DisplayRole)
        return tr("%1 (%2/%3)").arg(q(format::ratio(b.geomeanSpeedup))).arg(b.passed).arg(b.jobs);
    if (role == Qt::ToolTipRole) {
        QString tip = tr("geomean speedup %1, interval %2-%3, passed %4 of %5 jobs, median compile %6 s, "
                         "memory compression %7")
                          .arg(q(format::ratio(b.geomeanSpeedup)))
                          .arg(b.interval ? q(format::ratio(b.interval->lo)) : QStringLiteral("-"))
                          .arg(b.interval ? q(format::ratio(b.interval->hi)) : QStringLiteral("-"))
                          .arg(b.passed)
                          .arg(b.jobs)
                          .arg(q(format::seconds(b.medianCompileSeconds)))
                          .arg(q(format::ratio(b.memoryCompression)));
        for (const auto& f : b.failures)
            tip += "\n" + tr("failed in %1: %2").arg(q(f.model), q(f.reason));
        return tip;
    }
    if (role == Qt::BackgroundRole && b.geomeanSpeedup)
        return QBrush(speedupColour(*b.geomeanSpeedup));
    if (role == Qt::ForegroundRole && b.geomeanSpeedup)
        return QBrush(Qt::black);
    return {};
}

} // namespace fusescope
