#pragma once

#include "model/Report.h"
#include "model/Result.h"
#include "model/RunRequest.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace fusescope {

class WorkloadOptions;

// The Options box of the Backends dock: the run-wide torch.compile options, traces, threads, the
// measurement's confidence target and the workload. It builds the request every backend of the
// next run starts from, and shows what a report ran with.
class RunOptionsPane : public QGroupBox {
    Q_OBJECT
public:
    explicit RunOptionsPane(QWidget* parent = nullptr);

    // The request for `model` (options, workload, placement), or what is wrong with the options.
    Result<RunRequest> baseRequest(const QString& model) const;
    // The options a report's settings say it ran with; traces on when any backend has one.
    void showSettingsOf(const Report& report);
    WorkloadOptions* workload() const { return m_workload; }
    QComboBox* roofsChoice() const { return m_roofs; }

private:
    QCheckBox* m_fullgraph = nullptr;
    QComboBox* m_dynamic = nullptr;
    QLineEdit* m_inductorConfig = nullptr;
    QCheckBox* m_trace = nullptr;
    QComboBox* m_roofs =
        nullptr; // with traces: the machine's roofs cached | measure | skip (docs/roofline.md)
    QCheckBox* m_bisect = nullptr;
    QSpinBox* m_threads = nullptr;          // 0 shows "auto": the worker's default (docs/measurement.md)
    QComboBox* m_malloc = nullptr;          // --malloc: steady (default) or system
    QDoubleSpinBox* m_confidence = nullptr; // --confidence: 0 shows "off" (docs/measurement.md)
    QSpinBox* m_settle = nullptr;           // --settle: untimed calls before each timed one
    WorkloadOptions* m_workload = nullptr;
};

} // namespace fusescope
