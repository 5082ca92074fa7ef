#include "BackendCharts.h"

#include "analysis/CompileTime.h"
#include "analysis/Deployment.h"
#include "analysis/Format.h"
#include "analysis/LatencyStats.h"
#include "analysis/Summary.h"
#include "engine/ReportModel.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QMenu>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace fusescope {

namespace {

constexpr double kEagerOffset = -0.2;
constexpr double kCompiledOffset = 0.2;
constexpr double kStripWidth = 0.24;

// Evenly spread, deterministic jitter (golden-ratio sequence): the same sample stays at the same
// place across redraws, so a streaming strip does not shimmer.
double jitter(size_t k) {
    const double frac = std::fmod(static_cast<double>(k) * 0.6180339887498949, 1.0);
    return (frac - 0.5) * kStripWidth;
}

QString statsText(const char* what, const LatencyStats& s) {
    if (s.empty())
        return QStringLiteral("%1: no samples").arg(QLatin1String(what));
    return QStringLiteral("%1: median %2 ms, IQR %3–%4 ms, n=%5")
        .arg(QLatin1String(what))
        .arg(s.median, 0, 'f', 3)
        .arg(s.q1, 0, 'f', 3)
        .arg(s.q3, 0, 'f', 3)
        .arg(s.n);
}

// Legends never cover data (issue 33: the compile-time legend hid the inductor bar of a training
// report): a shown legend sits at the top of a column of its own right of the axis rect (a small
// grid: the legend, then an empty stretch); a hidden one goes back to the axis rect's inset layout,
// where it takes no room, and the column goes.
void showLegendBeside(QCustomPlot* plot, bool shown) {
    QCPLegend* legend = plot->legend;
    QCPLayoutGrid* layout = plot->plotLayout();
    QCPLayoutInset* inset = plot->axisRect()->insetLayout();
    const bool beside = legend->layout() != inset;
    if (shown && !beside) {
        int row = 0;
        for (int r = 0; r < layout->rowCount(); ++r)
            for (int c = 0; c < layout->columnCount(); ++c)
                if (layout->element(r, c) == plot->axisRect())
                    row = r;
        auto* side = new QCPLayoutGrid;
        layout->addElement(row, layout->columnCount(), side);
        layout->setColumnStretchFactor(layout->columnCount() - 1, 0.001);
        inset->take(legend);
        side->addElement(0, 0, legend);
        side->addElement(1, 0, new QCPLayoutElement(plot));
        side->setRowStretchFactor(0, 0.001);
        side->setRowStretchFactor(1, 1);
        side->setMargins(QMargins(0, 0, 4, 0));
    } else if (!shown && beside) {
        QCPLayout* side = legend->layout();
        side->take(legend);
        layout->remove(side);
        layout->simplify();
        inset->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    }
    legend->setVisible(shown);
}

} // namespace

QString BackendCharts::title(Chart chart) {
    switch (chart) {
    case Chart::Latency:
        return QObject::tr("Latency per iteration (ms)");
    case Chart::Speedup:
        return QObject::tr("Speedup over eager (x)");
    case Chart::CompileTime:
        return QObject::tr("Compile time (s)");
    case Chart::PeakMemory:
        return QObject::tr("Peak memory (MiB)");
    case Chart::Deployment:
        return QObject::tr("Deployment: artifact size vs eager, load in a fresh process");
    }
    return {};
}

