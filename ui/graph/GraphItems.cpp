#include "GraphItems.h"

#include "GraphScene.h"
#include "NodePalette.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QLinearGradient>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace fusescope {

namespace {

// Items smaller than this many device pixels are not drawn.
constexpr double kSubPixel = 1.5;

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

void drawLines(QPainter* painter, const QRectF& rect, const QString& first, const QString& second,
               QColor fill = Qt::white) {
    // Dark fills (the hot end of the measured-time scale) take light text.
    painter->setPen(fill.lightness() < 110 ? Qt::white : Qt::black);
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
    // Under a pixel a node is invisible anyway; skipping it keeps a fitted 10k-node graph fast.
    if (lod * std::max(m_size.width(), m_size.height()) < kSubPixel && !m_highlighted && !isSelected())
        return;
    painter->setPen(outline(isSelected(), m_highlighted, fillColor()));
    painter->setBrush(fillColor());
    if (lod < kTextLevelOfDetail) {
        painter->drawRect(rect);
        return;
    }
    painter->drawRoundedRect(rect, 5, 5);
    drawLines(painter, rect, m_op, m_detail, fillColor());
}

void NodeItem::setHeat(QColor color, const QString& tip) {
    m_heat = color;
    setToolTip(m_op + "\n" + m_detail + (tip.isEmpty() ? QString() : "\n" + tip));
    update();
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
    // exposedRect lets an open frame paint only what is on screen (drawFrameClipped).
    setFlag(ItemUsesExtendedStyleOption);
    if (!expanded)
        setCacheMode(DeviceCoordinateCache);
    // Open frames sit under what they hold; closed boxes among the nodes.
    setZValue(expanded ? 0 : 10);
    setToolTip(QString("%1\n%2 nodes — double-click to %3")
                   .arg(m_name)
                   .arg(m_nodeCount)
                   .arg(expanded ? "close" : "open"));
}

// An open frame of a large graph spans tens of thousands of points; zoomed in, drawing all of it
// costs far more than the part on screen. Fill and outline only the exposed part.
// Qt's raster engine strokes the whole length of a path even when nearly all of it lies outside
// the clip: zoomed in on the real hf:bert post-grad graph, a few 30,000-point edges cost 50 ms to
// 2.7 s a frame (bench/GraphLayoutBench.cpp). Past this device size, draw only what is exposed.
constexpr double kHugeDevicePixels = 4000;

void drawFrameClipped(QPainter* painter, const QRectF& rect, const QRectF& exposed, const QColor& fill) {
    const QRectF visible = rect.intersected(exposed.adjusted(-4, -4, 4, 4));
    if (visible.isEmpty())
        return;
    const QPen pen = painter->pen();
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill);
    painter->drawRect(visible);
    painter->setPen(pen);
    auto vertical = [&](double x) {
        if (x >= visible.left() && x <= visible.right())
            painter->drawLine(QPointF(x, visible.top()), QPointF(x, visible.bottom()));
    };
    auto horizontal = [&](double y) {
        if (y >= visible.top() && y <= visible.bottom())
            painter->drawLine(QPointF(visible.left(), y), QPointF(visible.right(), y));
    };
    vertical(rect.left());
    vertical(rect.right());
    horizontal(rect.top());
    horizontal(rect.bottom());
}

// Liang-Barsky: the part of `line` inside `box`, or false when none is.
bool clipLine(QLineF& line, const QRectF& box) {
    const double dx = line.dx(), dy = line.dy();
    double t0 = 0, t1 = 1;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {line.x1() - box.left(), box.right() - line.x1(), line.y1() - box.top(),
                         box.bottom() - line.y1()};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return false;
            continue;
        }
        const double t = q[k] / p[k];
        if (p[k] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    const QPointF a = line.pointAt(t0), b = line.pointAt(t1);
    line = QLineF(a, b);
    return true;
}

