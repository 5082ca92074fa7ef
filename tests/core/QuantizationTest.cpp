// The int8 precisions (docs/quantization.md): the `quantization` record decoded from a worker
// result, round-tripped through a report and the summary JSON, refused when damaged; the lines
// `show` and the details print; the kernels found computing in int8 (by op, by dtype, by the
// generated source); the precisions the CLI takes and the per-entry `precision=` option.
#include "TestData.h"
#include "analysis/QuantizationLines.h"
#include "analysis/Summary.h"
#include "capture/CompareSession.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"
#include "report/ReportFile.h"

#include <gtest/gtest.h>

using namespace fusescope;
using nlohmann::json;

namespace {

json quantizationJson() {
    return {{"mode", "int8_dynamic"},
            {"library", "torchao"},
            {"version", "0.18.0"},
            {"quantized_modules", {"up", "down"}},
            {"skipped_modules", {{{"module", "proj"}, {"reason", "Conv1d: Linear layers only"}}}},
            {"weight_bytes", 272'192},
            {"fp32_weight_bytes", 1'054'784},
            {"quantize_s", 0.25},
            {"notes", json::array()}};
}

json resultMessage(json quantization) {
    return {{"type", "result"},
            {"backend", "inductor"},
            {"status", "ok"},
            {"compile_s", 3.0},
            {"quantization", std::move(quantization)}};
}

// A post-fusion stage with an extern _int_mm, a kernel whose only sign of int8 is its source,
// and a plain fp32 kernel.
BackendRun int8Run() {
    BackendRun run;
    run.name = "inductor";
    StageGraph s;
    s.name = "post_fusion";
    s.fusion = "after";
    s.nodes = {
        GraphNode{"op0", "buf0", "aten._int_mm.out", "extern_kernel", "extern", {}, {"int32"}},
        GraphNode{
            "op1", "buf1", "prims.convert_element_type", "scheduler_node", "pointwise", {}, {"float32"}},
        GraphNode{"op2", "buf2", "aten.relu", "scheduler_node", "pointwise", {}, {"float32"}}};
    s.groups = {
        FusionGroup{
            "g0", "extern_kernels._int_mm", "extern_kernel", {"op0"}, {}, "output_code.py", std::nullopt},
        FusionGroup{"g1", "cpp_fused__to_copy_0", "kernel", {"op1"}, {}, "output_code.py", std::nullopt},
        FusionGroup{"g2", "cpp_fused_relu_1", "kernel", {"op2"}, {}, "output_code.py", std::nullopt}};
    run.stages.push_back(s);
    run.code.push_back(
        {"output_code.py", "python", "post_fusion",
         "cpp_fused__to_copy_0 = async_compile.cpp_pybinding(['const int8_t*', 'float*'], r'''\n"
         "extern \"C\" void kernel(const int8_t* in_ptr0, float* out_ptr0) {}\n''')\n"
         "cpp_fused_relu_1 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''\n"
         "extern \"C\" void kernel(const float* in_ptr0, float* out_ptr0) {}\n''')\n"});
    return run;
}

} // namespace

TEST(Quantization, DecodesFromAResultAndRoundTripsThroughAReportAndTheSummary) {
    Report report = testdata::sampleReport();
    BackendRun& run = report.backends[0];
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(quantizationJson()), run));
    ASSERT_TRUE(run.quantization);
    EXPECT_EQ(run.quantization->mode, "int8_dynamic");
    EXPECT_EQ(run.quantization->quantizedModules, (std::vector<std::string>{"up", "down"}));
    ASSERT_EQ(run.quantization->skippedModules.size(), 1u);
    EXPECT_EQ(run.quantization->skippedModules[0].module, "proj");
    EXPECT_EQ(run.quantization->weightBytes, 272'192);

    auto back = parseReport(codec::dumpJson(json(report)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().backends[0].quantization, run.quantization);
    const json summary = summaryJson(back.value());
    const json& q = summary["backends"][0]["quantization"];
    EXPECT_EQ(q["mode"], "int8_dynamic");
    EXPECT_EQ(q["fp32_weight_bytes"], 1'054'784);
    EXPECT_TRUE(q["int8_kernels"].is_array());
    EXPECT_TRUE(summary["backends"][1]["quantization"].is_null()); // an fp32 row has none
}

TEST(Quantization, AReportWrittenBeforeItHasNone) {
    auto old = readReport(FUSESCOPE_SOURCE_DIR "/tests/fixtures/reports/good.fscope");
    ASSERT_TRUE(old.ok()) << old.error().message;
    for (const auto& run : old.value().backends) {
        EXPECT_FALSE(run.quantization) << run.name;
        EXPECT_TRUE(quantizationLines(run).empty());
    }
    const json written = json(old.value()); // named: a range-for over a temporary's member reads freed memory
    for (const auto& b : written["backends"])
        EXPECT_FALSE(b.contains("quantization"));
}

TEST(Quantization, BadMembersAreRefusedWithTheirPath) {
    BackendRun run;
    json negative = quantizationJson();
    negative["weight_bytes"] = -1;
    auto status = codec::decodeRunResult(resultMessage(negative), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("quantization.weight_bytes"), std::string::npos) << status->message;

    json seconds = quantizationJson();
    seconds["quantize_s"] = -0.5;
    status = codec::decodeRunResult(resultMessage(seconds), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("quantization.quantize_s"), std::string::npos) << status->message;

    json noMode = quantizationJson();
    noMode.erase("mode");
    status = codec::decodeRunResult(resultMessage(noMode), run, "result");
    ASSERT_TRUE(status);
    EXPECT_NE(status->message.find("quantization.mode"), std::string::npos) << status->message;

    json skipped = quantizationJson();
    skipped["skipped_modules"] = json::array({"proj"});
    EXPECT_TRUE(codec::decodeRunResult(resultMessage(skipped), run, "result"));
    EXPECT_TRUE(codec::decodeRunResult(resultMessage(json::array({1})), run, "result"));
}

TEST(Quantization, FindsInt8KernelsByOpDtypeAndGeneratedSource) {
    BackendRun run = int8Run();
    const auto ids = int8KernelGroups(run, run.stages[0]);
    EXPECT_EQ(ids, (std::set<std::string>{"g0", "g1"}));
    EXPECT_EQ(int8KernelNames(run),
              (std::vector<std::string>{"extern_kernels._int_mm", "cpp_fused__to_copy_0"}));
    // Without the code artifact only the op tells: the converting kernel is no longer found.
    run.code.clear();
    EXPECT_EQ(int8KernelGroups(run, run.stages[0]), (std::set<std::string>{"g0"}));
    // An AOTInductor package's C++ names the kernel by its signature.
    run.code = {{"kernel.cpp", "cpp", "post_fusion",
                 "extern \"C\"  void  cpp_fused__to_copy_0(const int8_t* in_ptr0,\n float* out_ptr0)\n{\n}\n"
                 "extern \"C\" void cpp_fused_relu_1(const float* in_ptr0, float* out_ptr0)\n{\n}\n"}};
    for (auto& g : run.stages[0].groups)
        g.code = "kernel.cpp";
    EXPECT_EQ(int8KernelGroups(run, run.stages[0]), (std::set<std::string>{"g0", "g1"}));
    run.code.clear();
    // Triton closes its source with `''', device_str='cuda')`: a float kernel before an int8 one is
    // not taken for it.
    run.code = {{"output_code.py", "python", "post_fusion",
                 "cpp_fused__to_copy_0 = async_compile.triton('cpp_fused__to_copy_0', '''\n"
                 "@triton.jit\ndef k(in_ptr0): signature={'in_ptr0': '*fp32'}\n''', device_str='cuda')\n"
                 "cpp_fused_relu_1 = async_compile.triton('cpp_fused_relu_1', '''\n"
                 "@triton.jit\ndef k(in_ptr0): signature={'in_ptr0': '*i8'}\n''', device_str='cuda')\n"}};
    for (auto& g : run.stages[0].groups)
        g.code = "output_code.py";
    EXPECT_EQ(int8KernelGroups(run, run.stages[0]), (std::set<std::string>{"g0", "g2"}));
    run.code.clear();
    // Two kernels of one name are both counted; the line says it once, with the count.
    run.stages[0].groups[2].name = "extern_kernels._int_mm";
    run.stages[0].nodes[2].op = "aten._int_mm.out";
    EXPECT_EQ(int8KernelNames(run),
              (std::vector<std::string>{"extern_kernels._int_mm", "extern_kernels._int_mm"}));
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(quantizationJson()), run));
    EXPECT_NE(quantizationLines(run)[0].find("2 int8 kernels (extern_kernels._int_mm x2)"), std::string::npos)
        << quantizationLines(run)[0];
    run.stages[0].groups[2].name = "cpp_fused_relu_1";
    run.stages[0].nodes[2].op = "aten.relu";
    // A uint8 output (a quantize kernel) counts.
    run.stages[0].nodes[2].dtypes = {"uint8"};
    EXPECT_EQ(int8KernelGroups(run, run.stages[0]), (std::set<std::string>{"g0", "g2"}));
}