BackendCharts::BackendCharts(QWidget* parent)
    : QWidget(parent)
    , m_redrawTimer(new QTimer(this)) {
    m_redrawTimer->setSingleShot(true);
    m_redrawTimer->setInterval(kRedrawIntervalMs);
    connect(m_redrawTimer, &QTimer::timeout, this, &BackendCharts::flush);

    m_logScale = new QCheckBox(tr("Logarithmic latency axis"), this);
    connect(m_logScale, &QCheckBox::toggled, this, &BackendCharts::setLatencyLogScale);

    auto* grid = new QGridLayout;
    const QColor colors[2] = {QColor(150, 150, 150), QColor(31, 119, 180)};
    for (int c = 0; c < kChartCount; ++c) {
        const auto chart = static_cast<Chart>(c);
        auto* plot = new QCustomPlot(this);
        m_plots[c] = plot;
        plot->setMinimumSize(320, 220);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(
            0, 0, new QCPTextElement(plot, title(chart), QFont(font().family(), 10, QFont::Bold)));
        plot->xAxis->setSubTicks(false);
        plot->xAxis->setTickLength(0, 4);
        plot->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(plot, &QWidget::customContextMenuRequested, this, [this, chart, plot](const QPoint& pos) {
            QMenu menu;
            menu.addAction(tr("Export chart…"), this, [this, chart] { exportWithDialog(chart); });
            menu.exec(plot->mapToGlobal(pos));
        });
        connect(plot, &QCustomPlot::mouseMove, this, [this, chart, plot](QMouseEvent* e) {
            const QString text = tooltipFor(chart, e->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(e->globalPosition().toPoint(), text, plot);
        });
        if (chart == Chart::Deployment) {
            grid->addWidget(plot, c / 2, 0, 1, 2); // the whole last row, shown only with artifacts
            addDeploymentBars(plot);
            plot->setVisible(false);
            continue;
        }
        grid->addWidget(plot, c / 2, c % 2);
        if (chart == Chart::Latency) {
            for (int eager = 0; eager < 2; ++eager) {
                const bool isEager = eager == 1;
                auto* box = new QCPStatisticalBox(plot->xAxis, plot->yAxis);
                box->setName(isEager ? tr("eager") : tr("compiled"));
                box->setWidth(0.3);
                box->setWhiskerWidth(0.15);
                box->setBrush(QColor(colors[isEager ? 0 : 1].red(), colors[isEager ? 0 : 1].green(),
                                     colors[isEager ? 0 : 1].blue(), 60));
                box->setPen(QPen(colors[isEager ? 0 : 1]));
                m_boxes[eager] = box;
            }
            for (int eager = 0; eager < 2; ++eager) {
                auto* strip = plot->addGraph();
                strip->setName(eager ? tr("eager samples") : tr("compiled samples"));
                strip->setLineStyle(QCPGraph::lsNone);
                strip->setScatterStyle(
                    QCPScatterStyle(QCPScatterStyle::ssDisc, colors[eager ? 0 : 1].darker(130), 3));
                m_strips[eager] = strip;
            }
            plot->legend->removeItem(plot->legend->itemCount() - 1); // eager samples: the box says it
            plot->legend->removeItem(plot->legend->itemCount() - 1);
            showLegendBeside(plot, true);
        } else {
            auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
            bars->setWidth(0.6);
            bars->setBrush(colors[1].lighter(130));
            bars->setPen(QPen(colors[1]));
            m_bars[c] = bars;
            if (chart == Chart::CompileTime)
                addPhaseBars(plot);
            if (chart == Chart::Speedup) {
                auto* parity = new QCPItemStraightLine(plot); // 1.0x: no faster than eager
                parity->point1->setCoords(0, 1);
                parity->point2->setCoords(1, 1);
                parity->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
            }
        }
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_logScale);
    layout->addLayout(grid, 1);
}

BackendCharts::~BackendCharts() = default;

// One bar per documented phase, stacked in phase order over the compile_s bar: where a run has
// a breakdown its phases add up to compile_s and cover that bar; where not, the bar shows alone.
void BackendCharts::addPhaseBars(QCustomPlot* plot) {
    static const QColor palette[] = {{31, 119, 180},  {174, 199, 232}, {255, 127, 14}, {199, 199, 199},
                                     {44, 160, 44},   {152, 223, 138}, {214, 39, 40},  {255, 152, 150},
                                     {148, 103, 189}, {197, 176, 213}, {140, 86, 75},  {227, 119, 194},
                                     {188, 189, 34},  {127, 127, 127}};
    QCPBars* below = nullptr;
    int c = 0;
    for (const auto& phase : compilePhaseOrder()) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(QString::fromStdString(compilePhaseLabel(phase)));
        bars->setWidth(0.6);
        const QColor color = palette[c++ % std::size(palette)];
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(120)));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_phaseBars[phase] = bars;
    }
    // Tuning (tvm{tune=N}) is not compile time: its own bar on top of the compile_s bar.
    m_tuneBars = new QCPBars(plot->xAxis, plot->yAxis);
    m_tuneBars->setName(tr("tuning (not in compile)"));
    m_tuneBars->setWidth(0.6);
    m_tuneBars->setBrush(QBrush(QColor(120, 120, 120), Qt::BDiagPattern));
    m_tuneBars->setPen(QPen(QColor(90, 90, 90)));
    m_tuneBars->moveAbove(m_bars[static_cast<int>(Chart::CompileTime)]);
    plot->legend->setFont(QFont(font().family(), 7));
    plot->legend->removeItem(0);   // the compile_s bar: the segments carry the legend
    showLegendBeside(plot, false); // shown once a run has a breakdown
}

