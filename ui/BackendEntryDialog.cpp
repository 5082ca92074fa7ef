#include "BackendEntryDialog.h"

#include "model/ErrorCode.h"
#include "model/Quantization.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace fusescope {

namespace {

const QString kRunWide = QObject::tr("(run-wide)");

QString inductorText(const nlohmann::json& options) {
    // tvm's own options (tune=TRIALS, tune_time=S) and Dynamo's (dynamo.NAME=VALUE) are edited in
    // the same field.
    nlohmann::json dynamo = nlohmann::json::object();
    if (options.contains("dynamo"))
        for (const auto& [name, value] : options["dynamo"].items())
            dynamo["dynamo." + name] = value;
    std::string text = formatInductorOptions(dynamo);
    const char* key = options.contains("tvm") ? "tvm" : "inductor";
    if (options.contains(key) && !options[key].empty())
        text += (text.empty() ? "" : ",") + formatInductorOptions(options[key]);
    return QString::fromStdString(text);
}

} // namespace

BackendEntryDialog::BackendEntryDialog(const BackendEntry& entry, QWidget* parent, bool torchCompile)
    : QDialog(parent)
    , m_backend(entry.backend) {
    setWindowTitle(tr("Options of %1").arg(QString::fromStdString(entry.backend)));
    auto* form = new QFormLayout;
    m_mode = new QComboBox;
    m_mode->setEditable(true);
    m_mode->addItems({kRunWide, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"});
    m_mode->setToolTip(tr("torch.compile(mode=...) for this entry; reduce-overhead uses CUDA graphs (GPU)"));
    m_mode->setCurrentText(entry.mode.empty() ? kRunWide : QString::fromStdString(entry.mode));
    m_fullgraph = new QComboBox;
    m_fullgraph->addItems({kRunWide, "true", "false"});
    m_fullgraph->setToolTip(tr("torch.compile(fullgraph=True): a graph break fails this entry"));
    if (entry.options.contains("fullgraph"))
        m_fullgraph->setCurrentText(entry.options["fullgraph"].get<bool>() ? "true" : "false");
    m_dynamic = new QComboBox;
    m_dynamic->addItems({kRunWide, "auto", "true", "false"});
    m_dynamic->setToolTip(tr("torch.compile(dynamic=...) for this entry"));
    if (entry.options.contains("dynamic")) {
        const auto& d = entry.options["dynamic"];
        m_dynamic->setCurrentText(d.is_null() ? "auto" : d.get<bool>() ? "true" : "false");
    }
    m_precision = new QComboBox;
    m_precision->addItem(kRunWide);
    for (const auto& p : workloadPrecisions())
        m_precision->addItem(QString::fromStdString(p));
    m_precision->setToolTip(tr("This row's precision: bf16/fp16 autocast, or an int8 variant quantized with "
                               "torchao (docs/quantization.md), next to the run-wide one's rows"));
    if (const auto p = entryPrecision(entry); !p.empty())
        m_precision->setCurrentText(QString::fromStdString(p));
    m_inductor = new QLineEdit(inductorText(entry.options));
    m_inductor->setPlaceholderText(tr("key=value, ...  e.g. epilogue_fusion=false"));
    m_inductor->setToolTip(
        tr("Inductor options for this entry, merged over the run-wide ones, and Dynamo's as "
           "dynamo.NAME=VALUE; values as JSON, else strings"));
    form->addRow(tr("Mode"), m_mode);
    form->addRow(tr("fullgraph"), m_fullgraph);
    form->addRow(tr("dynamic"), m_dynamic);
    form->addRow(tr("Precision"), m_precision);
    if (entry.backend == "tvm") {
        m_inductor->setPlaceholderText(tr("tune=64, tune_time=120"));
        m_inductor->setToolTip(tr("MetaSchedule tuning for llvm: tune=TRIALS (required), tune_time=SECONDS "
                                  "(a cap); tuned schedules are cached (docs/tvm.md, \"Tuning\")"));
    }
    form->addRow(entry.backend == "tvm" ? tr("TVM") : tr("Options"), m_inductor);
    if (!torchCompile)
        for (QWidget* w : {static_cast<QWidget*>(m_mode), static_cast<QWidget*>(m_fullgraph),
                           static_cast<QWidget*>(m_dynamic), static_cast<QWidget*>(m_inductor)})
            form->setRowVisible(w, false);
    m_preview = new QLabel;
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setWordWrap(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_apply = buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
    m_add = buttons->addButton(tr("Add as New Entry"), QDialogButtonBox::AcceptRole);
    m_apply->setDefault(true);
    connect(m_apply, &QPushButton::clicked, this, [this] { m_addAsNew = false; });
    connect(m_add, &QPushButton::clicked, this, [this] { m_addAsNew = true; });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(buttons);

    connect(m_mode, &QComboBox::currentTextChanged, this, &BackendEntryDialog::refresh);
    connect(m_fullgraph, &QComboBox::currentTextChanged, this, &BackendEntryDialog::refresh);
    connect(m_dynamic, &QComboBox::currentTextChanged, this, &BackendEntryDialog::refresh);
    connect(m_precision, &QComboBox::currentTextChanged, this, &BackendEntryDialog::refresh);
    connect(m_inductor, &QLineEdit::textChanged, this, &BackendEntryDialog::refresh);
    refresh();
}

Result<BackendEntry> BackendEntryDialog::entry() const {
    BackendEntry e;
    e.backend = m_backend;
    const QString mode = m_mode->currentText().trimmed();
    if (mode != kRunWide && !mode.isEmpty())
        e.mode = mode.toStdString();
    if (m_fullgraph->currentText() != kRunWide)
        e.options["fullgraph"] = m_fullgraph->currentText() == "true";
    const QString dynamic = m_dynamic->currentText();
    if (dynamic != kRunWide)
        e.options["dynamic"] =
            dynamic == "auto" ? nlohmann::json(nullptr) : nlohmann::json(dynamic == "true");
    if (m_precision->currentText() != kRunWide)
        e.options["precision"] = m_precision->currentText().toStdString();
    // The same reader as typed entries, so the dialog accepts exactly what the CLI accepts.
    auto parsed = parseEntryOptions(m_inductor->text().toStdString());
    if (!parsed)
        return parsed.error();
    const auto& typed = parsed.value();
    if (typed.contains("fullgraph") || typed.contains("dynamic") || typed.contains("precision"))
        return Error{
            toString(ErrorCode::BadOption),
            "set fullgraph, dynamic and precision with their own fields, not among the Inductor options"};
    if (typed.contains("inductor"))
        e.options["inductor"] = typed["inductor"];
    if (typed.contains("dynamo"))
        e.options["dynamo"] = typed["dynamo"];
    if (e.backend == "tvm" && e.hasOptions()) // tune=TRIALS, tune_time=S: options.tvm (docs/tvm.md)
        return parseBackendEntry(formatBackendEntry(e));
    return e;
}

QString BackendEntryDialog::label() const {
    auto e = entry();
    return e ? QString::fromStdString(formatBackendEntry(e.value())) : QString();
}

void BackendEntryDialog::refresh() {
    auto e = entry();
    if (e) {
        m_preview->setText(
            tr("Row: <b>%1</b>").arg(QString::fromStdString(formatBackendEntry(e.value())).toHtmlEscaped()));
        m_preview->setStyleSheet({});
    } else {
        m_preview->setText(QString::fromStdString(e.error().message).toHtmlEscaped());
        m_preview->setStyleSheet("color: #b00020;");
    }
    m_apply->setEnabled(bool(e));
    m_add->setEnabled(bool(e));
}

} // namespace fusescope
