#include "GraphItems.h"

#include "GraphScene.h"
#include "NodePalette.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace fusescope {

namespace {

QFont itemFont(bool bold = false) {
    QFont font;
    font.setPointSizeF(8.5);
    font.setBold(bold);
    return font;
}

QPen outline(bool selected, bool highlighted, QColor base) {
    if (selected)
        return QPen(QColor("#1565c0"), 3);
    if (highlighted)
        return QPen(QColor("#ff6f00"), 3.5);
    return QPen(base.darker(160), 1);
}

void drawLines(QPainter* painter, const QRectF& rect, const QString& first, const QString& second) {
    painter->setPen(Qt::black);
    painter->setFont(itemFont(true));
    const QFontMetricsF bold(painter->font());
    const QRectF top(rect.left() + 6, rect.top() + 3, rect.width() - 12, rect.height() / 2 - 3);
    painter->drawText(top, Qt::AlignLeft | Qt::AlignVCenter,
                      bold.elidedText(first, Qt::ElideMiddle, top.width()));
    painter->setFont(itemFont());
    const QFontMetricsF plain(painter->font());
    const QRectF bottom(rect.left() + 6, rect.center().y(), rect.width() - 12, rect.height() / 2 - 3);
    painter->drawText(bottom, Qt::AlignLeft | Qt::AlignVCenter,
                      plain.elidedText(second, Qt::ElideRight, bottom.width()));
}

} // namespace

NodeItem::NodeItem(QString id, QString op, QString detail, QColor color, QSizeF size)
    : m_id(std::move(id))
    , m_op(std::move(op))
    , m_detail(std::move(detail))
    , m_color(color)
    , m_size(size) {
    setFlag(ItemIsSelectable);
    // Nodes only move when the layout changes; caching their pixels makes panning cheap.
    setCacheMode(DeviceCoordinateCache);
    setZValue(10);
    setToolTip(m_op + "\n" + m_detail);
}

QRectF NodeItem::boundingRect() const {
    return QRectF(-m_size.width() / 2 - 2, -m_size.height() / 2 - 2, m_size.width() + 4, m_size.height() + 4);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const QRectF rect(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setPen(outline(isSelected(), m_highlighted, m_color));
    painter->setBrush(m_color);
    if (lod < kTextLevelOfDetail) {
        painter->drawRect(rect);
        return;
    }
    painter->drawRoundedRect(rect, 5, 5);
    drawLines(painter, rect, m_op, m_detail);
}

void NodeItem::setHighlighted(bool on) {
    if (on == m_highlighted)
        return;
    m_highlighted = on;
    update();
}

GroupItem::GroupItem(QString id, QString name, int nodeCount, bool kernel, bool expanded, QSizeF size)
    : m_id(std::move(id))
    , m_name(std::move(name))
    , m_nodeCount(nodeCount)
    , m_kernel(kernel)
    , m_expanded(expanded)
    , m_size(size) {
    setFlag(ItemIsSelectable);
    if (!expanded)
        setCacheMode(DeviceCoordinateCache);
    // Open frames sit under what they hold; closed boxes among the nodes.
    setZValue(expanded ? 0 : 10);
    setToolTip(QString("%1\n%2 nodes — double-click to %3")
                   .arg(m_name)
                   .arg(m_nodeCount)
                   .arg(expanded ? "close" : "open"));
}

QRectF GroupItem::boundingRect() const {
    return QRectF(-m_size.width() / 2 - 2, -m_size.height() / 2 - 2, m_size.width() + 4, m_size.height() + 4);
}

QPainterPath GroupItem::shape() const {
    // An open frame is picked by its title bar only, so clicks inside reach its children
    // and rubber-band over empty space still works.
    QPainterPath path;
    const QRectF rect(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    path.addRect(m_expanded ? QRectF(rect.topLeft(), QSizeF(rect.width(), 24)) : rect);
    return path;
}

void GroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const QRectF rect(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QColor fill = m_kernel ? kernelColor() : QColor("#f5f5f5");
    painter->setPen(outline(isSelected(), m_highlighted, m_kernel ? QColor("#ffb74d") : QColor("#9e9e9e")));
    const QString count = QString("%1 node%2").arg(m_nodeCount).arg(m_nodeCount == 1 ? "" : "s");
    if (m_expanded) {
        painter->setBrush(fill.lighter(104));
        painter->drawRect(rect);
        if (lod < kTextLevelOfDetail)
            return;
        painter->setPen(QColor("#424242"));
        painter->setFont(itemFont(true));
        painter->drawText(QRectF(rect.left() + 6, rect.top(), rect.width() - 12, 22),
                          Qt::AlignLeft | Qt::AlignVCenter, QString("▾ %1 · %2").arg(m_name, count));
        return;
    }
    painter->setBrush(fill.darker(m_kernel ? 105 : 110));
    if (lod < kTextLevelOfDetail) {
        painter->drawRect(rect);
        return;
    }
    // A second outline offset by a few points reads as "a stack of things".
    painter->drawRoundedRect(rect.translated(3, 3), 6, 6);
    painter->drawRoundedRect(rect, 6, 6);
    drawLines(painter, rect, QString("▸ ") + m_name, count + (m_kernel ? " · kernel" : ""));
}

void GroupItem::setHighlighted(bool on) {
    if (on == m_highlighted)
        return;
    m_highlighted = on;
    update();
}

void GroupItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    if (auto* graph = qobject_cast<GraphScene*>(scene()))
        graph->toggleGroup(m_id);
    event->accept();
}

EdgeItem::EdgeItem(QPainterPath path, QPointF tip, QPointF before, int count)
    : m_path(std::move(path))
    , m_count(count) {
    setZValue(5);
    QLineF axis(tip, before);
    if (axis.length() < 0.01)
        axis = QLineF(tip, tip + QPointF(0, -1));
    axis.setLength(9);
    QLineF left = axis;
    left.setAngle(axis.angle() + 25);
    QLineF right = axis;
    right.setAngle(axis.angle() - 25);
    m_arrow << tip << left.p2() << right.p2();
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
    if (count > 1)
        setToolTip(QString("%1 edges").arg(count));
}

QRectF EdgeItem::boundingRect() const {
    return m_bounds;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const double width = 1.0 + std::min(4.0, std::log2(double(m_count)));
    painter->setPen(QPen(QColor("#616161"), width));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (lod < kTextLevelOfDetail)
        return;
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor("#616161"));
    painter->drawPolygon(m_arrow);
}

} // namespace fusescope
