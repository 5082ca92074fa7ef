#pragma once

#include "model/Report.h"

#include <QSet>
#include <QString>
#include <QWidget>
#include <map>
#include <string>

class QCheckBox;
class QCustomPlot;
class QCPGraph;
class QCPStatisticalBox;
class QCPBars;
class QTimer;

namespace fusescope {

class ReportModel;

// The comparison charts of a Report: latency per backend (box of quartiles, every sample as a
// jittered strip, eager beside compiled), speedup over eager, compile time and peak memory, and,
// when some backend produced an artifact (BackendRun::deployment), its size next to the eager
// model's and its load time in a fresh process.
//
// The report is owned elsewhere and grows while a comparison streams. Callers say what changed
// (backendUpdated, samplesArrived); the charts re-read that backend on a coalescing timer, so a
// stream of one sample per millisecond costs at most ~10 redraws a second.
class BackendCharts : public QWidget {
    Q_OBJECT
public:
    enum class Chart { Latency, Speedup, CompileTime, PeakMemory, Deployment };
    static constexpr int kChartCount = 5;
    // The deployment chart's bars, per artifact backend: sizes on the left axis, load on the right.
    enum class DeploymentSeries { ArtifactSize, EagerSize, LoadTime };
    static constexpr int kRedrawIntervalMs = 100;

    explicit BackendCharts(QWidget* parent = nullptr);
    ~BackendCharts() override;
    static QString title(Chart chart);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    void setReport(const Report* report);
    // A run that is not (yet) in the report's vector, e.g. the backend streaming right now;
    // nullptr goes back to the report's own entry.
    void setLiveRun(int index, const BackendRun* run);

    void setLatencyLogScale(bool log);
    bool latencyLogScale() const;

    QCustomPlot* plot(Chart chart) const;
    // Every latency sample of the compiled (or eager) runs, as plotted; for tests and exports.
    QCPGraph* sampleStrip(bool eager) const;
    QCPStatisticalBox* latencyBoxes(bool eager) const;
    QCPBars* bars(Chart chart) const;
    // The compile-time chart's stacked segment of one phase (compile_breakdown), or nullptr for a
    // phase that is not documented (analysis/CompileTime.h).
    QCPBars* compilePhaseBars(const std::string& phase) const;
    QCPBars* tuningBars() const { return m_tuneBars; }
    QCPBars* deploymentBars(DeploymentSeries series) const;
    // The backends the deployment chart shows, in its key order (0, 1, ...).
    QStringList deploymentBackends() const { return m_deploymentBackends; }
    int redrawCount() const { return m_redraws; }

    // Writes one chart; the extension picks PNG, SVG or PDF.
    bool exportChart(Chart chart, const QString& path, int width = 800, int height = 500,
                     QString* error = nullptr) const;

public slots:
    void backendUpdated(int index);
    void samplesArrived(int index);
    // Redraws now what is pending (the timer does this on its own).
    void flush();

signals:
    void redrawn();

private:
    int backendCount() const;
    const BackendRun* runAt(int index) const;
    QString backendLabel(int index) const;
    void scheduleRedraw(int index);
    void rebuild();
    void rebuildLatency();
    void rebuildBars();
    void addPhaseBars(QCustomPlot* plot);
    void addDeploymentBars(QCustomPlot* plot);
    void rebuildDeployment();
    void updateTicks();
    QString tooltipFor(Chart chart, const QPoint& pos) const;
    void exportWithDialog(Chart chart);

    const Report* m_report = nullptr;
    std::map<int, const BackendRun*> m_live;
    QCustomPlot* m_plots[kChartCount] = {};
    QCPStatisticalBox* m_boxes[2] = {};
    QCPGraph* m_strips[2] = {};
    QCPBars* m_bars[kChartCount] = {}; // Speedup, CompileTime, PeakMemory: one bar per backend
    QCPBars* m_deploymentBars[3] = {}; // DeploymentSeries
    QStringList m_deploymentBackends;
    double m_deploymentSizeUnit = 1024.0;        // bytes per unit of the size axis (KiB or MiB)
    std::map<std::string, QCPBars*> m_phaseBars; // compile time by phase, stacked over m_bars
    QCPBars* m_tuneBars = nullptr; // tvm{tune=N}: tune_s, stacked on top of compile_s (not part of it)
    QCheckBox* m_logScale = nullptr;
    QTimer* m_redrawTimer = nullptr;
    QSet<int> m_dirty;
    bool m_allDirty = false;
    int m_redraws = 0;
};

} // namespace fusescope
