#pragma once

#include "engine/RunView.h"
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
    // Refreshes the backend list from `report` (kept by the caller) and keeps the current choice
    // when it still exists. `views` are its rows' runs with what is derived from them, computed on
    // the engine thread (ReportModel::runViews(), analyzeReport()): the panel shows a view's run,
    // never a copy of it, and never recomputes what the view holds.
    void setReport(const Report* report, RunViews views);
    void showBackend(const QString& name);
    // Re-reads one backend after its run finished: `view` is its final run (ReportModel::runView).
    void backendUpdated(int index, RunViewSnapshot view);

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
    // With Time shown: colour after-fusion nodes by their kernel's fraction of the roof instead of
    // by time (docs/roofline.md).
    void setRoofHeat(bool on);
    bool isRoofHeat() const;
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
    RunViewSnapshot currentView() const;

    const Report* m_report = nullptr;
    bool m_stagesPending = false; // the report's stages are being read (ReportModel::stagesPending)
    RunViews m_views;
    RunViewSnapshot m_view; // the run shown and its derived records; m_run and m_time point into it
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
    QComboBox* m_heatScale; // with Time: colour by share of the time, or by fraction of the roof
    TimeTable* m_timeTable;
    // m_view's time attribution (its rows point into m_run), reset with it.
    std::shared_ptr<const TimeAttribution> m_time;
};

} // namespace fusescope
