#pragma once

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace fusescope {

class ReportModel;

// The window's menus (File, Run, View), their actions and shortcuts, and the file dialogs they
// open. It changes nothing itself: each action emits what the user asked for and MainWindow routes
// it, so the window only lays out and routes (docs/architecture.md).
class MainMenus : public QObject {
    Q_OBJECT
public:
    // The menus go into window's menu bar; report gives Save As the path it offers first.
    MainMenus(QMainWindow* window, const ReportModel* report);

    QAction* runAction() const { return m_run; }
    QAction* tuneAction() const { return m_tune; }
    QAction* cancelAction() const { return m_cancel; }
    // Run while idle, Cancel while running, Save when idle with rows to save.
    void setRunState(bool running, bool hasRows);
    // File > Open Recent, read again from RecentFiles (after something was added to it).
    void rebuildRecent();

signals:
    void runRequested();
    void tuneRequested(); // Run > Tune...: the budget dialog, then a tuning (docs/tuning.md)
    void cancelRequested();
    void pythonRequested();
    void compareRequested();                    // File > Compare with Report...
    void pathChosen(const QString& path);       // Open Recent: a report, a model or a sweep folder
    void reportChosen(const QString& path);     // Open Report
    void modelChosen(const QString& path);      // Open Model, already checked (modelPathProblem)
    void saveChosen(const QString& path);       // Save Report As, ends in .fscope
    void exportHtmlChosen(const QString& path); // Export HTML Report, ends in .html
    void exportGraphRequested(bool rightHand);
    void findNodeRequested();
    void findNextRequested();
    void findPreviousRequested();
    void tabRequested(int index); // Alt+1..8, in the tabs' order
    void goalRequested();         // Ctrl+G: the recommendation's goal box
    void message(const QString& text);

private:
    void buildFileMenu();
    void buildRunMenu();
    void buildViewMenu();
    void openReportDialog();
    void openModelDialog();
    void saveReportDialog();
    void exportWindowDialog();
    void exportHtmlDialog();

    QMainWindow* m_window;
    const ReportModel* m_report;
    QMenu* m_recent = nullptr;
    QAction* m_run = nullptr;
    QAction* m_tune = nullptr;
    QAction* m_cancel = nullptr;
    QAction* m_save = nullptr;
    QAction* m_exportHtml = nullptr;
};

} // namespace fusescope
