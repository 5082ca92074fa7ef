// Each traced kernel against the machine's roofs, and bytes per call against eager's
// (core/analysis/Roofline.h, docs/roofline.md), on scripted stages and traces with the expected
// numbers worked out by hand; and the records' codecs (group/stage `cost`, run `roofs`).
#include "analysis/Roofline.h"

#include "capture/SessionPlan.h"
#include "codec/Json.h"
#include "codec/MessageCodec.h"
#include "codec/RunCodec.h"
#include "codec/StageCodec.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

KernelCost cost(int64_t bytes, int64_t flops, int64_t eager, const std::string& dtype = "float32") {
    KernelCost c;
    c.bytes = bytes;
    c.bytesRead = bytes / 2;
    c.bytesWritten = bytes - bytes / 2;
    c.bytesSource = "inductor_buffers";
    c.flops = flops;
    c.flopsMatrix = dtype == "float32" && flops > 1000 ? flops : 0;
    c.flopsPointwise = *c.flops - *c.flopsMatrix;
    c.eagerBytes = eager;
    c.dtype = dtype;
    return c;
}

FusionGroup group(const std::string& name, const std::string& kind, int handle, std::optional<KernelCost> c) {
    FusionGroup g;
    g.id = name + ":" + std::to_string(handle);
    g.name = name;
    g.kind = kind;
    g.nodes = {"op" + std::to_string(handle)};
    g.provenance = {"fx" + std::to_string(handle)};
    g.cost = std::move(c);
    return g;
}

Roofs roofs() {
    Roofs r;
    r.bandwidthGbs = 20.0;           // 20 bytes per ns
    r.gflops = {{"float32", 100.0}}; // ridge: 5 FLOPs per byte
    r.unmeasured = {{"bfloat16", "this CPU has no bfloat16 support"}};
    r.method = "STREAM copy and triad; square matmul";
    r.measuredAt = "2026-12-07T05:00:00+00:00";
    r.threads = 1;
    r.cache = "miss";
    return r;
}

// A pointwise kernel (10 us per call, 100000 bytes, 20000 FLOPs: 10 GB/s, 2 GFLOP/s, 0.2 FLOP/B,
// memory-bound: 10/20 of the roof), an addmm (100 us, 40000 bytes, 8e6 FLOPs: 80 GFLOP/s, 200
// FLOP/B, compute-bound: 80/100), a bf16 kernel with no measured bf16 roof, and an op the trace
// has that no group runs.
BackendRun tracedRun() {
    BackendRun run;
    run.name = "inductor";
    StageGraph after;
    after.name = "post_fusion";
    after.fusion = "after";
    for (int i = 1; i <= 3; ++i) {
        GraphNode n;
        n.id = "op" + std::to_string(i);
        n.kind = "scheduler_node";
        after.nodes.push_back(n);
    }
    after.groups = {group("cpp_fused_gelu_0", "kernel", 1, cost(100000, 20000, 300000)),
                    group("extern_kernels.addmm", "extern_kernel", 2, cost(40000, 8000000, 40000)),
                    group("cpp_fused_bf16_1", "kernel", 3, cost(1000, 500000, 1000, "bfloat16"))};
    KernelCost total;
    total.bytes = 141000;
    total.eagerBytes = 341000;
    total.flopsMatrix = 8000000;
    total.flopsPointwise = 520000;
    after.cost = total;
    run.stages = {after};
    KernelTrace t;
    t.source = "cpu-profiler";
    int64_t at = 0;
    const std::vector<std::pair<std::string, int64_t>> calls = {{"cpp_fused_gelu_0", 10000},
                                                                {"aten::addmm", 100000},
                                                                {"cpp_fused_bf16_1", 1000},
                                                                {"aten::copy_", 500}};
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
    run.roofs = roofs();
    return run;
}

const KernelRoofline* find(const BackendRoofline& b, const std::string& name) {
    for (const auto& k : b.kernels)
        if (k.name == name)
            return &k;
    return nullptr;
}

BackendRoofline rooflineOf(const BackendRun& run) {
    const KernelLinks links = linkKernelsToGroups(*run.trace, afterFusionStages(run));
    return computeRoofline(run, &links);
}

} // namespace

TEST(Roofline, MemoryBoundKernelAgainstTheBandwidthRoof) {
    const BackendRun run = tracedRun();
    const BackendRoofline b = rooflineOf(run);
    const KernelRoofline* k = find(b, "cpp_fused_gelu_0");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->calls, 2);
    EXPECT_DOUBLE_EQ(k->timeMs, 0.01);
    EXPECT_NEAR(*k->gbs, 10.0, 1e-9);
    EXPECT_NEAR(*k->gflops, 2.0, 1e-9);
    EXPECT_NEAR(*k->intensity, 0.2, 1e-12);
    EXPECT_EQ(k->bound, "memory");
    EXPECT_NEAR(*k->roofFraction, 0.5, 1e-9); // 2 GFLOP/s of min(100, 0.2 x 20) = 4
    EXPECT_EQ(k->bytesSource, "inductor_buffers");
    EXPECT_EQ(*k->eagerBytes, 300000);
    EXPECT_TRUE(k->unknownReason.empty()) << k->unknownReason;
}