// Per artifact backend three bars side by side: the artifact's size and the eager state_dict's
// on the left axis, the median load time in fresh processes on the right one.
void BackendCharts::addDeploymentBars(QCustomPlot* plot) {
    auto* group = new QCPBarsGroup(plot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(2);
    const struct {
        const char* name;
        QColor color;
        bool right;
    } series[3] = {{"artifact size", QColor(31, 119, 180), false},
                   {"eager state_dict size", QColor(150, 150, 150), false},
                   {"load time (fresh process)", QColor(255, 127, 14), true}};
    plot->yAxis2->setVisible(true);
    plot->yAxis->setLabel(tr("size (KiB)"));
    plot->yAxis2->setLabel(tr("load (ms)"));
    for (int s = 0; s < 3; ++s) {
        auto* bars = new QCPBars(plot->xAxis, series[s].right ? plot->yAxis2 : plot->yAxis);
        bars->setName(tr(series[s].name));
        bars->setWidth(0.25);
        bars->setBrush(series[s].color.lighter(120));
        bars->setPen(QPen(series[s].color));
        bars->setBarsGroup(group);
        m_deploymentBars[s] = bars;
    }
    plot->legend->setFont(QFont(font().family(), 7));
    showLegendBeside(plot, true);
}

QCPBars* BackendCharts::deploymentBars(DeploymentSeries series) const {
    return m_deploymentBars[static_cast<int>(series)];
}

// Few backends have an artifact: the chart is re-read whole at each redraw, its keys counting
// only those backends.
void BackendCharts::rebuildDeployment() {
    QCustomPlot* plot = m_plots[static_cast<int>(Chart::Deployment)];
    for (auto* bars : m_deploymentBars)
        bars->data()->clear();
    m_deploymentBackends.clear();
    std::vector<const Deployment*> shown;
    int64_t largest = 0;
    for (int i = 0; i < backendCount(); ++i) {
        const BackendRun* run = runAt(i);
        if (!run || !run->deployment || !run->deployment->artifactBytes)
            continue;
        shown.push_back(&*run->deployment);
        m_deploymentBackends << QString::fromStdString(run->name);
        largest = std::max(
            {largest, *run->deployment->artifactBytes, run->deployment->eagerModelBytes.value_or(0)});
    }
    plot->setVisible(!shown.empty());
    m_deploymentSizeUnit = largest >= 10 * 1024 * 1024 ? 1024.0 * 1024.0 : 1024.0;
    plot->yAxis->setLabel(m_deploymentSizeUnit > 1024.0 ? tr("size (MiB)") : tr("size (KiB)"));
    double maxSize = 0, maxLoad = 0;
    for (size_t k = 0; k < shown.size(); ++k) {
        const Deployment& d = *shown[k];
        const double key = static_cast<double>(k);
        const double artifact = static_cast<double>(*d.artifactBytes) / m_deploymentSizeUnit;
        deploymentBars(DeploymentSeries::ArtifactSize)->addData(key, artifact);
        maxSize = std::max(maxSize, artifact);
        if (d.eagerModelBytes) {
            const double eager = static_cast<double>(*d.eagerModelBytes) / m_deploymentSizeUnit;
            deploymentBars(DeploymentSeries::EagerSize)->addData(key, eager);
            maxSize = std::max(maxSize, eager);
        }
        if (d.loadSeconds) {
            deploymentBars(DeploymentSeries::LoadTime)->addData(key, *d.loadSeconds * 1e3);
            maxLoad = std::max(maxLoad, *d.loadSeconds * 1e3);
        }
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int k = 0; k < m_deploymentBackends.size(); ++k)
        ticker->addTick(k, m_deploymentBackends[k]);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(-0.6, std::max<double>(static_cast<double>(shown.size()), 1.0) - 0.4);
    plot->yAxis->setRange(0, maxSize > 0 ? maxSize * 1.3 : 1.0);
    plot->yAxis2->setRange(0, maxLoad > 0 ? maxLoad * 1.3 : 1.0);
}

QCPBars* BackendCharts::compilePhaseBars(const std::string& phase) const {
    const auto it = m_phaseBars.find(phase);
    return it == m_phaseBars.end() ? nullptr : it->second;
}

QCustomPlot* BackendCharts::plot(Chart chart) const {
    return m_plots[static_cast<int>(chart)];
}
QCPGraph* BackendCharts::sampleStrip(bool eager) const {
    return m_strips[eager ? 1 : 0];
}
QCPStatisticalBox* BackendCharts::latencyBoxes(bool eager) const {
    return m_boxes[eager ? 1 : 0];
}
QCPBars* BackendCharts::bars(Chart chart) const {
    return m_bars[static_cast<int>(chart)];
}

void BackendCharts::setReport(const Report* report) {
    m_report = report;
    m_live.clear();
    m_allDirty = true;
    flush(); // a new report is drawn at once; only the streaming updates wait for the timer
}

void BackendCharts::setLiveRun(int index, const BackendRun* run) {
    if (run)
        m_live[index] = run;
    else
        m_live.erase(index);
    scheduleRedraw(index);
}

int BackendCharts::backendCount() const {
    int n = m_report ? static_cast<int>(m_report->backends.size()) : 0;
    if (!m_live.empty())
        n = std::max(n, m_live.rbegin()->first + 1);
    return n;
}

const BackendRun* BackendCharts::runAt(int index) const {
    if (auto it = m_live.find(index); it != m_live.end())
        return it->second;
    if (m_report && index >= 0 && index < static_cast<int>(m_report->backends.size()))
        return &m_report->backends[static_cast<size_t>(index)];
    return nullptr;
}

QString BackendCharts::backendLabel(int index) const {
    const BackendRun* run = runAt(index);
    return run ? QString::fromStdString(run->name) : QString();
}

void BackendCharts::backendUpdated(int index) {
    scheduleRedraw(index);
}
void BackendCharts::samplesArrived(int index) {
    scheduleRedraw(index);
}

void BackendCharts::scheduleRedraw(int index) {
    m_dirty.insert(index);
    if (!m_redrawTimer->isActive())
        m_redrawTimer->start();
}

void BackendCharts::flush() {
    m_redrawTimer->stop();
    if (m_allDirty) {
        m_dirty.clear();
        for (int i = 0; i < backendCount(); ++i)
            m_dirty.insert(i);
        // Backends that vanished with the old report must vanish from the plots too.
        for (auto* strip : m_strips)
            strip->data()->clear();
        for (auto* box : m_boxes)
            box->data()->clear();
        for (auto* bar : m_bars)
            if (bar)
                bar->data()->clear();
        for (auto& [phase, bars] : m_phaseBars)
            bars->data()->clear();
        m_allDirty = false;
    }
    rebuild();
    m_dirty.clear();
    ++m_redraws;
    emit redrawn();
}

void BackendCharts::rebuild() {
    rebuildLatency();
    rebuildBars();
    updateTicks();
    rebuildDeployment(); // after updateTicks: its ticks are the artifact backends only
    for (auto* plot : m_plots)
        plot->replot(QCustomPlot::rpQueuedReplot);
}

// Only the backends that changed are re-read: their keys are replaced in place, so a long run
// with many backends does not re-copy every sample of every backend at each redraw.
void BackendCharts::rebuildLatency() {
    for (int index : std::as_const(m_dirty)) {
        const BackendRun* run = runAt(index);
        for (int eager = 0; eager < 2; ++eager) {
            const double center = index + (eager ? kEagerOffset : kCompiledOffset);
            m_strips[eager]->data()->remove(center - 0.3, center + 0.3);
            m_boxes[eager]->data()->remove(center - 0.01, center + 0.01);
            if (!run)
                continue;
            const auto& samples = eager ? run->eagerSamplesMs : run->compiledSamplesMs;
            QVector<QCPGraphData> points;
            points.reserve(static_cast<int>(samples.size()));
            for (size_t k = 0; k < samples.size(); ++k)
                points.append(QCPGraphData(center + jitter(k), samples[k]));
            m_strips[eager]->data()->add(points, false);
            const LatencyStats s = computeLatencyStats(samples);
            if (!s.empty())
                m_boxes[eager]->addData(center, s.min, s.q1, s.median, s.q3, s.max);
        }
    }
    auto* plot = m_plots[static_cast<int>(Chart::Latency)];
    bool found = false;
    QCPRange range = m_strips[0]->data()->valueRange(found);
    bool foundEager = false;
    const QCPRange eagerRange = m_strips[1]->data()->valueRange(foundEager);
    if (foundEager)
        range =
            found ? QCPRange(std::min(range.lower, eagerRange.lower), std::max(range.upper, eagerRange.upper))
                  : eagerRange;
    if (found || foundEager) {
        const bool log = latencyLogScale();
        plot->yAxis->setRange(log ? range.lower / 1.5 : 0, log ? range.upper * 1.5 : range.upper * 1.1);
    }
}

void BackendCharts::rebuildBars() {
    for (int index : std::as_const(m_dirty)) {
        const BackendRun* run = runAt(index);
        for (int c = 1; c < 4; ++c) {
            m_bars[c]->data()->remove(index - 0.01, index + 0.01);
            if (!run)
                continue;
            std::optional<double> value;
            switch (static_cast<Chart>(c)) {
            case Chart::Speedup:
                value = speedupOverEager(*run);
                break;
            case Chart::CompileTime:
                value = run->compileSeconds;
                break;
            case Chart::PeakMemory:
                if (run->peakMemoryBytes)
                    value = static_cast<double>(*run->peakMemoryBytes) / (1024.0 * 1024.0);
                break;
            case Chart::Latency:
            case Chart::Deployment: // its own keys: rebuildDeployment
                break;
            }
            if (value)
                m_bars[c]->addData(index, *value);
        }
        for (auto& [phase, bars] : m_phaseBars) {
            bars->data()->remove(index - 0.01, index + 0.01);
            if (!run)
                continue;
            for (const auto& p : run->compileBreakdown)
                if (p.name == phase && p.seconds > 0)
                    bars->addData(index, p.seconds);
        }
        m_tuneBars->data()->remove(index - 0.01, index + 0.01);
        if (run && run->tuning)
            m_tuneBars->addData(index, run->tuning->seconds);
    }
    // The legend names only the segments some run has, so it stays small enough to leave the
    // bars visible (a tuned TVM row alone has no phases, only its tuning bar).
    bool anyPhase = false;
    const auto legendIfShown = [&anyPhase](QCPBars* bars) {
        bars->removeFromLegend(); // then added back in phase order
        if (!bars->data()->isEmpty()) {
            anyPhase = true;
            bars->addToLegend();
        }
    };
    for (const auto& phase : compilePhaseOrder())
        if (const auto it = m_phaseBars.find(phase); it != m_phaseBars.end())
            legendIfShown(it->second);
    legendIfShown(m_tuneBars);
    showLegendBeside(m_plots[static_cast<int>(Chart::CompileTime)], anyPhase);
    for (int c = 1; c < 4; ++c) {
        bool found = false;
        QCPRange range = m_bars[c]->data()->valueRange(found);
        if (c == static_cast<int>(Chart::CompileTime)) // the tuning bar stands on the compile bar
            for (const auto& tune : *m_tuneBars->data()) {
                const auto below = m_bars[c]->data()->findBegin(tune.key - 0.01);
                const double base =
                    below != m_bars[c]->data()->constEnd() && std::abs(below->key - tune.key) < 0.01
                        ? below->value
                        : 0.0;
                range.upper = std::max(range.upper, base + tune.value);
                found = true;
            }
        m_plots[c]->yAxis->setRange(0, found ? std::max(range.upper * 1.15, c == 1 ? 1.2 : 0.0) : 1.0);
    }
}

void BackendCharts::updateTicks() {
    const int n = backendCount();
    for (auto* plot : m_plots) {
        if (plot == m_plots[static_cast<int>(Chart::Deployment)])
            continue; // rebuildDeployment sets its own
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int i = 0; i < n; ++i)
            ticker->addTick(i, backendLabel(i));
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(-0.6, std::max(n, 1) - 0.4);
    }
}

