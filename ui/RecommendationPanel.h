#pragma once

#include "analysis/Recommendation.h"
#include "model/Report.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTreeWidget;

namespace fusescope {

class ReportModel;

// "Which backend should I use?" under the comparison table: a goal, the verdict, the ranked
// backends in tiers (a tier holds backends indistinguishable within the measured spread), the
// excluded ones with the reason, and the assignment search's outcome when there was one.
class RecommendationPanel : public QWidget {
    Q_OBJECT
public:
    explicit RecommendationPanel(QWidget* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    // The report stays owned by the caller; call refresh() when one of its backends changes.
    void setReport(const Report* report);
    void refresh();
    void setGoal(Goal goal);
    Goal goal() const;

    const Recommendation& recommendation() const { return m_recommendation; }
    QString verdictText() const;
    QString searchText() const;
    QTreeWidget* rankedList() const { return m_ranked; }
    QTreeWidget* excludedList() const { return m_excluded; }
    QComboBox* goalBox() const { return m_goal; }
    QDoubleSpinBox* budgetBox() const { return m_budget; }

private:
    void showSearch();

    const Report* m_report = nullptr;
    Recommendation m_recommendation;
    QComboBox* m_goal;
    QDoubleSpinBox* m_budget;
    QLabel* m_verdict;
    QTreeWidget* m_ranked;
    QTreeWidget* m_excluded;
    QLabel* m_search;
};

} // namespace fusescope