TEST(Roofline, ComputeBoundExternKernelAgainstItsDtypesPeak) {
    const BackendRoofline b = rooflineOf(tracedRun());
    const KernelRoofline* k = find(b, "extern_kernels.addmm");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->kind, "extern_kernel");
    EXPECT_NEAR(*k->gflops, 80.0, 1e-9);
    EXPECT_NEAR(*k->intensity, 200.0, 1e-9);
    EXPECT_EQ(k->bound, "compute");
    EXPECT_NEAR(*k->roofFraction, 0.8, 1e-9);
    EXPECT_EQ(b.kernels.front().name, "extern_kernels.addmm"); // the most time first
}

TEST(Roofline, WhatCannotBeComputedSaysWhyAndIsNotEstimated) {
    const BackendRoofline b = rooflineOf(tracedRun());
    const KernelRoofline* bf16 = find(b, "cpp_fused_bf16_1");
    ASSERT_NE(bf16, nullptr);
    EXPECT_TRUE(bf16->gbs.has_value()); // the rates are measured facts
    EXPECT_FALSE(bf16->roofFraction.has_value());
    EXPECT_TRUE(bf16->bound.empty());
    EXPECT_NE(bf16->unknownReason.find("bfloat16 compute roof"), std::string::npos) << bf16->unknownReason;
    const KernelRoofline* copy = find(b, "aten::copy_");
    ASSERT_NE(copy, nullptr);
    EXPECT_FALSE(copy->bytes.has_value());
    EXPECT_FALSE(copy->gbs.has_value());
    EXPECT_NE(copy->unknownReason.find("not linked"), std::string::npos);
}

TEST(Roofline, NoRoofsLeavesFractionsOutWithTheWorkersReason) {
    BackendRun run = tracedRun();
    run.roofs = Roofs{};
    run.roofs->error = "skipped: the request said capture.roofs = skip (--no-roofs)";
    const BackendRoofline b = rooflineOf(run);
    for (const auto& k : b.kernels) {
        EXPECT_FALSE(k.roofFraction.has_value()) << k.name;
        EXPECT_FALSE(k.unknownReason.empty()) << k.name;
    }
    EXPECT_NE(find(b, "cpp_fused_gelu_0")->unknownReason.find("--no-roofs"), std::string::npos);
}

TEST(Roofline, BytesPerCallAgainstEagerFromTheStageTotals) {
    BackendRun run = tracedRun();
    BackendRoofline b = computeRoofline(run, nullptr);
    EXPECT_FALSE(b.traced);
    EXPECT_TRUE(b.kernels.empty());
    ASSERT_TRUE(b.bytesPerCall && b.eagerBytesPerCall);
    EXPECT_EQ(*b.bytesPerCall, 141000);
    EXPECT_NEAR(*b.bytesRatio(), 141000.0 / 341000.0, 1e-12);
    // A stage from an older worker: totals unknown, and it says so.
    run.stages[0].cost.reset();
    b = computeRoofline(run, nullptr);
    EXPECT_FALSE(b.bytesPerCall.has_value());
    EXPECT_NE(b.bytesUnknownReason.find("older worker"), std::string::npos) << b.bytesUnknownReason;
    // A backend that fuses nothing.
    BackendRun eager;
    eager.name = "eager";
    EXPECT_FALSE(computeRoofline(eager, nullptr).bytesPerCall.has_value());
}

TEST(Roofline, PureCopyIsHeldToTheBandwidthRoof) {
    KernelRoofline k;
    k.bytes = 2'000'000;
    k.flops = 0;
    k.timeMs = 0.2; // 10 GB/s
    Roofs r = roofs();
    applyRoofs(k, &r);
    EXPECT_EQ(k.bound, "memory");
    EXPECT_NEAR(*k.roofFraction, 0.5, 1e-9);
    EXPECT_NEAR(*k.intensity, 0.0, 1e-12);
}

TEST(Roofline, AboveTheMemoryRoofSaysTheBytesWereInCache) {
    KernelRoofline k;
    k.bytes = 100'000;
    k.flops = 0;
    k.timeMs = 0.0025; // 40 GB/s against a 20 GB/s roof
    Roofs r = roofs();
    r.samples["stream"] = {{"last_level_cache_bytes", 32 << 20}};
    applyRoofs(k, &r);
    noteAboveRoof(k, r);
    EXPECT_NEAR(*k.roofFraction, 2.0, 1e-9);
    EXPECT_NE(k.note.find("caches"), std::string::npos);
    EXPECT_NE(k.note.find("32 MiB"), std::string::npos) << k.note;
}

