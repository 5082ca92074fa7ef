#pragma once

#include "model/Report.h"

#include <QLabel>

namespace fusescope {

class ReportModel;

// The run-wide warnings of the report shown (Report::warnings: machine_busy, cpu_steal, ... from
// the machine check before the first backend, docs/measurement.md), as a banner above the
// comparison table: every number under it was measured on that machine. Hidden when there are
// none. Each backend's own warnings stay in its row (the Status cell) and its details. What
// reading the file could not take as written (Report::readNotes: replaced UTF-8, stages that did
// not read) leads the banner.
class RunWarningsBanner : public QLabel {
    Q_OBJECT
public:
    explicit RunWarningsBanner(QWidget* parent = nullptr);

    void subscribe(const ReportModel* model);
    void showWarnings(const std::vector<RunWarning>& warnings,
                      const std::vector<std::string>& readNotes = {});
};

} // namespace fusescope
