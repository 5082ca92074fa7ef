#include "DotLevel.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <mutex>
#include <string>

namespace fusescope::layout {

namespace {

std::mutex& graphvizMutex() {
    static std::mutex mutex;
    return mutex;
}

// One context for the process: creating it loads the plugin configuration, which costs
// more than laying out a small level. Only touched under graphvizMutex(); freed at exit.
GVC_t* graphvizContext() {
    struct Context {
        GVC_t* gvc = gvContext();
        ~Context() {
            if (gvc)
                gvFreeContext(gvc);
        }
    };
    static Context context;
    return context.gvc;
}

void set(void* object, const char* name, const std::string& value, const char* fallback = "") {
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(fallback));
}

std::string inches(double points) {
    return std::to_string(points / 72.0);
}

} // namespace

LevelResult layoutLevelWithDot(const LevelGraph& level) {
    LevelResult out;
    if (level.sizes.empty())
        return out;

    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = graphvizContext();
    if (!gvc) {
        out.error = "Graphviz could not create a layout context";
        return out;
    }
    Agraph_t* g = agopen(const_cast<char*>("level"), Agdirected, nullptr);
    set(g, "rankdir", "TB");
    set(g, "nodesep", "0.3");
    set(g, "ranksep", "0.45");
    set(g, "splines", "spline");

    std::vector<Agnode_t*> nodes(level.sizes.size());
    for (size_t i = 0; i < level.sizes.size(); ++i) {
        const std::string name = "n" + std::to_string(i);
        nodes[i] = agnode(g, const_cast<char*>(name.c_str()), 1);
        set(nodes[i], "shape", "box");
        set(nodes[i], "fixedsize", "true");
        set(nodes[i], "label", "");
        set(nodes[i], "width", inches(level.sizes[i].x), "0.75");
        set(nodes[i], "height", inches(level.sizes[i].y), "0.5");
    }
    std::vector<Agedge_t*> edges(level.edges.size(), nullptr);
    for (size_t i = 0; i < level.edges.size(); ++i) {
        const auto [a, b] = level.edges[i];
        edges[i] = agedge(g, nodes[size_t(a)], nodes[size_t(b)], nullptr, 1);
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        out.error =
            "Graphviz dot failed to lay out a level of " + std::to_string(level.sizes.size()) + " boxes";
        agclose(g);
        return out;
    }

    const boxf bb = GD_bb(g);
    auto toScene = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    out.centres.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
        out.centres[i] = toScene(ND_coord(nodes[i]));

    out.edgePoints.resize(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        std::vector<Point>& pts = out.edgePoints[i];
        const splines* spl = ED_spl(edges[i]);
        if (spl && spl->size > 0 && spl->list[0].size > 0) {
            const bezier& bz = spl->list[0];
            for (int k = 0; k < bz.size; ++k)
                pts.push_back(toScene(bz.list[k]));
            // dot stops the curve short of the arrow head; the tip is the real end.
            if (bz.eflag) {
                const Point tip = toScene(bz.ep);
                pts.push_back(pts.back());
                pts.push_back(tip);
                pts.push_back(tip);
            }
        } else {
            // No spline (dot gives none in rare degenerate cases): a straight segment.
            const Point a = out.centres[size_t(level.edges[i].first)];
            const Point b = out.centres[size_t(level.edges[i].second)];
            pts = {a, a, b, b};
        }
    }

    gvFreeLayout(gvc, g);
    agclose(g);
    return out;
}

} // namespace fusescope::layout
