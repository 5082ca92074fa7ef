#include "analysis/Format.h"
#include "analysis/Summary.h"
#include "capture/CompareSession.h"
#include "codec/MessageCodec.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "model/BackendRun.h"
#include "model/WorkloadText.h"
#include "stream/WorkerStream.h"

#include <gtest/gtest.h>

using namespace fusescope;
using nlohmann::json;

TEST(Workload, InputSpecParsesShapesAndDtypes) {
    auto spec = parseInputSpec("4x16:float32, 4:int64");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    EXPECT_EQ(json(spec.value()),
              json::parse(R"([{"shape":[4,16],"dtype":"float32"},{"shape":[4],"dtype":"int64"}])"));
    EXPECT_EQ(parseInputSpec("8x3").value().at(0).dtype, "float32");
}

// One formatter for both front ends (analysis/Format.h): what it writes, the parser reads back;
// a symbolic size is written as its name and a dtype not said as the worker's float32.
TEST(Workload, ShapeListTextReadsBackAsTheSameSets) {
    const std::string text = "1x8:int64;4x8:int64,4:float32;16x8:int64";
    const auto sets = parseShapeList(text);
    ASSERT_TRUE(sets.ok());
    EXPECT_EQ(format::shapeList(sets.value()), text);
    EXPECT_EQ(parseShapeList(format::shapeList(sets.value())).value(), sets.value());
    const InputSet symbolic = {{{"s0", "8"}, ""}};
    EXPECT_EQ(format::inputSet(symbolic), "s0x8:float32");
    EXPECT_EQ(json(symbolic[0]), json::parse(R"({"shape": ["s0", 8]})"));
}

TEST(Workload, BadInputSpecNamesTheItem) {
    auto spec = parseInputSpec("4xq:float32");
    ASSERT_FALSE(spec.ok());
    EXPECT_NE(spec.error().message.find("4xq:float32"), std::string::npos);
    auto dtype = parseInputSpec("4x4:float33");
    ASSERT_FALSE(dtype.ok());
    EXPECT_NE(dtype.error().message.find("float33"), std::string::npos);
    EXPECT_FALSE(parseInputSpec("-1x4").ok());
}

TEST(Workload, ShapeListIsSetsSeparatedBySemicolons) {
    auto sets = parseShapeList("1x8:int64;4x8:int64;4x32:int64");
    ASSERT_TRUE(sets.ok());
    ASSERT_EQ(sets.value().size(), 3u);
    EXPECT_EQ(json(sets.value()[2][0])["shape"], json::parse("[4,32]"));
    EXPECT_FALSE(parseShapeList(";").ok());
    auto bad = parseShapeList("1x8;4xx");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("4xx"), std::string::npos);
}

TEST(Workload, AssignmentKeepsOrderAndRefusesDuplicates) {
    auto a = parseAssignment("encoder=inductor,decoder=aot_eager");
    ASSERT_TRUE(a.ok());
    ASSERT_EQ(a.value().size(), 2u);
    EXPECT_EQ(a.value()[0], std::make_pair(std::string("encoder"), std::string("inductor")));
    EXPECT_FALSE(parseAssignment("encoder").ok());
    EXPECT_FALSE(parseAssignment("=inductor").ok());
    auto twice = parseAssignment("a=eager,a=inductor");
    ASSERT_FALSE(twice.ok());
    EXPECT_NE(twice.error().message.find("'a'"), std::string::npos);
}

TEST(Workload, MixedLabelRoundTripsThroughRequestFor) {
    const auto label = mixedLabel({{"encoder", "inductor@max-autotune"}, {"decoder", "aot_eager"}});
    EXPECT_EQ(label, "mixed[encoder=inductor@max-autotune,decoder=aot_eager]");
    EXPECT_TRUE(isMixedLabel(label));
    EXPECT_FALSE(isMixedLabel("inductor@max-autotune"));
    RunRequest base;
    base.model = "demo:transformer";
    const auto parsed = requestFor(label, base);
    ASSERT_TRUE(parsed) << parsed.error().message;
    const auto& request = parsed.value();
    EXPECT_EQ(request.backend, "mixed");
    ASSERT_EQ(request.workload.assign.size(), 2u);
    EXPECT_EQ(request.workload.assign[0].second, "inductor@max-autotune");
    const auto line = codec::encodeRunRequest(request, "r1");
    EXPECT_EQ(line["workload"]["assign"]["decoder"], "aot_eager");
    EXPECT_FALSE(line["options"].contains("mode")); // the '@' inside the label is not a mode
}

TEST(Workload, ProtocolCarriesModePrecisionAndShapes) {
    RunRequest r;
    r.workload.mode = "training";
    r.workload.precision = "bf16";
    r.workload.shapes = parseShapeList("2x4;8x4").value();
    const auto line = codec::encodeRunRequest(r, "x");
    EXPECT_EQ(line["workload"]["mode"], "training");
    EXPECT_EQ(line["workload"]["precision"], "bf16");
    EXPECT_EQ(line["workload"]["shapes"].size(), 2u);
    EXPECT_TRUE(line["workload"]["assign"].is_null());
    EXPECT_TRUE(Workload{}.isDefault());
}

