#include "GroupTree.h"

#include <algorithm>
#include <tuple>

namespace fusescope::layout {

namespace {

std::vector<std::string> splitModulePath(const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= path.size() && !path.empty()) {
        const size_t dot = path.find('.', start);
        const size_t end = dot == std::string::npos ? path.size() : dot;
        if (end > start)
            parts.push_back(path.substr(start, end - start));
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return parts;
}

std::string joinPrefix(const std::vector<std::string>& parts, size_t count) {
    std::string out;
    for (size_t i = 0; i < count; ++i) {
        if (i)
            out += '.';
        out += parts[i];
    }
    return out;
}

} // namespace

int GroupTree::addGroup(GraphGroup::Kind kind, std::string id, std::string name, int parent) {
    GraphGroup g;
    g.kind = kind;
    g.id = std::move(id);
    g.name = std::move(name);
    g.parent = parent;
    const int index = int(m_groups.size());
    m_groupIndex.emplace(g.id, index);
    m_groups.push_back(std::move(g));
    if (parent >= 0)
        m_groups[size_t(parent)].groups.push_back(index);
    return index;
}

GroupTree GroupTree::build(const StageGraph& stage) {
    GroupTree tree;
    tree.addGroup(GraphGroup::Kind::Root, "", stage.label.empty() ? stage.name : stage.label, -1);
    const int nodeCount = int(stage.nodes.size());
    tree.m_nodeGroup.assign(size_t(nodeCount), 0);
    for (int i = 0; i < nodeCount; ++i)
        tree.m_nodeIndex.emplace(stage.nodes[size_t(i)].id, i);

    std::vector<std::vector<std::string>> modules(static_cast<size_t>(nodeCount));
    for (int i = 0; i < nodeCount; ++i)
        modules[size_t(i)] = splitModulePath(stage.nodes[size_t(i)].module);

    // Kernels only exist as boxes after fusion; before fusion the same ids are loose nodes.
    std::vector<int> kernelOf(size_t(nodeCount), -1);
    if (stage.fusion == "after") {
        std::unordered_map<std::string, int> byId;
        for (int k = 0; k < int(stage.groups.size()); ++k) {
            const FusionGroup& fg = stage.groups[size_t(k)];
            if (!fg.isKernel())
                continue;
            byId.emplace(fg.id, k);
            for (const auto& id : fg.nodes)
                if (auto it = tree.m_nodeIndex.find(id);
                    it != tree.m_nodeIndex.end() && kernelOf[size_t(it->second)] < 0)
                    kernelOf[size_t(it->second)] = k;
        }
        for (int i = 0; i < nodeCount; ++i)
            if (kernelOf[size_t(i)] < 0 && !stage.nodes[size_t(i)].group.empty())
                if (auto it = byId.find(stage.nodes[size_t(i)].group); it != byId.end())
                    kernelOf[size_t(i)] = it->second;
    }

    // A kernel sits in the deepest module that holds all of its nodes.
    std::unordered_map<int, std::vector<std::string>> kernelPath;
    for (int i = 0; i < nodeCount; ++i) {
        const int k = kernelOf[size_t(i)];
        if (k < 0)
            continue;
        auto [it, fresh] = kernelPath.try_emplace(k, modules[size_t(i)]);
        if (!fresh) {
            auto& common = it->second;
            size_t n = 0;
            while (n < common.size() && n < modules[size_t(i)].size() && common[n] == modules[size_t(i)][n])
                ++n;
            common.resize(n);
        }
    }

    auto moduleGroup = [&](const std::vector<std::string>& parts) {
        int parent = 0;
        for (size_t len = 1; len <= parts.size(); ++len) {
            const std::string path = joinPrefix(parts, len);
            const std::string id = "module:" + path;
            auto it = tree.m_groupIndex.find(id);
            parent = it != tree.m_groupIndex.end()
                         ? it->second
                         : tree.addGroup(GraphGroup::Kind::Module, id, path, parent);
        }
        return parent;
    };

    for (int i = 0; i < nodeCount; ++i) {
        int parent;
        if (const int k = kernelOf[size_t(i)]; k >= 0) {
            const FusionGroup& fg = stage.groups[size_t(k)];
            const std::string id = "kernel:" + fg.id;
            auto it = tree.m_groupIndex.find(id);
            if (it != tree.m_groupIndex.end()) {
                parent = it->second;
            } else {
                const int owner = moduleGroup(kernelPath[k]);
                parent =
                    tree.addGroup(GraphGroup::Kind::Kernel, id, fg.name.empty() ? fg.id : fg.name, owner);
                tree.m_groups[size_t(parent)].fusionGroup = k;
            }
        } else {
            parent = moduleGroup(modules[size_t(i)]);
        }
        tree.m_nodeGroup[size_t(i)] = parent;
        tree.m_groups[size_t(parent)].nodes.push_back(i);
    }

    tree.finish();
    tree.splitOverfullLevels();
    tree.finish();
    return tree;
}

void GroupTree::splitOverfullLevels() {
    int partCounter = 0;
    for (int g = 0; g < int(m_groups.size()); ++g) {
        while (m_groups[size_t(g)].childCount() > kMaxChildren) {
            // (first node, is group, index): children in program order.
            std::vector<std::tuple<int, bool, int>> children;
            for (int c : m_groups[size_t(g)].groups)
                children.emplace_back(m_groups[size_t(c)].firstNode, true, c);
            for (int n : m_groups[size_t(g)].nodes)
                children.emplace_back(n, false, n);
            std::sort(children.begin(), children.end());
            m_groups[size_t(g)].groups.clear();
            m_groups[size_t(g)].nodes.clear();
            const int total = int(children.size());
            const int parts = (total + kMaxChildren - 1) / kMaxChildren;
            const int per = (total + parts - 1) / parts;
            for (int p = 0; p < parts; ++p) {
                const int part =
                    addGroup(GraphGroup::Kind::Part, "part:" + std::to_string(partCounter++),
                             "part " + std::to_string(p + 1) + " of " + std::to_string(parts), g);
                for (int c = p * per; c < std::min(total, (p + 1) * per); ++c) {
                    const auto& [first, isGroup, index] = children[size_t(c)];
                    (void)first;
                    if (isGroup) {
                        m_groups[size_t(index)].parent = part;
                        m_groups[size_t(part)].groups.push_back(index);
                    } else {
                        m_nodeGroup[size_t(index)] = part;
                        m_groups[size_t(part)].nodes.push_back(index);
                    }
                }
            }
            // Parts need their firstNode before the next round sorts them.
            for (int c : m_groups[size_t(g)].groups)
                if (m_groups[size_t(c)].kind == GraphGroup::Kind::Part &&
                    m_groups[size_t(c)].childCount() > 0) {
                    int first = nodeCount();
                    for (int cg : m_groups[size_t(c)].groups)
                        first = std::min(first, m_groups[size_t(cg)].firstNode);
                    for (int n : m_groups[size_t(c)].nodes)
                        first = std::min(first, n);
                    m_groups[size_t(c)].firstNode = first;
                }
        }
    }
}

void GroupTree::finish() {
    // Pre-order from the root with an explicit stack: parts make indices unordered.
    std::vector<int> order;
    order.reserve(m_groups.size());
    std::vector<int> stack{0};
    m_groups[0].depth = 0;
    while (!stack.empty()) {
        const int g = stack.back();
        stack.pop_back();
        order.push_back(g);
        for (int c : m_groups[size_t(g)].groups) {
            m_groups[size_t(c)].depth = m_groups[size_t(g)].depth + 1;
            stack.push_back(c);
        }
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        GraphGroup& g = m_groups[size_t(*it)];
        g.nodeCount = int(g.nodes.size());
        g.firstNode = g.nodes.empty() ? nodeCount() : *std::min_element(g.nodes.begin(), g.nodes.end());
        for (int c : g.groups) {
            g.nodeCount += m_groups[size_t(c)].nodeCount;
            g.firstNode = std::min(g.firstNode, m_groups[size_t(c)].firstNode);
        }
        std::sort(g.groups.begin(), g.groups.end(), [&](int a, int b) {
            return m_groups[size_t(a)].firstNode < m_groups[size_t(b)].firstNode;
        });
        std::sort(g.nodes.begin(), g.nodes.end());
    }
}

int GroupTree::findGroup(const std::string& id) const {
    auto it = m_groupIndex.find(id);
    return it == m_groupIndex.end() ? -1 : it->second;
}

int GroupTree::findNode(const std::string& id) const {
    auto it = m_nodeIndex.find(id);
    return it == m_nodeIndex.end() ? -1 : it->second;
}

int GroupTree::kernelOfNode(int node) const {
    for (int g = groupOfNode(node); g > 0; g = m_groups[size_t(g)].parent)
        if (m_groups[size_t(g)].kind == GraphGroup::Kind::Kernel)
            return g;
    return -1;
}

std::vector<int> GroupTree::pathTo(int group) const {
    std::vector<int> path;
    for (int g = group; g >= 0; g = m_groups[size_t(g)].parent)
        path.push_back(g);
    std::reverse(path.begin(), path.end());
    return path;
}

std::vector<int> GroupTree::nodesUnder(int group) const {
    std::vector<int> out;
    std::vector<int> stack{group};
    while (!stack.empty()) {
        const GraphGroup& g = m_groups[size_t(stack.back())];
        stack.pop_back();
        out.insert(out.end(), g.nodes.begin(), g.nodes.end());
        stack.insert(stack.end(), g.groups.begin(), g.groups.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool GroupTree::isAncestor(int ancestor, int group) const {
    for (int g = group; g >= 0; g = m_groups[size_t(g)].parent)
        if (g == ancestor)
            return true;
    return false;
}

} // namespace fusescope::layout
