#include "GraphScene.h"

#include "GraphItems.h"
#include "LayoutWorker.h"
#include "NodePalette.h"
#include "analysis/Roofline.h"
#include "trace/TimeAttribution.h"

#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QPointer>
#include <algorithm>
#include <cmath>
#include <map>

namespace fusescope {

using namespace layout;

namespace {

QPainterPath bezierPath(const std::vector<Point>& pts) {
    QPainterPath path(QPointF(pts[0].x, pts[0].y));
    for (size_t i = 1; i + 2 < pts.size(); i += 3)
        path.cubicTo(QPointF(pts[i].x, pts[i].y), QPointF(pts[i + 1].x, pts[i + 1].y),
                     QPointF(pts[i + 2].x, pts[i + 2].y));
    return path;
}

} // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent) {
    // Items only change when a layout is applied, so a BSP index makes hit tests and
    // exposed-region queries logarithmic on big scenes.
    setItemIndexMethod(BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::invalidateOverview);
}

bool GraphScene::usesOverviewAt(double zoom) const {
    const int items = int(m_nodeItems.size() + m_groupItems.size()) + m_edgeCount;
    return items >= kOverviewMinItems && zoom <= overviewScale() && zoom < kTextLevelOfDetail;
}

double GraphScene::overviewScale() const {
    // About 4 million pixels (16 MB), and no side past 16,384 pixels.
    constexpr double kPixels = 4.0e6;
    constexpr double kSide = 16384;
    const QRectF r = sceneRect();
    if (r.width() < 1 || r.height() < 1)
        return 1.0;
    return std::min(
        {std::sqrt(kPixels / (r.width() * r.height())), kSide / std::max(r.width(), r.height()), 1.0});
}

const QImage& GraphScene::overview() {
    if (m_overview.isNull()) {
        const QRectF r = sceneRect();
        const double scale = overviewScale();
        m_overview =
            QImage(std::max(1, int(std::ceil(r.width() * scale))),
                   std::max(1, int(std::ceil(r.height() * scale))), QImage::Format_ARGB32_Premultiplied);
        m_overview.fill(Qt::transparent);
        QPainter painter(&m_overview);
        painter.setRenderHint(QPainter::Antialiasing);
        render(&painter, QRectF(m_overview.rect()), r);
    }
    return m_overview;
}

GraphScene::~GraphScene() {
    m_worker.reset(); // joins the thread before the items and the stage go away
}

void GraphScene::setStage(std::shared_ptr<const StageGraph> stage, int maxVisible) {
    m_worker.reset();
    m_stage = std::move(stage);
    m_tree = std::make_shared<GroupTree>(GroupTree::build(*m_stage));
    m_collapsed = std::make_unique<CollapsedGraph>(*m_stage, *m_tree);
    m_collapsed->expandInitially(maxVisible);
    m_worker = std::make_unique<LayoutWorker>(std::make_shared<GraphvizLayout>(m_stage, m_tree));
    m_highlighted.clear();
    m_badges.clear();
    requestLayout();
}

void GraphScene::setKernelBadges(QHash<QString, QString> badges) {
    invalidateOverview();
    m_badges = std::move(badges);
    for (auto it = m_groupItems.begin(); it != m_groupItems.end(); ++it) {
        const int g = m_tree ? m_tree->findGroup(it.key().toStdString()) : -1;
        if (g >= 0)
            it.value()->setBadge(badgeOf(m_tree->group(g)));
    }
}

QString GraphScene::badgeOf(const layout::GraphGroup& g) const {
    if (m_badges.isEmpty() || g.kind != layout::GraphGroup::Kind::Kernel || g.fusionGroup < 0 ||
        size_t(g.fusionGroup) >= m_stage->groups.size())
        return {};
    return m_badges.value(QString::fromStdString(m_stage->groups[size_t(g.fusionGroup)].id));
}

bool GraphScene::isGroupExpanded(const QString& groupId) const {
    const int g = m_tree ? m_tree->findGroup(groupId.toStdString()) : -1;
    return g >= 0 && m_collapsed->isExpanded(g);
}

void GraphScene::setGroupExpanded(const QString& groupId, bool expanded) {
    const int g = m_tree ? m_tree->findGroup(groupId.toStdString()) : -1;
    if (g <= 0 || m_collapsed->isExpanded(g) == expanded)
        return;
    m_collapsed->setExpanded(g, expanded);
    requestLayout();
}

void GraphScene::toggleGroup(const QString& groupId) {
    setGroupExpanded(groupId, !isGroupExpanded(groupId));
}

