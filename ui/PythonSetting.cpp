#include "PythonSetting.h"

#include "capture/WorkerConfig.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace fusescope {

QString savedPython() {
    return QSettings().value(kPythonSettingKey).toString();
}

PythonDialog::PythonDialog(QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Python Interpreter"));
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("The Python the capture workers run in: the environment where your model and its "
                      "custom ops live. It needs torch (tested: %1). Empty: FUSESCOPE_PYTHON, else "
                      "the interpreter FuseScope was built with.")
                       .arg(QString::fromStdString(torchTestedRange())));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* row = new QHBoxLayout;
    m_path = new QLineEdit(WorkerConfig::chosenPython());
    m_path->setPlaceholderText(WorkerConfig::fromEnvironment().python);
    m_path->setMinimumWidth(420);
    row->addWidget(m_path, 1);
    auto* browse = new QPushButton(tr("Browse..."));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Python Interpreter"), m_path->text());
        if (!file.isEmpty())
            m_path->setText(file);
    });
    row->addWidget(browse);
    layout->addLayout(row);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    showCurrent();
}

void PythonDialog::showCurrent() {
    const auto env = inspectPython(WorkerConfig::fromEnvironment().python);
    m_status->setText(env ? tr("Now: %1").arg(QString::fromStdString(describe(env.value())))
                          : tr("Now: %1").arg(QString::fromStdString(env.error().message)));
}

QString PythonDialog::chosen() const {
    return m_path->text().trimmed();
}

void PythonDialog::accept() {
    const QString path = chosen();
    if (!path.isEmpty()) {
        const auto env = inspectPython(path);
        if (!env) {
            m_status->setText(QString::fromStdString(env.error().message));
            return;
        }
    }
    QSettings().setValue(kPythonSettingKey, path);
    WorkerConfig::setChosenPython(path);
    QDialog::accept();
}

} // namespace fusescope
