#pragma once

#include "model/Report.h"

#include <QLabel>

namespace fusescope {

class ReportModel;

// The run-wide warnings of the report shown (Report::warnings: machine_busy, cpu_steal, ... from
// the machine check before the first backend, docs/measurement.md), as a banner above the
// comparison table: every number under it was measured on that machine. Hidden when there are
// none. Each backend's own warnings stay in its row (the Status cell) and its details.
class RunWarningsBanner : public QLabel {
    Q_OBJECT
public:
    explicit RunWarningsBanner(QWidget* parent = nullptr);

    void subscribe(const ReportModel* model);
    void showWarnings(const std::vector<RunWarning>& warnings);
};

} // namespace fusescope
