#pragma once

#include "engine/RunView.h"
#include "model/Report.h"

#include <QWidget>
#include <map>
#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace fusescope {

class ReportModel;

class KernelTableModel;
class TraceCompareWidget;
class RooflineChart;

// The Trace tab: pick a backend (and optionally a second one to compare on the same time scale),
// see its kernels on a timeline and in a table, export the trace for Perfetto or the table as
// CSV. Selecting a kernel anywhere here emits kernelSelected, for the graph views' provenance.
class TracePanel : public QWidget {
    Q_OBJECT
public:
    explicit TracePanel(QWidget* parent = nullptr);
    ~TracePanel() override;

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    // The report is owned elsewhere; `views` are its rows' runs with their derived records
    // (ReportModel::runViews(), analyzeReport()). Call backendChanged() with a row's new view when
    // its trace arrives.
    void setReport(const Report* report, RunViews views);
    void backendChanged(int index, RunViewSnapshot view);

    void showBackend(int index);
    // A second backend under the first, -1 for none.
    void compareWith(int index);
    int shownBackend() const { return m_shown; }
    int comparedBackend() const { return m_compared; }

    // Brings the Roofline chart to the front of the table/chart tabs.
    void showRoofline();
    // Outlines a kernel in the timelines and selects its table row (no signal emitted).
    void selectKernel(const QString& name);

    bool exportChromeTrace(const QString& path, QString* error = nullptr) const;
    bool exportKernelCsv(const QString& path, QString* error = nullptr) const;

    TraceCompareWidget* timelines() const { return m_timelines; }
    KernelTableModel* kernelTable() const { return m_table; }
    QTableView* kernelTableView() const { return m_tableView; }
    RooflineChart* rooflineChart() const { return m_roofline; }

signals:
    void kernelSelected(const QString& name);

private:
    void fillPickers();
    void refresh();
    std::shared_ptr<const KernelTrace> traceAt(int index) const;
    RunViewSnapshot viewAt(int index) const;
    QString backendName(int index) const;
    void exportWithDialog(bool chrome);

    const Report* m_report = nullptr;
    // The rows' snapshots: the timelines get pointers into them (traceOf() keeps a view alive),
    // so the report may be replaced or grow while a view still paints, and nothing is copied.
    RunViews m_views;
    int m_shown = -1;
    int m_compared = -1;
    bool m_updatingPickers = false;

    QComboBox* m_backendPicker = nullptr;
    QComboBox* m_comparePicker = nullptr;
    QLabel* m_info = nullptr;
    TraceCompareWidget* m_timelines = nullptr;
    KernelTableModel* m_table = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    RooflineChart* m_roofline = nullptr;
    QTableView* m_tableView = nullptr;
};

} // namespace fusescope
