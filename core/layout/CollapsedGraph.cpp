#include "CollapsedGraph.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace fusescope::layout {

CollapsedGraph::CollapsedGraph(const StageGraph& stage, const GroupTree& tree)
    : m_stage(stage)
    , m_tree(tree)
    , m_expanded(size_t(tree.groupCount()), 0) {
    if (!m_expanded.empty())
        m_expanded[0] = 1;
}

void CollapsedGraph::setExpanded(int group, bool expanded) {
    if (group <= 0 || group >= m_tree.groupCount())
        return;
    m_expanded[size_t(group)] = expanded;
    if (expanded)
        for (int g = m_tree.group(group).parent; g > 0; g = m_tree.group(g).parent)
            m_expanded[size_t(g)] = 1;
}

void CollapsedGraph::setExpandedState(std::vector<char> state) {
    if (state.size() != m_expanded.size())
        return;
    m_expanded = std::move(state);
    m_expanded[0] = 1;
}

void CollapsedGraph::expandInitially(int maxVisible) {
    std::fill(m_expanded.begin(), m_expanded.end(), 0);
    m_expanded[0] = 1;
    int visible = m_tree.group(0).childCount();
    std::deque<int> queue(m_tree.group(0).groups.begin(), m_tree.group(0).groups.end());
    while (!queue.empty()) {
        const int g = queue.front();
        queue.pop_front();
        const GraphGroup& group = m_tree.group(g);
        // Opening replaces one box by its children.
        if (visible - 1 + group.childCount() > maxVisible)
            continue;
        visible += group.childCount() - 1;
        m_expanded[size_t(g)] = 1;
        queue.insert(queue.end(), group.groups.begin(), group.groups.end());
    }
}

void CollapsedGraph::revealNode(int node) {
    for (int g = m_tree.groupOfNode(node); g > 0; g = m_tree.group(g).parent)
        m_expanded[size_t(g)] = 1;
}

int CollapsedGraph::representative(int node) const {
    int item = ItemRef::node(node);
    for (int g = m_tree.groupOfNode(node); g > 0; g = m_tree.group(g).parent)
        if (!m_expanded[size_t(g)])
            item = ItemRef::group(g);
    return item;
}

std::vector<int> CollapsedGraph::visibleItems() const {
    std::vector<int> items;
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const GraphGroup& g = m_tree.group(stack.back());
        stack.pop_back();
        for (int c : g.groups) {
            if (m_expanded[size_t(c)])
                stack.push_back(c);
            else
                items.push_back(ItemRef::group(c));
        }
        for (int n : g.nodes)
            items.push_back(ItemRef::node(n));
    }
    return items;
}

int CollapsedGraph::visibleCount() const {
    int count = 0;
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const GraphGroup& g = m_tree.group(stack.back());
        stack.pop_back();
        count += int(g.nodes.size());
        for (int c : g.groups) {
            if (m_expanded[size_t(c)])
                stack.push_back(c);
            else
                ++count;
        }
    }
    return count;
}

std::vector<VisibleEdge> CollapsedGraph::visibleEdges() const {
    std::vector<int> rep(size_t(m_tree.nodeCount()));
    for (int n = 0; n < m_tree.nodeCount(); ++n)
        rep[size_t(n)] = representative(n);
    std::unordered_map<long long, size_t> seen;
    std::vector<VisibleEdge> edges;
    for (const GraphEdge& e : m_stage.edges) {
        const int s = m_tree.findNode(e.src);
        const int d = m_tree.findNode(e.dst);
        if (s < 0 || d < 0)
            continue;
        const int a = rep[size_t(s)];
        const int b = rep[size_t(d)];
        if (a == b)
            continue;
        const long long key = (static_cast<long long>(a) << 32) ^ static_cast<unsigned int>(b);
        auto [it, fresh] = seen.try_emplace(key, edges.size());
        if (fresh)
            edges.push_back({a, b, 1});
        else
            ++edges[it->second].count;
    }
    return edges;
}

} // namespace fusescope::layout
