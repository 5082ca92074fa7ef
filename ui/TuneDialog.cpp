#include "TuneDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>

namespace fusescope {

TuneDialog::TuneDialog(QWidget* parent)
    : QDialog(parent)
    , m_budget(new QLineEdit)
    , m_goal(new QComboBox)
    , m_space(new QLineEdit)
    , m_problem(new QLabel)
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
    setWindowTitle(tr("Tune"));
    QSettings stored;
    m_budget->setText(stored.value("tune/budget", "5m").toString());
    m_budget->setToolTip(tr("The whole tuning ends within it: seconds (300) or with a unit (90s, 5m, 1h)"));
    for (const char* goal : {"latency", "throughput", "memory", "compile"})
        m_goal->addItem(QString::fromLatin1(goal));
    m_goal->setCurrentText(stored.value("tune/goal", "latency").toString());
    m_space->setText(stored.value("tune/space").toString());
    m_space->setPlaceholderText(tr("optional: a TOML file that narrows or extends the space"));
    auto* browse = new QPushButton(tr("&Browse..."));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Space file"), m_space->text(), tr("TOML files (*.toml)"));
        if (!path.isEmpty())
            m_space->setText(path);
    });
    auto* spaceRow = new QHBoxLayout;
    spaceRow->addWidget(m_space, 1);
    spaceRow->addWidget(browse);
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setStyleSheet("color: #b00020");
    auto* form = new QFormLayout(this);
    form->addRow(tr("&Budget:"), m_budget);
    form->addRow(tr("&Goal:"), m_goal);
    form->addRow(tr("&Space file:"), spaceRow);
    form->addRow(
        new QLabel(tr("Every candidate runs with the Options of the Backends pane (threads, measurement); "
                      "the backends themselves come from the space (docs/tuning.md).")));
    form->addRow(m_problem);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue("tune/budget", m_budget->text());
        s.setValue("tune/goal", m_goal->currentText());
        s.setValue("tune/space", m_space->text());
        accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_budget, &QLineEdit::textChanged, this, &TuneDialog::check);
    connect(m_space, &QLineEdit::textChanged, this, &TuneDialog::check);
    check();
}

Result<TuneSettings> TuneDialog::settings() const {
    auto budget = parseTuneBudget(m_budget->text().trimmed().toStdString());
    if (!budget)
        return budget.error();
    TuneSettings s;
    s.budgetSeconds = budget.value();
    s.goal = goalFromString(m_goal->currentText().toStdString()).value_or(Goal::Latency);
    s.spaceFile = m_space->text().trimmed().toStdString();
    if (auto bad = checkTuneSettings(s))
        return *bad;
    return s;
}

QString TuneDialog::problem() const {
    return m_problem->text();
}

void TuneDialog::check() {
    const auto s = settings();
    m_problem->setText(s ? QString() : QString::fromStdString(s.error().message));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(bool(s));
}

} // namespace fusescope
