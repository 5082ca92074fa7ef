#pragma once

#include "GroupTree.h"

#include <vector>

namespace fusescope::layout {

// Something drawn as one box: a node, or a group shown collapsed. Groups are encoded
// as negative numbers so an item fits in one int: node n -> n, group g -> -1 - g.
struct ItemRef {
    static int node(int n) { return n; }
    static int group(int g) { return -1 - g; }
    static bool isGroup(int item) { return item < 0; }
    static int index(int item) { return item < 0 ? -1 - item : item; }
};

// An edge between two visible items standing for `count` edges of the stage.
struct VisibleEdge {
    int from = 0;
    int to = 0;
    int count = 1;
};

// Which groups are open, and what that leaves on screen. The root is always open.
class CollapsedGraph {
public:
    CollapsedGraph(const StageGraph& stage, const GroupTree& tree);

    const GroupTree& tree() const { return m_tree; }
    bool isExpanded(int group) const { return group == 0 || m_expanded[size_t(group)]; }
    // Opening a group whose parent is closed opens the parent too, so the group shows.
    void setExpanded(int group, bool expanded);
    const std::vector<char>& expandedState() const { return m_expanded; }
    void setExpandedState(std::vector<char> state);

    // Opens groups breadth first while the screen stays at or under `maxVisible` items,
    // so a 50,000-node graph opens as a few dozen boxes.
    void expandInitially(int maxVisible = 60);
    // Opens every group on the way to a node so that the node itself is visible.
    void revealNode(int node);

    // The visible item standing for a node: the node, or its outermost closed group.
    int representative(int node) const;
    std::vector<int> visibleItems() const;
    int visibleCount() const;
    // Stage edges mapped to visible items: deduplicated, counted, without self loops.
    std::vector<VisibleEdge> visibleEdges() const;

private:
    const StageGraph& m_stage;
    const GroupTree& m_tree;
    std::vector<char> m_expanded;
};

} // namespace fusescope::layout
