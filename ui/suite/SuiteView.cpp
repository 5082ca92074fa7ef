#include "SuiteView.h"

#include "SuiteModel.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

namespace fusescope {

SuiteView::SuiteView(QWidget* parent)
    : QWidget(parent)
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
}

void SuiteView::openDir(const QString& dir) {
    m_dir = dir;
    const int generation = ++m_generation;
    m_title->setText(tr("Reading the sweep in %1...").arg(dir));
    QPointer<SuiteView> self(this);
    const std::string path = dir.toStdString();
    // Reading every job's report can take a while: never on the UI thread.
    QThreadPool::globalInstance()->start([self, generation, path] {
        auto suite = std::make_shared<Result<Suite>>(loadSuite(path));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, generation, suite] {
                if (!self || generation != self->m_generation)
                    return; // closed, or another folder opened meanwhile
                if (!*suite) {
                    self->m_title->setText(QString::fromStdString(suite->error().message));
                    emit self->failed(QString::fromStdString(suite->error().message));
                    return;
                }
                Suite s = std::move(suite->value());
                const QString name = QString::fromStdString(s.name.empty() ? s.dir : s.name);
                self->m_title->setText(tr("Suite %1: %2 jobs, %3 backends (%4)")
                                           .arg(name)
                                           .arg(s.jobs.size())
                                           .arg(s.backendNames.size())
                                           .arg(self->m_dir));
                QString verdict = QString::fromStdString(s.verdict);
                for (const auto& note : s.notes)
                    verdict += "\n" + tr("Note: %1").arg(QString::fromStdString(note));
                self->m_verdict->setText(verdict);
                self->m_model->setSuite(std::move(s));
                emit self->loaded();
            },
            Qt::QueuedConnection);
    });
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

SuiteView* showSuiteTab(QTabWidget* tabs, const QString& dir,
                        std::function<void(const QString&)> openReport) {
    SuiteView* view = nullptr;
    for (int i = 0; i < tabs->count() && !view; ++i)
        view = qobject_cast<SuiteView*>(tabs->widget(i));
    if (!view) {
        view = new SuiteView;
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
