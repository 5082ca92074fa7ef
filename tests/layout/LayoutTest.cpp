#include "CollapsedGraph.h"
#include "GraphvizLayout.h"
#include "GroupTree.h"
#include "SyntheticStage.h"

#include <chrono>
#include <gtest/gtest.h>
#include <memory>

using namespace fusescope;
using namespace fusescope::layout;

namespace {

GraphNode node(const std::string& id, const std::string& module, const std::string& group = "") {
    GraphNode n;
    n.id = id;
    n.name = id;
    n.op = "aten.op";
    n.kind = "call_function";
    n.category = "pointwise";
    n.module = module;
    n.group = group;
    return n;
}

// blocks.0.attn.{qkv,proj}, blocks.0.mlp, blocks.1 and a top-level input/output.
StageGraph smallStage() {
    StageGraph s;
    s.name = "post_grad";
    s.fusion = "none";
    s.nodes = {node("x", ""),
               node("qkv", "blocks.0.attn.qkv"),
               node("sm", "blocks.0.attn"),
               node("proj", "blocks.0.attn.proj"),
               node("fc", "blocks.0.mlp"),
               node("b1", "blocks.1"),
               node("out", "")};
    s.edges = {{"x", "qkv"}, {"qkv", "sm"}, {"sm", "proj"}, {"proj", "fc"},
               {"x", "fc"},  {"fc", "b1"},  {"b1", "out"}};
    return s;
}

struct Laid {
    std::shared_ptr<StageGraph> stage;
    std::shared_ptr<GroupTree> tree;
};

Laid prepare(StageGraph s) {
    auto stage = std::make_shared<StageGraph>(std::move(s));
    auto tree = std::make_shared<GroupTree>(GroupTree::build(*stage));
    return {stage, tree};
}

void expectInside(const StageLayout& layout) {
    for (const PlacedItem& item : layout.items) {
        EXPECT_GE(item.x - item.width / 2, -0.5);
        EXPECT_GE(item.y - item.height / 2, -0.5);
        EXPECT_LE(item.x + item.width / 2, layout.width + 0.5);
        EXPECT_LE(item.y + item.height / 2, layout.height + 0.5);
    }
    for (const PlacedEdge& e : layout.edges) {
        ASSERT_GE(e.points.size(), 4u);
        EXPECT_EQ((e.points.size() - 1) % 3, 0u);
    }
}

} // namespace

TEST(GroupTree, ModulePathsBecomeNestedGroups) {
    const StageGraph s = smallStage();
    const GroupTree tree = GroupTree::build(s);
    for (const char* id : {"module:blocks", "module:blocks.0", "module:blocks.0.attn",
                           "module:blocks.0.attn.qkv", "module:blocks.0.mlp", "module:blocks.1"})
        EXPECT_GE(tree.findGroup(id), 0) << id;
    const int attn = tree.findGroup("module:blocks.0.attn");
    EXPECT_EQ(tree.group(attn).parent, tree.findGroup("module:blocks.0"));
    EXPECT_EQ(tree.group(attn).nodeCount, 3);
    EXPECT_EQ(tree.group(tree.findGroup("module:blocks")).nodeCount, 5);
    EXPECT_EQ(tree.groupOfNode(tree.findNode("x")), 0);
    EXPECT_EQ(tree.group(0).nodeCount, 7);
}

TEST(GroupTree, KernelsNestInTheDeepestCommonModule) {
    StageGraph s = smallStage();
    s.fusion = "after";
    s.nodes[1].group = "k0"; // qkv
    s.nodes[3].group = "k0"; // proj
    s.groups = {{"k0", "cpp_fused_qkv_proj_0", "kernel", {"qkv", "proj"}, {}, ""},
                {"k1", "cpp_fused_everything_1", "kernel", {"x", "out"}, {}, ""}};
    const GroupTree tree = GroupTree::build(s);
    const int k0 = tree.findGroup("kernel:k0");
    ASSERT_GE(k0, 0);
    EXPECT_EQ(tree.group(k0).parent, tree.findGroup("module:blocks.0.attn"));
    EXPECT_EQ(tree.group(k0).nodeCount, 2);
    EXPECT_EQ(tree.kernelOfNode(tree.findNode("proj")), k0);
    EXPECT_EQ(tree.group(tree.findGroup("kernel:k1")).parent, 0);
    // qkv and proj moved into the kernel: their own module groups would be empty, so none exist.
    EXPECT_LT(tree.findGroup("module:blocks.0.attn.qkv"), 0);
    // Before fusion the same ids are loose nodes.
    s.fusion = "before";
    EXPECT_LT(GroupTree::build(s).findGroup("kernel:k0"), 0);
}

TEST(CollapsedGraph, ExpandingAndCollapsingChangesVisibleItems) {
    const StageGraph s = smallStage();
    const GroupTree tree = GroupTree::build(s);
    CollapsedGraph view(s, tree);
    EXPECT_EQ(view.visibleCount(), 3); // x, blocks, out
    const int blocks = tree.findGroup("module:blocks");
    view.setExpanded(blocks, true);
    EXPECT_EQ(view.visibleCount(), 4);                              // x, blocks.0, blocks.1, out
    view.setExpanded(tree.findGroup("module:blocks.0.attn"), true); // opens blocks.0 too
    EXPECT_TRUE(view.isExpanded(tree.findGroup("module:blocks.0")));
    EXPECT_EQ(view.visibleCount(), int(view.visibleItems().size()));
    view.setExpanded(blocks, false);
    EXPECT_EQ(view.visibleCount(), 3);
}

