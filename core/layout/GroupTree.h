#pragma once

#include "model/StageGraph.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace fusescope::layout {

// A collapsible box in a graph view: a module of the user's model, a fused kernel, or a
// "part" that splits an over-full level so no single level is ever laid out flat.
struct GraphGroup {
    enum class Kind { Root, Module, Kernel, Part };
    Kind kind = Kind::Root;
    std::string id;   // unique in the tree: "module:blocks.0", "kernel:<FusionGroup id>", "part:..."
    std::string name; // what the box shows: module path, kernel name, "part 2 of 5"
    int parent = -1;
    int depth = 0;           // root is 0
    int fusionGroup = -1;    // index into StageGraph::groups for kernels
    std::vector<int> groups; // direct child groups
    std::vector<int> nodes;  // direct child nodes (indices into StageGraph::nodes)
    int nodeCount = 0;       // all nodes beneath
    int firstNode = 0;       // smallest node index beneath: keeps children in program order

    int childCount() const { return int(groups.size() + nodes.size()); }
};

// The hierarchy of groups of one stage. Group 0 is the root (the whole graph, always open).
class GroupTree {
public:
    // Levels with more children than this are split into parts so that one Graphviz call
    // never sees more than about this many boxes.
    static constexpr int kMaxChildren = 48;

    static GroupTree build(const StageGraph& stage);

    const std::vector<GraphGroup>& groups() const { return m_groups; }
    const GraphGroup& group(int index) const { return m_groups[size_t(index)]; }
    int groupCount() const { return int(m_groups.size()); }
    int nodeCount() const { return int(m_nodeGroup.size()); }

    int findGroup(const std::string& id) const;
    int findNode(const std::string& id) const;
    // The group that directly contains a node.
    int groupOfNode(int node) const { return m_nodeGroup[size_t(node)]; }
    // The innermost kernel group containing a node, or -1.
    int kernelOfNode(int node) const;
    // Groups from the root down to (and including) `group`.
    std::vector<int> pathTo(int group) const;
    // All node indices beneath a group.
    std::vector<int> nodesUnder(int group) const;
    bool isAncestor(int ancestor, int group) const;

private:
    int addGroup(GraphGroup::Kind kind, std::string id, std::string name, int parent);
    void splitOverfullLevels();
    void finish();

    std::vector<GraphGroup> m_groups;
    std::vector<int> m_nodeGroup;
    std::unordered_map<std::string, int> m_groupIndex;
    std::unordered_map<std::string, int> m_nodeIndex;
};

} // namespace fusescope::layout
