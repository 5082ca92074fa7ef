// The `deployment` object of an artifact backend (docs/protocol.md, docs/libtorch.md
// "Deployment"): decoded from a runner result, written to and read back from a report, in the
// summary JSON and the lines `show` and the GUI's details print; a report written before it
// (the checked-in fixture) still reads, and writes back without it.
#include "analysis/Deployment.h"

#include "TestData.h"
#include "analysis/Summary.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "report/ReportFile.h"

#include <gtest/gtest.h>

using namespace fusescope;
using nlohmann::json;

namespace {

json deploymentJson() {
    return {{"artifact", "model.pt2"},
            {"loader", "torch::inductor::AOTIModelPackageLoader"},
            {"artifact_bytes", 2'500'000},
            {"eager_model_bytes", 1'250'000},
            {"load_s", 0.012},
            {"first_call_s", 0.0004},
            {"process_s", 0.8},
            {"fresh_processes", 3},
            {"load_samples_s", {0.011, 0.012, 0.020}},
            {"first_call_samples_s", {0.0004, 0.0004, 0.0005}},
            {"file_cache", "warm"},
            {"file_cache_resident", 1.0}};
}

json resultMessage(json deployment) {
    return {{"type", "result"},  {"backend", "aot_inductor"}, {"status", "ok"},
            {"compile_s", 12.0}, {"first_call_s", 0.001},     {"deployment", std::move(deployment)}};
}

} // namespace

TEST(Deployment, DecodesFromAResultAndRoundTripsThroughAReport) {
    Report report = testdata::sampleReport();
    BackendRun& run = report.backends[0];
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(deploymentJson()), run));
    ASSERT_TRUE(run.deployment);
    EXPECT_EQ(run.deployment->artifact, "model.pt2");
    EXPECT_EQ(run.deployment->artifactBytes, 2'500'000);
    EXPECT_EQ(run.deployment->eagerModelBytes, 1'250'000);
    EXPECT_EQ(run.deployment->loadSeconds, 0.012);
    EXPECT_EQ(run.deployment->freshProcesses, 3);
    EXPECT_EQ(run.deployment->loadSamplesSeconds.size(), 3u);
    EXPECT_EQ(run.deployment->fileCache, "warm");

    auto back = parseReport(codec::dumpJson(json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().backends[0].deployment, run.deployment);

    const json summary = summaryJson(back.value())["backends"][0]["deployment"];
    EXPECT_EQ(summary["artifact_bytes"], 2'500'000);
    EXPECT_EQ(summary["eager_model_bytes"], 1'250'000);
    EXPECT_EQ(summary["load_s"], 0.012);
    EXPECT_EQ(summary["first_call_s"], 0.0004);
    EXPECT_EQ(summary["file_cache"], "warm");
    EXPECT_FALSE(summary.contains("error"));
}

TEST(Deployment, AReportWrittenBeforeItReadsAndWritesBackWithoutIt) {
    auto old = readReport(FUSESCOPE_SOURCE_DIR "/tests/fixtures/reports/good.fscope");
    ASSERT_TRUE(old.ok()) << old.error().message;
    ASSERT_FALSE(old.value().backends.empty());
    for (const auto& run : old.value().backends) {
        EXPECT_FALSE(run.deployment) << run.name;
        EXPECT_TRUE(deploymentLines(run).empty());
    }
    const json written = json(old.value());
    for (const auto& b : written["backends"])
        EXPECT_FALSE(b.contains("deployment"));
    const json summary = summaryJson(old.value()); // a named copy: a range-for over a member of
    for (const auto& b : summary["backends"])      // the temporary read it after it was freed (ASan)
        EXPECT_TRUE(b["deployment"].is_null());
}

TEST(Deployment, BadMembersAreRefusedWithTheirPath) {
    BackendRun run;
    json negative = deploymentJson();
    negative["artifact_bytes"] = -5;
    auto status = codec::decodeRunResult(resultMessage(negative), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("deployment.artifact_bytes"), std::string::npos) << status->message;

    json text = deploymentJson();
    text["load_s"] = "12 ms";
    status = codec::decodeRunResult(resultMessage(text), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("deployment.load_s"), std::string::npos) << status->message;

    json fraction = deploymentJson();
    fraction["file_cache_resident"] = 1.5;
    EXPECT_TRUE(codec::decodeRunResult(resultMessage(fraction), run, "result"));
    EXPECT_TRUE(codec::decodeRunResult(resultMessage(json::array({1})), run, "result"));
}

TEST(Deployment, LinesGiveSizesRatioLoadAndCache) {
    BackendRun run;
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(deploymentJson()), run));
    const auto lines = deploymentLines(run);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NE(lines[0].find("artifact model.pt2"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("2.00x"), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("load 12.000 ms"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("median of 3 fresh processes"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("warm (100 %"), std::string::npos) << lines[2];

    // Sizes known, loads not: the reason is shown, no load line is invented.
    json failed = deploymentJson();
    failed.erase("load_s");
    failed["error"] = "a fresh runner process crashed";
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(failed), run));
    const auto some = deploymentLines(run);
    ASSERT_EQ(some.size(), 2u);
    EXPECT_NE(some[1].find("load not measured: a fresh runner process crashed"), std::string::npos)
        << some[1];
}
