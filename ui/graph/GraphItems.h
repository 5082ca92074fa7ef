#pragma once

#include <QGraphicsItem>
#include <QPainterPath>

namespace fusescope {

// Below this zoom text is unreadable; items draw plain boxes, which is also far cheaper.
constexpr double kTextLevelOfDetail = 0.35;

// One node of a stage: a box coloured by category with op and output shape.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(QString id, QString op, QString detail, QColor color, QSizeF size);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QString& id() const { return m_id; }
    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }

private:
    QString m_id;
    QString m_op;
    QString m_detail;
    QColor m_color;
    QSizeF m_size;
    bool m_highlighted = false;
};

// A module, kernel or part: a closed box with name and node count, or an open frame around
// its children. Double-click opens or closes it.
class GroupItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    GroupItem(QString id, QString name, int nodeCount, bool kernel, bool expanded, QSizeF size);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const QString& id() const { return m_id; }
    bool isExpanded() const { return m_expanded; }
    bool isKernel() const { return m_kernel; }
    void setHighlighted(bool on);
    bool isHighlighted() const { return m_highlighted; }

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    QString m_id;
    QString m_name;
    int m_nodeCount;
    bool m_kernel;
    bool m_expanded;
    QSizeF m_size;
    bool m_highlighted = false;
};

// An edge from Graphviz's Bezier points, with an arrow head; thicker when it stands for
// several edges of the stage.
class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    EdgeItem(QPainterPath path, QPointF tip, QPointF before, int count);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QPainterPath m_path;
    QPolygonF m_arrow;
    QRectF m_bounds;
    int m_count;
};

} // namespace fusescope
