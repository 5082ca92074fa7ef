// Traced kernel time attributed to after-fusion nodes, modules, source lines and (through
// provenance) before-fusion nodes (core/trace/TimeAttribution.h).
#include "trace/TimeAttribution.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace fusescope;

namespace {

GraphNode node(const std::string& id, const std::string& module, int line,
               const std::string& kind = "scheduler_node") {
    GraphNode n;
    n.id = id;
    n.name = "buf_" + id;
    n.kind = kind;
    n.module = module;
    if (line > 0)
        n.source = SourceLocation{"model.py", line, "line " + std::to_string(line)};
    return n;
}

FusionGroup group(const std::string& name, const std::string& kind, int index, std::vector<std::string> nodes,
                  std::vector<std::string> provenance = {}) {
    FusionGroup g;
    g.id = name + ":" + std::to_string(index);
    g.name = name;
    g.kind = kind;
    g.nodes = std::move(nodes);
    g.provenance = std::move(provenance);
    return g;
}

// ln (2 nodes of module a, lines 10 and 11), addmm (b), gelu (c, line 12), addmm (d, line 12).
BackendRun tracedRun(bool withTrailingOp) {
    BackendRun run;
    run.name = "inductor";
    StageGraph before;
    before.name = "post_grad";
    before.fusion = "before";
    for (const char* name : {"var_mean", "add", "mm1", "gelu", "mm2"}) {
        GraphNode n = node(std::string("fx_") + name, "", 0, "call_function");
        n.name = name;
        before.nodes.push_back(n);
    }
    StageGraph after;
    after.name = "post_fusion";
    after.fusion = "after";
    after.nodes = {node("n1", "a", 10), node("n2", "a", 11), node("n3", "b", 0),
                   node("n4", "c", 12), node("n5", "d", 12), node("in", "", 0, "placeholder")};
    after.groups = {group("cpp_fused_ln_0", "kernel", 1, {"n1", "n2", "in"}, {"var_mean", "add"}),
                    group("extern_kernels.addmm", "extern_kernel", 2, {"n3"}, {"mm1"}),
                    group("cpp_fused_gelu_1", "kernel", 3, {"n4"}, {"gelu"}),
                    group("extern_kernels.addmm", "extern_kernel", 4, {"n5"}, {"mm2"})};
    run.stages = {before, after};
    KernelTrace t;
    t.source = "cpu-profiler";
    int64_t at = 0;
    std::vector<std::pair<std::string, int64_t>> calls = {
        {"cpp_fused_ln_0", 10}, {"aten::addmm", 100}, {"cpp_fused_gelu_1", 20}, {"aten::addmm", 300}};
    if (withTrailingOp)
        calls.push_back({"aten::copy_", 7});
    for (int iteration = 0; iteration < 2; ++iteration)
        for (const auto& [name, ns] : calls) {
            TraceEvent e;
            e.startNs = at;
            e.durationNs = ns;
            at += ns + 1;
            e.name = t.internName(name);
            e.kind = name.rfind("aten::", 0) == 0 ? EventKind::CpuOp : EventKind::Kernel;
            e.iteration = iteration;
            t.events.push_back(e);
        }
    t.iterations = 2;
    t.finalize();
    run.trace = std::move(t);
    return run;
}

double rowNs(const std::vector<TimeRow>& rows, const std::string& key) {
    for (const auto& r : rows)
        if (r.key == key)
            return r.ns;
    return -1;
}

} // namespace

