#include "GraphvizLayout.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_set>

namespace fusescope::layout {

namespace {

constexpr int kNone = INT_MIN;

long long slotKey(int a, int b) {
    return (static_cast<long long>(a) << 32) ^ static_cast<unsigned int>(b);
}

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

Point translate(Point p, double dx, double dy) {
    return {p.x + dx, p.y + dy};
}

// Where an edge leaves or enters a box: the middle of the side facing `towards`.
Point sideFacing(const PlacedItem& box, Point towards) {
    const bool below = towards.y > box.y;
    return {box.x, box.y + (below ? box.height / 2 : -box.height / 2)};
}

} // namespace

GraphvizLayout::GraphvizLayout(std::shared_ptr<const StageGraph> stage, std::shared_ptr<const GroupTree> tree,
                               BoxMetrics metrics)
    : m_stage(std::move(stage))
    , m_tree(std::move(tree))
    , m_metrics(metrics)
    , m_cache(size_t(m_tree->groupCount())) {
    m_edges.reserve(m_stage->edges.size());
    for (const GraphEdge& e : m_stage->edges) {
        const int s = m_tree->findNode(e.src);
        const int d = m_tree->findNode(e.dst);
        if (s >= 0 && d >= 0 && s != d)
            m_edges.emplace_back(s, d);
    }
}

Point GraphvizLayout::nodeSize(int node) const {
    const GraphNode& n = m_stage->nodes[size_t(node)];
    const size_t chars = std::max(n.op.size(), n.name.size());
    return {std::clamp(40.0 + 6.5 * double(chars), m_metrics.nodeWidth * 0.7, m_metrics.nodeWidth * 1.6),
            m_metrics.nodeHeight};
}

Point GraphvizLayout::groupSize(int group) const {
    const size_t chars = m_tree->group(group).name.size();
    return {std::clamp(50.0 + 6.5 * double(chars), m_metrics.groupWidth * 0.7, m_metrics.groupWidth * 1.6),
            m_metrics.groupHeight};
}

int GraphvizLayout::parentOf(int item) const {
    return ItemRef::isGroup(item) ? m_tree->group(ItemRef::index(item)).parent
                                  : m_tree->groupOfNode(ItemRef::index(item));
}

int GraphvizLayout::childOf(int group, int item) const {
    int current = item;
    for (int p = parentOf(current); p != group; p = parentOf(current)) {
        if (p < 0)
            return kNone;
        current = ItemRef::group(p);
    }
    return current;
}

const GraphvizLayout::Level* GraphvizLayout::layoutGroup(int group, const std::vector<char>& expanded,
                                                         const std::atomic<bool>* cancel, StageLayout& out) {
    const GraphGroup& g = m_tree->group(group);
    auto level = std::make_unique<Level>();
    uint64_t key = 1469598103934665603ULL;
    // Open children first: their laid-out size is this level's box size for them.
    for (int c : g.groups) {
        Point size;
        if (expanded[size_t(c)]) {
            const Level* inner = layoutGroup(c, expanded, cancel, out);
            if (!inner)
                return nullptr;
            size = {inner->result.width + 2 * m_metrics.padding,
                    inner->result.height + 2 * m_metrics.padding + m_metrics.titleHeight};
        } else {
            size = groupSize(c);
        }
        level->items.push_back(ItemRef::group(c));
        level->sizes.push_back(size);
    }
    for (int n : g.nodes) {
        level->items.push_back(ItemRef::node(n));
        level->sizes.push_back(nodeSize(n));
    }
    for (size_t i = 0; i < level->items.size(); ++i) {
        key = mix(key, uint64_t(uint32_t(level->items[i])));
        key = mix(key, uint64_t(std::llround(level->sizes[i].x * 4)));
        key = mix(key, uint64_t(std::llround(level->sizes[i].y * 4)));
    }

    auto& cache = m_cache[size_t(group)];
    if (auto it = cache.find(key); it != cache.end()) {
        m_current[size_t(group)] = it->second.get();
        return it->second.get();
    }
    if (cancel && cancel->load()) {
        out.cancelled = true;
        return nullptr;
    }

    for (size_t i = 0; i < level->items.size(); ++i)
        level->slotOf.emplace(level->items[i], int(i));
    LevelGraph input;
    input.sizes = level->sizes;
    std::unordered_set<long long> seen;
    for (const auto& [s, d] : m_edges) {
        const int a = childOf(group, ItemRef::node(s));
        if (a == kNone)
            continue;
        const int b = childOf(group, ItemRef::node(d));
        if (b == kNone || a == b)
            continue;
        const int sa = level->slotOf[a];
        const int sb = level->slotOf[b];
        if (seen.insert(slotKey(sa, sb)).second) {
            level->edgeBySlots.emplace(slotKey(sa, sb), input.edges.size());
            input.edges.emplace_back(sa, sb);
        }
    }
    level->result = layoutLevelWithDot(input);
    ++out.levelsLaidOut;
    if (!level->result.error.empty()) {
        out.reason = level->result.error;
        return nullptr;
    }
    // A group is laid out again for each distinct set of child sizes; keep memory bounded.
    if (cache.size() >= 8)
        cache.clear();
    const Level* result = level.get();
    cache.emplace(key, std::move(level));
    m_current[size_t(group)] = result;
    return result;
}

void GraphvizLayout::place(int group, double left, double top, const std::vector<char>& expanded,
                           StageLayout& out) {
    const Level* level = m_current[size_t(group)];
    m_frames[group] = {left, top, level};
    for (size_t i = 0; i < level->items.size(); ++i) {
        const int item = level->items[i];
        PlacedItem placed;
        placed.item = item;
        placed.x = left + level->result.centres[i].x;
        placed.y = top + level->result.centres[i].y;
        placed.width = level->sizes[i].x;
        placed.height = level->sizes[i].y;
        placed.depth = m_tree->group(group).depth + 1;
        placed.expanded = ItemRef::isGroup(item) && expanded[size_t(ItemRef::index(item))];
        out.items.push_back(placed);
        if (placed.expanded)
            place(ItemRef::index(item), placed.x - placed.width / 2 + m_metrics.padding,
                  placed.y - placed.height / 2 + m_metrics.titleHeight + m_metrics.padding, expanded, out);
    }
}

StageLayout GraphvizLayout::layout(const std::vector<char>& expanded, const std::atomic<bool>* cancel) {
    StageLayout out;
    if (m_stage->status != StageStatus::Ok)
        out.reason = m_stage->reason.empty()
                         ? std::string("stage ") + m_stage->name + " is " + toString(m_stage->status)
                         : m_stage->reason;
    if (m_stage->nodes.empty()) {
        if (out.reason.empty())
            out.reason = "stage " + m_stage->name + " has no nodes";
        return out;
    }
    if (expanded.size() != size_t(m_tree->groupCount())) {
        out.reason = "expansion state does not match the stage's groups";
        return out;
    }
    m_current.assign(size_t(m_tree->groupCount()), nullptr);
    m_frames.clear();
    const Level* root = layoutGroup(0, expanded, cancel, out);
    if (!root)
        return out;
    place(0, m_metrics.padding, m_metrics.padding, expanded, out);
    out.width = root->result.width + 2 * m_metrics.padding;
    out.height = root->result.height + 2 * m_metrics.padding;

    std::unordered_map<int, size_t> placedIndex;
    for (size_t i = 0; i < out.items.size(); ++i)
        placedIndex.emplace(out.items[i].item, i);

    CollapsedGraph visible(*m_stage, *m_tree);
    visible.setExpandedState(expanded);
    for (const VisibleEdge& e : visible.visibleEdges()) {
        PlacedEdge edge{e.from, e.to, e.count, {}};
        // The level where the edge is routed is the innermost open group holding both ends.
        std::unordered_set<int> ancestors;
        for (int p = parentOf(e.from); p >= 0; p = m_tree->group(p).parent)
            ancestors.insert(p);
        int common = parentOf(e.to);
        while (common >= 0 && !ancestors.count(common))
            common = m_tree->group(common).parent;
        const PlacedItem& from = out.items[placedIndex.at(e.from)];
        const PlacedItem& to = out.items[placedIndex.at(e.to)];
        const int ca = common >= 0 ? childOf(common, e.from) : kNone;
        const int cb = common >= 0 ? childOf(common, e.to) : kNone;
        const Frame* frame = common >= 0 ? &m_frames.at(common) : nullptr;
        if (frame && ca != kNone && cb != kNone) {
            const auto it = frame->level->edgeBySlots.find(
                slotKey(frame->level->slotOf.at(ca), frame->level->slotOf.at(cb)));
            if (it != frame->level->edgeBySlots.end())
                for (const Point& p : frame->level->result.edgePoints[it->second])
                    edge.points.push_back(translate(p, frame->x, frame->y));
        }
        if (edge.points.empty()) {
            const Point a{from.x, from.y};
            const Point b{to.x, to.y};
            edge.points = {a, a, b, b};
        }
        // Ends inside open groups: the level's curve joins the boxes' frames, so extend it
        // with straight pieces to the visible items themselves.
        if (ca != e.from) {
            const Point start = edge.points.front();
            const Point a = sideFacing(from, start);
            edge.points.insert(edge.points.begin(), {a, a, start});
        }
        if (cb != e.to) {
            const Point end = edge.points.back();
            const Point b = sideFacing(to, end);
            edge.points.insert(edge.points.end(), {end, b, b});
        }
        out.edges.push_back(std::move(edge));
    }
    return out;
}

} // namespace fusescope::layout
