#include "RunOptionsPane.h"

#include "WorkloadOptions.h"
#include "capture/SessionPlan.h"
#include "model/BackendEntry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <algorithm>

namespace fusescope {

RunOptionsPane::RunOptionsPane(QWidget* parent)
    : QGroupBox(tr("Options"), parent) {
    auto* form = new QFormLayout(this);
    m_fullgraph = new QCheckBox(tr("fullgraph"));
    m_fullgraph->setToolTip(tr("torch.compile(fullgraph=True): a graph break fails the backend"));
    m_dynamic = new QComboBox;
    m_dynamic->addItems({"auto", "true", "false"});
    m_dynamic->setToolTip(tr("torch.compile(dynamic=...)"));
    m_inductorConfig = new QLineEdit;
    m_inductorConfig->setPlaceholderText(tr("key=value, ..."));
    m_inductorConfig->setToolTip(
        tr("Inductor options (torch.compile(options=...)); values as JSON, else strings"));
    m_trace = new QCheckBox(tr("Record kernel traces"));
    m_trace->setToolTip(tr("Trace 5 extra iterations per backend (PyTorch profiler on CPU, CUPTI on CUDA)"));
    m_trace->setChecked(true);
    form->addRow(m_fullgraph);
    form->addRow(tr("dynamic"), m_dynamic);
    form->addRow(tr("Inductor"), m_inductorConfig);
    form->addRow(m_trace);
    m_roofs = new QComboBox;
    m_roofs->addItem(tr("from the cache"), QStringLiteral("cached"));
    m_roofs->addItem(tr("measure again"), QStringLiteral("measure"));
    m_roofs->addItem(tr("skip"), QStringLiteral("skip"));
    m_roofs->setToolTip(
        tr("With traces: the machine's bandwidth and compute roofs for the Roofline (read from the "
           "cache, measured on a miss; measure again: at most 5 s; --measure-roofs, --no-roofs, "
           "docs/roofline.md)"));
    form->addRow(tr("Roofs"), m_roofs);
    connect(m_trace, &QCheckBox::toggled, m_roofs, &QWidget::setEnabled);
    m_bisect = new QCheckBox(tr("Bisect accuracy failures"));
    m_bisect->setToolTip(
        tr("When a backend fails accuracy, find the first graph node (its kernel, module and "
           "source line) where it leaves eager's values: one more compile per graph, at most "
           "%1 s per backend (--bisect, docs/accuracy.md)")
            .arg(kDefaultBisectBudgetSeconds));
    form->addRow(m_bisect);
    m_threads = new QSpinBox;
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("auto"));
    m_threads->setToolTip(tr("torch intra-op threads in the worker (--threads). auto: one CPU fewer than the "
                             "worker may use, so a busy core never leaves a thread spin-waiting"));
    form->addRow(tr("Threads"), m_threads);
    m_malloc = new QComboBox;
    m_malloc->addItems({"steady", "system"});
    m_malloc->setToolTip(
        tr("C allocator policy in the worker (--malloc). steady: fixed glibc thresholds, so a "
           "call's tensors reuse heap memory whatever ran before; system: glibc's own, whose "
           "page faults per call depend on the process's history (docs/measurement.md)"));
    form->addRow(tr("Allocator"), m_malloc);
    m_confidence = new QDoubleSpinBox;
    m_confidence->setRange(0, 100);
    m_confidence->setDecimals(1);
    m_confidence->setSingleStep(0.5);
    m_confidence->setSuffix(tr(" %"));
    m_confidence->setSpecialValueText(tr("off"));
    m_confidence->setValue(MeasureSettings{}.confidencePct);
    m_confidence->setToolTip(tr("--confidence: after the minimum runs, keep timing until the speedup's 95 % "
                                "confidence interval is within +- this of it, or the time cap is reached"));
    form->addRow(tr("Confidence +-"), m_confidence);
    m_settle = new QSpinBox;
    m_settle->setRange(0, MeasureSettings::kMaxSettle);
    m_settle->setValue(MeasureSettings{}.settle);
    m_settle->setToolTip(tr("--settle: untimed calls of each side right before each timed call, so no timed "
                            "call is the first after the other side evicted its caches (0: none)"));
    form->addRow(tr("Settle calls"), m_settle);
    m_workload = new WorkloadOptions;
    form->addRow(m_workload);
}

Result<RunRequest> RunOptionsPane::baseRequest(const QString& model) const {
    // The fields as settings, built into a request by the CLI's builder (capture/SessionPlan.h).
    CompareSettings settings;
    settings.model = model.trimmed().toStdString();
    settings.captureTrace = m_trace->isChecked();
    settings.roofs = m_roofs->currentData().toString().toStdString();
    if (m_bisect->isChecked())
        settings.bisectBudgetSeconds = kDefaultBisectBudgetSeconds;
    if (m_threads->value() > 0)
        settings.placement.threads = m_threads->value();
    settings.placement.malloc = m_malloc->currentText().toStdString();
    settings.measure.confidencePct = m_confidence->value();
    settings.measure.settle = m_settle->value();
    settings.fullgraph = m_fullgraph->isChecked();
    settings.dynamic = m_dynamic->currentText().toStdString();
    // Commas inside brackets or quotes belong to a value: x=[1,2], note="a,b".
    settings.inductorConfig = splitBackendList(m_inductorConfig->text().toStdString());
    settings.mode = m_workload->modeBox()->currentData().toString().toStdString();
    settings.precision = m_workload->precisionBox()->currentText().toStdString();
    settings.shapes = m_workload->shapesEdit()->text().trimmed().toStdString();
    Setting bad = Setting::Backends; // set by baseRequestFor on an error
    auto base = baseRequestFor(settings, &bad);
    if (!base && bad == Setting::Shapes) // as the message under the field says it
        return Error{base.error().code, "Shapes: " + base.error().message};
    return base;
}

void RunOptionsPane::showSettingsOf(const Report& report) {
    const nlohmann::json& options =
        report.settings.options.is_object() ? report.settings.options : nlohmann::json::object();
    m_fullgraph->setChecked(options.value("fullgraph", false));
    const Placement placement = report.settings.placement.value_or(Placement{});
    m_threads->setValue(placement.threads.value_or(0)); // 0: auto
    // Reports from before the allocator option do not say; the field shows the default.
    m_malloc->setCurrentText(
        QString::fromStdString(placement.malloc.empty() ? Placement{}.malloc : placement.malloc));
    MeasureSettings beforeConfidence;
    beforeConfidence.confidencePct = 0; // reports from before the confidence rule: off
    beforeConfidence.settle = 0;        // and from before settle calls: none
    const MeasureSettings measure =
        report.settings.measure.value_or(MeasureRecord{}).resolved(beforeConfidence);
    m_confidence->setValue(measure.confidencePct);
    m_settle->setValue(measure.settle);
    const auto dynamic = options.value("dynamic", nlohmann::json(nullptr));
    m_dynamic->setCurrentText(dynamic.is_boolean() ? (dynamic.get<bool>() ? "true" : "false") : "auto");
    m_inductorConfig->setText(
        QString::fromStdString(formatInductorOptions(options.value("inductor", nlohmann::json::object()))));
    m_bisect->setChecked(report.settings.bisectBudgetSeconds.has_value());
    m_trace->setChecked(
        std::any_of(report.backends.begin(), report.backends.end(), [](const BackendRun& run) {
            return run.trace.has_value() || run.traceInfo.has_value();
        }));
    m_workload->showSettings(report.settings.workload, report.search.has_value());
}

} // namespace fusescope
