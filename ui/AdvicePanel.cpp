#include "AdvicePanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace fusescope {

AdvicePanel::AdvicePanel(QWidget* parent)
    : QWidget(parent) {
    m_rows = new QVBoxLayout(this);
    m_rows->setContentsMargins(0, 0, 0, 0);
    setVisible(false);
}

void AdvicePanel::showRun(const Report& report, const BackendRun* run) {
    m_advice = run ? adviceFor(report, *run) : std::vector<Advice>{};
    while (auto* item = m_rows->takeAt(0)) {
        if (auto* w = item->widget())
            w->deleteLater();
        delete item;
    }
    for (const auto& a : m_advice) {
        auto* row = new QWidget;
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(0, 0, 0, 0);
        auto* text = new QLabel(tr("Advice [%1]: %2\n  evidence: %3")
                                    .arg(QString::fromStdString(a.rule), QString::fromStdString(a.message),
                                         QString::fromStdString(a.evidence)));
        text->setWordWrap(true);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(text, 1);
        if (!a.tryEntry.empty()) {
            const QString entry = QString::fromStdString(a.tryEntry);
            auto* add = new QPushButton(tr("Add row: %1").arg(entry));
            add->setToolTip(tr("Adds %1 to the Backends list, checked, ready to run").arg(entry));
            connect(add, &QPushButton::clicked, this, [this, entry] { emit addRowRequested(entry); });
            layout->addWidget(add);
        }
        m_rows->addWidget(row);
    }
    setVisible(!m_advice.empty());
}

} // namespace fusescope