TEST(Quantization, LinesSaySizesKernelsAndWhatStayedFloatingPoint) {
    BackendRun run = int8Run();
    ASSERT_FALSE(codec::decodeRunResult(resultMessage(quantizationJson()), run));
    const auto lines = quantizationLines(run);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "int8_dynamic (torchao 0.18.0): 2 of 3 layers quantized, weights 266 KiB = 26 % of "
                        "fp32's 1.0 MiB, quantized in 0.25 s (not in compile); 2 int8 kernels "
                        "(extern_kernels._int_mm, cpp_fused__to_copy_0)");
    EXPECT_EQ(lines[1], "not quantized: proj: Conv1d: Linear layers only");
}

TEST(Quantization, PrecisionsAndThePerEntryOption) {
    for (const char* p : {"fp32", "bf16", "fp16", "int8_weight_only", "int8_dynamic", "int8_static"})
        EXPECT_FALSE(checkPrecision(p)) << p;
    auto bad = checkPrecision("int4");
    ASSERT_TRUE(bad);
    EXPECT_NE(bad->message.find("int8_static"), std::string::npos) << bad->message;
    EXPECT_TRUE(isQuantizedPrecision("int8_static"));
    EXPECT_FALSE(isQuantizedPrecision("bf16"));

    auto entry = parseBackendEntry("inductor{precision=int8_dynamic,epilogue_fusion=false}");
    ASSERT_TRUE(entry) << entry.error().message;
    EXPECT_EQ(entryPrecision(entry.value()), "int8_dynamic");
    EXPECT_EQ(formatBackendEntry(entry.value()), "inductor{precision=int8_dynamic,epilogue_fusion=false}");
    // The precision is the row's workload, not a torch.compile option.
    RunRequest base;
    auto request = requestFor("inductor{precision=int8_dynamic,epilogue_fusion=false}", base);
    ASSERT_TRUE(request) << request.error().message;
    EXPECT_EQ(request.value().workload.precision, "int8_dynamic");
    EXPECT_FALSE(request.value().options.contains("precision"));
    EXPECT_EQ(request.value().options["inductor"]["epilogue_fusion"], false);
    EXPECT_EQ(requestFor("inductor", base).value().workload.precision, "fp32");

    auto wrong = parseBackendEntry("inductor{precision=int3}");
    ASSERT_FALSE(wrong);
    EXPECT_NE(wrong.error().message.find("precision 'int3' is not one of"), std::string::npos)
        << wrong.error().message;
}
