// One run, wall-clock numbers for docs/graph-view.md: opening a 10,000-node transformer-shaped
// stage collapsed, expanding one group, fully expanding it level by level, flat Graphviz dot
// on the same shape (capped: flat dot grows super-linearly), and the cost of rendering frames.
#include "CollapsedGraph.h"
#include "DotLevel.h"
#include "GraphExport.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "GraphvizLayout.h"
#include "GroupTree.h"
#include "SyntheticStage.h"
#include "report/ReportFile.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

using namespace fusescope;
using namespace fusescope::layout;

namespace {

double seconds(const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double flatDotOf(const StageGraph& s) {
    const GroupTree tree = GroupTree::build(s);
    LevelGraph flat;
    flat.sizes.assign(s.nodes.size(), Point{150, 42});
    for (const GraphEdge& e : s.edges)
        flat.edges.emplace_back(tree.findNode(e.src), tree.findNode(e.dst));
    return seconds([&] { layoutLevelWithDot(flat); });
}

double flatDot(int nodes) {
    return flatDotOf(testdata::makeTransformerStage(12, nodes));
}

// `bench REPORT.fscope BACKEND STAGE`: a real captured stage instead of the synthetic one.
std::shared_ptr<StageGraph> stageFromReport(const char* path, const char* backend, const char* key) {
    auto report = readReport(path);
    if (!report) {
        std::fprintf(stderr, "%s\n", report.error().message.c_str());
        std::exit(1);
    }
    const BackendRun* run = report.value().findBackend(backend);
    const StageGraph* stage = run ? run->findStage(key) : nullptr;
    if (!stage) {
        std::fprintf(stderr, "%s: no stage %s of backend %s\n", path, key, backend);
        std::exit(1);
    }
    return std::make_shared<StageGraph>(*stage);
}

void frames(GraphScene& scene, const char* what) {
    QImage image(1600, 1000, QImage::Format_ARGB32_Premultiplied);
    const QRectF all = scene.sceneRect();
    const double fit = std::min(image.width() / all.width(), image.height() / all.height());
    for (double zoom : {fit, 0.25, 1.0, 2.0}) {
        const QSizeF visible(image.width() / zoom, image.height() / zoom);
        const QRectF source(all.center() - QPointF(visible.width() / 2, visible.height() / 2), visible);
        const int count = 10;
        const double total = seconds([&] {
            for (int i = 0; i < count; ++i) {
                image.fill(Qt::white);
                QPainter painter(&image);
                painter.setRenderHint(QPainter::Antialiasing);
                scene.render(&painter, QRectF(image.rect()), source);
            }
        });
        std::printf("  frame %-20s zoom %.3f: %.1f ms/frame (%lld items in scene)\n", what, zoom,
                    1000 * total / count, static_cast<long long>(scene.items().size()));
    }
}

// Frames as the GUI paints them: a 1600x1000 GraphView (and its minimap) repainting its
// viewport, so the overview picture of a large scene (GraphScene::overview) is in the path.
void viewFrames(const std::shared_ptr<StageGraph>& stage, const GroupTree& tree) {
    GraphView view;
    view.resize(1600, 1000);
    view.setStage(stage);
    GraphScene* scene = view.graphScene();
    scene->layoutNow();
    for (int g = 1; g < tree.groupCount(); ++g)
        scene->setGroupExpanded(QString::fromStdString(tree.group(g).id), true);
    scene->layoutNow();
    view.show();
    QCoreApplication::processEvents();
    const QRectF all = scene->sceneRect();
    QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    const double fit = std::min(image.width() / all.width(), image.height() / all.height());
    std::printf("GraphView, fully expanded (%d node items), overview scale %.4f:\n", scene->nodeItemCount(),
                scene->overviewScale());
    for (double zoom : {fit, 0.01, 0.03, 0.1, 0.25, 1.0, 2.0}) {
        view.setTransform(QTransform::fromScale(zoom, zoom));
        view.centerOn(all.center());
        const double first = seconds([&] { view.viewport()->render(&image); });
        const int count = 10;
        const double total = seconds([&] {
            for (int i = 0; i < count; ++i)
                view.viewport()->render(&image);
        });
        std::printf("  view frame zoom %.4f%s: first %.1f ms, then %.1f ms/frame\n", zoom,
                    scene->usesOverviewAt(zoom) ? " (overview)" : "", 1000 * first, 1000 * total / count);
    }
    Minimap* minimap = view.minimap();
    minimap->resize(180, 120);
    minimap->refit();
    QImage small(minimap->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    const int count = 10;
    const double total = seconds([&] {
        for (int i = 0; i < count; ++i)
            minimap->viewport()->render(&small);
    });
    std::printf("  minimap frame: %.1f ms/frame\n", 1000 * total / count);
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    const bool fromReport = argc > 3 && QString(argv[1]).endsWith(".fscope");
    const int target = argc > 1 && !fromReport ? std::atoi(argv[1]) : 10000;
    int flatCap = argc > 2 && !fromReport ? std::atoi(argv[2]) : 3000;

    auto stage = fromReport ? stageFromReport(argv[1], argv[2], argv[3])
                            : std::make_shared<StageGraph>(testdata::makeTransformerStage(12, target));
    std::printf("stage: %zu nodes, %zu edges%s\n", stage->nodes.size(), stage->edges.size(),
                fromReport ? " (from the report)" : ", 12 layers");

    std::shared_ptr<GroupTree> tree;
    std::unique_ptr<CollapsedGraph> view;
    std::unique_ptr<GraphvizLayout> engine;
    StageLayout first;
    const double groupTime = seconds([&] { tree = std::make_shared<GroupTree>(GroupTree::build(*stage)); });
    const double openTime = seconds([&] {
        view = std::make_unique<CollapsedGraph>(*stage, *tree);
        view->expandInitially(60);
        engine = std::make_unique<GraphvizLayout>(stage, tree);
        first = engine->layout(view->expandedState());
    });
    std::printf("group tree: %d groups in %.1f ms\n", tree->groupCount(), 1000 * groupTime);
    std::printf("open -> first layout (collapsed, %d visible items, %d Graphviz levels): %.1f ms\n",
                view->visibleCount(), first.levelsLaidOut, 1000 * openTime);

    // Expand the biggest closed module on screen: what a user opens first.
    int pick = -1;
    for (int g = 1; g < tree->groupCount(); ++g)
        if (!view->isExpanded(g) && view->isExpanded(tree->group(g).parent) &&
            tree->group(g).kind == GraphGroup::Kind::Module &&
            (pick < 0 || tree->group(g).nodeCount > tree->group(pick).nodeCount))
            pick = g;
    if (pick < 0) {
        std::printf("expand: every group is already open at the start\n");
    } else {
        view->setExpanded(pick, true);
        StageLayout second;
        const double expandTime = seconds([&] { second = engine->layout(view->expandedState()); });
        std::printf("expand \"%s\" (%d nodes, %d children): %.1f ms, %d levels laid out, %d visible items\n",
                    tree->group(pick).name.c_str(), tree->group(pick).nodeCount,
                    tree->group(pick).childCount(), 1000 * expandTime, second.levelsLaidOut,
                    view->visibleCount());
    }

    StageLayout full;
    for (int g = 1; g < tree->groupCount(); ++g)
        view->setExpanded(g, true);
    const double fullTime = seconds([&] { full = engine->layout(view->expandedState()); });
    std::printf("fully expanded, hierarchical: %.2f s, %d levels, %zu items, %.0f x %.0f points\n", fullTime,
                full.levelsLaidOut, full.items.size(), full.width, full.height);

    // Flat dot grows super-linearly (10,000 nodes took 148-266 s here); the default run stops
    // at 3,000 nodes, a second argument of 10000 measures the whole graph.
    if (fromReport) {
        std::printf("flat dot, the same %zu-node graph: %.2f s\n", stage->nodes.size(), flatDotOf(*stage));
        flatCap = 0;
    }
    std::vector<int> flatSizes;
    for (int n : {1000, 2000, 3000})
        if (n <= flatCap)
            flatSizes.push_back(n);
    if (flatCap > 3000)
        flatSizes.push_back(flatCap);
    for (int n : flatSizes)
        std::printf("flat dot, %d-node transformer shape: %.2f s\n", n, flatDot(n));
    GraphScene scene;
    const double sceneOpen = seconds([&] {
        scene.setStage(stage);
        scene.layoutNow();
    });
    std::printf("GraphScene open (group + layout + items): %.1f ms, %d node items, %d closed groups\n",
                1000 * sceneOpen, scene.nodeItemCount(), scene.closedGroupCount());
    frames(scene, "collapsed");
    if (argc > 3 && !fromReport) { // a picture of the opened graph, for the docs
        QString error;
        if (!exportScene(&scene, argv[3], 1.0, &error))
            std::printf("export failed: %s\n", qPrintable(error));
    }
    // Timed from the first request: the worker starts on the requests while they arrive.
    const double sceneFull = seconds([&] {
        for (int g = 1; g < tree->groupCount(); ++g)
            scene.setGroupExpanded(QString::fromStdString(tree->group(g).id), true);
        scene.layoutNow();
    });
    std::printf("GraphScene fully expanded: %.2f s, %d node items\n", sceneFull, scene.nodeItemCount());
    frames(scene, "fully expanded");
    viewFrames(stage, *tree);
    return 0;
}