void GraphScene::revealNode(const QString& nodeId) {
    const int n = m_tree ? m_tree->findNode(nodeId.toStdString()) : -1;
    if (n < 0 || m_collapsed->representative(n) == ItemRef::node(n))
        return;
    m_collapsed->revealNode(n);
    requestLayout();
}

QString GraphScene::kernelOfNode(const QString& nodeId) const {
    const int n = m_tree ? m_tree->findNode(nodeId.toStdString()) : -1;
    const int k = n >= 0 ? m_tree->kernelOfNode(n) : -1;
    return k >= 0 ? QString::fromStdString(m_tree->group(k).id) : QString();
}

QStringList GraphScene::nodesOfGroup(const QString& groupId) const {
    QStringList ids;
    const int g = m_tree ? m_tree->findGroup(groupId.toStdString()) : -1;
    if (g >= 0)
        for (int n : m_tree->nodesUnder(g))
            ids << QString::fromStdString(m_stage->nodes[size_t(n)].id);
    return ids;
}

QString GraphScene::groupName(const QString& groupId) const {
    const int g = m_tree ? m_tree->findGroup(groupId.toStdString()) : -1;
    return g >= 0 ? QString::fromStdString(m_tree->group(g).name) : QString();
}

int GraphScene::closedGroupCount() const {
    int count = 0;
    for (GroupItem* g : m_groupItems)
        count += g->isExpanded() ? 0 : 1;
    return count;
}

void GraphScene::highlightNodes(const QStringList& ids) {
    invalidateOverview();
    m_highlighted = QSet<QString>(ids.begin(), ids.end());
    for (NodeItem* item : m_nodeItems)
        item->setHighlighted(m_highlighted.contains(item->id()));
    QSet<QString> groups;
    if (m_tree)
        for (const QString& id : ids)
            if (const int n = m_tree->findNode(id.toStdString()); n >= 0)
                if (const int rep = m_collapsed->representative(n); ItemRef::isGroup(rep))
                    groups.insert(QString::fromStdString(m_tree->group(ItemRef::index(rep)).id));
    for (GroupItem* item : m_groupItems)
        item->setHighlighted(groups.contains(item->id()));
}

QHash<QString, NodeHeat> heatOfStage(const TimeAttribution& time, const StageGraph& stage) {
    QHash<QString, NodeHeat> heat;
    if (time.tracedNs <= 0)
        return heat;
    if (stage.fusion == "after") {
        for (const NodeTime& nt : time.nodes)
            if (nt.stage == &stage) {
                QStringList kernels;
                for (const auto& k : nt.kernels)
                    kernels << QString::fromStdString(k);
                heat.insert(QString::fromStdString(nt.node), {nt.ns / time.tracedNs, nt.ns / 1e6, kernels});
            }
    } else {
        for (const auto& [id, share] : time.shareOfBeforeFusionNodes(stage))
            heat.insert(QString::fromStdString(id), {share, share * time.tracedNs / 1e6, {}});
    }
    return heat;
}

QHash<QString, NodeHeat> roofHeatOfStage(const TimeAttribution& time,
                                         const std::vector<KernelRoofline>& kernels,
                                         const StageGraph& stage) {
    QHash<QString, NodeHeat> heat;
    if (stage.fusion != "after")
        return heat;
    const std::string key = stage.key();
    std::map<std::string, const KernelRoofline*> byGroup;
    for (const auto& k : kernels)
        if (k.stageKey == key && k.roofFraction)
            byGroup[k.groupId] = &k;
    std::map<std::string, double> nodeNs;
    for (const NodeTime& nt : time.nodes)
        if (nt.stage == &stage)
            nodeNs[nt.node] = nt.ns;
    for (const GraphNode& node : stage.nodes) {
        const auto it = byGroup.find(node.group);
        if (node.group.empty() || it == byGroup.end())
            continue;
        const auto ns = nodeNs.find(node.id);
        heat.insert(QString::fromStdString(node.id),
                    {*it->second->roofFraction, ns == nodeNs.end() ? 0.0 : ns->second / 1e6,
                     QStringList{QString::fromStdString(it->second->name)}});
    }
    return heat;
}

void GraphScene::setHeat(QHash<QString, NodeHeat> heat, HeatScale scale) {
    m_heat = std::move(heat);
    m_heatScale = scale;
    if (m_applied == 0)
        return; // applied with the first layout
    applyHeat();
    setSceneRect(itemsBoundingRect().adjusted(-20, -20, 20, 20));
}

