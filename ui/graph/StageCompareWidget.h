#pragma once

#include "model/BackendRun.h"

#include <QHash>
#include <QWidget>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QTextBrowser;

namespace fusescope {

class GraphView;

// A backend's graph before and after fusion, side by side and cross-linked: picking a kernel
// after fusion marks the nodes it was made of before fusion and shows its generated source;
// picking a node before fusion marks the kernel it ended in.
class StageCompareWidget : public QWidget {
    Q_OBJECT
public:
    explicit StageCompareWidget(QWidget* parent = nullptr);

    // The run's pre_fusion and post_fusion stages of Dynamo graph `graph`. Returns false and
    // shows why when either is missing.
    bool setRun(std::shared_ptr<const BackendRun> run, int graph = 0);
    // Any two stages of the run by StageGraph::key() (e.g. "post_grad" against "post_fusion").
    bool setStages(std::shared_ptr<const BackendRun> run, const QString& beforeKey, const QString& afterKey);

    GraphView* beforeView() const { return m_before; }
    GraphView* afterView() const { return m_after; }
    QPlainTextEdit* codeView() const { return m_code; }
    QString inspectorText() const;
    QString statsText() const;
    // Before-stage node ids that a kernel ("kernel:<id>" or the FusionGroup id) was made of.
    QStringList beforeNodesOfKernel(const QString& kernelGroupId) const;

public slots:
    void selectKernel(const QString& groupId);
    void selectBeforeNode(const QString& nodeId);
    void selectAfterNode(const QString& nodeId);

private:
    void linkStages();
    void showKernelCode(const FusionGroup& kernel);
    void inspectNode(const StageGraph& stage, const GraphNode& node, const FusionGroup* kernel);
    const FusionGroup* kernelByGroupId(const QString& groupId) const;

    std::shared_ptr<const BackendRun> m_run;
    std::shared_ptr<const StageGraph> m_beforeStage;
    std::shared_ptr<const StageGraph> m_afterStage;
    GraphView* m_before;
    GraphView* m_after;
    QPlainTextEdit* m_code;
    QTextBrowser* m_inspector;
    QLabel* m_stats;
    QLabel* m_beforeTitle;
    QLabel* m_afterTitle;
    QString m_codeArtifact;
    // Kernel (index into the after stage's groups) -> before-stage node ids, and back.
    QHash<int, QStringList> m_kernelToBefore;
    QHash<QString, int> m_beforeToKernel;
};

} // namespace fusescope
