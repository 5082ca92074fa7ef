#pragma once

#include "capture/Workload.h"

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
    // What a report's settings["workload"] (and whether it has a search outcome) said was run.
    void showSettings(const nlohmann::json& workload, bool searched);

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

// `[[{"shape": [1, 8], "dtype": "int64"}], ...]` -> `1x8:int64;...`, the text parseShapeList reads.
QString shapeListText(const nlohmann::json& sets);
// One input set: `1x8:int64,1x8:float32`.
QString inputSetText(const nlohmann::json& set);
// A report's settings["workload"] in a few words: "Training, bf16, 3 input sets"; "Inference, fp32"
// for the default (or absent) workload.
QString workloadSummary(const nlohmann::json& workload);

} // namespace fusescope
