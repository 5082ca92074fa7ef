#include "WorkloadOptions.h"
#include "codec/Json.h"

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

QString inputSetText(const nlohmann::json& set) {
    QStringList inputs;
    if (!set.is_array())
        return {};
    for (const auto& input : set) {
        QStringList dims;
        for (const auto& d : input.value("shape", nlohmann::json::array()))
            dims << (d.is_number() ? QString::number(d.get<long long>()) : q(codec::dumpJson(d)));
        inputs << dims.join('x') + ":" + q(input.value("dtype", std::string("float32")));
    }
    return inputs.join(',');
}

QString shapeListText(const nlohmann::json& sets) {
    QStringList out;
    if (sets.is_array())
        for (const auto& set : sets)
            out << inputSetText(set);
    return out.join(';');
}

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
    m_precision->addItems({"fp32", "bf16", "fp16"});
    m_precision->setToolTip(tr("Eager and compiled both run under torch.autocast at this precision; "
                               "the accuracy tolerance follows it"));
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

void WorkloadOptions::showSettings(const nlohmann::json& workload, bool searched) {
    const nlohmann::json w = workload.is_object() ? workload : nlohmann::json::object();
    const auto str = [&w](const char* key, const char* fallback) {
        const auto it = w.find(key);
        return it != w.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
    };
    const int mode = m_mode->findData(q(str("mode", "inference")));
    m_mode->setCurrentIndex(mode >= 0 ? mode : 0);
    const int precision = m_precision->findText(q(str("precision", "fp32")));
    m_precision->setCurrentIndex(precision >= 0 ? precision : 0);
    m_shapes->setText(w.contains("shapes") ? shapeListText(w["shapes"]) : QString());
    m_search->setChecked(searched);
}

QString workloadSummary(const nlohmann::json& workload) {
    const nlohmann::json w = workload.is_object() ? workload : nlohmann::json::object();
    const auto str = [&w](const char* key, const char* fallback) {
        const auto it = w.find(key);
        return it != w.end() && it->is_string() ? q(it->get<std::string>()) : QString(fallback);
    };
    const QString mode = str("mode", "inference");
    QStringList parts{mode.left(1).toUpper() + mode.mid(1), str("precision", "fp32")};
    const auto shapes = w.find("shapes");
    if (shapes != w.end() && shapes->is_array() && !shapes->empty())
        parts << (shapes->size() == 1 ? QObject::tr("1 input set")
                                      : QObject::tr("%1 input sets").arg(shapes->size()));
    return parts.join(", ");
}

} // namespace fusescope
