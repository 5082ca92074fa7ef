#include "MainMenus.h"

#include "ModelPicker.h"
#include "RecentFiles.h"
#include "WidgetExport.h"
#include "engine/ReportModel.h"

#include <QFileDialog>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>

namespace fusescope {

MainMenus::MainMenus(QMainWindow* window, const ReportModel* report)
    : QObject(window)
    , m_window(window)
    , m_report(report) {
    buildFileMenu();
    buildRunMenu();
    buildViewMenu();
}

void MainMenus::buildFileMenu() {
    auto* file = m_window->menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open &Model..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                    &MainMenus::openModelDialog);
    file->addAction(tr("&Open Report..."), QKeySequence::Open, this, &MainMenus::openReportDialog);
    // A TORCH_TRACE directory is imported like a report is opened (docs/import.md).
    file->addAction(tr("Import TORCH_TRACE &Directory..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(m_window, tr("Import TORCH_TRACE Directory"));
        if (!dir.isEmpty())
            emit reportChosen(dir);
    });
    m_save =
        file->addAction(tr("&Save Report As..."), QKeySequence::Save, this, &MainMenus::saveReportDialog);
    m_recent = file->addMenu(tr("Open &Recent"));
    rebuildRecent();
    file->addAction(tr("&Compare with Report..."), this, &MainMenus::compareRequested);
    file->addSeparator();
    file->addAction(tr("&Export Graph..."), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    [this] { emit exportGraphRequested(false); });
    file->addAction(tr("Export Right-Hand Graph..."), this, [this] { emit exportGraphRequested(true); });
    file->addAction(tr("Export &Window..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                    &MainMenus::exportWindowDialog);
    m_exportHtml = file->addAction(tr("Export &HTML Report..."), this, &MainMenus::exportHtmlDialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, m_window, &QWidget::close);
}

void MainMenus::buildRunMenu() {
    auto* run = m_window->menuBar()->addMenu(tr("&Run"));
    m_run = run->addAction(tr("&Run Comparison"), this, &MainMenus::runRequested);
    m_run->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    m_tune =
        run->addAction(tr("&Tune..."), QKeySequence(Qt::CTRL | Qt::Key_T), this, &MainMenus::tuneRequested);
    m_tune->setToolTip(tr("Race backends, modes and options on the model within a time budget (Ctrl+T)"));
    m_cancel = run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainMenus::cancelRequested);
    run->addSeparator();
    run->addAction(tr("&Python Interpreter..."), this, &MainMenus::pythonRequested);
}

void MainMenus::buildViewMenu() {
    auto* view = m_window->menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find Node..."), QKeySequence::Find, this, &MainMenus::findNodeRequested);
    view->addAction(tr("Find &Next"), QKeySequence::FindNext, this, &MainMenus::findNextRequested);
    view->addAction(tr("Find &Previous"), QKeySequence::FindPrevious, this,
                    &MainMenus::findPreviousRequested);
    const QStringList tabs = {tr("&Comparison"), tr("&Graphs"), tr("C&harts"),  tr("&Traces"),
                              tr("&Breaks"),     tr("&Shapes"), tr("&Modules"), tr("T&uning")};
    for (int i = 0; i < tabs.size(); ++i)
        view->addAction(tabs[i], QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)), this,
                        [this, i] { emit tabRequested(i); });
    view->addAction(tr("&Recommendation Goal"), QKeySequence(Qt::CTRL | Qt::Key_G), this,
                    &MainMenus::goalRequested);
}

void MainMenus::setRunState(bool running, bool hasRows) {
    m_run->setEnabled(!running);
    m_tune->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_save->setEnabled(!running && hasRows);
    m_exportHtml->setEnabled(!running && hasRows);
}

void MainMenus::rebuildRecent() {
    m_recent->clear();
    const QStringList recent = RecentFiles::load();
    for (const QString& entry : recent)
        m_recent->addAction(entry, this, [this, entry] { emit pathChosen(entry); });
    m_recent->setEnabled(!recent.isEmpty());
}

void MainMenus::openReportDialog() {
    const QString path =
        QFileDialog::getOpenFileName(m_window, tr("Open Report"), QString(),
                                     tr("FuseScope reports (*.fscope);;TORCH_TRACE logs (*.log);;"
                                        "PyTorch profiler traces (*.json);;All files (*)"));
    if (!path.isEmpty())
        emit reportChosen(path);
}

void MainMenus::openModelDialog() {
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open Model"), QString(),
                                                      tr("Models (*.py *.pt);;All files (*)"));
    if (path.isEmpty())
        return;
    if (const QString problem = modelPathProblem(path); !problem.isEmpty()) {
        QMessageBox::warning(m_window, tr("Cannot use this model"), problem);
        return;
    }
    emit modelChosen(path);
}

void MainMenus::saveReportDialog() {
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save Report"), m_report->path(),
                                                tr("FuseScope reports (*.fscope)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(".fscope"))
        path += ".fscope";
    emit saveChosen(path);
}

void MainMenus::exportHtmlDialog() {
    QString suggested = m_report->path();
    if (suggested.endsWith(".fscope"))
        suggested.chop(7);
    QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export HTML Report"),
        suggested.isEmpty() ? QStringLiteral("report.html") : suggested + ".html", tr("HTML pages (*.html)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(".html") && !path.endsWith(".htm"))
        path += ".html";
    emit exportHtmlChosen(path);
}

void MainMenus::exportWindowDialog() {
    ExportTarget target;
    if (!askExportTarget(m_window, tr("Export Window"), target))
        return;
    QString error;
    if (!exportWidget(m_window, target.path, target.scale, &error))
        QMessageBox::warning(m_window, tr("Export failed"), error);
    else
        emit message(tr("Exported %1").arg(target.path));
}

} // namespace fusescope
