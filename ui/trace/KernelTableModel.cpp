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

void KernelTableModel::setStats(KernelStatsTable stats, QHash<QString, int> nodes, bool linkable,
                                std::vector<KernelRoofline> roofline) {
    beginResetModel();
    m_stats = std::move(stats);
    m_nodes = std::move(nodes);
    m_linkable = linkable;
    m_roofline.clear();
    for (auto& k : roofline)
        m_roofline.insert(QString::fromStdString(k.traceName), std::move(k));
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
    const auto roof = m_roofline.constFind(label);
    const KernelRoofline* r = roof == m_roofline.constEnd() ? nullptr : &*roof;
    if (role == Qt::ToolTipRole && index.column() >= GBs) {
        if (!r)
            return tr("No roofline for this kernel: the run has no byte counts or roofs (docs/roofline.md)");
        QString tip =
            tr("%1 bytes and %2 FLOPs per call (%3)")
                .arg(r->bytes ? QString::number(*r->bytes) : tr("unknown"))
                .arg(r->flops ? QString::number(*r->flops) : tr("unknown"))
                .arg(r->bytesSource.empty() ? tr("not counted") : QString::fromStdString(r->bytesSource));
        if (!r->unknownReason.empty())
            tip += "\n" + QString::fromStdString(r->unknownReason);
        if (!r->note.empty())
            tip += "\n" + QString::fromStdString(r->note);
        return tip;
    }
    const auto optNumber = [](const std::optional<double>& v, int decimals) -> QVariant {
        return v ? QVariant(QString::number(*v, 'f', decimals)) : QVariant(QStringLiteral("-"));
    };
    if (index.column() >= GBs && (role == SortRole || role == Qt::DisplayRole)) {
        const bool sort = role == SortRole;
        switch (index.column()) {
        case GBs:
            return sort ? QVariant(r && r->gbs ? *r->gbs : -1.0) : (r ? optNumber(r->gbs, 2) : QVariant("-"));
        case GFlops:
            return sort ? QVariant(r && r->gflops ? *r->gflops : -1.0)
                        : (r ? optNumber(r->gflops, 2) : QVariant("-"));
        case Roof:
            return sort ? QVariant(r && r->roofFraction ? *r->roofFraction : -1.0)
                        : (r && r->roofFraction ? QVariant(QString::number(*r->roofFraction * 100.0, 'f', 0))
                                                : QVariant("-"));
        case Bound:
            return r && !r->bound.empty() ? QString::fromStdString(r->bound) : QStringLiteral("-");
        }
    }
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
    case GBs:
        return tr("GB/s");
    case GFlops:
        return tr("GFLOP/s");
    case Roof:
        return tr("Roof (%)");
    case Bound:
        return tr("Bound");
    }
    return {};
}

} // namespace fusescope
