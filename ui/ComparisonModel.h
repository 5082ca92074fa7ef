#pragma once

#include "model/Report.h"

#include <QAbstractTableModel>

namespace fusescope {

// One row per backend of a Report, the same columns as `fusescope-cli compare`. The report is
// owned elsewhere (a CompareSession or a loaded file); call backendChanged() when a run updates.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Backend,
        Status,
        CompileSeconds,
        MedianMs,
        IqrMs,
        Speedup,
        PeakMemory,
        Accuracy,
        Graphs,
        GraphBreaks,
        NodesBeforeFusion,
        KernelsAfterFusion,
        ColumnCount
    };
    // Raw numbers for sorting and charts, beside the formatted DisplayRole text.
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ComparisonModel(QObject* parent = nullptr);

    void setReport(const Report* report);
    void backendChanged(int row);
    // Rows the report gained while running (assignment search candidates), appended at the end.
    void backendsAdded();
    // The live phase text shown in the Status column while a backend runs.
    void setLiveStatus(int row, const QString& text);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const BackendRun& run, int column) const;
    QVariant sortValue(const BackendRun& run, int column) const;
    // Training and mixed-run details of a cell; null when there is nothing more to say.
    QVariant toolTip(const BackendRun& run, int column) const;

    const Report* m_report = nullptr;
    std::vector<QString> m_liveStatus;
    // Rows announced to views: the report may grow before backendsAdded() is called.
    int m_rows = 0;
};

} // namespace fusescope
