#pragma once

#include "analysis/RunDiff.h"
#include "engine/Engine.h"

#include <QHash>
#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QTableWidget;

namespace fusescope {

class GraphView;

// Two runs compared (docs/diff.md): A's and B's after-fusion graphs side by side, kernels marked
// matched / changed / removed / added, and a table of kernel deltas. Picking a kernel on one side
// or a table row selects its counterpart on the other.
class DiffWindow : public QWidget {
    Q_OBJECT
public:
    explicit DiffWindow(QWidget* parent = nullptr);

    // Shows every backend the two reports share (or A's `backend` against B's `backendB`).
    // Returns false and shows why when they cannot be compared.
    bool setReports(std::shared_ptr<const Report> a, std::shared_ptr<const Report> b, const QString& labelA,
                    const QString& labelB, const QString& backend = {}, const QString& backendB = {});
    // Reads both report files and computes their diff on `engine`'s thread (Engine::loadDiff),
    // showing a loading state meanwhile; then shows it as setReports does and emits loaded(). A
    // file that cannot be read is named in the error, each of the two on its own line. A later
    // call supersedes one still loading. `engine` must outlive the load.
    void loadReports(Engine& engine, const QString& pathA, const QString& pathB, const QString& backend = {},
                     const QString& backendB = {});
    bool isLoading() const { return m_loading; }

    GraphView* viewA() const { return m_viewA; }
    GraphView* viewB() const { return m_viewB; }
    QTableWidget* table() const { return m_table; }
    QString summaryText() const;
    // Kernel marks of one side by GroupTree id ("kernel:<id>") -> matched|changed|added|removed.
    QHash<QString, QString> marks(bool sideB) const { return sideB ? m_marksB : m_marksA; }

signals:
    // After loadReports: ok, or why not (the unreadable file(s), or why nothing can be compared).
    void loaded(bool ok, const QString& error);

public slots:
    void selectKernelA(const QString& groupId);
    void selectKernelB(const QString& groupId);

private:
    bool applyDiff(std::shared_ptr<const Report> a, std::shared_ptr<const Report> b, const QString& labelA,
                   const QString& labelB, Result<ReportDiff> diff);
    void setLoading(bool loading);
    void showBackend(int index);
    void showStage(int index);
    void fillTable();
    void paintMarks(bool sideB);
    void selectRow(int row);

    quint64 m_loadTicket = 0; // the engine's ticket of the load in flight, 0 when none
    QMetaObject::Connection m_loadConnection;
    bool m_loading = false;
    std::shared_ptr<const Report> m_a;
    std::shared_ptr<const Report> m_b;
    ReportDiff m_diff;
    QStringList m_stageKeys;
    QString m_stage;
    QComboBox* m_backends;
    QComboBox* m_stages;
    QLabel* m_summary;
    QLabel* m_titleA;
    QLabel* m_titleB;
    GraphView* m_viewA;
    GraphView* m_viewB;
    QTableWidget* m_table;
    QHash<QString, QString> m_marksA;
    QHash<QString, QString> m_marksB;
    // Kernel group ids ("kernel:<id>") of one side -> the counterpart ids on the other, and its row.
    QHash<QString, QStringList> m_partnerOfA;
    QHash<QString, QStringList> m_partnerOfB;
    QHash<QString, int> m_rowOfA;
    QHash<QString, int> m_rowOfB;
    QList<QPair<QStringList, QStringList>> m_rows; // row -> (A ids, B ids)
};

// File > Compare Reports...: asks for A (starting at `current`, the open report, when set) and B,
// then opens the window at once and loads both on the engine's thread (loadReports); a failure is
// shown in the window and in a message box.
void openDiffDialog(QWidget* parent, Engine& engine, const QString& current = {});

} // namespace fusescope
