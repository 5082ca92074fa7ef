#pragma once

#include "analysis/Suite.h"

#include <QAbstractTableModel>

namespace fusescope {

// The suite as a grid: one row per job (model and axis values), one column per backend, then a
// totals row per backend at the bottom. A cell shows the speedup over eager, coloured from red
// (slower) through white to green (faster); a failure shows FAIL in red with its reason as the
// tooltip. Read-only.
class SuiteModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { ReportPathRole = Qt::UserRole + 1, PassedRole };

    explicit SuiteModel(QObject* parent = nullptr);

    void setSuite(Suite suite);
    const Suite& suite() const { return m_suite; }
    // The report of the job in `row`, as an absolute path; empty for the totals row or no report.
    QString reportPath(int row) const;
    int totalsRow() const { return static_cast<int>(m_suite.jobs.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant cellData(int row, int column, int role) const;
    QVariant totalsData(int column, int role) const;

    Suite m_suite;
};

} // namespace fusescope
