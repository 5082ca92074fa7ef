#include "TraceCompareWidget.h"

#include "TimelineView.h"

#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace fusescope {

TraceCompareWidget::TraceCompareWidget(QWidget* parent)
    : QWidget(parent) {
    auto* splitter = new QSplitter(Qt::Vertical, this);
    for (int i = 0; i < 2; ++i) {
        auto* pane = new QWidget(splitter);
        auto* paneLayout = new QVBoxLayout(pane);
        paneLayout->setContentsMargins(0, 0, 0, 0);
        paneLayout->setSpacing(2);
        m_labels[i] = new QLabel(pane);
        m_views[i] = new TimelineView(pane);
        // Many nested CPU lanes can be taller than the pane: scroll vertically, never
        // horizontally (time is the view's own axis).
        auto* scroll = new QScrollArea(pane);
        scroll->setWidget(m_views[i]);
        scroll->setWidgetResizable(true);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
        scroll->setFrameShape(QFrame::NoFrame);
        paneLayout->addWidget(m_labels[i]);
        paneLayout->addWidget(scroll, 1);
        splitter->addWidget(pane);
        connect(m_views[i], &TimelineView::eventSelected, this, &TraceCompareWidget::eventSelected);
    }
    // Both panes always show their vertical scroll bar, so the two views have the same width and
    // one time range is the same nanoseconds per pixel in both.
    for (int i = 0; i < 2; ++i) {
        TimelineView* other = m_views[1 - i];
        connect(m_views[i], &TimelineView::timeRangeChanged, other, &TimelineView::setTimeRange);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    m_labels[1]->parentWidget()->hide();
}

void TraceCompareWidget::setTraces(std::shared_ptr<const KernelTrace> top, const QString& topLabel,
                                   std::shared_ptr<const KernelTrace> bottom, const QString& bottomLabel) {
    const bool compare = bottom != nullptr;
    m_views[0]->setTrace(std::move(top));
    m_views[1]->setTrace(std::move(bottom));
    m_labels[0]->setText(topLabel);
    m_labels[1]->setText(bottomLabel);
    m_labels[1]->parentWidget()->setVisible(compare);
    resetZoom();
}

void TraceCompareWidget::resetZoom() {
    const double span = std::max(m_views[0]->durationNs(), m_views[1]->durationNs());
    const double end = span > 0 ? span * 1.02 : 1000.0;
    for (auto* view : m_views)
        view->setTimeRange(0, end);
}

void TraceCompareWidget::setHighlightedKernel(const QString& name) {
    for (auto* view : m_views)
        view->setHighlightedKernel(name);
}

} // namespace fusescope
