#pragma once

#include "model/StageGraph.h"

#include <QGraphicsView>
#include <QHash>
#include <QStringList>
#include <memory>

namespace fusescope {

class GraphScene;
class Minimap;

struct BackendRun;
// Paints `scene`'s overview picture (GraphScene::overview) where `view` shows the scene, over the
// view's background, when the scene uses it at the view's zoom; false otherwise (paint as usual).
bool paintOverview(QGraphicsView* view, GraphScene* scene, QPaintEvent* event);

// For GraphView::setKernelBadges: "int8" on each kernel of an int8 run's post-fusion stage that
// computes in int8 (analysis/QuantizationLines.h, int8KernelGroups).
QHash<QString, QString> int8Badges(const BackendRun& run, const StageGraph& stage);

// A stage graph on screen: wheel zooms around the cursor, dragging pans, double-clicking a
// group opens or closes it, a minimap in the corner shows where the viewport is.
class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    GraphScene* graphScene() const { return m_scene; }
    void setStage(std::shared_ptr<const StageGraph> stage, int maxVisible = 60);
    // GraphScene::setKernelBadges, after setStage.
    void setKernelBadges(QHash<QString, QString> badges);

    // Marks nodes (or the closed groups holding them) for cross-linking between views.
    void highlightNodes(const QStringList& ids);
    // Finds nodes whose name, id or op contains `text` (case-insensitive), in stage order,
    // and goes to the first. Returns the number of matches.
    int search(const QString& text);
    QStringList searchMatches() const { return m_matches; }
    int currentMatch() const { return m_current; }

    // Opens the node's groups, then selects and centres it once it is laid out.
    void selectNode(const QString& id);
    void selectGroup(const QString& id);
    QString selectedNode() const;
    QString selectedGroup() const;
    double zoom() const { return transform().m11(); }
    Minimap* minimap() const { return m_minimap; }

public slots:
    void fitToWindow();
    void findNext();
    void findPrevious();
    void zoomBy(double factor);

signals:
    void nodeSelected(const QString& id);
    void groupSelected(const QString& id);
    void searchMoved(int index, int count);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void onLayoutFinished();
    void onSelectionChanged();
    void goToMatch();
    void placeMinimap();
    void updateMinimap();
    void showStart();

    GraphScene* m_scene;
    Minimap* m_minimap;
    QStringList m_matches;
    int m_current = -1;
    QString m_pendingNode;
    bool m_userZoomed = false;
    bool m_firstLayout = true;
};

// The whole scene in a corner of a GraphView, with the main viewport drawn as a rectangle;
// clicking it moves the main view there.
class Minimap : public QGraphicsView {
    Q_OBJECT
public:
    Minimap(GraphView* main, QWidget* parent);
    void refit();

protected:
    void paintEvent(QPaintEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    GraphView* m_main;
};

} // namespace fusescope
