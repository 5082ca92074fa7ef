#include "TimelineView.h"

#include "analysis/Format.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace fusescope {

namespace {

// Stable colour per kernel name: the same kernel has the same colour in both compared views.
QColor colorForName(const std::string& name) {
    const size_t h = std::hash<std::string>{}(name);
    return QColor::fromHsv(static_cast<int>(h % 360), 110 + static_cast<int>((h >> 9) % 80),
                           190 + static_cast<int>((h >> 17) % 50));
}

QString durationText(double ns) {
    const double a = std::abs(ns);
    if (a >= 1e9)
        return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
    if (a >= 1e6)
        return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
    if (a >= 1e3)
        return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', 2);
    return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
}

// A ruler label that still tells ticks apart deep into a long trace: the unit follows the tick
// step, with as many decimals as the step needs ("8299812.4 µs", not "8.300 s" five times).
QString rulerText(double ns, double stepNs) {
    static const struct {
        double scale;
        const char* unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    for (const auto& u : units) {
        if (stepNs >= u.scale || u.scale == 1) {
            const int decimals =
                std::max(0, static_cast<int>(std::ceil(-std::log10(stepNs / u.scale) - 1e-9)));
            return QStringLiteral("%1 %2").arg(ns / u.scale, 0, 'f', decimals).arg(QString::fromUtf8(u.unit));
        }
    }
    return {};
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(kRulerHeight + kLaneHeight + kMemoryHeight);
}

TimelineView::~TimelineView() = default;

void TimelineView::setTrace(std::shared_ptr<const KernelTrace> trace) {
    m_trace = std::move(trace);
    m_index = m_trace ? TimelineIndex(*m_trace) : TimelineIndex();
    m_originNs = m_trace ? m_trace->beginNs() : 0;
    m_nameColors.clear();
    if (m_trace)
        for (const auto& name : m_trace->names)
            m_nameColors.push_back(colorForName(name));
    m_selected = -1;
    m_highlighted = -1;
    buildRows();
    resetZoom();
    updateGeometry();
}

double TimelineView::durationNs() const {
    return m_trace && !m_trace->events.empty() ? static_cast<double>(m_trace->endNs() - m_originNs) : 0.0;
}

void TimelineView::buildRows() {
    m_rows.clear();
    if (!m_trace)
        return;
    int y = 0;
    for (int track : m_index.eventTracks()) {
        QString label = QStringLiteral("track %1").arg(track);
        for (const auto& t : m_trace->tracks)
            if (t.id == track)
                label = QString::fromStdString(t.name);
        for (int lane = 0; lane < m_index.laneCount(track); ++lane) {
            m_rows.push_back({track, lane, y, lane == 0 ? label : QString()});
            y += kLaneHeight;
        }
        y += kTrackGap;
    }
}

int TimelineView::rowsHeight() const {
    return m_rows.empty() ? 0 : m_rows.back().y + kLaneHeight + kTrackGap;
}

QSize TimelineView::sizeHint() const {
    const bool memory = !m_index.memoryDevices().empty();
    return {900, kRulerHeight + rowsHeight() + (memory ? kMemoryHeight : 0) + 4};
}

void TimelineView::setTimeRange(double startNs, double endNs) {
    if (endNs <= startNs)
        return;
    m_rangeStart = startNs;
    m_rangeEnd = endNs;
    update();
}

void TimelineView::userSetRange(double start, double end) {
    // Keep at least ~10 ns on screen: below that the integer timestamps are all there is.
    if (end - start < 10)
        return;
    setTimeRange(start, end);
    emit timeRangeChanged(start, end);
}

void TimelineView::resetZoom() {
    const double span = durationNs();
    setTimeRange(0, span > 0 ? span * 1.02 : 1000.0);
}

void TimelineView::setHighlightedKernel(const QString& name) {
    m_highlighted = -1;
    if (m_trace) {
        const std::string key = name.toStdString();
        for (size_t i = 0; i < m_trace->names.size(); ++i)
            if (m_trace->names[i] == key)
                m_highlighted = static_cast<int32_t>(i);
    }
    update();
}

void TimelineView::selectEvent(int64_t eventIndex) {
    m_selected = eventIndex;
    update();
    if (m_trace && eventIndex >= 0 && static_cast<size_t>(eventIndex) < m_trace->events.size())
        emit eventSelected(
            QString::fromStdString(m_trace->names[static_cast<size_t>(m_trace->events[eventIndex].name)]));
}

double TimelineView::nsPerPixel(int plotWidth) const {
    return (m_rangeEnd - m_rangeStart) / std::max(plotWidth, 1);
}

const TimelineView::Row* TimelineView::rowAt(int y) const {
    const int rel = y - kRulerHeight;
    for (const Row& r : m_rows)
        if (rel >= r.y && rel < r.y + kLaneHeight)
            return &r;
    return nullptr;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    paintTimeline(p, rect());
}

void TimelineView::paintTimeline(QPainter& p, const QRect& rect) const {
    p.fillRect(rect, palette().base());
    m_lastSpans = 0;
    if (!m_trace) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect, Qt::AlignCenter, tr("No kernel trace for this backend."));
        return;
    }
    const QRect plot(rect.left() + kHeaderWidth, rect.top(), std::max(rect.width() - kHeaderWidth, 1),
                     rect.height());
    const double npp = nsPerPixel(plot.width());
    const auto t0 = static_cast<int64_t>(std::floor(m_originNs + m_rangeStart));
    const auto t1 = static_cast<int64_t>(std::ceil(m_originNs + m_rangeEnd)) + 1;
    auto xOf = [&](int64_t t) {
        return plot.left() + (static_cast<double>(t - m_originNs) - m_rangeStart) / npp;
    };

