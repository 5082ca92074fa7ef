#include "GraphView.h"

#include "GraphExport.h"
#include "GraphItems.h"
#include "GraphScene.h"
#include "StageCompareWidget.h"
#include "SyntheticStage.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"

#include <QApplication>
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QXmlStreamReader>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace fusescope;

namespace {

std::shared_ptr<const BackendRun> loadRun() {
    std::ifstream in(FUSESCOPE_GRAPH_FIXTURES "/mlp_inductor_run.json");
    auto run = std::make_shared<BackendRun>(codec::decodeBackendRun(nlohmann::json::parse(in)).value());
    return run;
}

std::shared_ptr<const StageGraph> stageOf(const std::shared_ptr<const BackendRun>& run, const char* key) {
    return std::shared_ptr<const StageGraph>(run, run->findStage(key));
}

// Layout runs on a worker thread; the result arrives through the event loop.
bool waitForLayout(GraphScene* scene) {
    if (!scene->isLayoutPending())
        return true;
    QSignalSpy spy(scene, &GraphScene::layoutFinished);
    return spy.wait(20000) || !scene->isLayoutPending();
}

QSet<QString> highlightedItems(GraphScene* scene) {
    QSet<QString> ids;
    for (QGraphicsItem* item : scene->items())
        if (auto* node = qgraphicsitem_cast<NodeItem*>(item); node && node->isHighlighted())
            ids.insert(node->id());
    return ids;
}

// The stage copied `copies` times, each copy's last node feeding the next copy's first, module
// paths renamed per copy: what ../shared/tools/scale_report.py makes of a report (issue 32).
std::shared_ptr<const StageGraph> chainedCopies(const StageGraph& stage, int copies) {
    auto big = std::make_shared<StageGraph>(stage);
    big->nodes.clear();
    big->edges.clear();
    big->groups.clear();
    const std::string first = stage.nodes.front().id, last = stage.nodes.back().id;
    for (int k = 0; k < copies; ++k) {
        const std::string suffix = "_c" + std::to_string(k);
        for (GraphNode n : stage.nodes) {
            n.id += suffix;
            if (!n.group.empty())
                n.group += suffix;
            if (!n.module.empty())
                n.module = "layer" + std::to_string(k) + "." + n.module;
            big->nodes.push_back(n);
        }
        for (GraphEdge e : stage.edges)
            big->edges.push_back({e.src + suffix, e.dst + suffix});
        for (FusionGroup g : stage.groups) {
            g.id += suffix;
            for (auto& n : g.nodes)
                n += suffix;
            big->groups.push_back(g);
        }
        if (k > 0)
            big->edges.push_back({last + "_c" + std::to_string(k - 1), first + suffix});
    }
    return big;
}

} // namespace

class GraphViewTest : public QObject {
    Q_OBJECT
private slots:
    void sceneHoldsNodesAndGroups() {
        const auto run = loadRun();
        GraphView view;
        view.setStage(stageOf(run, "post_fusion"));
        QVERIFY(waitForLayout(view.graphScene()));
        GraphScene* scene = view.graphScene();
        // 11 nodes and a handful of groups: small enough to open completely.
        QCOMPARE(scene->nodeItemCount(), 11);
        QVERIFY(scene->groupItem("kernel:k0"));
        QVERIFY(scene->groupItem("kernel:k0")->isExpanded());
        QVERIFY(scene->groupItem("module:blocks.0.ln"));
        QCOMPARE(scene->kernelOfNode("buf2"), QString("kernel:k0"));
        QVERIFY(scene->edgeItemCount() >= 10);
    }

    // Issue 32: a large chained graph opened on a blank canvas, its content off to the side. The
    // first view shows nodes, at a readable zoom, for tall and for wide windows.
    void aLargeGraphOpensOnItsContent() {
        const auto run = loadRun();
        for (const char* key : {"pre_fusion", "post_fusion"})
            for (const QSize size : {QSize(900, 600), QSize(1600, 300), QSize(300, 900)}) {
                GraphView view;
                view.resize(size);
                view.setStage(chainedCopies(*run->findStage(key), 40));
                QVERIFY(waitForLayout(view.graphScene()));
                QCoreApplication::processEvents();
                const QRectF seen = view.mapToScene(view.viewport()->rect()).boundingRect();
                int visible = 0;
                for (QGraphicsItem* item : view.graphScene()->items(seen))
                    visible += qgraphicsitem_cast<NodeItem*>(item) ? 1 : 0;
                QVERIFY2(visible > 0,
                         qPrintable(QStringLiteral("%1 at %2x%3: no node in view (%4,%5 %6x%7 of %8x%9)")
                                        .arg(key)
                                        .arg(size.width())
                                        .arg(size.height())
                                        .arg(seen.x())
                                        .arg(seen.y())
                                        .arg(seen.width())
                                        .arg(seen.height())
                                        .arg(view.graphScene()->sceneRect().width())
                                        .arg(view.graphScene()->sceneRect().height())));
                QVERIFY(view.zoom() >= 0.8 - 1e-9);
            }
    }

