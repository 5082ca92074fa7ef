#include "analysis/RunDiff.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>

using namespace fusescope;

namespace {

// A post-fusion stage with one kernel per entry: {name, provenance}.
StageGraph kernelStage(const std::vector<std::pair<std::string, std::vector<std::string>>>& kernels,
                       int graph = 0) {
    StageGraph s;
    s.name = "post_fusion";
    s.graph = graph;
    s.fusion = "after";
    int n = 0;
    for (const auto& [name, provenance] : kernels) {
        FusionGroup g;
        g.id = name + ":" + std::to_string(n);
        g.name = name;
        g.kind = name.rfind("extern_", 0) == 0 ? "extern_kernel" : "kernel";
        g.provenance = provenance;
        GraphNode node;
        node.id = "op" + std::to_string(n++);
        node.name = "buf" + node.id;
        node.kind = "scheduler_node";
        node.group = g.id;
        g.nodes = {node.id};
        s.nodes.push_back(node);
        s.groups.push_back(g);
    }
    return s;
}

// Samples around `ms` with a repeating +-spread pattern (deterministic "noise").
std::vector<double> samples(double ms, double spread, int n = 60) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        out.push_back(ms * (1.0 + spread * ((i * 7 % 11) - 5) / 5.0));
    return out;
}

BackendRun runWith(std::vector<double> compiled, StageGraph stage) {
    BackendRun run;
    run.name = "inductor";
    run.status = RunStatus::Ok;
    run.compiledSamplesMs = std::move(compiled);
    run.eagerSamplesMs = samples(10, 0.01);
    run.compileSeconds = 4.0;
    run.peakMemoryBytes = 1000;
    run.stages.push_back(std::move(stage));
    return run;
}

// The interval [d_(k), d_(nm+1-k)] recomputed here from all pairwise log differences.
std::pair<double, double> intervalAtRank(const std::vector<double>& a, const std::vector<double>& b,
                                         size_t k) {
    std::vector<double> d;
    for (double x : a)
        for (double y : b)
            d.push_back(std::log(y) - std::log(x));
    std::sort(d.begin(), d.end());
    return {std::exp(d[k - 1]), std::exp(d[d.size() - k])};
}

std::vector<double> distinct(int n, double scale) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        out.push_back(scale * (1.0 + 0.013 * i + 0.0007 * i * i));
    return out;
}

} // namespace

TEST(RunDiff, SameSamplesAreATieWithRatioOne) {
    auto a = samples(5, 0.05);
    auto r = latencyRatio(a, a);
    ASSERT_TRUE(r);
    EXPECT_DOUBLE_EQ(r->ratio, 1.0);
    ASSERT_TRUE(r->low && r->high);
    EXPECT_LT(*r->low, 1.0);
    EXPECT_GT(*r->high, 1.0);
    const auto stage = kernelStage({{"k", {"a"}}});
    const auto d = diffBackends(runWith(a, stage), runWith(a, stage));
    EXPECT_EQ(d.verdict, DiffVerdict::Tie);
    EXPECT_TRUE(d.kernels.unchanged());
    EXPECT_EQ(d.kernels.matched.size(), 1u);
    EXPECT_DOUBLE_EQ(*d.compileRatio, 1.0);
    EXPECT_DOUBLE_EQ(*d.memoryRatio, 1.0);
}

// Table values of the two-sided 5 % Mann-Whitney test: U <= 23 rejects for n = m = 10, U <= 2 for
// n = m = 5, nothing for n = m = 3 (the smallest p is 0.1).
TEST(RunDiff, IntervalUsesTheMannWhitneyCriticalRank) {
    for (auto [n, k] : {std::pair<int, size_t>{10, 24}, {5, 3}}) {
        const auto a = distinct(n, 1.0), b = distinct(n, 1.03);
        const auto r = latencyRatio(a, b);
        ASSERT_TRUE(r && r->low && r->high) << n;
        const auto [low, high] = intervalAtRank(a, b, k);
        EXPECT_DOUBLE_EQ(*r->low, low) << n;
        EXPECT_DOUBLE_EQ(*r->high, high) << n;
    }
    const auto r = latencyRatio(distinct(3, 1.0), distinct(3, 2.0));
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->low);
    EXPECT_FALSE(r->high);
}