    paintRuler(p, plot, npp);
    const QFontMetrics fm(font());
    const QColor mergedColor = palette().color(QPalette::Dark);
    const auto& events = m_trace->events;
    p.setClipRect(plot);
    for (const Row& row : m_rows) {
        const int y = rect.top() + kRulerHeight + row.y;
        if (y > rect.bottom())
            break;
        for (const TimelineSpan& s : m_index.spansInLane(row.track, row.lane, t0, t1, npp)) {
            ++m_lastSpans;
            const double x0 = std::max(xOf(s.startNs), plot.left() - 1.0);
            const double x1 = std::min(xOf(s.endNs), plot.right() + 1.0);
            const QRectF box(x0, y + 1, std::max(x1 - x0, 1.0), kLaneHeight - 2);
            const TraceEvent& e = events[s.firstEvent];
            if (s.merged()) {
                // A few pixels of sub-pixel kernels: coloured by the first of them, so the mix of
                // kernels along a busy stream stays visible, with a dark foot marking "merged".
                p.fillRect(box, m_nameColors[static_cast<size_t>(e.name)].darker(115));
                p.fillRect(QRectF(box.left(), box.bottom() - 2, box.width(), 2), mergedColor);
                continue;
            }
            p.fillRect(box, m_nameColors[static_cast<size_t>(e.name)]);
            if (e.name == m_highlighted || static_cast<int64_t>(s.firstEvent) == m_selected) {
                p.setPen(QPen(static_cast<int64_t>(s.firstEvent) == m_selected ? Qt::red : Qt::black, 2));
                p.drawRect(box.adjusted(1, 1, -1, -1));
            }
            if (box.width() > 40) {
                const QString name = QString::fromStdString(m_trace->names[static_cast<size_t>(e.name)]);
                p.setPen(Qt::black);
                const QRectF visible = box.intersected(QRectF(plot)).adjusted(3, 0, -2, 0);
                p.drawText(visible, Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(name, Qt::ElideRight, static_cast<int>(visible.width())));
            }
        }
    }
    p.setClipping(false);
    if (!m_index.memoryDevices().empty()) {
        const int top = rect.top() + kRulerHeight + rowsHeight();
        paintMemory(p, QRect(plot.left(), top, plot.width(), std::min(kMemoryHeight, rect.bottom() - top)),
                    npp);
    }
    // Track names last, over a plain header column.
    p.fillRect(QRect(rect.left(), rect.top(), kHeaderWidth, rect.height()), palette().window());
    p.setPen(palette().color(QPalette::WindowText));
    for (const Row& row : m_rows)
        if (!row.label.isEmpty())
            p.drawText(
                QRect(rect.left() + 4, rect.top() + kRulerHeight + row.y, kHeaderWidth - 8, kLaneHeight),
                Qt::AlignVCenter | Qt::AlignLeft,
                fm.elidedText(row.label, Qt::ElideMiddle, kHeaderWidth - 8));
    if (!m_index.memoryDevices().empty())
        p.drawText(
            QRect(rect.left() + 4, rect.top() + kRulerHeight + rowsHeight(), kHeaderWidth - 8, kLaneHeight),
            Qt::AlignVCenter | Qt::AlignLeft,
            tr("memory, peak %1").arg(QString::fromStdString(format::bytes(m_index.peakMemoryBytes()))));
}

void TimelineView::paintRuler(QPainter& p, const QRect& plot, double npp) const {
    // A tick about every 100 px, at 1, 2 or 5 times a power of ten.
    const double raw = npp * 100;
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-3))));
    const double step =
        raw / magnitude < 2 ? magnitude * 2 : (raw / magnitude < 5 ? magnitude * 5 : magnitude * 10);
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(plot.left(), plot.top() + kRulerHeight - 1, plot.right(), plot.top() + kRulerHeight - 1);
    p.setPen(palette().color(QPalette::WindowText));
    for (double t = std::ceil(m_rangeStart / step) * step; t < m_rangeEnd; t += step) {
        const int x = plot.left() + static_cast<int>((t - m_rangeStart) / npp);
        p.drawLine(x, plot.top() + kRulerHeight - 5, x, plot.top() + kRulerHeight - 1);
        p.drawText(x + 3, plot.top() + kRulerHeight - 6, rulerText(t, step));
    }
}

