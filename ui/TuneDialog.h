#pragma once

#include "capture/TuneSetup.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace fusescope {

// Run > Tune... (docs/tuning.md): the budget (300, 90s, 5m, 1h), the goal and an optional space
// file, each checked as it is typed; OK is enabled only for settings the tuner takes.
class TuneDialog : public QDialog {
    Q_OBJECT
public:
    explicit TuneDialog(QWidget* parent = nullptr);

    // The settings, when they check (else the problem, also shown under the fields).
    Result<TuneSettings> settings() const;
    QLineEdit* budgetEdit() const { return m_budget; }
    QLineEdit* spaceEdit() const { return m_space; }
    QComboBox* goalBox() const { return m_goal; }
    QString problem() const;

private:
    void check();

    QLineEdit* m_budget;
    QComboBox* m_goal;
    QLineEdit* m_space;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

} // namespace fusescope