// Above n + m = 66 the normal approximation takes over; at the boundary it must agree with the
// exact rank within one.
TEST(RunDiff, NormalApproximationAgreesWithExactNearTheBoundary) {
    const auto a33 = distinct(33, 1.0), b33 = distinct(33, 1.01);
    const auto a34 = distinct(34, 1.0), b34 = distinct(34, 1.01);
    const auto exact = latencyRatio(a33, b33);
    const auto approx = latencyRatio(a34, b34);
    ASSERT_TRUE(exact && exact->low && approx && approx->low);
    // Same data pattern, one more sample each: the intervals are close.
    EXPECT_NEAR(*exact->low, *approx->low, 0.01);
    EXPECT_NEAR(*exact->high, *approx->high, 0.01);
}

TEST(RunDiff, ClearSlowdownIsSlowerAndSmallOneInsideTheSpreadIsATie) {
    const auto stage = kernelStage({{"k", {"a"}}});
    const auto slow = diffBackends(runWith(samples(5, 0.02), stage), runWith(samples(6, 0.02), stage));
    EXPECT_EQ(slow.verdict, DiffVerdict::Slower) << slow.sentence;
    EXPECT_NEAR(slow.latency->ratio, 1.2, 1e-9);
    EXPECT_GT(*slow.latency->low, 1.0);
    const auto fast = diffBackends(runWith(samples(6, 0.02), stage), runWith(samples(5, 0.02), stage));
    EXPECT_EQ(fast.verdict, DiffVerdict::Faster) << fast.sentence;
    // 2 % slower with +-10 % noise: the quartile ranges overlap, so no change is called.
    const auto noisy = diffBackends(runWith(samples(5, 0.10), stage), runWith(samples(5.1, 0.10), stage));
    EXPECT_EQ(noisy.verdict, DiffVerdict::Tie) << noisy.sentence;
    // Three samples each can never give a 95 % interval: a tie, however far apart.
    const auto few = diffBackends(runWith({5, 5.1, 5.2}, stage), runWith({9, 9.1, 9.2}, stage));
    EXPECT_EQ(few.verdict, DiffVerdict::Tie);
    EXPECT_NE(few.sentence.find("too few samples"), std::string::npos) << few.sentence;
    BackendRun none = runWith({}, stage);
    EXPECT_EQ(diffBackends(none, none).verdict, DiffVerdict::Unknown);
}

TEST(RunDiff, KernelsPairByTheNodesTheyCoverNotByName) {
    const auto a = kernelStage({{"cpp_fused_add_0", {"add", "mul"}},
                                {"cpp_fused_relu_1", {"relu"}},
                                {"cpp_fused_sum_2", {"sum"}},
                                {"extern_kernels.addmm", {"addmm"}}});
    const auto b = kernelStage({{"cpp_fused_mul_3", {"mul", "add"}},       // renumbered: matched
                                {"cpp_fused_relu_sum_0", {"relu", "sum"}}, // fused more
                                {"cpp_fused_exp_5", {"exp"}}});            // added
    const auto d = diffKernelStages(&a, &b);
    ASSERT_EQ(d.matched.size(), 1u);
    EXPECT_EQ(d.matched[0].a.name, "cpp_fused_add_0");
    EXPECT_EQ(d.matched[0].b.name, "cpp_fused_mul_3");
    ASSERT_EQ(d.changed.size(), 1u);
    EXPECT_EQ(d.changed[0].how, "fused more");
    EXPECT_EQ(d.changed[0].a.size(), 2u);
    EXPECT_EQ(d.changed[0].b.size(), 1u);
    EXPECT_EQ(d.changed[0].shared, (std::vector<std::string>{"relu", "sum"}));
    EXPECT_DOUBLE_EQ(d.changed[0].overlap(), 1.0);
    ASSERT_EQ(d.added.size(), 1u);
    EXPECT_EQ(d.added[0].name, "cpp_fused_exp_5");
    ASSERT_EQ(d.removed.size(), 1u);
    EXPECT_EQ(d.removed[0].name, "extern_kernels.addmm");

    // The other way round: one kernel split in two, one node dropped on the way.
    const auto back = diffKernelStages(&b, &a);
    ASSERT_EQ(back.changed.size(), 1u);
    EXPECT_EQ(back.changed[0].how, "fused less");
    const auto c = kernelStage({{"k_0", {"relu", "sum", "neg"}}});
    const auto e = kernelStage({{"k_0", {"relu"}}, {"k_1", {"sum"}}});
    const auto partial = diffKernelStages(&c, &e);
    ASSERT_EQ(partial.changed.size(), 1u);
    EXPECT_EQ(partial.changed[0].onlyA, (std::vector<std::string>{"neg"}));
    EXPECT_NEAR(partial.changed[0].overlap(), 2.0 / 3.0, 1e-12);
    EXPECT_TRUE(partial.matched.empty()); // same name k_0, different nodes: not a match
    // One kernel each, B's covering more: fused more; each with a node of its own: regrouped.
    const auto grown = kernelStage({{"k_9", {"relu", "sum", "neg"}}});
    EXPECT_EQ(diffKernelStages(&c, &grown).changed.size(), 0u); // same nodes: matched
    const auto more = kernelStage({{"k_9", {"relu", "sum", "neg", "exp"}}});
    EXPECT_EQ(diffKernelStages(&c, &more).changed.at(0).how, "fused more");
    EXPECT_EQ(diffKernelStages(&more, &c).changed.at(0).how, "fused less");
    const auto other = kernelStage({{"k_9", {"relu", "exp"}}});
    EXPECT_EQ(diffKernelStages(&c, &other).changed.at(0).how, "regrouped");
}

