#include "RunStatusLine.h"

#include "engine/ReportModel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <algorithm>

namespace fusescope {

RunStatusLine::RunStatusLine(QWidget* parent)
    : QWidget(parent) {
    m_label = new QLabel(tr("Ready"));
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(260);
    m_progress->setRange(0, 1000);
    m_progress->setVisible(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_progress);
}

void RunStatusLine::subscribe(const ReportModel* model) {
    auto nameOf = [model](int row) { return QString::fromStdString(model->report().backends[row].name); };
    connect(model, &ReportModel::backendStarted, this,
            [this, nameOf](int row) { setText(tr("Running %1...").arg(nameOf(row))); });
    connect(model, &ReportModel::backendProgress, this,
            [this, model, nameOf](int row, const QString&, double fraction, const QString& message) {
                // Search candidates append rows while running: the total is the report's, now.
                const double overall =
                    (row + std::max(0.0, fraction)) / double(model->report().backends.size());
                m_progress->setValue(int(overall * 1000));
                setText(tr("%1: %2").arg(nameOf(row), message));
            });
    connect(model, &ReportModel::runFinished, this, [this, model] {
        const auto& runs = model->report().backends;
        const auto ok = std::count_if(runs.begin(), runs.end(),
                                      [](const BackendRun& b) { return b.status == RunStatus::Ok; });
        setText(tr("Finished: %1 of %2 backends ran.").arg(ok).arg(runs.size()));
    });
    connect(model, &ReportModel::openFailed, this,
            [this](quint64, const QString&, const QString& message) { setText(message); });
    connect(model, &ReportModel::saved, this,
            [this](const QString& path) { setText(tr("Saved %1").arg(path)); });
    connect(model, &ReportModel::saveFailed, this,
            [this](const QString&, const QString& message) { setText(message); });
}

void RunStatusLine::setText(const QString& text) {
    m_label->setText(text);
}

QString RunStatusLine::text() const {
    return m_label->text();
}

void RunStatusLine::setRunning(bool running) {
    m_progress->setVisible(running);
    if (running)
        m_progress->setValue(0);
}

} // namespace fusescope
