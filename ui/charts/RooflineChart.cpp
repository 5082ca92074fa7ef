#include "RooflineChart.h"

#include "PointPicking.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace fusescope {

namespace {

const QColor kMemory(31, 119, 180);
const QColor kCompute(255, 127, 14);
const QColor kRoof(60, 60, 60);

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_caption(new QLabel(this)) {
    m_caption->setTextFormat(Qt::PlainText); // kernel and device names come from the report
    m_caption->setWordWrap(true);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        axis->setNumberFormat("gb");
    }
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOPs per byte)"));
    m_plot->yAxis->setLabel(tr("Achieved GFLOP/s"));
    m_plot->setMinimumHeight(220);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_caption);
    connect(m_plot, &QCustomPlot::mousePress, this, &RooflineChart::onMousePress);
    rebuild();
}

void RooflineChart::setRoofline(std::vector<KernelRoofline> kernels, const Roofs* roofs,
                                const QString& backend) {
    m_kernels = std::move(kernels);
    m_roofs = roofs ? std::optional<Roofs>(*roofs) : std::nullopt;
    m_backend = backend;
    rebuild();
}

QString RooflineChart::caption() const {
    return m_caption->text();
}

void RooflineChart::rebuild() {
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_placed.clear();
    int unplaced = 0;
    for (const auto& k : m_kernels) {
        if (k.intensity && k.gflops && *k.intensity > 0 && *k.gflops > 0)
            m_placed.push_back(k);
        else
            ++unplaced;
    }
    double xLo = 0.01, xHi = 100, yLo = 0.1, yHi = 100;
    if (!m_placed.empty()) {
        const auto [minI, maxI] = std::minmax_element(
            m_placed.begin(), m_placed.end(), [](auto& a, auto& b) { return *a.intensity < *b.intensity; });
        const auto [minG, maxG] = std::minmax_element(m_placed.begin(), m_placed.end(),
                                                      [](auto& a, auto& b) { return *a.gflops < *b.gflops; });
        xLo = std::min(xLo, *minI->intensity / 2);
        xHi = std::max(xHi, *maxI->intensity * 2);
        yLo = std::min(yLo, *minG->gflops / 2);
        yHi = std::max(yHi, *maxG->gflops * 2);
    }
    const bool haveRoofs = m_roofs && m_roofs->error.empty() && m_roofs->bandwidthGbs;
    if (haveRoofs) {
        const double bw = *m_roofs->bandwidthGbs;
        // float32 first and solid: the roof most kernels are held to.
        std::vector<std::pair<std::string, double>> peaks(m_roofs->gflops.begin(), m_roofs->gflops.end());
        std::stable_partition(peaks.begin(), peaks.end(), [](const auto& p) { return p.first == "float32"; });
        int style = 0;
        for (const auto& [dtype, peak] : peaks) {
            yHi = std::max(yHi, peak * 2);
            const double ridge = peak / bw;
            xHi = std::max(xHi, ridge * 4);
            auto* roof = m_plot->addGraph();
            roof->setPen(QPen(kRoof, 1.5, style++ == 0 ? Qt::SolidLine : Qt::DashLine));
            roof->setData(QVector<double>{xLo / 10, ridge, xHi * 10},
                          QVector<double>{bw * xLo / 10, peak, peak});
            roof->setName(tr("%1 roof: %2 GB/s, %3 GFLOP/s")
                              .arg(QString::fromStdString(dtype))
                              .arg(bw, 0, 'f', 1)
                              .arg(peak, 0, 'f', 0));
            auto* label = new QCPItemText(m_plot);
            label->position->setType(QCPItemPosition::ptPlotCoords);
            label->position->setCoords(ridge * 1.5, peak);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
            label->setText(tr("%1 %2 GFLOP/s").arg(QString::fromStdString(dtype)).arg(peak, 0, 'f', 0));
            label->setColor(kRoof);
        }
        auto* bwLabel = new QCPItemText(m_plot);
        bwLabel->position->setType(QCPItemPosition::ptPlotCoords);
        bwLabel->position->setCoords(xLo * 1.5, bw * xLo * 1.5);
        bwLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        bwLabel->setText(tr("%1 GB/s").arg(bw, 0, 'f', 1));
        bwLabel->setColor(kRoof);
        yLo = std::min(yLo, bw * xLo);
    }
    // Points: one graph per class so each gets its colour; a graph keeps points sorted by key,
    // so kernelAt() looks points up in m_placed, not by the graph's index.
    struct Class {
        QColor color;
        bool hollow;
        QString name;
    };
    const std::vector<Class> classes = {{kMemory, false, tr("memory-bound")},
                                        {kCompute, false, tr("compute-bound")},
                                        {kMemory, true, tr("above the memory roof (cached data)")},
                                        {Qt::gray, false, tr("no roof to compare with")}};
    for (size_t c = 0; c < classes.size(); ++c) {
        QVector<double> xs, ys;
        for (const auto& k : m_placed) {
            const size_t cls = k.bound.empty() ? 3 : !k.note.empty() ? 2 : k.bound == "compute" ? 1 : 0;
            if (cls == c) {
                xs.push_back(*k.intensity);
                ys.push_back(*k.gflops);
            }
        }
        if (xs.isEmpty())
            continue;
        auto* points = m_plot->addGraph();
        points->setLineStyle(QCPGraph::lsNone);
        points->setScatterStyle(
            classes[c].hollow
                ? QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(classes[c].color, 1.5), Qt::NoBrush, 8)
                : QCPScatterStyle(QCPScatterStyle::ssDisc, classes[c].color, 8));
        points->setData(xs, ys);
        points->setName(classes[c].name);
    }
    if (!m_selected.isEmpty()) {
        for (const auto& k : m_placed)
            if (QString::fromStdString(k.traceName) == m_selected) {
                auto* ring = m_plot->addGraph();
                ring->setLineStyle(QCPGraph::lsNone);
                ring->setScatterStyle(
                    QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 16));
                ring->setData(QVector<double>{*k.intensity}, QVector<double>{*k.gflops});
                ring->setName(tr("selected: %1").arg(m_selected));
            }
    }
    m_plot->xAxis->setRange(xLo, xHi);
    m_plot->yAxis->setRange(yLo, yHi);
    m_plot->legend->setVisible(m_plot->graphCount() > 0);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_plot->replot();

    QString text;
    if (m_kernels.empty())
        text = m_backend.isEmpty() ? tr("No traced kernels.") : tr("%1: no traced kernels.").arg(m_backend);
    else {
        text = tr("%1: %2 of %3 kernels placed").arg(m_backend).arg(m_placed.size()).arg(m_kernels.size());
        if (unplaced > 0)
            text += tr("; %1 without bytes, FLOPs or arithmetic (the table says why)").arg(unplaced);
        text += ".";
    }
    if (!m_roofs)
        text += tr(" No roofs in this run (traced before the roofline, or not traced).");
    else if (!m_roofs->error.empty())
        text += tr(" No roofs: %1").arg(QString::fromStdString(m_roofs->error));
    else
        text += tr(" Roofs measured %1 with %2 thread(s)%3.")
                    .arg(QString::fromStdString(m_roofs->measuredAt))
                    .arg(m_roofs->threads)
                    .arg(m_roofs->cache == "hit" ? tr(", from the cache") : QString());
    m_caption->setText(text);
}

void RooflineChart::selectKernel(const QString& traceName) {
    if (traceName == m_selected)
        return;
    m_selected = traceName;
    rebuild();
}

QString RooflineChart::kernelAt(const QPoint& pos, double radius) const {
    const int i = nearestPoint(
        *m_plot, m_placed.size(),
        [&](size_t k) { return std::pair(*m_placed[k].intensity, *m_placed[k].gflops); }, pos, radius);
    return i < 0 ? QString() : QString::fromStdString(m_placed[i].traceName);
}

void RooflineChart::onMousePress(QMouseEvent* event) {
    const QString name = kernelAt(event->pos());
    if (name.isEmpty())
        return;
    selectKernel(name);
    emit kernelClicked(name);
}

} // namespace fusescope
