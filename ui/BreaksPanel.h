#pragma once

#include "model/Report.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace fusescope {

class ReportModel;

// The "Breaks" tab: every graph break of every backend (where Dynamo split the model, why, and
// at which user source line), and the selected break's source, read from disk, at that line.
class BreaksPanel : public QWidget {
    Q_OBJECT
public:
    explicit BreaksPanel(QWidget* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    // The report stays owned by the caller; call refresh() when a backend finishes.
    void setReport(const Report* report);
    void refresh();
    // Selects break `breakIndex` (into the backend's breakReasons) of `backend` and shows its source.
    bool showBreak(const QString& backend, int breakIndex);

    QTreeWidget* breakList() const { return m_list; }
    QPlainTextEdit* sourceView() const { return m_source; }
    // The file shown, the highlighted line (1-based, 0 when none), and what the header says.
    QString shownFile() const { return m_shownFile; }
    int highlightedLine() const { return m_shownLine; }
    QString locationText() const;
    QPushButton* openInEditorButton() const { return m_openEditor; }

    enum Column { BackendColumn, GraphColumn, ReasonColumn, LocationColumn, ColumnCount };
    static constexpr int BreakIndexRole = Qt::UserRole + 1;
    static constexpr int GraphRole = Qt::UserRole + 2;

signals:
    // "Show graph": the Dynamo graph the break ended (graph - 1), or the one after it (graph 0).
    void showGraphRequested(const QString& backend, int graph);

private:
    void onCurrentChanged();
    void showSource(const QString& file, int line);
    QString resolve(const QString& file) const;

    const Report* m_report = nullptr;
    QTreeWidget* m_list;
    QLabel* m_location;
    QLabel* m_detail;
    QPlainTextEdit* m_source;
    QPushButton* m_openEditor;
    QPushButton* m_showGraph;
    QString m_shownFile;
    int m_shownLine = 0;
};

// The Dynamo graph a break is shown on: the graph it ended (graph - 1), or graph 0 for a break
// before any graph; -1 when unknown. Shared by this panel and the Graphs tab's banner.
int graphShowingBreak(const GraphBreak& item);
// "after graph 2", "before graph 0", "-".
QString breakPlacement(const GraphBreak& item);

} // namespace fusescope