// The same limit for edges: a spline tens of thousands of pixels long is flattened and only
// its pieces inside the exposed rectangle are stroked.
void drawVisibleSegments(QPainter* painter, const QPainterPath& path, const QRectF& exposed) {
    QVector<QLineF> lines;
    for (const QPolygonF& poly : path.toSubpathPolygons())
        for (int i = 1; i < poly.size(); ++i) {
            QLineF line(poly[i - 1], poly[i]);
            if (clipLine(line, exposed))
                lines.append(line);
        }
    painter->drawLines(lines);
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
    const QColor fill = m_heat.isValid() && !m_expanded ? m_heat
                        : m_kernel                      ? kernelColor()
                                                        : QColor("#f5f5f5");
    const QString heat = m_heatLabel.isEmpty() ? QString() : " · " + m_heatLabel;
    painter->setPen(outline(isSelected(), m_highlighted, m_kernel ? QColor("#ffb74d") : QColor("#9e9e9e")));
    const QString count = QString("%1 node%2").arg(m_nodeCount).arg(m_nodeCount == 1 ? "" : "s");
    if (m_expanded) {
        drawFrameClipped(painter, rect, option->exposedRect, fill.lighter(104));
        if (lod < kTextLevelOfDetail)
            return;
        painter->setPen(QColor("#424242"));
        painter->setFont(itemFont(true));
        painter->drawText(
            QRectF(rect.left() + 6, rect.top(), rect.width() - 12, 22), Qt::AlignLeft | Qt::AlignVCenter,
            QString("▾ %1%2 · %3%4")
                .arg(m_badge.isEmpty() ? QString() : "[" + m_badge + "] ", m_name, count, heat));
        return;
    }
    painter->setBrush(m_heat.isValid() ? fill : fill.darker(m_kernel ? 105 : 110));
    if (lod < kTextLevelOfDetail) {
        painter->drawRect(rect);
        return;
    }
    // A second outline offset by a few points reads as "a stack of things".
    painter->drawRoundedRect(rect.translated(3, 3), 6, 6);
    painter->drawRoundedRect(rect, 6, 6);
    const QString kind = m_badge.isEmpty() ? QString(" · kernel") : " · " + m_badge + " kernel";
    drawLines(painter, rect, QString("▸ ") + m_name, count + (m_kernel ? kind : QString()) + heat,
              m_heat.isValid() ? fill : QColor(Qt::white));
}

void GroupItem::setBadge(const QString& badge) {
    if (badge == m_badge)
        return;
    m_badge = badge;
    update();
}

void GroupItem::setHeat(QColor color, const QString& label) {
    m_heat = color;
    m_heatLabel = label;
    update();
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

HeatLegendItem::HeatLegendItem(double maxShare, QString title)
    : m_max(maxShare)
    , m_title(std::move(title)) {
    setZValue(20);
}

QRectF HeatLegendItem::boundingRect() const {
    return QRectF(0, 0, 260, 44);
}

void HeatLegendItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setPen(QColor("#424242"));
    painter->setFont(itemFont(true));
    painter->drawText(QRectF(0, 0, 260, 16), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    const QRectF ramp(0, 18, 200, 12);
    QLinearGradient gradient(ramp.topLeft(), ramp.topRight());
    for (int i = 0; i <= 8; ++i)
        gradient.setColorAt(i / 8.0, heatColor(i / 8.0));
    painter->setBrush(gradient);
    painter->setPen(QColor("#9e9e9e"));
    painter->drawRect(ramp);
    painter->setPen(QColor("#424242"));
    painter->setFont(itemFont());
    painter->drawText(QRectF(0, 30, 100, 14), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0 %"));
    painter->drawText(QRectF(100, 30, 100, 14), Qt::AlignRight | Qt::AlignVCenter,
                      QString("%1 %").arg(100 * m_max, 0, 'f', 1));
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
    setFlag(ItemUsesExtendedStyleOption);
}

QRectF EdgeItem::boundingRect() const {
    return m_bounds;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (lod * std::max(m_bounds.width(), m_bounds.height()) < kSubPixel)
        return;
    const double width = 1.0 + std::min(4.0, std::log2(double(m_count)));
    painter->setPen(QPen(QColor("#616161"), width));
    painter->setBrush(Qt::NoBrush);
    const QRectF device = painter->worldTransform().mapRect(m_bounds);
    if (device.width() > kHugeDevicePixels || device.height() > kHugeDevicePixels)
        drawVisibleSegments(painter, m_path, option->exposedRect.adjusted(-8, -8, 8, 8));
    else
        painter->drawPath(m_path);
    if (lod < kTextLevelOfDetail)
        return;
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor("#616161"));
    painter->drawPolygon(m_arrow);
}

} // namespace fusescope
