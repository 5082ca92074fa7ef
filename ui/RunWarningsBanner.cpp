#include "RunWarningsBanner.h"

#include "analysis/RunWarnings.h"
#include "engine/ReportModel.h"

namespace fusescope {

RunWarningsBanner::RunWarningsBanner(QWidget* parent)
    : QLabel(parent) {
    setObjectName("runWarningsBanner");
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The palette's own colours are too quiet for "these numbers may not hold": a fixed amber.
    setStyleSheet("QLabel#runWarningsBanner { background: #fff3cd; color: #5c4400; "
                  "border: 1px solid #e0b252; border-radius: 3px; padding: 4px 8px; }");
    setToolTip(tr("Found by the machine check before the first backend ran, or in the rows' samples "
                  "together (baseline_drift; docs/measurement.md, \"Machine check and warnings\"); "
                  "each backend's own warnings are in its row. \"Reading the report\": what the file "
                  "held that could not be read as written"));
    setVisible(false);
}

void RunWarningsBanner::subscribe(const ReportModel* model) {
    auto update = [this, model] { showWarnings(reportWarnings(model->report()), model->report().readNotes); };
    update();
    connect(model, &ReportModel::reportReset, this, update);
    connect(model, &ReportModel::backendFinished, this, update);
}

void RunWarningsBanner::showWarnings(const std::vector<RunWarning>& warnings,
                                     const std::vector<std::string>& readNotes) {
    QStringList lines;
    for (const auto& note : readNotes) // what reading the file replaced or could not read
        lines << tr("\u26A0 Reading the report: %1").arg(QString::fromStdString(note));
    for (const auto& w : warnings)
        lines << tr("\u26A0 Whole run [%1]: %2")
                     .arg(QString::fromStdString(w.code), QString::fromStdString(w.message));
    setText(lines.join('\n'));
    setVisible(!lines.isEmpty());
}

} // namespace fusescope
