#pragma once

#include "model/KernelTrace.h"
#include "trace/TimelineIndex.h"

#include <QWidget>
#include <memory>
#include <vector>

namespace fusescope {

// A kernel timeline painted directly (no QGraphicsScene: 10^5 items would cost more to manage
// than to draw). One row per track, split into lanes by nesting depth; boxes coloured by kernel
// name; events narrower than a pixel merged by TimelineIndex; memory in use drawn per pixel
// column underneath. Wheel zooms around the cursor, drag pans, click selects.
//
// Times in the API are nanoseconds relative to the trace's first event, so two views over two
// traces can share one time range and compare backends on the same scale.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kHeaderWidth = 160;
    static constexpr int kRulerHeight = 20;
    static constexpr int kLaneHeight = 16;
    static constexpr int kTrackGap = 6;
    static constexpr int kMemoryHeight = 56;

    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setTrace(std::shared_ptr<const KernelTrace> trace);
    const std::shared_ptr<const KernelTrace>& trace() const { return m_trace; }
    // Span of the trace, first event to last end.
    double durationNs() const;

    void setTimeRange(double startNs, double endNs);
    double rangeStartNs() const { return m_rangeStart; }
    double rangeEndNs() const { return m_rangeEnd; }
    void resetZoom();

    // Outlines every event of this kernel (the kernel picked in the table or a graph view).
    void setHighlightedKernel(const QString& name);
    void selectEvent(int64_t eventIndex);
    int64_t selectedEvent() const { return m_selected; }

    // Paints into any device at any size (the widget, a QImage in tests and benchmarks).
    void paintTimeline(QPainter& painter, const QRect& rect) const;
    // What the last paint drew: boxes and merged spans, for tests and the benchmark.
    size_t lastPaintedSpans() const { return m_lastSpans; }

    int64_t eventAt(const QPoint& pos) const;
    QString toolTipAt(const QPoint& pos) const;
    QSize sizeHint() const override;

signals:
    // The user zoomed or panned; not emitted for setTimeRange(), so linked views do not loop.
    void timeRangeChanged(double startNs, double endNs);
    void eventSelected(const QString& kernelName);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Row {
        int track = 0;
        int lane = 0;
        int y = 0; // top, relative to the ruler's bottom
        QString label;
    };
    void buildRows();
    int rowsHeight() const;
    const Row* rowAt(int y) const;
    double nsPerPixel(int plotWidth) const;
    void paintRuler(QPainter& p, const QRect& plot, double npp) const;
    void paintMemory(QPainter& p, const QRect& strip, double npp) const;
    void userSetRange(double start, double end);

    std::shared_ptr<const KernelTrace> m_trace;
    TimelineIndex m_index;
    std::vector<Row> m_rows;
    std::vector<QColor> m_nameColors;
    int64_t m_originNs = 0;
    double m_rangeStart = 0;
    double m_rangeEnd = 1;
    int64_t m_selected = -1;
    int32_t m_highlighted = -1;
    mutable size_t m_lastSpans = 0;

    bool m_dragging = false;
    bool m_dragMoved = false;
    QPoint m_dragOrigin;
    double m_dragStartNs = 0;
};

} // namespace fusescope
