#include "WorkloadOptions.h"

#include "analysis/Format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

const char* kInvalidStyle = "QLineEdit { border: 2px solid #c62828; }";

} // namespace

WorkloadOptions::WorkloadOptions(QWidget* parent)
    : QWidget(parent)
    , m_mode(new QComboBox)
    , m_precision(new QComboBox)
    , m_shapes(new QLineEdit)
    , m_shapesError(new QLabel)
    , m_search(new QCheckBox(tr("Search submodule assignments"))) {
    m_mode->addItem(tr("Inference"), "inference");
    m_mode->addItem(tr("Training"), "training");
    m_mode->setToolTip(tr("Inference: forward under no_grad. Training: each sample is a full step "
                          "(forward, loss, backward, optimizer step)"));
    // Item tool tips say what each precision does (docs/workloads.md, docs/quantization.md).
    const std::pair<const char*, const char*> precisions[] = {
        {"fp32", QT_TR_NOOP("The model as it is")},
        {"bf16", QT_TR_NOOP("Eager and compiled both run under torch.autocast(bfloat16)")},
        {"fp16", QT_TR_NOOP("Eager and compiled both run under torch.autocast(float16)")},
        {"int8_weight_only", QT_TR_NOOP("torchao: Linear weights int8, activations floating point; "
                                        "timed and judged against fp32 eager (inference only)")},
        {"int8_dynamic", QT_TR_NOOP("torchao: Linear weights int8, activations quantized per call, int8 "
                                    "matmuls; timed and judged against fp32 eager (inference only)")},
        {"int8_static", QT_TR_NOOP("torchao PT2E with the X86 Inductor quantizer, calibrated on the model's "
                                   "calibration_inputs() or example inputs; oneDNN int8 kernels (x86 CPU)")},
    };
    for (const auto& [name, tip] : precisions) {
        m_precision->addItem(QString::fromLatin1(name));
        m_precision->setItemData(m_precision->count() - 1, tr(tip), Qt::ToolTipRole);
    }
    m_precision->setToolTip(tr("fp32, bf16/fp16 autocast (eager and compiled alike), or an int8 variant "
                               "quantized with torchao; the accuracy rule follows it"));
    m_shapes->setPlaceholderText(tr("e.g. 1x8:int64;4x8:int64 (empty: none)"));
    m_shapes->setClearButtonEnabled(true);
    m_shapes->setToolTip(tr("Input sets separated by ';', inputs by ','; each backend is compiled again "
                            "with dynamic=False and dynamic=True and fed every set"));
    m_shapesError->setWordWrap(true);
    m_shapesError->setStyleSheet("color: #c62828;");
    m_shapesError->setVisible(false);
    m_search->setToolTip(tr("After the listed backends, try per-submodule backend assignments over the "
                            "model's top-level submodules and keep one only if it beats the best single "
                            "backend beyond the measured spread"));

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("&Mode"), m_mode);
    form->addRow(tr("&Precision"), m_precision);
    form->addRow(tr("S&hapes"), m_shapes);
    form->addRow(m_shapesError);
    form->addRow(m_search);

    connect(m_mode, &QComboBox::currentIndexChanged, this, &WorkloadOptions::changed);
    connect(m_precision, &QComboBox::currentIndexChanged, this, &WorkloadOptions::changed);
    connect(m_search, &QCheckBox::toggled, this, &WorkloadOptions::changed);
    connect(m_shapes, &QLineEdit::textChanged, this, [this] {
        validateShapes();
        emit changed();
    });
}

void WorkloadOptions::validateShapes() {
    const QString problem = shapesProblem();
    m_shapesError->setText(problem);
    m_shapesError->setVisible(!problem.isEmpty());
    m_shapes->setStyleSheet(problem.isEmpty() ? QString() : QString(kInvalidStyle));
    m_shapes->setToolTip(
        problem.isEmpty() ? tr("Input sets separated by ';', inputs by ','; each backend is compiled again "
                               "with dynamic=False and dynamic=True and fed every set")
                          : problem);
}

QString WorkloadOptions::shapesProblem() const {
    const QString text = m_shapes->text().trimmed();
    if (text.isEmpty())
        return {};
    auto parsed = parseShapeList(text.toStdString());
    return parsed ? QString() : q(parsed.error().message);
}

Result<Workload> WorkloadOptions::workload() const {
    Workload w;
    w.mode = m_mode->currentData().toString().toStdString();
    w.precision = m_precision->currentText().toStdString();
    const QString text = m_shapes->text().trimmed();
    if (!text.isEmpty()) {
        auto parsed = parseShapeList(text.toStdString());
        if (!parsed)
            return Error{parsed.error().code, "Shapes: " + parsed.error().message};
        w.shapes = parsed.value();
    }
    return w;
}

bool WorkloadOptions::searchAssignments() const {
    return m_search->isChecked();
}

void WorkloadOptions::showSettings(const std::optional<Workload>& workload, bool searched) {
    const Workload w = workload.value_or(Workload{});
    const int mode = m_mode->findData(q(w.mode));
    m_mode->setCurrentIndex(mode >= 0 ? mode : 0);
    const int precision = m_precision->findText(q(w.precision));
    m_precision->setCurrentIndex(precision >= 0 ? precision : 0);
    m_shapes->setText(q(format::shapeList(w.shapes)));
    m_search->setChecked(searched);
}

QString workloadSummary(const Workload& w) {
    const QString mode = q(w.mode);
    QStringList parts{mode.left(1).toUpper() + mode.mid(1), q(w.precision)};
    if (!w.shapes.empty())
        parts << (w.shapes.size() == 1 ? QObject::tr("1 input set")
                                       : QObject::tr("%1 input sets").arg(w.shapes.size()));
    return parts.join(", ");
}

} // namespace fusescope