void TimelineView::paintMemory(QPainter& p, const QRect& strip, double npp) const {
    if (strip.height() <= 4 || m_index.peakMemoryBytes() <= 0)
        return;
    const double scale = (strip.height() - 4) / static_cast<double>(m_index.peakMemoryBytes());
    const int base = strip.bottom() - 1;
    const QColor colors[] = {QColor(214, 39, 40), QColor(44, 160, 44), QColor(148, 103, 189)};
    int c = 0;
    for (int32_t device : m_index.memoryDevices()) {
        const QColor color = colors[c++ % 3];
        QColor fill = color;
        fill.setAlpha(50);
        const auto columns = m_index.memoryColumns(device, m_originNs + static_cast<int64_t>(m_rangeStart),
                                                   npp, strip.width());
        // Two batched drawLines calls instead of 2 x width single lines: a per-call QPainter
        // overhead would otherwise dominate the strip.
        QVector<QLine> under;
        QVector<QLine> range;
        under.reserve(static_cast<int>(columns.size()));
        range.reserve(static_cast<int>(columns.size()));
        for (int x = 0; x < static_cast<int>(columns.size()); ++x) {
            const MemoryColumn& col = columns[static_cast<size_t>(x)];
            if (!col.valid)
                continue;
            const int yMax =
                base - static_cast<int>(static_cast<double>(std::max<int64_t>(col.maxBytes, 0)) * scale);
            const int yMin =
                base - static_cast<int>(static_cast<double>(std::max<int64_t>(col.minBytes, 0)) * scale);
            under.append(QLine(strip.left() + x, base, strip.left() + x, yMin));
            range.append(QLine(strip.left() + x, yMin, strip.left() + x, yMax));
        }
        p.setPen(fill);
        p.drawLines(under);
        p.setPen(color);
        p.drawLines(range);
    }
}

int64_t TimelineView::eventAt(const QPoint& pos) const {
    const Row* row = rowAt(pos.y());
    if (!row || pos.x() < kHeaderWidth)
        return -1;
    const double npp = nsPerPixel(width() - kHeaderWidth);
    const double t = m_originNs + m_rangeStart + (pos.x() - kHeaderWidth) * npp;
    return m_index.eventAt(row->track, row->lane, static_cast<int64_t>(t),
                           static_cast<int64_t>(std::ceil(2 * npp)));
}

QString TimelineView::toolTipAt(const QPoint& pos) const {
    const int64_t i = eventAt(pos);
    if (i < 0)
        return {};
    const TraceEvent& e = m_trace->events[static_cast<size_t>(i)];
    QString text =
        QStringLiteral("<b>%1</b><br>duration %2<br>start %3 (%4)")
            .arg(QString::fromStdString(m_trace->names[static_cast<size_t>(e.name)]).toHtmlEscaped(),
                 durationText(static_cast<double>(e.durationNs)),
                 durationText(static_cast<double>(e.startNs - m_originNs)), QLatin1String(toString(e.kind)));
    if (e.iteration >= 0)
        text += tr("<br>iteration %1").arg(e.iteration);
    if (static_cast<double>(e.durationNs) < nsPerPixel(width() - kHeaderWidth))
        text += tr("<br><i>narrower than a pixel here: zoom in to see it alone</i>");
    return text;
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double npp = nsPerPixel(width() - kHeaderWidth);
    const double x = std::max(0.0, event->position().x() - kHeaderWidth);
    const double anchor = m_rangeStart + x * npp; // the time under the cursor stays there
    const double factor = std::pow(0.998, event->angleDelta().y());
    userSetRange(anchor - (anchor - m_rangeStart) * factor, anchor + (m_rangeEnd - anchor) * factor);
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragging = true;
    m_dragMoved = false;
    m_dragOrigin = event->position().toPoint();
    m_dragStartNs = m_rangeStart;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragging)
        return;
    const int dx = event->position().toPoint().x() - m_dragOrigin.x();
    if (std::abs(dx) > 2)
        m_dragMoved = true;
    if (!m_dragMoved)
        return;
    const double span = m_rangeEnd - m_rangeStart;
    const double start = m_dragStartNs - dx * nsPerPixel(width() - kHeaderWidth);
    userSetRange(start, start + span);
    setCursor(Qt::ClosedHandCursor);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_dragging)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    unsetCursor();
    if (!m_dragMoved)
        selectEvent(eventAt(event->position().toPoint()));
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
    resetZoom();
    emit timeRangeChanged(m_rangeStart, m_rangeEnd);
}

} // namespace fusescope
