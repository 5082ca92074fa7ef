#pragma once

#include "analysis/ComparisonColumns.h"
#include "model/Report.h"

#include <QAbstractTableModel>

namespace fusescope {

class ReportModel;

// One row per backend of a Report, the columns and cells of `fusescope-cli compare`. The report is
// owned elsewhere (a CompareSession or a loaded file); call backendChanged() when a run updates.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The columns are core's (analysis/ComparisonColumns.h): the CLI table shows the same cells.
    using Column = column::Id;
    using enum column::Id;
    static constexpr int ColumnCount = column::Count;
    // Raw numbers for sorting and charts, beside the formatted DisplayRole text.
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ComparisonModel(QObject* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
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
    // Training and mixed-run details of a cell; null when there is nothing more to say.
    QVariant toolTip(const BackendRun& run, int column) const;

    const Report* m_report = nullptr;
    bool m_stagesPending = false; // node and kernel counts show "..." until the stages are read
    std::vector<QString> m_liveStatus;
    // Rows announced to views: the report may grow before backendsAdded() is called.
    int m_rows = 0;
};

} // namespace fusescope
