#pragma once

#include "analysis/Roofline.h"
#include "trace/KernelStats.h"

#include <QAbstractTableModel>
#include <QHash>

namespace fusescope {

// The kernel table of one trace: one row per kernel name. DisplayRole is formatted text;
// SortRole holds the raw number, so a QSortFilterProxyModel sorts 9 µs before 10 µs.
class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Calls, Total, Mean, Min, Max, Share, Nodes, GBs, GFlops, Roof, Bound, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int KernelNameRole = Qt::UserRole + 2;

    explicit KernelTableModel(QObject* parent = nullptr);

    // `nodes`: per kernel name, the graph nodes its kernel groups came from (trace/KernelLinks.h);
    // a name missing from it has no provenance ("-"). Without after-fusion stages, pass none.
    void setStats(KernelStatsTable stats, QHash<QString, int> nodes = {}, bool linkable = false,
                  std::vector<KernelRoofline> roofline = {});
    const KernelStatsTable& stats() const { return m_stats; }
    // Row of a kernel name, or -1.
    int rowOf(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    KernelStatsTable m_stats;
    QHash<QString, int> m_nodes;
    QHash<QString, KernelRoofline> m_roofline; // by traced name (rooflineByTraceName)
    bool m_linkable = false;
};

} // namespace fusescope