TEST(CollapsedGraph, EdgesAggregateWithoutSelfLoops) {
    const StageGraph s = smallStage();
    const GroupTree tree = GroupTree::build(s);
    CollapsedGraph view(s, tree);
    const auto edges = view.visibleEdges();
    const int blocks = ItemRef::group(tree.findGroup("module:blocks"));
    const int x = ItemRef::node(tree.findNode("x"));
    ASSERT_EQ(edges.size(), 2u); // x -> blocks (twice), blocks -> out
    for (const auto& e : edges) {
        EXPECT_NE(e.from, e.to);
        if (e.from == x) {
            EXPECT_EQ(e.to, blocks);
            EXPECT_EQ(e.count, 2);
        }
    }
}

TEST(CollapsedGraph, InitialExpansionStaysSmall) {
    const StageGraph s = testdata::makeTransformerStage(12, 10000);
    const GroupTree tree = GroupTree::build(s);
    CollapsedGraph view(s, tree);
    view.expandInitially(60);
    EXPECT_LE(view.visibleCount(), 60);
    EXPECT_GT(view.visibleCount(), 5);
    for (const auto& g : tree.groups())
        EXPECT_LE(g.childCount(), GroupTree::kMaxChildren);
}

TEST(GraphvizLayout, PositionsInsideTheBoxAndEveryEdgeHasPoints) {
    auto [stage, tree] = prepare(smallStage());
    GraphvizLayout engine(stage, tree);
    CollapsedGraph view(*stage, *tree);
    for (int g = 1; g < tree->groupCount(); ++g)
        view.setExpanded(g, true);
    const StageLayout layout = engine.layout(view.expandedState());
    EXPECT_TRUE(layout.reason.empty()) << layout.reason;
    EXPECT_EQ(layout.edges.size(), view.visibleEdges().size());
    int nodes = 0;
    for (const auto& item : layout.items)
        nodes += ItemRef::isGroup(item.item) ? 0 : 1;
    EXPECT_EQ(nodes, 7);
    expectInside(layout);
}

TEST(GraphvizLayout, ExpandingOneGroupLaysOutOnlyItsLevelAndAncestors) {
    auto [stage, tree] = prepare(testdata::makeTransformerStage(12, 2000));
    GraphvizLayout engine(stage, tree);
    CollapsedGraph view(*stage, *tree);
    view.expandInitially(60);
    const StageLayout first = engine.layout(view.expandedState());
    ASSERT_GT(first.levelsLaidOut, 0);
    // Open a closed group that sits inside an open one.
    int target = -1;
    for (int g = 1; g < tree->groupCount() && target < 0; ++g)
        if (!view.isExpanded(g) && view.isExpanded(tree->group(g).parent))
            target = g;
    ASSERT_GE(target, 0);
    view.setExpanded(target, true);
    const StageLayout second = engine.layout(view.expandedState());
    EXPECT_EQ(second.levelsLaidOut, tree->group(target).depth + 1); // itself and each ancestor
    expectInside(second);
    EXPECT_EQ(engine.layout(view.expandedState()).levelsLaidOut, 0); // all cached now
}

TEST(GraphvizLayout, CyclesTerminate) {
    StageGraph s = smallStage();
    s.edges.push_back({"out", "x"});
    s.edges.push_back({"b1", "qkv"});
    s.edges.push_back({"sm", "sm"});
    auto [stage, tree] = prepare(std::move(s));
    GraphvizLayout engine(stage, tree);
    CollapsedGraph view(*stage, *tree);
    for (int g = 1; g < tree->groupCount(); ++g)
        view.setExpanded(g, true);
    const StageLayout layout = engine.layout(view.expandedState());
    EXPECT_TRUE(layout.reason.empty());
    expectInside(layout);
}

TEST(GraphvizLayout, FiftyThousandNodesOpenCollapsed) {
    // Both with modules and without any: the latter is split into parts, never laid out flat.
    for (bool flat : {false, true}) {
        StageGraph s = testdata::makeTransformerStage(24, 50000);
        if (flat)
            for (auto& n : s.nodes)
                n.module.clear();
        auto [stage, tree] = prepare(std::move(s));
        GraphvizLayout engine(stage, tree);
        CollapsedGraph view(*stage, *tree);
        view.expandInitially(60);
        const auto start = std::chrono::steady_clock::now();
        const StageLayout layout = engine.layout(view.expandedState());
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_TRUE(layout.reason.empty());
        EXPECT_LE(view.visibleCount(), 60);
        EXPECT_LT(seconds, 60.0); // generous: flat dot on 50k nodes would take hours
        expectInside(layout);
    }
}

TEST(GraphvizLayout, FailedStageGivesItsReason) {
    StageGraph s;
    s.name = "post_fusion";
    s.status = StageStatus::Unsupported;
    s.reason = "Inductor's scheduler hooks are not available in this torch version";
    auto [stage, tree] = prepare(std::move(s));
    GraphvizLayout engine(stage, tree);
    const StageLayout layout = engine.layout(CollapsedGraph(*stage, *tree).expandedState());
    EXPECT_TRUE(layout.items.empty());
    EXPECT_EQ(layout.reason, stage->reason);
}

TEST(GraphvizLayout, CancelStopsBeforeGraphviz) {
    auto [stage, tree] = prepare(smallStage());
    GraphvizLayout engine(stage, tree);
    std::atomic<bool> cancel{true};
    const StageLayout layout = engine.layout(CollapsedGraph(*stage, *tree).expandedState(), &cancel);
    EXPECT_TRUE(layout.cancelled);
    EXPECT_EQ(layout.levelsLaidOut, 0);
}
