#pragma once

#include "model/TuneOutcome.h"

#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace fusescope {

// The tuner's candidates (docs/tuning.md) as points of speedup over eager against the compile time
// of their first, cold round, each with its 95 % interval as an error bar: the best a green star,
// the Pareto front filled, the candidates still in the race hollow, the dropped ones grey crosses.
// Candidates without a speedup (failed, pending) are counted in the caption. Clicking a point
// emits candidateClicked with its entry.
class TuningChart : public QWidget {
    Q_OBJECT
public:
    explicit TuningChart(QWidget* parent = nullptr);

    void setTuning(const TuneOutcome* tuning);
    // Rings the point of an entry (none when empty or absent). No signal.
    void selectCandidate(const QString& entry);

    QCustomPlot* plot() const { return m_plot; }
    QString caption() const;
    // The placed candidates, in the order drawn.
    const std::vector<TuneCandidate>& placed() const { return m_placed; }
    // The entry of the point within `radius` pixels of `pos`, or empty.
    QString candidateAt(const QPoint& pos, double radius = 8) const;

signals:
    void candidateClicked(const QString& entry);

private:
    void rebuild();
    void onMousePress(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QLabel* m_caption = nullptr;
    std::optional<TuneOutcome> m_tuning;
    std::vector<TuneCandidate> m_placed;
    QString m_selected;
};

} // namespace fusescope
