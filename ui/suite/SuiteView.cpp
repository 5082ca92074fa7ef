#include "SuiteView.h"

#include "SuiteModel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace fusescope {

SuiteView::SuiteView(Engine& engine, QWidget* parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_model(new SuiteModel(this))
    , m_table(new QTableView)
    , m_title(new QLabel)
    , m_verdict(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    m_title->setTextFormat(Qt::PlainText);
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_verdict);
    connect(m_table, &QTableView::clicked, this, &SuiteView::activate);
    connect(m_table, &QTableView::activated, this, &SuiteView::activate);
    connect(&engine, &Engine::suiteLoaded, this, &SuiteView::showSuite);
}

void SuiteView::openDir(const QString& dir) {
    m_dir = dir;
    m_title->setText(tr("Reading the sweep in %1...").arg(dir));
    // Reading every job's report can take a while: on the engine's thread, never on the UI thread.
    m_ticket = m_engine.loadSuite(dir.toStdString());
}

void SuiteView::showSuite(quint64 ticket, const SuiteSnapshot& suite) {
    if (ticket != m_ticket)
        return; // another view's folder, or another folder opened meanwhile
    if (!*suite) {
        m_title->setText(QString::fromStdString(suite->error().message));
        emit failed(QString::fromStdString(suite->error().message));
        return;
    }
    const Suite& s = suite->value();
    const QString name = QString::fromStdString(s.name.empty() ? s.dir : s.name);
    m_title->setText(tr("Suite %1: %2 jobs, %3 backends (%4)")
                         .arg(name)
                         .arg(s.jobs.size())
                         .arg(s.backendNames.size())
                         .arg(m_dir));
    QString verdict = QString::fromStdString(s.verdict);
    for (const auto& note : s.notes)
        verdict += "\n" + tr("Note: %1").arg(QString::fromStdString(note));
    m_verdict->setText(verdict);
    m_model->setSuite(s); // the grid's own copy: a summary of the folder, small
    emit loaded();
}

void SuiteView::activate(const QModelIndex& index) {
    if (!index.isValid())
        return;
    const QString path = m_model->reportPath(index.row());
    if (!path.isEmpty())
        emit reportRequested(path);
}

bool isSweepDir(const QString& path) {
    const QFileInfo info(path);
    return info.isDir() && QFileInfo::exists(path + "/sweep.json");
}

SuiteView* showSuiteTab(QTabWidget* tabs, Engine& engine, const QString& dir,
                        std::function<void(const QString&)> openReport) {
    SuiteView* view = nullptr;
    for (int i = 0; i < tabs->count() && !view; ++i)
        view = qobject_cast<SuiteView*>(tabs->widget(i));
    if (!view) {
        view = new SuiteView(engine);
        tabs->addTab(view, QObject::tr("Suite"));
        QObject::connect(view, &SuiteView::reportRequested, view, [tabs, openReport](const QString& path) {
            openReport(path);
            tabs->setCurrentIndex(0); // the Comparison tab, now showing that job
        });
    }
    view->openDir(dir);
    tabs->setCurrentWidget(view);
    return view;
}

} // namespace fusescope