TEST(RunDiff, RepeatedExternCallsPairInOrderAndOriginsStandInForProvenance) {
    auto a = kernelStage({{"extern_kernels.addmm", {"addmm"}}, {"extern_kernels.addmm", {"addmm_1"}}});
    auto b = a;
    std::swap(b.groups[0].provenance, b.groups[1].provenance);
    EXPECT_EQ(diffKernelStages(&a, &b).matched.size(), 2u);
    // No provenance: the origins of the kernel's nodes identify it.
    auto c = kernelStage({{"k", {}}});
    c.nodes[0].origins = {"add", "mul"};
    auto e = kernelStage({{"k2", {"add", "mul"}}});
    EXPECT_EQ(diffKernelStages(&c, &e).matched.size(), 1u);
}

TEST(RunDiff, GraphsOnlyOneSideHasAreAddedAndBreaksAreCompared) {
    auto a = runWith(samples(5, 0.02), kernelStage({{"k", {"add"}}}));
    auto b = a;
    b.stages.push_back(kernelStage({{"k", {"add"}}, {"k2", {"mul"}}}, 1)); // same node names, graph 1
    a.breakReasons = {{"print", "m.py", 3, "", 0}, {"data-dependent", "m.py", 9, "", 0}};
    b.breakReasons = {{"print", "m.py", 3, "", 0}, {"unsupported call", "m.py", 12, "", 0}};
    const auto d = diffBackends(a, b);
    EXPECT_EQ(d.kernels.matched.size(), 1u);
    ASSERT_EQ(d.kernels.added.size(), 2u); // graph 1's add is not graph 0's add
    EXPECT_EQ(d.kernels.added[0].stage, "post_fusion#1");
    ASSERT_EQ(d.breaks.added.size(), 1u);
    EXPECT_EQ(d.breaks.added[0].reason, "unsupported call");
    ASSERT_EQ(d.breaks.removed.size(), 1u);
    EXPECT_EQ(d.breaks.removed[0].line, 9);
}