TEST(RooflineCodec, GroupAndStageCostsAndCopiedFromGraphRoundTrip) {
    const BackendRun run = tracedRun();
    StageGraph stage = run.stages[0];
    stage.copiedFromGraph = 0;
    stage.graph = 1;
    stage.groups[0].cost->unknownReason = "node x has a symbolic size";
    stage.groups[1].cost->flops.reset();
    const nlohmann::json j = stage;
    auto back = codec::decodeStageGraph(j);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back.value().copiedFromGraph, std::optional<int>(0));
    ASSERT_EQ(back.value().groups.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
        EXPECT_EQ(back.value().groups[i].cost, stage.groups[i].cost) << i;
    EXPECT_EQ(back.value().cost, stage.cost);
    EXPECT_TRUE(j["groups"][1]["cost"]["flops"].is_null());
}

TEST(RooflineCodec, NegativeBytesFailNamingTheField) {
    nlohmann::json j = tracedRun().stages[0];
    j["groups"][0]["cost"]["bytes"] = -5;
    auto back = codec::decodeStageGraph(j, "r.fscope");
    ASSERT_FALSE(back);
    EXPECT_NE(back.error().message.find("bytes"), std::string::npos) << back.error().message;
    EXPECT_NE(back.error().message.find("groups"), std::string::npos) << back.error().message;
}

TEST(RooflineCodec, RoofsRoundTripAndRejectANonPositiveRate) {
    BackendRun run = tracedRun();
    run.roofs->samples["stream"] = {{"copy_gbs", {19.5, 20.0}}};
    run.roofs->seconds = 2.1;
    const nlohmann::json j = run;
    auto back = codec::decodeBackendRun(j);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back.value().roofs.has_value());
    EXPECT_EQ(*back.value().roofs, *run.roofs);

    nlohmann::json bad = j;
    bad["roofs"]["gflops"]["float32"] = 0;
    auto refused = codec::decodeBackendRun(bad, "r.fscope");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("float32"), std::string::npos) << refused.error().message;

    Roofs skipped;
    skipped.error = "skipped";
    run.roofs = skipped;
    auto none = codec::decodeBackendRun(nlohmann::json(run));
    ASSERT_TRUE(none);
    EXPECT_EQ(none.value().roofs->error, "skipped");
    EXPECT_FALSE(none.value().roofs->bandwidthGbs.has_value());
}

TEST(Roofline, ByTraceNameSumsTheGroupsOfOneName) {
    BackendRun run = tracedRun();
    // A second addmm group (another size), run by the same traced name aten::addmm.
    run.stages[0].groups.push_back(
        group("extern_kernels.addmm", "extern_kernel", 4, cost(20000, 2000000, 20000)));
    GraphNode n;
    n.id = "op4";
    run.stages[0].nodes.push_back(n);
    KernelTrace& t = *run.trace;
    TraceEvent e;
    e.name = t.internName("aten::addmm");
    e.kind = EventKind::CpuOp;
    for (int iteration = 0; iteration < 2; ++iteration) {
        e.startNs = 10'000'000 + iteration * 1'000'000; // after every other event of its iteration
        e.durationNs = 50000;
        e.iteration = iteration;
        t.events.push_back(e);
    }
    t.finalize();
    const BackendRoofline b = rooflineOf(run);
    const auto rows = rooflineByTraceName(b, &*run.roofs);
    const KernelRoofline* addmm = nullptr;
    for (const auto& r : rows)
        if (r.traceName == "aten::addmm")
            addmm = &r;
    ASSERT_NE(addmm, nullptr);
    EXPECT_EQ(addmm->calls, 4);
    EXPECT_NEAR(addmm->timeMs, 0.075, 1e-12);             // (2 x 100 + 2 x 50) us / 4
    EXPECT_EQ(*addmm->bytes, 30000);                      // (2 x 40000 + 2 x 20000) / 4
    EXPECT_NEAR(*addmm->gflops, 5e6 / 75e-6 / 1e9, 1e-6); // 5e6 FLOPs per call in 75 us
    EXPECT_EQ(addmm->bound, "compute");
    const KernelRoofline* copy = nullptr;
    for (const auto& r : rows)
        if (r.traceName == "aten::copy_")
            copy = &r;
    ASSERT_NE(copy, nullptr);
    EXPECT_FALSE(copy->bytes.has_value());
    EXPECT_NE(copy->unknownReason.find("not linked"), std::string::npos);
}

TEST(RooflineCodec, TheRequestCarriesTheRoofsChoice) {
    RunRequest request;
    request.model = "demo:mlp";
    request.backend = "inductor";
    request.captureTrace = true;
    EXPECT_EQ(codec::encodeRunRequest(request, "r1")["capture"]["roofs"], "cached");
    request.roofs = "measure";
    EXPECT_EQ(codec::encodeRunRequest(request, "r1")["capture"]["roofs"], "measure");
    CompareSettings settings;
    settings.model = "demo:mlp";
    settings.backends = {"inductor"};
    settings.captureTrace = true;
    settings.roofs = "skip";
    auto plan = planSession(settings);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan.value().base.roofs, "skip");
}
