#pragma once

#include "trace/TimeAttribution.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QTableWidget;

namespace fusescope {

// The Graphs tab's Time panel: a backend's traced kernel time per module or per source line
// (core/trace/TimeAttribution), sortable, with share and kernel count. Selecting a row names the
// after-fusion nodes it covers, so the panel's owner can highlight them in the graph.
class TimeTable : public QWidget {
    Q_OBJECT
public:
    explicit TimeTable(QWidget* parent = nullptr);

    // `time` must outlive its use here: the caller keeps it with the run it was computed from.
    void setAttribution(std::shared_ptr<const TimeAttribution> time, const QString& backend);
    TimeGrouping grouping() const;
    void setGrouping(TimeGrouping grouping);
    int rowCount() const;
    // Cell text (tests, the status line).
    QString text(int row, int column) const;
    void selectRow(int row);

signals:
    // Nodes of the selected row, with the key of the after-fusion stage each belongs to.
    void nodesSelected(const QStringList& stageKeys, const QStringList& nodeIds);

private:
    void fill();
    void onSelection();

    std::shared_ptr<const TimeAttribution> m_time;
    std::vector<TimeRow> m_rows;
    QComboBox* m_grouping;
    QLabel* m_summary;
    QTableWidget* m_table;
};

} // namespace fusescope
