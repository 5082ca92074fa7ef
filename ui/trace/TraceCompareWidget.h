#pragma once

#include "model/KernelTrace.h"

#include <QWidget>
#include <memory>

class QLabel;

namespace fusescope {

class TimelineView;

// Two timelines stacked on one time scale: each is aligned to its own trace's first event, and
// zooming or panning one moves the other, so two backends' steps line up kernel by kernel.
class TraceCompareWidget : public QWidget {
    Q_OBJECT
public:
    explicit TraceCompareWidget(QWidget* parent = nullptr);

    // A null `bottom` shows the top trace alone.
    void setTraces(std::shared_ptr<const KernelTrace> top, const QString& topLabel,
                   std::shared_ptr<const KernelTrace> bottom = nullptr, const QString& bottomLabel = {});
    TimelineView* topView() const { return m_views[0]; }
    TimelineView* bottomView() const { return m_views[1]; }

    // Both views to the longer of the two traces.
    void resetZoom();
    void setHighlightedKernel(const QString& name);

signals:
    void eventSelected(const QString& kernelName);

private:
    TimelineView* m_views[2] = {};
    QLabel* m_labels[2] = {};
};

} // namespace fusescope
