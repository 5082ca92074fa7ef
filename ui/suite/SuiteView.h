#pragma once

#include "engine/Engine.h"

#include <QWidget>
#include <functional>

class QLabel;
class QTableView;
class QTabWidget;

namespace fusescope {

class SuiteModel;

// The Suite view of a sweep folder (docs/sweeps.md): the models x backends grid, per-backend
// totals and the suite's verdict. The folder is read on the engine's thread (Engine::loadSuite);
// clicking a job's cell asks for its report to open in the normal tabs.
class SuiteView : public QWidget {
    Q_OBJECT
public:
    // `engine` reads the folders; it must outlive the view.
    explicit SuiteView(Engine& engine, QWidget* parent = nullptr);

    // Starts reading DIR/sweep.json and the reports; `loaded` or `failed` follows.
    void openDir(const QString& dir);
    QString dir() const { return m_dir; }
    SuiteModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }

signals:
    void loaded();
    void failed(const QString& message);
    void reportRequested(const QString& path);

private:
    void activate(const QModelIndex& index);
    void showSuite(quint64 ticket, const SuiteSnapshot& suite);

    Engine& m_engine;
    SuiteModel* m_model;
    QTableView* m_table;
    QLabel* m_title;
    QLabel* m_verdict;
    QString m_dir;
    quint64 m_ticket = 0; // the engine's ticket of the folder being read
};

// True when `path` is a sweep folder (it has sweep.json).
bool isSweepDir(const QString& path);

// The main window's hook: shows the Suite tab of `tabs` (added last when missing; the other tabs
// keep their indices) on `dir`, read by `engine`; a click on a job calls openReport with its
// report's path and shows tab 0 (Comparison).
SuiteView* showSuiteTab(QTabWidget* tabs, Engine& engine, const QString& dir,
                        std::function<void(const QString&)> openReport);

} // namespace fusescope
