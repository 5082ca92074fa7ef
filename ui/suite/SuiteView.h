#pragma once

#include <QWidget>
#include <functional>

class QLabel;
class QTableView;
class QTabWidget;

namespace fusescope {

class SuiteModel;

// The Suite view of a sweep folder (docs/sweeps.md): the models x backends grid, per-backend
// totals and the suite's verdict. The folder is read off the UI thread; clicking a job's cell
// asks for its report to open in the normal tabs.
class SuiteView : public QWidget {
    Q_OBJECT
public:
    explicit SuiteView(QWidget* parent = nullptr);

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

    SuiteModel* m_model;
    QTableView* m_table;
    QLabel* m_title;
    QLabel* m_verdict;
    QString m_dir;
    int m_generation = 0;
};

// True when `path` is a sweep folder (it has sweep.json).
bool isSweepDir(const QString& path);

// The main window's hook: shows the Suite tab of `tabs` (added last when missing; the other tabs
// keep their indices) on
// `dir`; a click on a job calls openReport with its report's path and shows tab 0 (Comparison).
SuiteView* showSuiteTab(QTabWidget* tabs, const QString& dir, std::function<void(const QString&)> openReport);

} // namespace fusescope