TEST(RunDiff, MatchedKernelsCarryTraceTimes) {
    auto withTrace = [](double kMs, double mmMs) {
        auto run = runWith(samples(5, 0.02),
                           kernelStage({{"cpp_fused_k_0", {"add"}}, {"extern_kernels.mm", {"mm"}}}));
        KernelTrace t;
        t.source = "cpu-profiler";
        t.tracks = {{0, "thread 1", TrackKind::CpuThread}};
        const int32_t k = t.internName("cpp_fused_k_0"), mm = t.internName("aten::mm");
        for (int it = 0; it < 2; ++it) {
            const int64_t base = it * 1'000'000;
            t.events.push_back({base, static_cast<int64_t>(kMs * 1e6), 0, k, EventKind::Kernel, 0, it});
            t.events.push_back(
                {base + 500'000, static_cast<int64_t>(mmMs * 1e6), 0, mm, EventKind::CpuOp, 0, it});
        }
        t.iterations = 2;
        t.finalize();
        run.trace = t;
        return run;
    };
    const auto d = diffBackends(withTrace(0.2, 0.1), withTrace(0.3, 0.1));
    ASSERT_EQ(d.kernels.matched.size(), 2u);
    for (const auto& m : d.kernels.matched) {
        ASSERT_TRUE(m.timeDeltaMs) << m.a.name;
        EXPECT_NEAR(*m.timeDeltaMs, m.a.name == "cpp_fused_k_0" ? 0.1 : 0.0, 1e-9) << m.a.name;
    }
}

// Three extern groups of one op (aten::addmm on the CPU profiler): the name links to all three,
// yet each call is linked to its own group (KernelLinks::eventGroup), so each extern kernel gets
// the time of its calls instead of none.
TEST(RunDiff, ExternKernelsSharingAnOpNameGetTheTimeOfTheirOwnCalls) {
    auto withTrace = [](double firstMs) {
        auto run = runWith(samples(5, 0.02), kernelStage({{"extern_kernels.addmm", {"addmm"}},
                                                          {"cpp_fused_relu_0", {"relu"}},
                                                          {"extern_kernels.addmm", {"addmm_1"}},
                                                          {"extern_kernels.addmm", {"addmm_2"}}}));
        KernelTrace t;
        t.source = "cpu-profiler";
        t.tracks = {{0, "thread 1", TrackKind::CpuThread}};
        const int32_t mm = t.internName("aten::addmm"), relu = t.internName("cpp_fused_relu_0");
        for (int it = 0; it < 2; ++it) {
            const int64_t base = it * 10'000'000;
            t.events.push_back({base, static_cast<int64_t>(firstMs * 1e6), 0, mm, EventKind::CpuOp, 0, it});
            t.events.push_back({base + 2'000'000, 100'000, 0, relu, EventKind::Kernel, 0, it});
            t.events.push_back({base + 3'000'000, 300'000, 0, mm, EventKind::CpuOp, 0, it});
            t.events.push_back({base + 4'000'000, 50'000, 0, mm, EventKind::CpuOp, 0, it});
        }
        t.iterations = 2;
        t.finalize();
        run.trace = t;
        return run;
    };
    const auto d = diffBackends(withTrace(0.4), withTrace(0.9));
    ASSERT_EQ(d.kernels.matched.size(), 4u);
    std::map<std::string, std::pair<double, double>> byNodes; // first node -> (time A, delta)
    for (const auto& m : d.kernels.matched) {
        ASSERT_TRUE(m.a.timeMs) << m.a.name << " " << m.a.nodes.at(0);
        ASSERT_TRUE(m.timeDeltaMs) << m.a.name;
        byNodes[m.a.nodes.at(0)] = {*m.a.timeMs, *m.timeDeltaMs};
    }
    EXPECT_NEAR(byNodes.at("addmm").first, 0.4, 1e-9);
    EXPECT_NEAR(byNodes.at("addmm").second, 0.5, 1e-9);
    EXPECT_NEAR(byNodes.at("addmm_1").first, 0.3, 1e-9);
    EXPECT_NEAR(byNodes.at("addmm_1").second, 0.0, 1e-9);
    EXPECT_NEAR(byNodes.at("addmm_2").first, 0.05, 1e-9);
    EXPECT_NEAR(byNodes.at("relu").first, 0.1, 1e-9);
    const auto j = toJson(d);
    for (const auto& m : j["kernels"]["matched"])
        EXPECT_TRUE(m["a"]["time_ms"].is_number()) << m.dump();
}

TEST(RunDiff, ReportsDiffByNameAndNameTheMissingBackend) {
    Report a;
    a.backends = {runWith(samples(5, 0.02), kernelStage({{"k", {"add"}}}))};
    a.backends.push_back(a.backends[0]);
    a.backends[1].name = "inductor{x=1}";
    Report b = a;
    b.backends.pop_back();
    auto all = diffReports(a, b, {}, {}, "a.fscope", "b.fscope");
    ASSERT_TRUE(all);
    EXPECT_EQ(all.value().backends.size(), 1u);
    EXPECT_EQ(all.value().onlyA, (std::vector<std::string>{"inductor{x=1}"}));
    auto two = diffReports(a, a, "inductor", "inductor{x=1}");
    ASSERT_TRUE(two);
    EXPECT_EQ(two.value().backends[0].nameB, "inductor{x=1}");
    auto missing = diffReports(a, b, "inductor", "tvm", "a.fscope", "b.fscope");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "diff_backend_missing");
    EXPECT_NE(missing.error().message.find("b.fscope has no backend 'tvm' (it has: inductor)"),
              std::string::npos)
        << missing.error().message;
    Report c;
    c.backends = {a.backends[1]};
    c.backends[0].name = "eager";
    EXPECT_EQ(diffReports(b, c).error().code, "diff_nothing_in_common");
    const auto j = toJson(all.value());
    EXPECT_EQ(j["backends"][0]["verdict"], "tie");
    EXPECT_EQ(j["backends"][0]["kernels"]["matched"].size(), 1u);
    EXPECT_TRUE(j["backends"][0]["latency_ratio_ci95"].is_array());
}