void GraphScene::applyHeat() {
    invalidateOverview();
    if (m_legend) {
        removeItem(m_legend);
        delete m_legend;
        m_legend = nullptr;
    }
    if (m_heatScale == HeatScale::RoofFraction) {
        applyRoofHeat();
        return;
    }
    auto label = [](double share, double ms) {
        return QString("%1 % · %2 ms").arg(100 * share, 0, 'f', 1).arg(ms, 0, 'f', 3);
    };
    QHash<QString, std::pair<double, double>> groupTotals; // share, ms
    double maxShare = 0;
    for (auto it = m_heat.cbegin(); it != m_heat.cend(); ++it) {
        if (m_nodeItems.contains(it.key()))
            maxShare = std::max(maxShare, it->share);
        // Every group around the node gets its time: closed boxes are coloured by it, open
        // frames show it in their header.
        if (m_tree)
            if (const int n = m_tree->findNode(it.key().toStdString()); n >= 0)
                for (int g = m_tree->groupOfNode(n); g > 0; g = m_tree->group(g).parent) {
                    const QString id = QString::fromStdString(m_tree->group(g).id);
                    auto& total = groupTotals[id];
                    total.first += it->share;
                    total.second += it->ms;
                }
    }
    for (auto it = groupTotals.cbegin(); it != groupTotals.cend(); ++it)
        if (const GroupItem* item = m_groupItems.value(it.key()); item && !item->isExpanded())
            maxShare = std::max(maxShare, it->first);
    const bool on = !m_heat.isEmpty() && maxShare > 0;
    for (NodeItem* item : m_nodeItems) {
        const auto it = m_heat.constFind(item->id());
        if (!on || it == m_heat.cend()) {
            item->setHeat(on ? heatColor(0) : QColor(), QString());
            continue;
        }
        QString tip = label(it->share, it->ms) + " of the traced step";
        if (!it->kernels.isEmpty())
            tip += "\nkernel: " + it->kernels.join(", ");
        item->setHeat(heatColor(it->share / maxShare), tip);
    }
    for (GroupItem* item : m_groupItems) {
        const auto it = groupTotals.constFind(item->id());
        if (!on || it == groupTotals.cend())
            item->setHeat(QColor(), QString());
        else
            item->setHeat(item->isExpanded() ? QColor() : heatColor(it->first / maxShare),
                          label(it->first, it->second));
    }
    if (!on)
        return;
    const QRectF bounds = itemsBoundingRect();
    m_legend = new HeatLegendItem(maxShare);
    m_legend->setPos(bounds.left(), bounds.top() - m_legend->boundingRect().height() - 12);
    addItem(m_legend);
}

void GraphScene::applyRoofHeat() {
    // Groups: their nodes' fractions weighted by the nodes' time (evenly when none has time).
    QHash<QString, std::pair<double, double>> groupSums; // weighted fraction, weight
    for (auto it = m_heat.cbegin(); it != m_heat.cend(); ++it) {
        if (!m_tree)
            break;
        const int n = m_tree->findNode(it.key().toStdString());
        const double weight = it->ms > 0 ? it->ms : 1e-9;
        for (int g = n >= 0 ? m_tree->groupOfNode(n) : 0; g > 0; g = m_tree->group(g).parent) {
            auto& sum = groupSums[QString::fromStdString(m_tree->group(g).id)];
            sum.first += weight * it->share;
            sum.second += weight;
        }
    }
    const bool on = !m_heat.isEmpty();
    auto label = [](double fraction, const QStringList& kernels) {
        QString text = QString("%1 % of the roof").arg(100 * fraction, 0, 'f', 0);
        if (!kernels.isEmpty())
            text += "\nkernel: " + kernels.join(", ");
        if (fraction > 1)
            text += "\nabove the memory roof: its bytes were in the caches";
        return text;
    };
    for (NodeItem* item : m_nodeItems) {
        const auto it = m_heat.constFind(item->id());
        if (!on || it == m_heat.cend()) {
            item->setHeat(QColor(),
                          on ? QStringLiteral("no fraction of the roof (docs/roofline.md)") : QString());
            continue;
        }
        item->setHeat(heatColor(std::min(it->share, 1.0)), label(it->share, it->kernels));
    }
    for (GroupItem* item : m_groupItems) {
        const auto it = groupSums.constFind(item->id());
        if (!on || it == groupSums.cend() || it->second <= 0) {
            item->setHeat(QColor(), QString());
            continue;
        }
        const double fraction = it->first / it->second;
        item->setHeat(item->isExpanded() ? QColor() : heatColor(std::min(fraction, 1.0)),
                      QString("%1 % of the roof (time-weighted)").arg(100 * fraction, 0, 'f', 0));
    }
    if (!on)
        return;
    const QRectF bounds = itemsBoundingRect();
    m_legend = new HeatLegendItem(1.0, QStringLiteral("Fraction of the roof (kernel)"));
    m_legend->setPos(bounds.left(), bounds.top() - m_legend->boundingRect().height() - 12);
    addItem(m_legend);
}

