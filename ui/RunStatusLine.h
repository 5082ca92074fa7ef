#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;

namespace fusescope {

class ReportModel;

// The status bar's line and progress: what the last open, run, save or export said, and how far
// the run is. It follows the ReportModel itself; the window sets the text of its own actions.
class RunStatusLine : public QWidget {
    Q_OBJECT
public:
    explicit RunStatusLine(QWidget* parent = nullptr);

    void subscribe(const ReportModel* model);
    void setText(const QString& text);
    QString text() const;
    // Shows the progress bar (from 0) while a run goes on.
    void setRunning(bool running);

private:
    QLabel* m_label = nullptr;
    QProgressBar* m_progress = nullptr;
};

} // namespace fusescope
