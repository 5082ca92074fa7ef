#include "TestData.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace fusescope;

TEST(StageGraph, RoundTripKeepsEveryField) {
    const StageGraph original = testdata::fusedStage();
    const nlohmann::json j = original;
    const StageGraph back = codec::decodeStageGraph(j).value();
    ASSERT_EQ(back.nodes.size(), 3u);
    EXPECT_EQ(back.name, "post_fusion");
    EXPECT_EQ(back.fusion, "after");
    EXPECT_EQ(back.nodes[0].op, "aten.addmm.default");
    EXPECT_EQ(back.nodes[0].module, "blocks.0.mlp.fc1");
    EXPECT_EQ(back.nodes[0].moduleType, "torch.nn.Linear");
    ASSERT_TRUE(back.nodes[0].source.has_value());
    EXPECT_EQ(back.nodes[0].source->line, 12);
    EXPECT_EQ(back.nodes[1].shapes[0], (std::vector<std::string>{"4", "s0"}));
    EXPECT_EQ(back.nodes[2].group, "k1");
    EXPECT_EQ(back.edges.size(), 2u);
    ASSERT_EQ(back.groups.size(), 2u);
    EXPECT_EQ(back.groups[1].name, "cpp_fused_add_gelu_0");
    EXPECT_EQ(back.groups[1].provenance, (std::vector<std::string>{"mul", "erf", "add"}));
    // Serialising again gives the same document: nothing is lost or invented.
    EXPECT_EQ(nlohmann::json(back), j);
}

TEST(StageGraph, NumericSizesStayNumbersSymbolicStayStrings) {
    const nlohmann::json j = testdata::fusedStage();
    EXPECT_TRUE(j["nodes"][1]["shapes"][0][0].is_number_integer());
    EXPECT_TRUE(j["nodes"][1]["shapes"][0][1].is_string());
}

TEST(StageGraph, CountsComputeNodesAndKernels) {
    StageGraph s = testdata::fusedStage();
    s.nodes.push_back({"x", "x", "x", "placeholder", "input", {}, {}, "", "", {}, "", {}});
    EXPECT_EQ(s.computeNodeCount(), 3);
    EXPECT_EQ(s.kernelCount(), 2);
    s.graph = 2;
    EXPECT_EQ(s.key(), "post_fusion#2");
}

TEST(StageGraph, ToleratesMissingOptionalFields) {
    const auto j = nlohmann::json::parse(R"({"name":"dynamo_fx","nodes":[{"id":"a"}],"edges":[]})");
    const auto s = codec::decodeStageGraph(j).value();
    EXPECT_EQ(s.status, StageStatus::Ok);
    EXPECT_EQ(s.nodes[0].name, "a");
    EXPECT_TRUE(s.groups.empty());
}

TEST(StageGraph, UnsupportedStageKeepsReason) {
    const auto j = nlohmann::json::parse(
        R"({"name":"post_fusion","graph":0,"status":"unsupported","reason":"no _post_fusion_custom_pass in torch 2.1","nodes":[],"edges":[],"groups":[]})");
    const auto s = codec::decodeStageGraph(j).value();
    EXPECT_EQ(s.status, StageStatus::Unsupported);
    EXPECT_EQ(s.reason, "no _post_fusion_custom_pass in torch 2.1");
}
