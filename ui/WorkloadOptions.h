#pragma once

#include "model/WorkloadText.h"

#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace fusescope {

// The workload rows of the Options box (docs/workloads.md): mode, precision, a shape list and the
// assignment search. The shape list is checked as it is typed, with the problem shown under it.
class WorkloadOptions : public QWidget {
    Q_OBJECT
public:
    explicit WorkloadOptions(QWidget* parent = nullptr);

    // The workload the fields describe (assign stays empty: mixed rows carry their own), or the
    // problem with the shape list.
    Result<Workload> workload() const;
    bool searchAssignments() const;
    // What a report's settings.workload (none: the default) and whether it has a search outcome
    // said was run.
    void showSettings(const std::optional<Workload>& workload, bool searched);

    QComboBox* modeBox() const { return m_mode; }
    QComboBox* precisionBox() const { return m_precision; }
    QLineEdit* shapesEdit() const { return m_shapes; }
    QCheckBox* searchBox() const { return m_search; }
    // The inline message under the shape list; empty while the list is valid.
    QString shapesProblem() const;

signals:
    void changed();

private:
    void validateShapes();

    QComboBox* m_mode;
    QComboBox* m_precision;
    QLineEdit* m_shapes;
    QLabel* m_shapesError;
    QCheckBox* m_search;
};

// A workload in a few words: "Training, bf16, 3 input sets"; "Inference, fp32" for the default.
QString workloadSummary(const Workload& workload);

} // namespace fusescope
