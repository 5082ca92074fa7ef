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
    // Measured time: fill with `color` instead of the category colour, `tip` appended to the
    // tool tip; an invalid colour goes back to the category colour.
    void setHeat(QColor color, const QString& tip);
    QColor fillColor() const { return m_heat.isValid() ? m_heat : m_color; }

private:
    QString m_id;
    QString m_op;
    QString m_detail;
    QColor m_color;
    QColor m_heat;
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
    // Measured time of every node inside: a closed box is filled with `color` and both forms
    // show `label` ("12.3 % · 0.21 ms") after the name.
    void setHeat(QColor color, const QString& label);
    const QString& heatLabel() const { return m_heatLabel; }
    // A word before "kernel" on the closed box's second line, and "[word]" before the open frame's
    // name ("int8": docs/quantization.md).
    void setBadge(const QString& badge);
    const QString& badge() const { return m_badge; }

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
    QColor m_heat;
    QString m_badge;
    QString m_heatLabel;
};

// The legend of the measured-time colours: a ramp from 0 to the largest share shown.
class HeatLegendItem : public QGraphicsItem {
public:
    enum { Type = UserType + 4 };
    explicit HeatLegendItem(double maxShare,
                            QString title = QStringLiteral("Share of the traced kernel time"));

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    double maxShare() const { return m_max; }
    const QString& title() const { return m_title; }

private:
    double m_max;
    QString m_title;
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