void BackendCharts::setLatencyLogScale(bool log) {
    if (m_logScale->isChecked() != log)
        m_logScale->setChecked(log); // comes back here through toggled()
    auto* axis = m_plots[static_cast<int>(Chart::Latency)]->yAxis;
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log)
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_allDirty = true;
    flush();
}

bool BackendCharts::latencyLogScale() const {
    return m_logScale->isChecked();
}

QString BackendCharts::tooltipFor(Chart chart, const QPoint& pos) const {
    QCustomPlot* plot = m_plots[static_cast<int>(chart)];
    const double key = plot->xAxis->pixelToCoord(pos.x());
    int index = static_cast<int>(std::lround(key));
    if (chart == Chart::Deployment) { // keys count the artifact backends only
        if (index < 0 || index >= m_deploymentBackends.size())
            return {};
        for (int i = 0; i < backendCount(); ++i)
            if (runAt(i) && QString::fromStdString(runAt(i)->name) == m_deploymentBackends[index]) {
                if (std::abs(key - index) > 0.45)
                    return {};
                QString text = m_deploymentBackends[index];
                for (const auto& line : deploymentLines(*runAt(i)))
                    text += QLatin1Char('\n') + QString::fromStdString(line);
                return text;
            }
        return {};
    }
    const BackendRun* run = runAt(index);
    if (!run || std::abs(key - index) > 0.45)
        return {};
    QString text = QString::fromStdString(run->name);
    switch (chart) {
    case Chart::Latency: {
        text += QLatin1Char('\n') + statsText("compiled", computeLatencyStats(run->compiledSamplesMs));
        text += QLatin1Char('\n') + statsText("eager", computeLatencyStats(run->eagerSamplesMs));
        // The sample under the cursor, if a strip point is within a few pixels.
        double best = 36;
        QString sample;
        for (int eager = 0; eager < 2; ++eager) {
            const double center = index + (eager ? kEagerOffset : kCompiledOffset);
            auto data = m_strips[eager]->data();
            for (auto it = data->findBegin(center - 0.15); it != data->findEnd(center + 0.15); ++it) {
                const double dx = plot->xAxis->coordToPixel(it->key) - pos.x();
                const double dy = plot->yAxis->coordToPixel(it->value) - pos.y();
                if (dx * dx + dy * dy < best) {
                    best = dx * dx + dy * dy;
                    sample = QStringLiteral("\n%1 sample: %2 ms")
                                 .arg(eager ? tr("eager") : tr("compiled"))
                                 .arg(it->value, 0, 'f', 4);
                }
            }
        }
        return text + sample;
    }
    case Chart::Speedup: {
        const auto s = speedupOverEager(*run);
        return text + (s ? QStringLiteral(": %1x over eager").arg(*s, 0, 'f', 2) : tr(": no speedup yet"));
    }
    case Chart::CompileTime: {
        text += run->compileSeconds
                    ? QStringLiteral(": compiled in %1 s").arg(*run->compileSeconds, 0, 'f', 2)
                    : tr(": not compiled yet");
        for (const auto& p : orderedPhases(run->compileBreakdown))
            text += QStringLiteral("\n  %1: %2 s")
                        .arg(QString::fromStdString(compilePhaseLabel(p.name)))
                        .arg(p.seconds, 0, 'f', 3);
        if (run->tuning)
            text += QLatin1Char('\n') + QString::fromStdString(tuningLine(*run->tuning));
        return text;
    }
    case Chart::PeakMemory: {
        if (!run->peakMemoryBytes)
            return text + tr(": no memory measurement");
        return text + QStringLiteral(": peak %1 MiB (%2)")
                          .arg(static_cast<double>(*run->peakMemoryBytes) / (1024.0 * 1024.0), 0, 'f', 1)
                          .arg(QString::fromStdString(run->memoryMethod));
    }
    case Chart::Deployment:
        break; // above
    }
    return text;
}

void BackendCharts::subscribe(const ReportModel* model) {
    auto reset = [this, model] { setReport(&model->report()); };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendAdded, this, &BackendCharts::backendUpdated);
    // The running backend's samples stream into the model's live run: chart that one meanwhile.
    connect(model, &ReportModel::backendStarted, this,
            [this, model](int row) { setLiveRun(row, model->liveRun(row)); });
    connect(model, &ReportModel::samplesArrived, this, &BackendCharts::samplesArrived);
    connect(model, &ReportModel::backendFinished, this, [this](int row) {
        setLiveRun(row, nullptr);
        backendUpdated(row);
    });
}

} // namespace fusescope
