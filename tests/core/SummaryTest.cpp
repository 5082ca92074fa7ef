#include "analysis/Summary.h"

#include "TestData.h"

#include <gtest/gtest.h>

using namespace fusescope;

TEST(Summary, SpeedupIsTheMedianPerIterationRatio) {
    const auto r = testdata::sampleReport();
    const auto speedup = speedupOverEager(r.backends[0]);
    ASSERT_TRUE(speedup.has_value());
    // Ratios 2.0, 2.0, 2.33, 1.9: median 2.0 (the ratio of the medians would be 2.05).
    EXPECT_NEAR(*speedup, 2.0, 1e-9);
    EXPECT_FALSE(speedupOverEager(r.backends[1]).has_value());
}

TEST(Summary, HasTheDocumentedFields) {
    const auto j = summaryJson(testdata::sampleReport());
    for (const char* key : {"schema", "model", "device", "torch", "backends"})
        EXPECT_TRUE(j.contains(key)) << key;
    const auto& b = j["backends"][0];
    for (const char* key : {"name", "status", "error", "compile_s", "latency_ms", "speedup_vs_eager",
                            "peak_memory_bytes", "accuracy", "graphs", "graph_breaks", "stages"})
        EXPECT_TRUE(b.contains(key)) << key;
    for (const char* key : {"median", "iqr", "min", "n"})
        EXPECT_TRUE(b["latency_ms"].contains(key)) << key;
    for (const char* key : {"max_abs", "max_rel", "cosine", "pass"})
        EXPECT_TRUE(b["accuracy"].contains(key)) << key;
    EXPECT_EQ(b["status"], "ok");
    EXPECT_EQ(b["latency_ms"]["n"], 4);
    EXPECT_EQ(b["stages"][0]["name"], "pre_fusion");
    EXPECT_EQ(b["stages"][0]["nodes"], 3);
    EXPECT_TRUE(b["stages"][0]["kernels"].is_null());
    EXPECT_EQ(b["stages"][1]["kernels"], 2);
    EXPECT_EQ(b["nodes_before_fusion"], 3);
    EXPECT_EQ(b["kernels_after_fusion"], 2);
    const auto& u = j["backends"][1];
    EXPECT_EQ(u["status"], "unavailable");
    EXPECT_NE(u["error"].get<std::string>().find("apache-tvm"), std::string::npos);
    EXPECT_TRUE(u["latency_ms"].is_null());
}

TEST(Summary, CompletionTellsCompleteFromPartial) {
    auto r = testdata::sampleReport();
    EXPECT_EQ(completionOf(r), Completion::Partial);
    r.backends.pop_back();
    EXPECT_EQ(completionOf(r), Completion::Complete);
    r.backends[0].status = RunStatus::Failed;
    EXPECT_EQ(completionOf(r), Completion::Failed);
}

TEST(Summary, RunningOrCancelledRunsAreReportedAsFailed) {
    auto r = testdata::sampleReport();
    r.backends[0].status = RunStatus::Cancelled;
    EXPECT_EQ(summaryJson(r)["backends"][0]["status"], "failed");
}

TEST(Summary, NodesBeforeFusionComeFromTheLastStageBeforeFusionOfEachGraph) {
    auto r = testdata::sampleReport();
    auto& run = r.backends[0];
    StageGraph dynamo;
    dynamo.name = "dynamo_fx";
    dynamo.fusion = "before";
    for (int i = 0; i < 7; ++i)
        dynamo.nodes.push_back(
            {"d" + std::to_string(i), "", "op", "call_function", "", {}, {}, "", "", {}, "", {}});
    run.stages.insert(run.stages.begin(), dynamo);
    EXPECT_EQ(nodesBeforeFusion(run), 3); // pre_fusion, not the Dynamo graph before it
    StageGraph second = dynamo;
    second.graph = 1; // a second Dynamo graph after a break, without Inductor stages
    run.stages.push_back(second);
    EXPECT_EQ(nodesBeforeFusion(run), 10);
    EXPECT_EQ(kernelsAfterFusion(run), 2);
}

#include "model/BackendEntry.h"

TEST(CompileOptions, InductorConfigValuesAreJsonOrStrings) {
    auto config =
        parseInductorConfig({"epilogue_fusion=false", " max_autotune_gemm_backends = ATEN ", "x=3"});
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(config.value()["epilogue_fusion"], false);
    EXPECT_EQ(config.value()["max_autotune_gemm_backends"], "ATEN");
    EXPECT_EQ(config.value()["x"], 3);
    auto bad = parseInductorConfig({"novalue"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("novalue"), std::string::npos);
}
