// compile_s, capture_s, warm_compile_s and compile_breakdown (docs/measurement.md "Compile time"):
// decoded from a worker result, written to and read back from a report, in the summary JSON and
// the text `show` and the GUI's details print; older reports without them still load.
#include "analysis/CompileTime.h"

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

json resultMessage() {
    return {
        {"type", "result"},
        {"backend", "inductor"},
        {"status", "ok"},
        {"compile_s", 10.0},
        {"first_call_s", 10.0},
        {"compile_capture_overhead_s", 0.01},
        {"capture_s", 0.3},
        {"warm_compile_s", 0.9},
        // a JSON object comes back sorted by name: the decoder puts the phases in order
        {"compile_breakdown",
         {{"unaccounted", 0.05},
          {"kernel_compilation", 8.0},
          {"dynamo_tracing", 1.0},
          {"a_phase_of_a_newer_worker", 0.45},
          {"first_run", 0.5}}},
        {"compile_breakdown_graphs",
         {{{"compile_id", "0/0"},
           {"phases", {{"dynamo_tracing", 1.0}, {"kernel_compilation", 8.0}}},
           {"total_s", 9.0}},
          {{"compile_id", "1/0"}, {"phases", {{"a_phase_of_a_newer_worker", 0.45}}}, {"total_s", 0.45}}}}};
}

std::vector<std::string> names(const std::vector<CompilePhase>& phases) {
    std::vector<std::string> out;
    for (const auto& p : phases)
        out.push_back(p.name);
    return out;
}

} // namespace

