#pragma once

#include "analysis/Roofline.h"

#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace fusescope {

// The Roofline chart of one traced backend (docs/roofline.md): each kernel a point at its
// arithmetic intensity (FLOPs per byte) and achieved GFLOP/s on log-log axes, under the machine's
// measured roofs: bandwidth x intensity up to each dtype's peak. Memory-bound points are blue,
// compute-bound orange, points over the memory roof (data from the caches) hollow. Clicking a
// point emits kernelClicked with its traced name; kernels that cannot be placed (no bytes or
// FLOPs, no arithmetic) are counted in the caption, with the table saying why.
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);

    // `kernels`: one row per traced name (rooflineByTraceName); `roofs` may be null.
    void setRoofline(std::vector<KernelRoofline> kernels, const Roofs* roofs, const QString& backend);
    // Rings the point of a traced name (none when empty or absent). No signal.
    void selectKernel(const QString& traceName);

    QCustomPlot* plot() const { return m_plot; }
    QString caption() const;
    // Placed points, in the order drawn: their traced names and (intensity, GFLOP/s).
    const std::vector<KernelRoofline>& placed() const { return m_placed; }
    // The traced name of the point within `radius` pixels of `pos`, or empty.
    QString kernelAt(const QPoint& pos, double radius = 8) const;

signals:
    void kernelClicked(const QString& traceName);

private:
    void rebuild();
    void onMousePress(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QLabel* m_caption = nullptr;
    std::vector<KernelRoofline> m_kernels;
    std::vector<KernelRoofline> m_placed;
    std::optional<Roofs> m_roofs;
    QString m_backend;
    QString m_selected;
};

} // namespace fusescope
