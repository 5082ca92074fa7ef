#include "GraphView.h"

#include "GraphItems.h"
#include "GraphScene.h"
#include "analysis/QuantizationLines.h"

#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace fusescope {

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
    , m_scene(new GraphScene(this)) {
    setScene(m_scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setViewportUpdateMode(SmartViewportUpdate);
    setOptimizationFlag(DontSavePainterState);
    setBackgroundBrush(Qt::white);
    m_minimap = new Minimap(this, this);
    connect(m_scene, &GraphScene::layoutFinished, this, &GraphView::onLayoutFinished);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &GraphView::onSelectionChanged);
}

GraphView::~GraphView() {
    // QWidget deletes children before QObject drops connections; the scene clearing its
    // items would otherwise call back into this half-destroyed view.
    m_scene->disconnect(this);
}

void GraphView::setStage(std::shared_ptr<const StageGraph> stage, int maxVisible) {
    m_matches.clear();
    m_current = -1;
    m_pendingNode.clear();
    m_userZoomed = false;
    m_firstLayout = true;
    m_scene->setStage(std::move(stage), maxVisible);
}

QHash<QString, QString> int8Badges(const BackendRun& run, const StageGraph& stage) {
    QHash<QString, QString> badges;
    for (const auto& id : int8KernelGroups(run, stage))
        badges.insert(QString::fromStdString(id), QStringLiteral("int8"));
    return badges;
}

void GraphView::setKernelBadges(QHash<QString, QString> badges) {
    m_scene->setKernelBadges(std::move(badges));
}

void GraphView::highlightNodes(const QStringList& ids) {
    m_scene->highlightNodes(ids);
}

int GraphView::search(const QString& text) {
    m_matches.clear();
    m_current = -1;
    const StageGraph* stage = m_scene->stage();
    if (stage && !text.isEmpty()) {
        for (const GraphNode& n : stage->nodes) {
            const QString name = QString::fromStdString(n.name);
            const QString id = QString::fromStdString(n.id);
            const QString op = QString::fromStdString(n.op);
            if (name.contains(text, Qt::CaseInsensitive) || id.contains(text, Qt::CaseInsensitive) ||
                op.contains(text, Qt::CaseInsensitive))
                m_matches << id;
        }
    }
    if (!m_matches.isEmpty()) {
        m_current = 0;
        goToMatch();
    } else {
        emit searchMoved(-1, 0);
    }
    return int(m_matches.size());
}

void GraphView::findNext() {
    if (m_matches.isEmpty())
        return;
    m_current = (m_current + 1) % int(m_matches.size());
    goToMatch();
}

void GraphView::findPrevious() {
    if (m_matches.isEmpty())
        return;
    m_current = (m_current - 1 + int(m_matches.size())) % int(m_matches.size());
    goToMatch();
}

void GraphView::goToMatch() {
    selectNode(m_matches[m_current]);
    emit searchMoved(m_current, int(m_matches.size()));
}

void GraphView::selectNode(const QString& id) {
    m_scene->revealNode(id);
    if (!m_scene->isLayoutPending() && m_scene->nodeItem(id)) {
        NodeItem* item = m_scene->nodeItem(id);
        m_scene->clearSelection();
        item->setSelected(true);
        centerOn(item);
        m_pendingNode.clear();
    } else {
        m_pendingNode = id; // selected once the layout that reveals it arrives
    }
}

void GraphView::selectGroup(const QString& id) {
    if (GroupItem* item = m_scene->groupItem(id)) {
        m_scene->clearSelection();
        item->setSelected(true);
        centerOn(item);
    }
}

QString GraphView::selectedNode() const {
    for (QGraphicsItem* item : m_scene->selectedItems())
        if (auto* node = qgraphicsitem_cast<NodeItem*>(item))
            return node->id();
    return {};
}

QString GraphView::selectedGroup() const {
    for (QGraphicsItem* item : m_scene->selectedItems())
        if (auto* group = qgraphicsitem_cast<GroupItem*>(item))
            return group->id();
    return {};
}

void GraphView::fitToWindow() {
    fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    if (zoom() > 1.5)
        setTransform(QTransform::fromScale(1.5, 1.5));
    updateMinimap();
}

