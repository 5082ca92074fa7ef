#pragma once

#include "analysis/Advice.h"
#include "model/Report.h"

#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace fusescope {

// The advice for one backend (analysis/Advice.h, docs/advice.md) under its details: each advice as
// a line with its evidence, and for an advice that is a new row an "Add row: ENTRY" button that asks
// for that entry in the backend list (ComparisonTab forwards it to BackendListPane::addEntry).
class AdvicePanel : public QWidget {
    Q_OBJECT
public:
    explicit AdvicePanel(QWidget* parent = nullptr);

    // Shows the advice for `run` of `report`; clears it when run is null.
    void showRun(const Report& report, const BackendRun* run);
    const std::vector<Advice>& advice() const { return m_advice; }

signals:
    // "Add row: ENTRY" was clicked: ENTRY is a --backends entry (parseBackendEntry reads it).
    void addRowRequested(const QString& entry);

private:
    std::vector<Advice> m_advice;
    QVBoxLayout* m_rows = nullptr;
};

} // namespace fusescope