void GraphScene::requestLayout() {
    const uint64_t generation = ++m_generation;
    QPointer<GraphScene> self(this);
    m_worker->request(generation, m_collapsed->expandedState(), [self](uint64_t gen, StageLayout result) {
        // Runs on the worker thread; the scene may be gone by the time the
        // queued call would run, which QPointer catches.
        QMetaObject::invokeMethod(
            self.data(),
            [self, gen, result = std::move(result)] {
                if (self)
                    self->applyLayout(gen, result);
            },
            Qt::QueuedConnection);
    });
}

void GraphScene::layoutNow() {
    if (!m_worker)
        return;
    const uint64_t generation = ++m_generation;
    applyLayout(generation, m_worker->layoutNow(m_collapsed->expandedState()));
}

void GraphScene::applyLayout(uint64_t generation, const StageLayout& result) {
    // A result for an older expansion state: a newer one is on its way.
    if (generation != m_generation)
        return;
    m_applied = generation;
    QStringList selectedIds;
    for (QGraphicsItem* item : selectedItems()) {
        if (auto* node = qgraphicsitem_cast<NodeItem*>(item))
            selectedIds << node->id();
        else if (auto* group = qgraphicsitem_cast<GroupItem*>(item))
            selectedIds << group->id();
    }
    QSignalBlocker block(this); // clearing is not a user's change of selection
    clear();
    m_nodeItems.clear();
    m_groupItems.clear();
    m_legend = nullptr;
    m_edgeCount = 0;
    m_reason = QString::fromStdString(result.reason);

    for (const PlacedItem& placed : result.items) {
        const QSizeF size(placed.width, placed.height);
        QGraphicsItem* item;
        if (ItemRef::isGroup(placed.item)) {
            const GraphGroup& g = m_tree->group(ItemRef::index(placed.item));
            const QString id = QString::fromStdString(g.id);
            auto* groupItem = new GroupItem(id, QString::fromStdString(g.name), g.nodeCount,
                                            g.kind == GraphGroup::Kind::Kernel, placed.expanded, size);
            m_groupItems.insert(id, groupItem);
            groupItem->setBadge(badgeOf(g));
            item = groupItem;
        } else {
            const GraphNode& n = m_stage->nodes[size_t(ItemRef::index(placed.item))];
            const QString id = QString::fromStdString(n.id);
            auto* nodeItem = new NodeItem(id, QString::fromStdString(n.op.empty() ? n.name : n.op),
                                          QString::fromStdString(shapeText(n)),
                                          categoryColor(QString::fromStdString(n.category)), size);
            m_nodeItems.insert(id, nodeItem);
            item = nodeItem;
        }
        item->setPos(placed.x, placed.y);
        addItem(item);
    }
    for (const PlacedEdge& e : result.edges) {
        if (e.points.size() < 4)
            continue;
        const Point& tip = e.points.back();
        // The arrow points along the last stretch of the curve that has a length.
        Point before = e.points.front();
        for (size_t i = e.points.size() - 1; i-- > 0;)
            if (std::abs(e.points[i].x - tip.x) + std::abs(e.points[i].y - tip.y) > 1.0) {
                before = e.points[i];
                break;
            }
        addItem(
            new EdgeItem(bezierPath(e.points), QPointF(tip.x, tip.y), QPointF(before.x, before.y), e.count));
        ++m_edgeCount;
    }
    if (result.items.empty() && !m_reason.isEmpty()) {
        auto* text = addSimpleText(m_reason);
        text->setBrush(QColor("#b71c1c"));
    }
    applyHeat();
    setSceneRect(itemsBoundingRect().adjusted(-20, -20, 20, 20));
    highlightNodes(QStringList(m_highlighted.begin(), m_highlighted.end()));
    for (const QString& id : selectedIds) {
        if (NodeItem* n = m_nodeItems.value(id))
            n->setSelected(true);
        else if (GroupItem* g = m_groupItems.value(id))
            g->setSelected(true);
    }
    block.unblock();
    invalidateOverview();
    emit layoutFinished();
}

} // namespace fusescope