TEST(Workload, ModeAndPrecisionChecksExplainThemselves) {
    EXPECT_FALSE(checkMode("training").has_value());
    auto inductorMode = checkMode("max-autotune");
    ASSERT_TRUE(inductorMode.has_value());
    EXPECT_NE(inductorMode->message.find("--compile-mode"), std::string::npos);
    EXPECT_TRUE(checkPrecision("fp8").has_value());
    EXPECT_FALSE(checkPrecision("fp16").has_value());
}

TEST(Workload, ResultFieldsSurviveTheStreamAndTheReport) {
    BackendRun run;
    run.name = "mixed[encoder=inductor]";
    WorkerStream stream(run);
    const std::string lines =
        R"J({"type":"hello","protocol":"fusescope-worker","version":1,"worker":"0.1.0","python":"3.11","torch":"2.13.0","devices":["cpu"],"cuda":null,"pid":1})J"
        "\n"
        R"J({"type":"model","id":"r","name":"demo:transformer","source":"demo","class":"T","parameters":10,"inputs":[],"modules":[{"name":"encoder","class":"Enc","parameters":6,"depth":1},{"name":"encoder.0","class":"L","parameters":6,"depth":2}]})J"
        "\n"
        R"J({"type":"result","id":"r","backend":"mixed","status":"ok","accuracy":{"max_abs":0.01,"max_rel":0.02,"cosine":1,"pass":true,"rule":"allclose","tolerance":0.05,"precision":"bf16"},)J"
        R"J("break_reasons":[{"reason":"print","detail":"call to print","file":"m.py","line":15,"graph":1}],)J"
        R"J("notes":["inductor@reduce-overhead on cpu: no CUDA graphs"],)J"
        R"J("workload":{"mode":"training","precision":"bf16","shapes":null,"assign":{"encoder":"inductor"}},)J"
        R"J("training":{"loss":"mse","optimizer":"SGD(lr=1e-3)","batch_size":8,"compile_forward_s":1.5,"compile_backward_s":0.5,"gradient_accuracy":{"max_abs":0,"max_rel":0.001,"cosine":1,"pass":true,"worst_parameter":"fc.weight"}},)J"
        R"J("shapes":{"sets":[[{"shape":[1,8],"dtype":"int64"}],[{"shape":[4,8],"dtype":"int64"}]],"runs":[{"dynamic":false,"recompiles":1,"guard_failures":1,"recompile_limit":8,"limit_hit":false,"per_shape":[{"index":0,"status":"ok","recompiled":false,"first_call_s":0.5,"eager_ms":[2,2],"compiled_ms":[1,1],"error":null},{"index":1,"status":"failed","recompiled":true,"first_call_s":null,"eager_ms":[],"compiled_ms":[],"error":"shape set 1 (4x8:int64): forward raised"}]}]},)J"
        R"J("assign":{"encoder":"inductor"},"parts":[{"module":"encoder","backend":"inductor","graphs":1,"graph_breaks":0,"compile_s":1.2}]})J"
        "\n";
    stream.feed(lines);
    ASSERT_EQ(run.status, RunStatus::Ok);
    ASSERT_TRUE(run.model.has_value());
    ASSERT_EQ(run.model->modules.size(), 2u);
    EXPECT_EQ(run.model->modules[1].depth, 2);
    ASSERT_EQ(run.breakReasons.size(), 1u);
    EXPECT_EQ(run.breakReasons[0].line, 15);
    EXPECT_EQ(run.breakReasons[0].graph, 1);
    EXPECT_EQ(run.accuracy->precision, "bf16");
    EXPECT_EQ(run.notes, std::vector<std::string>{"inductor@reduce-overhead on cpu: no CUDA graphs"});
    ASSERT_TRUE(run.training.has_value());
    EXPECT_EQ(run.training->batchSize, 8);
    EXPECT_EQ(run.training->worstParameter, "fc.weight");
    ASSERT_TRUE(run.shapes.has_value());
    ASSERT_EQ(run.shapes->runs.size(), 1u);
    EXPECT_EQ(run.shapes->runs[0].recompiles, 1);
    EXPECT_EQ(run.shapes->runs[0].points[1].status, "failed");
    EXPECT_NE(run.shapes->runs[0].points[1].error.find("shape set 1"), std::string::npos);
    ASSERT_EQ(run.parts.size(), 1u);
    EXPECT_EQ(run.parts[0].compileSeconds, 1.2);
    ASSERT_EQ(run.assign.size(), 1u);

    const json saved = run;
    const auto back = codec::decodeBackendRun(saved).value();
    EXPECT_EQ(json(back), saved);
    EXPECT_EQ(back.shapes->runs[0].points[0].compiledMs.size(), 2u);
    EXPECT_EQ(back.training->compileBackwardSeconds, 0.5);
    EXPECT_EQ(back.notes, run.notes);
    Report report;
    report.backends = {back};
    EXPECT_EQ(summaryJson(report, {})["backends"][0]["notes"][0], run.notes[0]);
}
