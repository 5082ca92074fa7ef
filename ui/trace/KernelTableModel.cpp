#include "KernelTableModel.h"

namespace fusescope {

namespace {

QString micros(double ns) {
    return QString::number(ns / 1000.0, 'f', ns < 10'000 ? 3 : 1);
}

} // namespace

KernelTableModel::KernelTableModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

void KernelTableModel::setStats(KernelStatsTable stats, QHash<QString, int> nodes, bool linkable) {
    beginResetModel();
    m_stats = std::move(stats);
    m_nodes = std::move(nodes);
    m_linkable = linkable;
    endResetModel();
}

int KernelTableModel::rowOf(const QString& name) const {
    const std::string key = name.toStdString();
    for (size_t i = 0; i < m_stats.rows.size(); ++i)
        if (m_stats.rows[i].label == key)
            return static_cast<int>(i);
    return -1;
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_stats.rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KernelStat& s = m_stats.rows[static_cast<size_t>(index.row())];
    if (role == KernelNameRole)
        return QString::fromStdString(s.label);
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(s.label);
    const QString label = QString::fromStdString(s.label);
    const int nodes = m_nodes.value(label, -1);
    if (role == Qt::ToolTipRole && index.column() == Nodes)
        return !m_linkable  ? tr("This backend has no after-fusion stages to link kernels to")
               : nodes >= 0 ? tr("%1 came from %2 graph nodes: select it to see them").arg(label).arg(nodes)
                            : tr("%1 matched no kernel group (by name or launch order)").arg(label);
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(s.label);
        case Calls:
            return static_cast<qlonglong>(s.calls);
        case Total:
            return static_cast<qlonglong>(s.totalNs);
        case Mean:
            return s.meanNs;
        case Min:
            return static_cast<qlonglong>(s.minNs);
        case Max:
            return static_cast<qlonglong>(s.maxNs);
        case Share:
            return s.share;
        case Nodes:
            return nodes;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(s.label);
        case Calls:
            return QString::number(s.calls);
        case Total:
            return micros(static_cast<double>(s.totalNs));
        case Mean:
            return micros(s.meanNs);
        case Min:
            return micros(static_cast<double>(s.minNs));
        case Max:
            return micros(static_cast<double>(s.maxNs));
        case Share:
            return QString::number(s.share * 100.0, 'f', 1);
        case Nodes:
            return nodes >= 0 ? QString::number(nodes) : QStringLiteral("-");
        }
    }
    return {};
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Kernel");
    case Calls:
        return tr("Calls");
    case Total:
        return tr("Total (µs)");
    case Mean:
        return tr("Mean (µs)");
    case Min:
        return tr("Min (µs)");
    case Max:
        return tr("Max (µs)");
    case Share:
        return tr("Share of step (%)");
    case Nodes:
        return tr("Nodes");
    }
    return {};
}

} // namespace fusescope