TEST(TimeAttribution, EachCallsTimeGoesToItsOwnGroupAndRowsSumToTheTrace) {
    const BackendRun run = tracedRun(true);
    const TimeAttribution time = attributeKernelTime(run);
    EXPECT_DOUBLE_EQ(time.tracedNs, 437);     // per iteration: 10 + 100 + 20 + 300 + 7
    EXPECT_DOUBLE_EQ(time.unattributedNs, 7); // aten::copy_ after the last kernel ran no group
    EXPECT_EQ(time.iterations, 2);
    const auto modules = time.rows(TimeGrouping::Module);
    // The two addmm groups each keep their own calls' time (not an even split of 400).
    EXPECT_DOUBLE_EQ(rowNs(modules, "b"), 100);
    EXPECT_DOUBLE_EQ(rowNs(modules, "d"), 300);
    EXPECT_DOUBLE_EQ(rowNs(modules, "c"), 20);
    EXPECT_DOUBLE_EQ(rowNs(modules, "a"), 10); // both ln nodes; the placeholder takes nothing
    EXPECT_DOUBLE_EQ(rowNs(modules, kNotLinked), 7);
    EXPECT_EQ(modules.front().key, "d");
    EXPECT_TRUE(modules.back().unattributed);
    double shares = 0, ns = 0;
    for (const auto& r : modules) {
        shares += r.share;
        ns += r.ns;
    }
    EXPECT_NEAR(shares, 1.0, 1e-12);
    EXPECT_NEAR(ns, time.tracedNs, 1e-9);

    const auto lines = time.rows(TimeGrouping::Line);
    EXPECT_DOUBLE_EQ(rowNs(lines, "model.py:10"), 5); // ln's 10 ns split evenly over its 2 compute nodes
    EXPECT_DOUBLE_EQ(rowNs(lines, "model.py:11"), 5);
    EXPECT_DOUBLE_EQ(rowNs(lines, "model.py:12"), 320); // gelu and the second addmm
    EXPECT_DOUBLE_EQ(rowNs(lines, kNoSourceLine), 100);
    for (const auto& r : lines)
        if (r.key == "model.py:12") {
            EXPECT_EQ(r.kernels, (std::vector<std::string>{"aten::addmm", "cpp_fused_gelu_1"}));
            EXPECT_EQ(r.code, "line 12");
            EXPECT_EQ(r.nodes.size(), 2u);
        }
}

TEST(TimeAttribution, NodeSharesAndTheBeforeFusionGraphThroughProvenance) {
    const BackendRun run = tracedRun(false);
    const TimeAttribution time = attributeKernelTime(run);
    ASSERT_DOUBLE_EQ(time.tracedNs, 430);
    const auto after = time.shareOfNodes(run.stages[1]);
    EXPECT_NEAR(after.at("n5"), 300.0 / 430, 1e-12);
    EXPECT_NEAR(after.at("n1"), 5.0 / 430, 1e-12);
    EXPECT_FALSE(after.count("in"));
    const auto before = time.shareOfBeforeFusionNodes(run.stages[0]);
    EXPECT_NEAR(before.at("fx_mm2"), 300.0 / 430, 1e-12);
    EXPECT_NEAR(before.at("fx_var_mean"), 5.0 / 430, 1e-12); // ln's 10 ns over its 2 provenance nodes
    double sum = 0;
    for (const auto& [id, share] : before)
        sum += share;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_TRUE(time.rows(TimeGrouping::Module).back().key != kNotLinked); // nothing unlinked here

    // A stage of scheduler nodes before fusion (Inductor's pre_fusion) names FX nodes in origins.
    StageGraph pre;
    pre.name = "pre_fusion";
    pre.fusion = "before";
    pre.nodes = {node("p1", "a", 10), node("p2", "d", 12)};
    pre.nodes[0].origins = {"var_mean", "add"};
    pre.nodes[1].origins = {"mm2"};
    const auto scheduled = time.shareOfBeforeFusionNodes(pre);
    EXPECT_NEAR(scheduled.at("p1"), 10.0 / 430, 1e-12);
    EXPECT_NEAR(scheduled.at("p2"), 300.0 / 430, 1e-12);
}

TEST(TimeAttribution, NoTraceGivesNothing) {
    BackendRun run = tracedRun(false);
    run.trace.reset();
    const TimeAttribution time = attributeKernelTime(run);
    EXPECT_EQ(time.tracedNs, 0);
    EXPECT_TRUE(time.rows(TimeGrouping::Module).empty());
    EXPECT_TRUE(time.shareOfNodes(run.stages[1]).empty());
}

TEST(TimeAttribution, AStageWithoutKernelGroupsLeavesEveryEventUnlinked) {
    BackendRun run = tracedRun(true);
    run.stages[1].groups.clear();
    const TimeAttribution time = attributeKernelTime(run);
    EXPECT_DOUBLE_EQ(time.tracedNs, 437);
    EXPECT_DOUBLE_EQ(time.unattributedNs, 437);
    const auto rows = time.rows(TimeGrouping::Line);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].key, kNotLinked);
    EXPECT_DOUBLE_EQ(rows[0].share, 1.0);
}
