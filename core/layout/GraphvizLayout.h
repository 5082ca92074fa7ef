#pragma once

#include "CollapsedGraph.h"
#include "DotLevel.h"
#include "GroupTree.h"
#include "LayoutTypes.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace fusescope::layout {

// Lays out a stage one open group at a time: each open group's children (nodes, closed
// groups as boxes, open groups as boxes of their own laid-out size) form a small Graphviz
// graph; positions are then composed from the root down. Level layouts are cached by the
// sizes of their children, so opening a group lays out that group and its ancestors' levels
// only; every other level comes from the cache.
//
// Not thread-safe itself: one thread at a time (the scene's layout worker, or a caller
// laying out synchronously). Graphviz calls are serialised across all instances.
class GraphvizLayout {
public:
    GraphvizLayout(std::shared_ptr<const StageGraph> stage, std::shared_ptr<const GroupTree> tree,
                   BoxMetrics metrics = {});

    const GroupTree& tree() const { return *m_tree; }
    const BoxMetrics& metrics() const { return m_metrics; }

    // `expanded` is CollapsedGraph::expandedState(). When `cancel` becomes true the layout
    // stops before its next Graphviz call and returns a result marked cancelled.
    StageLayout layout(const std::vector<char>& expanded, const std::atomic<bool>* cancel = nullptr);

    // Box sizes for closed groups and nodes, from their label lengths.
    Point nodeSize(int node) const;
    Point groupSize(int group) const;

private:
    struct Level {
        LevelResult result;
        std::vector<int> items;   // children in slot order (ItemRef encoding)
        std::vector<Point> sizes; // their box sizes
        std::unordered_map<int, int> slotOf;
        std::unordered_map<long long, size_t> edgeBySlots;
    };
    struct Frame {
        double x = 0; // top-left of the open group's content area
        double y = 0;
        const Level* level = nullptr;
    };

    const Level* layoutGroup(int group, const std::vector<char>& expanded, const std::atomic<bool>* cancel,
                             StageLayout& out);
    void place(int group, double left, double top, const std::vector<char>& expanded, StageLayout& out);
    int childOf(int group, int item) const;
    int parentOf(int item) const;

    std::shared_ptr<const StageGraph> m_stage;
    std::shared_ptr<const GroupTree> m_tree;
    BoxMetrics m_metrics;
    std::vector<std::pair<int, int>> m_edges; // stage edges as node indices
    // Per group: layouts keyed by a hash of the children's box sizes.
    std::vector<std::unordered_map<uint64_t, std::unique_ptr<Level>>> m_cache;
    std::vector<const Level*> m_current; // the level used by the layout being built
    std::unordered_map<int, Frame> m_frames;
};

} // namespace fusescope::layout
