#pragma once

#include "model/Report.h"

#include <QList>
#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QVBoxLayout;

namespace fusescope {

class ReportModel;

class GraphView;
class StageCompareWidget;
class TimeTable;
struct TimeAttribution;

// The "Graphs" tab: pick a backend and its stages, see one stage or two side by side (before
// and after fusion by default), search nodes, export what is shown.
class GraphPanel : public QWidget {
    Q_OBJECT
public:
    explicit GraphPanel(QWidget* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    // Refreshes the backend list from `report` (kept by the caller) and keeps the current
    // choice when it still exists.
    void setReport(const Report* report);
    void showBackend(const QString& name);
    // Re-reads one backend after its run finished.
    void backendUpdated(int index);

    // Selects every kernel group named `kernel` (a name can repeat across blocks) in `backend`'s
    // after-fusion view and highlights the nodes it came from; returns how many nodes that is.
    int showKernel(const QString& backend, const QString& kernel);

    // Shows `backend`'s Dynamo graph `graph` (its dynamo_fx stage) alone; false when it has none.
    bool showDynamoGraph(const QString& backend, int graph);
    // The accuracy bisect's answer (docs/accuracy.md) in the shown backend: its kernel selected
    // after fusion with the nodes it came from marked, or without a kernel the diverging node
    // selected in its Dynamo graph. Done whenever a bisected backend is shown; false when none.
    bool showFirstDivergence();
    // The "graph break" banners over the view, one per break at the shown Dynamo graph(s).
    QStringList breakBanners() const;

    GraphView* primaryView() const;
    StageCompareWidget* compareWidget() const { return m_compare; }
    bool sideBySide() const;

    // Colour the shown graphs by measured kernel time and show the Time panel (Ctrl+T); only
    // backends with a kernel trace have times.
    void setTimeShown(bool on);
    bool isTimeShown() const;
    TimeTable* timeTable() const { return m_timeTable; }

signals:
    // A break banner was clicked: break `breakIndex` of `backend`'s breakReasons.
    void breakActivated(const QString& backend, int breakIndex);

public slots:
    void focusSearch();
    void findNext();
    void findPrevious();
    void exportPrimary();
    void exportSecondary();

private:
    void onBackendChanged();
    void onStagesChanged();
    void runSearch();
    void exportView(GraphView* view);
    void updateBreakBanners();
    void updateTime();
    void onTimeRowSelected(const QStringList& stageKeys, const QStringList& nodeIds);
    const BackendRun* currentRun() const;

    const Report* m_report = nullptr;
    std::shared_ptr<const BackendRun> m_run;
    QComboBox* m_backend;
    QComboBox* m_left;
    QComboBox* m_right;
    QCheckBox* m_sideBySide;
    QLineEdit* m_search;
    QLabel* m_searchStatus;
    QLabel* m_stats;
    QList<QWidget*> m_searchRow;
    QStackedWidget* m_stack;
    QWidget* m_banners;
    QVBoxLayout* m_bannerLayout;
    QList<QPushButton*> m_bannerButtons;
    GraphView* m_single;
    StageCompareWidget* m_compare;
    QCheckBox* m_timeShown;
    TimeTable* m_timeTable;
    // Computed from m_run (its rows point into it), reset with it.
    std::shared_ptr<const TimeAttribution> m_time;
};

} // namespace fusescope
