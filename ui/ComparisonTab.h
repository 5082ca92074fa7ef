#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace fusescope {

class AdvicePanel;
class ComparisonModel;
class RecommendationPanel;
class RunWarningsBanner;
class ReportModel;

// The Comparison tab: the workload line, one row per backend (sortable, run order first), the
// recommendation, and the details of the selected backend with its advice. It follows the ReportModel itself.
class ComparisonTab : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonTab(QWidget* parent = nullptr);

    void subscribe(const ReportModel* model);
    ComparisonModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    RecommendationPanel* recommendation() const { return m_recommendation; }
    AdvicePanel* advice() const { return m_advice; }
    RunWarningsBanner* runWarnings() const { return m_warnings; }
    // Selects the first row unless one is selected.
    void selectFirstRow(bool onlyIfNone);

signals:
    // A row was double-clicked: show that backend's graphs.
    void graphsRequested(const QString& backend);
    // An advice's "Add row: ENTRY" (docs/advice.md): ENTRY is a --backends entry to add.
    void addRowRequested(const QString& entry);

private:
    void showDetails();

    const ReportModel* m_report = nullptr;
    ComparisonModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_workloadLabel = nullptr;
    RunWarningsBanner* m_warnings = nullptr;
    RecommendationPanel* m_recommendation = nullptr;
    QPlainTextEdit* m_details = nullptr;
    AdvicePanel* m_advice = nullptr;
};

} // namespace fusescope