TEST(CompileTime, ResultFieldsDecodeInPhaseOrderAndRoundTripThroughAReport) {
    Report report = testdata::sampleReport();
    BackendRun& run = report.backends[0];
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(), run));
    EXPECT_EQ(run.captureSeconds, 0.3);
    EXPECT_EQ(run.warmCompileSeconds, 0.9);
    EXPECT_EQ(names(run.compileBreakdown),
              (std::vector<std::string>{"dynamo_tracing", "kernel_compilation", "first_run", "unaccounted",
                                        "a_phase_of_a_newer_worker"}));
    ASSERT_EQ(run.graphCompileBreakdown.size(), 2u);
    EXPECT_EQ(run.graphCompileBreakdown[1].compileId, "1/0");
    EXPECT_EQ(run.graphCompileBreakdown[0].totalSeconds, 9.0);
    EXPECT_EQ(names(run.graphCompileBreakdown[0].phases),
              (std::vector<std::string>{"dynamo_tracing", "kernel_compilation"}));

    auto back = parseReport(codec::dumpJson(json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    const BackendRun& read = back.value().backends[0];
    EXPECT_EQ(read.captureSeconds, run.captureSeconds);
    EXPECT_EQ(read.warmCompileSeconds, run.warmCompileSeconds);
    EXPECT_EQ(read.compileBreakdown, run.compileBreakdown);
    EXPECT_EQ(read.graphCompileBreakdown, run.graphCompileBreakdown);

    const json summary = summaryJson(back.value())["backends"][0];
    EXPECT_EQ(summary["capture_s"], 0.3);
    EXPECT_EQ(summary["warm_compile_s"], 0.9);
    EXPECT_EQ(summary["compile_breakdown"]["kernel_compilation"], 8.0);
    EXPECT_EQ(summary["compile_breakdown_graphs"][0]["compile_id"], "0/0");
    EXPECT_EQ(summary["compile_breakdown_graphs"][1]["phases"]["a_phase_of_a_newer_worker"], 0.45);
}

TEST(CompileTime, ReportsWithoutTheFieldsLoadAndWriteBackWithoutThem) {
    const Report report = testdata::sampleReport();
    const json written = json(report);
    for (const char* key : {"capture_s", "warm_compile_s", "compile_breakdown", "compile_breakdown_graphs"})
        EXPECT_FALSE(written["backends"][0].contains(key)) << key;
    auto back = parseReport(codec::dumpJson(written), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    const BackendRun& read = back.value().backends[0];
    EXPECT_FALSE(read.captureSeconds || read.warmCompileSeconds);
    EXPECT_TRUE(read.compileBreakdown.empty() && read.graphCompileBreakdown.empty());
    const json summary = summaryJson(back.value())["backends"][0];
    EXPECT_TRUE(summary["capture_s"].is_null() && summary["compile_breakdown"].is_null());
    EXPECT_TRUE(compileTimeLines(BackendRun{}).empty());
}

TEST(CompileTime, WhichCompileCapturedRoundTripsAndIsSaid) {
    json message = resultMessage();
    message.erase("capture_s");
    message["capture_from"] = "timed_compile";
    message["capture_from_reason"] = nullptr;
    BackendRun run;
    ASSERT_FALSE(codec::decodeRunResult(message, run));
    EXPECT_EQ(run.captureFrom, "timed_compile");
    auto lines = compileTimeLines(run);
    EXPECT_NE(lines[0].find("this compile captured the stages, FuseScope's hooks 0.01 s of it"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(lines[0].find("plain torch.compile"), std::string::npos) << lines[0];

    Report report = testdata::sampleReport();
    report.backends[0] = run;
    auto back = parseReport(codec::dumpJson(json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().backends[0].captureFrom, "timed_compile");
    EXPECT_EQ(summaryJson(back.value())["backends"][0]["capture_from"], "timed_compile");

    message = resultMessage();
    message["capture_from"] = "second_compile";
    message["capture_from_reason"] = "options.cache = warm: a hit skips every hook";
    BackendRun apart;
    ASSERT_FALSE(codec::decodeRunResult(message, apart));
    lines = compileTimeLines(apart);
    EXPECT_NE(lines[0].find("capture 0.30 s (a separate compile"), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("stages from a second compile: options.cache = warm"), std::string::npos)
        << lines[1];

    message["capture_from"] = "the third";
    const auto status = codec::decodeRunResult(message, apart, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("capture_from"), std::string::npos) << status->message;
}

TEST(CompileTime, BadBreakdownsAreRefusedWithTheirPath) {
    BackendRun run;
    json negative = resultMessage();
    negative["compile_breakdown"]["dynamo_tracing"] = -1.0;
    auto status = codec::decodeRunResult(negative, run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("compile_breakdown.dynamo_tracing"), std::string::npos) << status->message;
    EXPECT_NE(status->message.find(">= 0"), std::string::npos) << status->message;

    json text = resultMessage();
    text["compile_breakdown_graphs"][0]["phases"]["kernel_compilation"] = "8 s";
    status = codec::decodeRunResult(text, run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("compile_breakdown_graphs[0].phases.kernel_compilation"),
              std::string::npos)
        << status->message;

    json array = resultMessage();
    array["compile_breakdown"] = json::array({1.0});
    EXPECT_TRUE(codec::decodeRunResult(array, run, "result"));
}

TEST(CompileTime, LinesNameEachPhaseWithItsShareAndWhatTheTimersCover) {
    BackendRun run;
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(), run));
    const auto lines = compileTimeLines(run);
    ASSERT_EQ(lines.size(), 1u + run.compileBreakdown.size() + 1u);
    EXPECT_NE(lines[0].find("compile 10.00 s (plain torch.compile, first call)"), std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("warm caches 0.90 s"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("capture 0.30 s"), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("Dynamo tracing"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("C++/Triton compilation"), std::string::npos) << lines[2];
    EXPECT_NE(lines[2].find("80 %"), std::string::npos) << lines[2];
    EXPECT_NE(lines[5].find("a_phase_of_a_newer_worker"), std::string::npos) << lines[5]; // unknown: its name
    // timed phases: all but first_run and unaccounted = 1 + 8 + 0.45 of 10 s
    EXPECT_DOUBLE_EQ(timedPhaseSeconds(run.compileBreakdown), 9.45);
    EXPECT_NE(lines.back().find("cover 94 %"), std::string::npos) << lines.back();
}

namespace {

// A tvm{tune=N} result as tvm_relax/tuning.py writes it (docs/protocol.md `tvm_tuning`).
json tunedResult(json tuning) {
    return {{"type", "result"},
            {"backend", "tvm{tune=4}"},
            {"status", "ok"},
            {"compile_s", 3.0},
            {"first_call_s", 38.0},
            {"tune_s", 35.0},
            {"tvm_tuning", std::move(tuning)}};
}

json tuningJson() {
    return {
        {"trials_requested", 4},
        {"tasks", 5},
        {"key", "ab12"},
        {"dir", "/cache/tvm-tuning/ab12"},
        {"method", "MetaSchedule (evolutionary search, random cost model, in-process builder and runner)"},
        {"cache", "miss"},
        {"trials", 4},
        {"tuned_tasks", 3},
        {"tune_s", 35.0}};
}

} // namespace

TEST(CompileTime, TuningDecodesRoundTripsAndIsShownApartFromCompile) {
    Report report = testdata::sampleReport();
    BackendRun& run = report.backends[0];
    ASSERT_FALSE(codec::decodeRunResult(tunedResult(tuningJson()), run));
    ASSERT_TRUE(run.tuning);
    EXPECT_EQ(run.tuning->trials, 4);
    EXPECT_EQ(run.tuning->tunedTasks, 3);
    EXPECT_EQ(run.tuning->cache, "miss");
    EXPECT_DOUBLE_EQ(run.tuning->seconds, 35.0);
    EXPECT_DOUBLE_EQ(*run.compileSeconds, 3.0); // tuning is not compile time

    auto back = parseReport(codec::dumpJson(json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().backends[0].tuning, run.tuning);
    const json summary = summaryJson(back.value());
    EXPECT_EQ(summary["backends"][0]["tvm_tuning"]["tune_s"], 35.0);
    EXPECT_EQ(summary["backends"][0]["tvm_tuning"]["cache"], "miss");
    EXPECT_TRUE(summary["backends"][1]["tvm_tuning"].is_null());

    const auto lines = compileTimeLines(run);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_NE(
        lines[1].find("tuning 35.00 s (MetaSchedule, not in compile): 4 of 4 trials, 3 of 5 kernels tuned, "
                      "cache miss"),
        std::string::npos)
        << lines[1];

    json hit = tuningJson();
    hit["cache"] = "hit";
    hit["trials"] = 0;
    hit["trials_when_tuned"] = 4;
    hit["tune_s"] = 0.4;
    BackendRun cached;
    ASSERT_FALSE(codec::decodeRunResult(tunedResult(hit), cached));
    const auto hitLines = compileTimeLines(cached);
    ASSERT_GE(hitLines.size(), 2u);
    EXPECT_NE(hitLines[1].find("from the tuning cache, tuned earlier with tune=4 (4 trials)"),
              std::string::npos)
        << hitLines[1];
}

TEST(CompileTime, BadTuningIsRefusedWithItsPath) {
    BackendRun run;
    json negative = tuningJson();
    negative["tune_s"] = -1;
    auto status = codec::decodeRunResult(tunedResult(negative), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("tvm_tuning.tune_s"), std::string::npos) << status->message;
    json trials = tuningJson();
    trials["trials"] = "four";
    status = codec::decodeRunResult(tunedResult(trials), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("tvm_tuning.trials"), std::string::npos) << status->message;
}
