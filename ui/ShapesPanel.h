#pragma once

#include "model/Report.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace fusescope {

class ReportModel;

// The "Shapes" tab: how each backend copes with the report's input sets, compiled once with
// dynamic=False and once with dynamic=True: latency per set, recompiles and guard failures, and
// a warning when Dynamo hit its recompile limit and silently fell back to eager.
class ShapesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ShapesPanel(QWidget* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    void setReport(const Report* report);
    void refresh();

    enum Column {
        InputSet,
        EagerMs,
        StaticMs,
        DynamicMs,
        StaticSpeedup,
        DynamicSpeedup,
        Recompiled,
        Status,
        ColumnCount
    };
    QTreeWidget* tree() const { return m_tree; }
    // The limit-hit warning shown above the table; empty when no backend hit the limit.
    QString warningText() const;

private:
    const Report* m_report = nullptr;
    QLabel* m_warning;
    QLabel* m_empty;
    QTreeWidget* m_tree;
};

} // namespace fusescope
