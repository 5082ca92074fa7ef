#pragma once

#include "model/Report.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace fusescope {

class ReportModel;
class TuningChart;

// The "Tuning" tab (docs/tuning.md): a `tune` report's answer. The verdict, the candidates as
// points of speedup against compile time (TuningChart) beside their table (interval, compile,
// peak, rounds, status or why dropped), the snippet to paste with a Copy button, what each piece
// of advice did, and the space's notes. A point or a row selects the candidate in both; a
// double-click opens its graphs. A report without tuning says how to make one.
class TuningPanel : public QWidget {
    Q_OBJECT
public:
    explicit TuningPanel(QWidget* parent = nullptr);

    void subscribe(const ReportModel* model);
    void setReport(const Report* report);
    void refresh();
    // Selects a candidate's point and row (no signal); false when it has none.
    bool selectCandidate(const QString& entry);

    enum Column { Entry, Speedup, Compile, Peak, Rounds, Status, Origin, ColumnCount };
    QTreeWidget* table() const { return m_table; }
    TuningChart* chart() const { return m_chart; }
    QString snippet() const;
    QString verdict() const;
    // Copies the snippet to the clipboard (the Copy button, Ctrl+Shift+C).
    void copySnippet();

signals:
    void graphsRequested(const QString& backend);
    void message(const QString& text);

private:
    const Report* m_report = nullptr;
    QLabel* m_verdict;
    TuningChart* m_chart;
    QTreeWidget* m_table;
    QPlainTextEdit* m_snippet;
    QPushButton* m_copy;
    QLabel* m_details;
};

} // namespace fusescope