    // Issue 32: far zoomed out on a large scene, the view paints one cached picture of the scene
    // (GraphScene::overview) instead of thousands of sub-pixel items; the picture shows the graph,
    // follows highlights, and small scenes or readable zooms never use it.
    void farOutALargeSceneIsPaintedFromItsOverview() {
        GraphView view;
        view.resize(800, 600);
        view.setStage(std::make_shared<StageGraph>(testdata::makeTransformerStage(4, 3000)));
        GraphScene* scene = view.graphScene();
        scene->layoutNow();
        const layout::GroupTree* tree = scene->tree();
        for (int g = 1; g < tree->groupCount(); ++g)
            scene->setGroupExpanded(QString::fromStdString(tree->group(g).id), true);
        scene->layoutNow();
        QVERIFY(scene->nodeItemCount() >= 2900);
        view.show();
        view.fitToWindow();
        QVERIFY(scene->usesOverviewAt(view.zoom()));
        QVERIFY(!scene->usesOverviewAt(1.0));
        QVERIFY(!scene->usesOverviewAt(scene->overviewScale() * 1.01));
        const QImage& overview = scene->overview();
        QVERIFY(!overview.isNull());
        QVERIFY(overview.width() <= 16384 && overview.height() <= 16384);
        QVERIFY(double(overview.width()) * overview.height() <= 4.1e6);

        // What the view paints has the graph in it, where the scene is.
        QImage painted(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        painted.fill(Qt::black);
        view.viewport()->render(&painted);
        const QRect where = view.viewportTransform().mapRect(scene->sceneRect()).toRect() & painted.rect();
        int ink = 0;
        for (int y = where.top(); y <= where.bottom(); ++y)
            for (int x = where.left(); x <= where.right(); ++x)
                ink += painted.pixelColor(x, y) != QColor(Qt::white) ? 1 : 0;
        QVERIFY2(ink > 50, qPrintable(QString::number(ink)));
        QCOMPARE(painted.pixelColor(0, 0), QColor(Qt::white)); // the background, not the black fill

        // A highlight changes the look: the picture is made again.
        const qint64 before = scene->overview().cacheKey();
        scene->highlightNodes({QString::fromStdString(scene->stage()->nodes[5].id)});
        QVERIFY(scene->overview().cacheKey() != before);

        // A small scene paints its items at any zoom.
        GraphView small;
        small.setStage(stageOf(loadRun(), "post_fusion"));
        QVERIFY(waitForLayout(small.graphScene()));
        QVERIFY(!small.graphScene()->usesOverviewAt(0.001));
    }

    void collapsingAndExpandingChangesItems() {
        const auto run = loadRun();
        GraphView view;
        view.setStage(stageOf(run, "pre_fusion"));
        QVERIFY(waitForLayout(view.graphScene()));
        GraphScene* scene = view.graphScene();
        QCOMPARE(scene->nodeItemCount(), 11);
        scene->setGroupExpanded("module:blocks.0", false);
        QVERIFY(waitForLayout(scene));
        QCOMPARE(scene->nodeItemCount(), 4); // arg0_1, buf8, buf9, output
        QVERIFY(scene->groupItem("module:blocks.0"));
        QVERIFY(!scene->groupItem("module:blocks.0")->isExpanded());
        QVERIFY(!scene->groupItem("module:blocks.0.ln")); // inside a closed group: no item
        scene->toggleGroup("module:blocks.0");
        QVERIFY(waitForLayout(scene));
        QCOMPARE(scene->nodeItemCount(), 11);
    }

    void selectingAKernelHighlightsItsNodes() {
        const auto run = loadRun();
        StageCompareWidget widget;
        widget.resize(1200, 800);
        QVERIFY(widget.setRun(run));
        QVERIFY(waitForLayout(widget.beforeView()->graphScene()));
        QVERIFY(waitForLayout(widget.afterView()->graphScene()));
        // Select the kernel box as a user would; the signal does the rest.
        GroupItem* kernel = widget.afterView()->graphScene()->groupItem("kernel:k0");
        QVERIFY(kernel);
        kernel->setSelected(true);
        const QSet<QString> expected{"buf1", "buf2", "buf3"};
        QCOMPARE(highlightedItems(widget.beforeView()->graphScene()), expected);
        // The code panel shows the kernel's definition.
        QVERIFY(widget.codeView()->textCursor().block().text().contains("cpp_fused_native_layer_norm_0 ="));
        QVERIFY(widget.statsText().contains("7 kernels"));

        // And back: a node before fusion marks the kernel it ended in.
        widget.selectBeforeNode("buf5");
        QCOMPARE(highlightedItems(widget.afterView()->graphScene()), QSet<QString>{"buf5"});
        QVERIFY(widget.inspectorText().contains("cpp_fused_gelu_1"));
        QVERIFY(widget.inspectorText().contains("blocks.0.mlp.act"));
    }

    void statsSayWhatFusionSavedAndWhereACopiedStageCameFrom() {
        auto run = std::make_shared<BackendRun>(*loadRun());
        for (auto& stage : run->stages)
            if (stage.name == "post_fusion") {
                KernelCost cost;
                cost.bytes = 41;
                cost.eagerBytes = 100;
                stage.cost = cost;
                stage.copiedFromGraph = 0;
                stage.reason = "copied from graph 0: Inductor's compile cache served this graph";
            }
        StageCompareWidget widget;
        QVERIFY(widget.setRun(run));
        QVERIFY2(widget.statsText().contains("kernels move 41 % of the bytes eager moves per call"),
                 qPrintable(widget.statsText()));
        QVERIFY(widget.statsText().contains("copied from graph 0"));
        // Without counts (an older report): nothing said about bytes.
        QVERIFY(widget.setRun(loadRun()));
        QVERIFY(!widget.statsText().contains("bytes"));
    }

    void fxStagesLinkThroughProvenance() {
        const auto run = loadRun();
        StageCompareWidget widget;
        QVERIFY(widget.setStages(run, "post_grad", "post_fusion"));
        QStringList nodes = widget.beforeNodesOfKernel("kernel:k0");
        nodes.sort();
        QCOMPARE(nodes, (QStringList{"mul", "sub", "var_mean"}));
        QVERIFY(!widget.setStages(run, "pre_fusion", "post_fusion#3"));
    }

    void searchRevealsAndCentresANode() {
        const auto run = loadRun();
        GraphView view;
        view.resize(300, 200);
        view.setStage(stageOf(run, "pre_fusion"), 3); // opens almost nothing
        QVERIFY(waitForLayout(view.graphScene()));
        QVERIFY(!view.graphScene()->nodeItem("buf9"));
        QCOMPARE(view.search("relu"), 1);
        QVERIFY(waitForLayout(view.graphScene()));
        NodeItem* item = view.graphScene()->nodeItem("buf9");
        QVERIFY(item);
        QCOMPARE(view.selectedNode(), QString("buf9"));
        view.zoomBy(2.0);
        view.centerOn(item); // zooming moved it; check centring again at a zoom with room to scroll
        view.findNext();
        const QPoint at = view.mapFromScene(item->pos());
        const QPoint centre = view.viewport()->rect().center();
        QVERIFY2((at - centre).manhattanLength() < 20, qPrintable(QString("%1,%2").arg(at.x()).arg(at.y())));
    }

    void staleLayoutsAreDroppedAndTheSceneDiesCleanly() {
        // Many requests in a row: only the last expansion state may reach the screen, and
        // destroying the scene with work in flight must neither crash nor deliver late.
        const auto run = loadRun();
        auto big = std::make_shared<StageGraph>(*run->findStage("pre_fusion"));
        {
            GraphScene scene;
            scene.setStage(big, 3);
            for (int i = 0; i < 25; ++i)
                scene.toggleGroup("module:blocks");
            QVERIFY(waitForLayout(&scene));
            QVERIFY(scene.isGroupExpanded("module:blocks"));
            QVERIFY(scene.groupItem("module:blocks") && scene.groupItem("module:blocks")->isExpanded());
        }
        for (int i = 0; i < 5; ++i) {
            auto* scene = new GraphScene;
            scene->setStage(big);
            scene->toggleGroup("module:blocks.0");
            delete scene; // joins the worker; the queued result is discarded by QPointer
        }
        QTest::qWait(50);
    }

    void failedStageShowsItsReason() {
        const auto run = loadRun();
        GraphView view;
        view.setStage(stageOf(run, "aot_backward"));
        QVERIFY(waitForLayout(view.graphScene()));
        QCOMPARE(view.graphScene()->nodeItemCount(), 0);
        QVERIFY(view.graphScene()->emptyReason().contains("no backward graph"));
    }

    void exportWritesPngSvgAndPdf() {
        const auto run = loadRun();
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath("post.png");
        QVERIFY2(exportStageImage(*run, "post_fusion", png, 1.0, &error), qPrintable(error));
        QImage image(png);
        QVERIFY(!image.isNull());
        int coloured = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                coloured += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
        QVERIFY2(coloured > 500, qPrintable(QString::number(coloured)));

        const QString svg = dir.filePath("post.svg");
        QVERIFY2(exportStageImage(*run, "post_fusion", svg, 1.0, &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgData = svgFile.readAll();
        QVERIFY(svgData.contains("<svg"));
        QXmlStreamReader xml(svgData);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));

        const QString pdf = dir.filePath("post.pdf");
        QVERIFY2(exportStageImage(*run, "pre_fusion", pdf, 1.0, &error), qPrintable(error));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.read(4) == "%PDF");

        QVERIFY(!exportStageImage(*run, "aot_backward", dir.filePath("x.png"), 1.0, &error));
        QVERIFY(error.contains("no backward graph"));
        QVERIFY(!exportStageImage(*run, "nope", dir.filePath("x.png"), 1.0, &error));
        QVERIFY(error.contains("post_fusion"));
    }
};

int main(int argc, char** argv) {
    // Headless everywhere (CI, SSH): set before QApplication reads it.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    GraphViewTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "GraphViewTest.moc"