void GraphView::showStart() {
    // Fitting a tall graph would shrink it below readable text; open at a readable zoom at the
    // start of the layout instead (its top, or its left for a wide one), and let the minimap show
    // the rest. Centred on the content in that first screenful, not on the middle of the scene:
    // a layout that drifts sideways (issue 32: a 10k-node graph drawn as a diagonal) has nothing
    // at the top middle, and opened on a blank canvas.
    fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    const double readable = std::clamp(zoom(), 0.8, 1.5);
    setTransform(QTransform::fromScale(readable, readable));
    const QRectF rect = m_scene->sceneRect();
    const QSizeF seen(viewport()->width() / readable, viewport()->height() / readable);
    const bool wide = rect.width() * seen.height() > rect.height() * seen.width();
    const QRectF band = wide ? QRectF(rect.left(), rect.top(), seen.width(), rect.height())
                             : QRectF(rect.left(), rect.top(), rect.width(), seen.height());
    QRectF content;
    for (QGraphicsItem* item : m_scene->items(band, Qt::IntersectsItemBoundingRect)) {
        const auto* group = qgraphicsitem_cast<GroupItem*>(item);
        if (qgraphicsitem_cast<NodeItem*>(item) || (group && !group->isExpanded()))
            content |= item->sceneBoundingRect();
    }
    if (content.isNull())
        content = rect;
    centerOn(wide ? QPointF(rect.left() + seen.width() / 2, content.center().y())
                  : QPointF(content.center().x(), rect.top() + seen.height() / 2));
    updateMinimap();
}

void GraphView::updateMinimap() {
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const QSize area = viewport()->size();
    const bool roomy = area.width() > 3 * m_minimap->width() && area.height() > 2 * m_minimap->height();
    m_minimap->setVisible(roomy && !visible.contains(m_scene->sceneRect()));
    m_minimap->viewport()->update();
}

bool paintOverview(QGraphicsView* view, GraphScene* scene, QPaintEvent* event) {
    const double zoom = view->transform().m11();
    if (!scene || !scene->usesOverviewAt(zoom))
        return false;
    const QImage& picture = scene->overview();
    QPainter painter(view->viewport());
    painter.fillRect(event->rect(), view->backgroundBrush());
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.drawImage(view->viewportTransform().mapRect(scene->sceneRect()), picture);
    return true;
}

void GraphView::paintEvent(QPaintEvent* event) {
    if (!paintOverview(this, m_scene, event))
        QGraphicsView::paintEvent(event);
}

void GraphView::zoomBy(double factor) {
    const double next = zoom() * factor;
    if (next < 0.02 || next > 8)
        return;
    m_userZoomed = true;
    scale(factor, factor);
    updateMinimap();
}

void GraphView::wheelEvent(QWheelEvent* event) {
    // AnchorUnderMouse keeps the point under the cursor fixed while scaling.
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0)
        zoomBy(std::pow(1.2, steps));
    event->accept();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    placeMinimap();
    if (!m_userZoomed && !m_scene->isLayoutPending())
        showStart();
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    updateMinimap();
}

void GraphView::placeMinimap() {
    const QSize size(180, 120);
    const QRect area = viewport()->geometry();
    m_minimap->setGeometry(area.right() - size.width() - 8, area.bottom() - size.height() - 8, size.width(),
                           size.height());
    m_minimap->refit();
    updateMinimap();
}

void GraphView::onLayoutFinished() {
    m_minimap->refit();
    if (!m_pendingNode.isEmpty() && m_scene->nodeItem(m_pendingNode)) {
        const QString id = m_pendingNode;
        m_pendingNode.clear();
        selectNode(id);
    } else if (m_firstLayout) {
        showStart();
    }
    m_firstLayout = false;
    updateMinimap();
}

void GraphView::onSelectionChanged() {
    const QString node = selectedNode();
    if (!node.isEmpty()) {
        emit nodeSelected(node);
        return;
    }
    const QString group = selectedGroup();
    if (!group.isEmpty())
        emit groupSelected(group);
}

Minimap::Minimap(GraphView* main, QWidget* parent)
    : QGraphicsView(main->scene(), parent)
    , m_main(main) {
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::Box);
    setBackgroundBrush(QColor(250, 250, 250, 235));
    setCursor(Qt::PointingHandCursor);
}

void Minimap::refit() {
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
}

// A hidden view's viewport keeps a stale size, so fit again whenever the size is real.
void Minimap::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    refit();
}

void Minimap::showEvent(QShowEvent* event) {
    QGraphicsView::showEvent(event);
    refit();
}

void Minimap::paintEvent(QPaintEvent* event) {
    if (!paintOverview(this, m_main->graphScene(), event)) {
        QGraphicsView::paintEvent(event);
        return;
    }
    QPainter painter(viewport());
    painter.setTransform(viewportTransform());
    drawForeground(&painter, {});
}

void Minimap::drawForeground(QPainter* painter, const QRectF&) {
    const QRectF visible = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    painter->setPen(QPen(QColor("#1565c0"), 0));
    painter->setBrush(QColor(21, 101, 192, 40));
    painter->drawRect(visible);
}

void Minimap::mousePressEvent(QMouseEvent* event) {
    m_main->centerOn(mapToScene(event->position().toPoint()));
    viewport()->update();
}

void Minimap::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton)
        mousePressEvent(event);
}

void Minimap::wheelEvent(QWheelEvent* event) {
    event->ignore(); // the minimap always shows everything
}

} // namespace fusescope
