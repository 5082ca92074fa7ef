#pragma once

#include "CollapsedGraph.h"
#include "GraphvizLayout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QImage>
#include <QSet>
#include <QStringList>
#include <memory>

namespace fusescope {

struct TimeAttribution;
class GroupItem;
class HeatLegendItem;
class LayoutWorker;
class NodeItem;

// Measured time on one node (core/trace/TimeAttribution), or its kernel's fraction of the roof.
struct NodeHeat {
    double share = 0; // of the traced kernel time, 0..1; HeatScale::RoofFraction: the fraction (may pass 1)
    double ms = 0;    // per traced iteration
    QStringList kernels;
};

// What a heat map's `share` is: a share of the traced time (groups add their nodes up, the
// legend runs to the largest), or a kernel's fraction of the machine's roof (docs/roofline.md:
// groups take their nodes' time-weighted mean, the legend runs from 0 to 100 %, nodes without a
// fraction stay uncoloured rather than painted as 0).
enum class HeatScale { TimeShare, RoofFraction };

// The heat of one stage's nodes from a run's attribution: an after-fusion stage takes its nodes'
// times; a before-fusion stage the times of the kernels its nodes were fused into (provenance).
QHash<QString, NodeHeat> heatOfStage(const TimeAttribution& time, const StageGraph& stage);
// The after-fusion nodes of `stage` with their kernel's fraction of the roof (`kernels`: rows of
// computeRoofline); a node whose kernel has no fraction is left out. Empty for other stages.
struct KernelRoofline;
QHash<QString, NodeHeat> roofHeatOfStage(const TimeAttribution& time,
                                         const std::vector<KernelRoofline>& kernels, const StageGraph& stage);

// The items of one stage: nodes, closed and open groups, edges, placed by a GraphvizLayout
// that runs on a worker thread. Groups are addressed by GroupTree ids ("module:blocks.0",
// "kernel:<FusionGroup id>"), nodes by their stage ids.
class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    // Groups the stage, opens it to about `maxVisible` items and starts the layout.
    void setStage(std::shared_ptr<const StageGraph> stage, int maxVisible = 60);
    const StageGraph* stage() const { return m_stage.get(); }
    const layout::GroupTree* tree() const { return m_tree.get(); }

    bool isGroupExpanded(const QString& groupId) const;
    void setGroupExpanded(const QString& groupId, bool expanded);
    void toggleGroup(const QString& groupId);
    // Opens every group around the node so that it gets an item of its own.
    void revealNode(const QString& nodeId);
    QString kernelOfNode(const QString& nodeId) const;
    QStringList nodesOfGroup(const QString& groupId) const;
    QString groupName(const QString& groupId) const;

    // Marks nodes; a node inside a closed group marks that group instead.
    void highlightNodes(const QStringList& ids);
    QStringList highlightedNodes() const { return QStringList(m_highlighted.begin(), m_highlighted.end()); }

    // Colours nodes (and closed groups, by the sum of their nodes) by measured time, with a
    // legend in the scene so exports keep it; an empty map turns it off. Kept across layouts.
    void setHeat(QHash<QString, NodeHeat> heat, HeatScale scale = HeatScale::TimeShare);
    HeatScale heatScale() const { return m_heatScale; }
    const QHash<QString, NodeHeat>& heat() const { return m_heat; }
    // A word before "kernel" on a closed kernel box ("int8"), by FusionGroup id; until the next stage.
    void setKernelBadges(QHash<QString, QString> badges);
    HeatLegendItem* heatLegend() const { return m_legend; }

    NodeItem* nodeItem(const QString& id) const { return m_nodeItems.value(id); }
    GroupItem* groupItem(const QString& id) const { return m_groupItems.value(id); }
    int nodeItemCount() const { return int(m_nodeItems.size()); }
    int closedGroupCount() const;
    int edgeItemCount() const { return m_edgeCount; }
    QString emptyReason() const { return m_reason; }

    // Far zoomed out on a large scene every item is a few pixels at most, and painting 20,000 of
    // them took 50-100 ms a frame (issue 32). Views then paint one picture of the whole scene
    // instead (GraphView and its minimap): rendered on first use after the items or their look
    // change (layout, highlight, heat, badges, selection), at overviewScale().
    // Whether a view at `zoom` paints the picture: a scene of kOverviewMinItems items or more,
    // zoomed out to the picture's scale or below, where items draw without text anyway.
    bool usesOverviewAt(double zoom) const;
    double overviewScale() const;
    const QImage& overview();
    static constexpr int kOverviewMinItems = 3000;

    bool isLayoutPending() const { return m_applied != m_generation; }
    // Lays out on the calling thread and applies the result (export, tests, benchmarks).
    void layoutNow();

signals:
    void layoutFinished();

private:
    void requestLayout();
    void applyLayout(uint64_t generation, const layout::StageLayout& result);
    void applyHeat();
    void applyRoofHeat();
    QString badgeOf(const layout::GraphGroup& g) const;
    void invalidateOverview() { m_overview = QImage(); }

    std::shared_ptr<const StageGraph> m_stage;
    std::shared_ptr<const layout::GroupTree> m_tree;
    std::unique_ptr<layout::CollapsedGraph> m_collapsed;
    std::unique_ptr<LayoutWorker> m_worker;
    uint64_t m_generation = 0;
    uint64_t m_applied = 0;
    QHash<QString, NodeItem*> m_nodeItems;
    QHash<QString, GroupItem*> m_groupItems;
    QSet<QString> m_highlighted;
    QHash<QString, NodeHeat> m_heat;
    HeatScale m_heatScale = HeatScale::TimeShare;
    QHash<QString, QString> m_badges; // FusionGroup id -> word after the kernel's name
    HeatLegendItem* m_legend = nullptr;
    int m_edgeCount = 0;
    QString m_reason;
    QImage m_overview;
};

} // namespace fusescope
