#include "TuningChart.h"

#include "PointPicking.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace fusescope {

namespace {

const QColor kBest(44, 160, 44);
const QColor kPareto(31, 119, 180);
const QColor kRacing(31, 119, 180);
const QColor kDropped(150, 150, 150);

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

} // namespace

TuningChart::TuningChart(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_caption(new QLabel(this)) {
    m_caption->setTextFormat(Qt::PlainText); // entries come from the report
    m_caption->setWordWrap(true);
    m_plot->xAxis->setLabel(tr("Compile time, first (cold) round (s)"));
    m_plot->yAxis->setLabel(tr("Speedup over eager (95 % interval)"));
    m_plot->setMinimumHeight(220);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_caption);
    connect(m_plot, &QCustomPlot::mousePress, this, &TuningChart::onMousePress);
    rebuild();
}

void TuningChart::setTuning(const TuneOutcome* tuning) {
    m_tuning = tuning ? std::optional<TuneOutcome>(*tuning) : std::nullopt;
    rebuild();
}

QString TuningChart::caption() const {
    return m_caption->text();
}

void TuningChart::rebuild() {
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_placed.clear();
    if (!m_tuning) {
        m_caption->setText(tr("No tuning in this report: fusescope-cli tune MODEL --budget 5m writes one."));
        m_plot->replot();
        return;
    }
    const std::string best = m_tuning->best ? m_tuning->best->entry : std::string();
    int unplaced = 0;
    for (const auto& c : m_tuning->candidates) {
        if (c.speedup && c.compileSeconds)
            m_placed.push_back(c);
        else
            ++unplaced;
    }
    // One graph per class, each with its error bars.
    struct Class {
        QString name;
        QCPScatterStyle style;
        QColor color;
    };
    const std::vector<Class> classes = {
        {tr("best"), QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBest, 2), kBest, 14), kBest},
        {tr("Pareto front"), QCPScatterStyle(QCPScatterStyle::ssDisc, kPareto, 8), kPareto},
        {tr("in the race"), QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kRacing, 1.5), Qt::NoBrush, 8),
         kRacing},
        {tr("dropped"), QCPScatterStyle(QCPScatterStyle::ssCross, QPen(kDropped, 1.5), Qt::NoBrush, 8),
         kDropped}};
    const auto classOf = [&](const TuneCandidate& c) -> size_t {
        if (c.entry == best)
            return 0;
        if (contains(m_tuning->pareto, c.entry))
            return 1;
        return c.dropped ? 3 : 2;
    };
    double xHi = 1, yLo = 1, yHi = 1;
    for (size_t k = 0; k < classes.size(); ++k) {
        // Sorted by compile time: a graph keeps its points sorted, and the error bars follow them by index.
        std::vector<const TuneCandidate*> members;
        for (const auto& c : m_placed)
            if (classOf(c) == k)
                members.push_back(&c);
        std::stable_sort(members.begin(), members.end(), [](const TuneCandidate* a, const TuneCandidate* b) {
            return *a->compileSeconds < *b->compileSeconds;
        });
        QVector<double> xs, ys, lower, upper;
        for (const auto* c : members) {
            xs.push_back(*c->compileSeconds);
            ys.push_back(*c->speedup);
            lower.push_back(c->speedupCi95 ? *c->speedup - c->speedupCi95->first : 0);
            upper.push_back(c->speedupCi95 ? c->speedupCi95->second - *c->speedup : 0);
            xHi = std::max(xHi, *c->compileSeconds);
            yLo = std::min(yLo, c->speedupCi95 ? c->speedupCi95->first : *c->speedup);
            yHi = std::max(yHi, c->speedupCi95 ? c->speedupCi95->second : *c->speedup);
        }
        if (xs.isEmpty())
            continue;
        auto* points = m_plot->addGraph();
        points->setLineStyle(QCPGraph::lsNone);
        points->setScatterStyle(classes[k].style);
        points->setData(xs, ys, true);
        points->setName(classes[k].name);
        auto* bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(points);
        bars->setData(lower, upper);
        bars->setPen(QPen(classes[k].color, 1));
    }
    // The uncompiled model: speedup 1.
    auto* baseline = m_plot->addGraph();
    baseline->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
    baseline->setData(QVector<double>{-1e6, 1e6}, QVector<double>{1, 1});
    baseline->setName(tr("uncompiled (1.0x)"));
    if (!m_selected.isEmpty())
        for (const auto& c : m_placed)
            if (QString::fromStdString(c.entry) == m_selected) {
                auto* ring = m_plot->addGraph();
                ring->setLineStyle(QCPGraph::lsNone);
                ring->setScatterStyle(
                    QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 18));
                ring->setData(QVector<double>{*c.compileSeconds}, QVector<double>{*c.speedup});
                ring->setName(tr("selected: %1").arg(m_selected));
            }
    const double pad = (yHi - yLo) * 0.1 + 0.02;
    m_plot->xAxis->setRange(0, xHi * 1.1);
    m_plot->yAxis->setRange(yLo - pad, yHi + pad);
    m_plot->legend->setVisible(true);
    // The legend goes to the corner with the fewest points under it: the slowest compiles with
    // speedups under 1 sit bottom right, where a fixed legend hid them.
    const double xMax = xHi * 1.1, yMin = yLo - pad, ySpan = yHi - yLo + 2 * pad;
    const std::array<Qt::Alignment, 4> corners = {Qt::AlignBottom | Qt::AlignRight,
                                                  Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                                  Qt::AlignBottom | Qt::AlignLeft};
    Qt::Alignment corner = corners[0];
    size_t fewest = std::numeric_limits<size_t>::max();
    for (const auto c : corners) {
        size_t under = 0;
        for (const auto& p : m_placed) {
            const double fx = *p.compileSeconds / xMax, fy = (*p.speedup - yMin) / ySpan;
            under += ((c & Qt::AlignRight) ? fx > 0.55 : fx < 0.45) &&
                     ((c & Qt::AlignTop) ? fy > 0.55 : fy < 0.45);
        }
        if (under < fewest) {
            fewest = under;
            corner = c;
        }
    }
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, corner);
    m_plot->replot();

    QString text = tr("%1 of %2 candidates placed").arg(m_placed.size()).arg(m_tuning->candidates.size());
    if (unplaced > 0)
        text += tr("; %1 without a speedup or compile time (failed, stopped or never measured: the table "
                   "says which)")
                    .arg(unplaced);
    text += tr(". Stopped by %1 after %2 s of a %3 s budget.")
                .arg(QString::fromStdString(m_tuning->stoppedBy))
                .arg(m_tuning->elapsedSeconds, 0, 'f', 1)
                .arg(m_tuning->budgetSeconds, 0, 'f', 0);
    m_caption->setText(text);
}

void TuningChart::selectCandidate(const QString& entry) {
    if (entry == m_selected)
        return;
    m_selected = entry;
    rebuild();
}

QString TuningChart::candidateAt(const QPoint& pos, double radius) const {
    const int i = nearestPoint(
        *m_plot, m_placed.size(),
        [&](size_t k) { return std::pair(*m_placed[k].compileSeconds, *m_placed[k].speedup); }, pos, radius);
    return i < 0 ? QString() : QString::fromStdString(m_placed[i].entry);
}

void TuningChart::onMousePress(QMouseEvent* event) {
    const QString entry = candidateAt(event->pos());
    if (entry.isEmpty())
        return;
    selectCandidate(entry);
    emit candidateClicked(entry);
}

} // namespace fusescope
