// docs/advice.md: each rule fires on its evidence (a scripted run), and not on a near miss.
#include "analysis/Advice.h"

#include "TestData.h"
#include "analysis/Format.h"
#include "analysis/Summary.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

using testdata::timedRun;

BackendRun inductorRun(const std::string& label = "inductor") {
    BackendRun run = timedRun(label, 1.5);
    run.family = "torch_compile";
    run.options = {{"mode", nullptr},
                   {"fullgraph", false},
                   {"dynamic", nullptr},
                   {"inductor", nlohmann::json::object()}};
    if (auto entry = parseBackendEntry(label); entry && !entry.value().mode.empty())
        run.options["mode"] = entry.value().mode;
    return run;
}

Report reportOf(std::vector<BackendRun> runs, const std::string& device = "cpu") {
    Report r;
    r.device = device;
    r.backends = std::move(runs);
    return r;
}

std::vector<Advice> withRule(const Report& report, const std::string& rule) {
    std::vector<Advice> out;
    for (const auto& a : adviceFor(report))
        if (a.rule == rule)
            out.push_back(a);
    return out;
}

// Every offered entry reads back as a backend entry (the brace syntax --backends takes).
void expectParses(const Advice& a) {
    if (!a.tryEntry.empty()) {
        auto entry = parseBackendEntry(a.tryEntry);
        ASSERT_TRUE(entry) << a.tryEntry;
        EXPECT_EQ(formatBackendEntry(entry.value()), a.tryEntry);
    }
}

BackendRun compileRun(const std::string& label, const std::string& phase, double phaseSeconds) {
    BackendRun run = inductorRun(label);
    run.compileSeconds = 10.0;
    run.warmCompileSeconds = 1.5;
    run.compileBreakdown = {
        {"dynamo_tracing", 1.0}, {phase, phaseSeconds}, {"unaccounted", 9.0 - phaseSeconds}};
    return run;
}

} // namespace

TEST(Advice, RuleIdsAreTheDocumentedTable) {
    const auto& ids = adviceRuleIds();
    EXPECT_EQ(ids.size(), 8u);
    EXPECT_NE(std::find(ids.begin(), ids.end(), "memory_above_eager"), ids.end());
}

TEST(Advice, KernelCompilationDominatesTheCompile) {
    const auto fires =
        withRule(reportOf({compileRun("inductor", "kernel_compilation", 6.0)}), "compile_kernel_compilation");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_NE(fires[0].evidence.find("kernel_compilation 6.00 s of compile_s 10.00 s (60 %"),
              std::string::npos)
        << fires[0].evidence;
    EXPECT_NE(fires[0].evidence.find("warm caches the compile took 1.50 s"), std::string::npos);
    EXPECT_EQ(fires[0].tryEntry, "inductor@lite");
    expectParses(fires[0]);
    // With the FX graph cache off in the row, the advice is to turn it back on.
    BackendRun off = compileRun("inductor{fx_graph_cache=false}", "kernel_compilation", 6.0);
    off.options["inductor"]["fx_graph_cache"] = false;
    const auto cache = withRule(reportOf({off}), "compile_kernel_compilation");
    ASSERT_EQ(cache.size(), 1u);
    EXPECT_EQ(cache[0].tryEntry, "inductor{fx_graph_cache=true}");
    // Near misses: 40 % of the compile; or 60 % of a compile under a second.
    EXPECT_TRUE(
        withRule(reportOf({compileRun("inductor", "kernel_compilation", 4.0)}), "compile_kernel_compilation")
            .empty());
    BackendRun quick = compileRun("inductor", "kernel_compilation", 6.0);
    quick.compileSeconds = 0.9;
    quick.compileBreakdown = {{"kernel_compilation", 0.6}};
    EXPECT_TRUE(withRule(reportOf({quick}), "compile_kernel_compilation").empty());
}

TEST(Advice, AutotuningDominatesAMaxAutotuneCompile) {
    const auto fires = withRule(reportOf({compileRun("inductor@max-autotune{fullgraph}", "autotuning", 7.0)}),
                                "compile_autotuning");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_EQ(fires[0].tryEntry, "inductor{fullgraph}"); // the same entry in the default mode
    EXPECT_NE(fires[0].message.find("max-autotune"), std::string::npos);
    expectParses(fires[0]);
    // The default-mode row is already in the report: nothing new to offer, the advice stays.
    const auto present = withRule(reportOf({compileRun("inductor@max-autotune{fullgraph}", "autotuning", 7.0),
                                            inductorRun("inductor{fullgraph}")}),
                                  "compile_autotuning");
    ASSERT_EQ(present.size(), 1u);
    EXPECT_TRUE(present[0].tryEntry.empty());
    EXPECT_TRUE(
        withRule(reportOf({compileRun("inductor@max-autotune", "autotuning", 3.0)}), "compile_autotuning")
            .empty());
}

TEST(Advice, RecompilesAndTheLimitSuggestDynamic) {
    BackendRun run = inductorRun("inductor{dynamic=false}");
    run.options["dynamic"] = false;
    ShapeStudy study;
    study.sets = parseShapeList("1x8:int64;4x8:int64;16x8:int64").value();
    ShapeRun fixed;
    fixed.dynamic = false;
    fixed.recompiles = 2;
    fixed.guardFailures = 2;
    fixed.recompileLimit = 2;
    fixed.limitHit = true;
    ShapeRun dynamic;
    dynamic.dynamic = true;
    dynamic.recompiles = 0;
    study.runs = {fixed, dynamic};
    run.shapes = study;
    const auto fires = withRule(reportOf({run}), "recompiles");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_EQ(fires[0].tryEntry, "inductor{dynamic=true}");
    EXPECT_NE(fires[0].evidence.find("recompile limit 2 hit"), std::string::npos) << fires[0].evidence;
    EXPECT_NE(fires[0].evidence.find("with dynamic=true: 0 recompiles"), std::string::npos);
    EXPECT_NE(fires[0].message.find("input 0 dim 0 (1, 4, 16)"), std::string::npos) << fires[0].message;
    EXPECT_EQ(fires[0].message.find("dim 1"), std::string::npos); // dim 1 is 8 in every set
    expectParses(fires[0]);
    // Near miss: one recompile, limit not hit.
    run.shapes->runs[0].recompiles = 1;
    run.shapes->runs[0].limitHit = false;
    EXPECT_TRUE(withRule(reportOf({run}), "recompiles").empty());
    // The measured run recompiling twice fires too; a row already dynamic gets no new entry.
    BackendRun plain = inductorRun("inductor{dynamic=true}");
    plain.options["dynamic"] = true;
    plain.recompiles = 2;
    const auto measured = withRule(reportOf({plain}), "recompiles");
    ASSERT_EQ(measured.size(), 1u);
    EXPECT_TRUE(measured[0].tryEntry.empty());
}

TEST(Advice, GraphBreakPassesTorchsHintThrough) {
    BackendRun run = inductorRun();
    GraphBreak b;
    b.reason = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
    b.detail = "Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
               "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
               "config.capture_scalar_outputs=False.\n"
               "  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or `export "
               "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph.\n"
               "  Hint: Please report an issue to PyTorch.\n\n"
               "  Developer debug context: call_method TensorVariable() item () {}\n\n"
               " For more details about this graph break, please visit: "
               "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html";
    b.file = "model.py";
    b.line = 12;
    b.graph = 1;
    GraphBreak noHint = b;
    noHint.reason = noHint.detail = "call_function UserDefinedObjectVariable(Foo)";
    noHint.line = 20;
    run.breakReasons = {b, noHint, b}; // b met again by a recompile: the same advice, said once
    run.graphBreaks = 3;
    const auto fires = withRule(reportOf({run}), "graph_break_hint");
    ASSERT_EQ(fires.size(), 1u); // the break without a hint of torch's gets none
    EXPECT_NE(fires[0].message.find("capture_scalar_outputs = True"), std::string::npos);
    EXPECT_EQ(fires[0].message.find("report an issue"), std::string::npos);
    EXPECT_NE(fires[0].message.find("gb0124.html"), std::string::npos);
    EXPECT_NE(fires[0].evidence.find("model.py:12"), std::string::npos);
    EXPECT_NE(fires[0].evidence.find("(after graph 0)"), std::string::npos) << fires[0].evidence;
    EXPECT_TRUE(fires[0].tryEntry.empty());
    // A break before the first graph (issue 33: it read "after graph -1").
    run.breakReasons = {b};
    run.breakReasons[0].graph = 0;
    const auto first = withRule(reportOf({run}), "graph_break_hint");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_NE(first[0].evidence.find("(before graph 0)"), std::string::npos) << first[0].evidence;
    EXPECT_EQ(first[0].evidence.find("graph -1"), std::string::npos);
    EXPECT_EQ(format::breakPlacement(-1), "");
    EXPECT_EQ(format::breakPlacement(3), "after graph 2");
}

TEST(Advice, AHintThatTurnsOnADynamoOptionOffersTheRowWithIt) {
    BackendRun run = inductorRun("inductor{dynamic=false}");
    GraphBreak b;
    b.reason = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
    b.detail = b.reason + "\n  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or `export "
                          "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations.\n";
    b.file = "gcn.py";
    b.line = 10;
    GraphBreak shape = b;
    shape.reason = "Dynamic shape operator";
    shape.detail = "Dynamic shape operator\n  Hint: Enable tracing of dynamic shape operators with "
                   "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`\n";
    shape.line = 30;
    GraphBreak again = b;
    again.line = 20;
    GraphBreak notAnOption = b;
    notAnOption.detail = "x\n  Hint: `torch._dynamo.config.verbose` says more\n"; // no "= True"
    run.breakReasons = {b, again, b, shape, notAnOption};
    auto fires = withRule(reportOf({run}), "dynamo_option");
    ASSERT_EQ(fires.size(), 2u); // one per option, not per break
    EXPECT_EQ(fires[0].tryEntry, "inductor{dynamic=false,dynamo.capture_scalar_outputs=true}");
    EXPECT_NE(fires[0].evidence.find("2 graph breaks at gcn.py:10, gcn.py:20"), std::string::npos)
        << fires[0].evidence;
    EXPECT_NE(fires[0].message.find("torch._dynamo.config.capture_scalar_outputs = True"), std::string::npos);
    EXPECT_EQ(fires[1].tryEntry, "inductor{dynamic=false,dynamo.capture_dynamic_output_shape_ops=true}");
    // A row that already sets it, and a report that has the row, offer nothing new.
    BackendRun with = inductorRun("inductor{dynamo.capture_scalar_outputs=true}");
    with.breakReasons = {b};
    EXPECT_TRUE(withRule(reportOf({with}), "dynamo_option").empty());
    BackendRun plain = inductorRun("inductor");
    plain.breakReasons = {b};
    fires = withRule(reportOf({plain, with}), "dynamo_option");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_TRUE(fires[0].tryEntry.empty());
}

// Issue 33: the same three graph breaks of a GCN under three backends gave nine advice lines. Advice
// that rows share is said once, naming every row; advice of one row (its own try entry) stays its own.
TEST(Advice, AdviceSeveralBackendsShareIsSaidOnceNamingThemAll) {
    std::vector<BackendRun> runs;
    for (const std::string label : {"aot_eager", "inductor{dynamic=false}", "inductor@max-autotune"}) {
        BackendRun run = inductorRun(label);
        for (int line : {10, 20, 30}) {
            GraphBreak b;
            b.reason = "Unsupported Tensor.item() call";
            b.detail = b.reason + "\n  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True`.";
            b.file = "gcn.py";
            b.line = line;
            b.graph = 1;
            run.breakReasons.push_back(b);
        }
        runs.push_back(run);
    }
    runs.push_back(compileRun("inductor", "kernel_compilation", 6.0)); // advice of its own
    const Report report = reportOf(runs);
    const auto hints = withRule(report, "graph_break_hint");
    ASSERT_EQ(hints.size(), 3u); // three breaks, not nine
    for (const auto& a : hints) {
        EXPECT_EQ(a.backend, "aot_eager");
        EXPECT_EQ(a.backends, (std::vector<std::string>{"aot_eager", "inductor{dynamic=false}",
                                                        "inductor@max-autotune"}));
        EXPECT_EQ(adviceLine(a).rfind(
                      "aot_eager, inductor{dynamic=false}, inductor@max-autotune [graph_break_hint] ", 0),
                  0u)
            << adviceLine(a);
    }
    // One row's own view (the GUI's details) names only that row.
    for (const auto& a : adviceFor(report, report.backends[1]))
        EXPECT_EQ(a.backends, std::vector<std::string>{"inductor{dynamic=false}"});
    // The Dynamo option each row's breaks name is that row's own advice (its own try entry).
    EXPECT_EQ(withRule(report, "dynamo_option").size(), 3u);
    const auto j = summaryJson(report)["advice"];
    ASSERT_EQ(j.size(), 3u + withRule(report, "compile_kernel_compilation").size() +
                            withRule(report, "dynamo_option").size());
    EXPECT_EQ(j[0]["backend"], "aot_eager");
    EXPECT_EQ(j[0]["backends"],
              nlohmann::json({"aot_eager", "inductor{dynamic=false}", "inductor@max-autotune"}));
    const auto compile = withRule(report, "compile_kernel_compilation");
    ASSERT_FALSE(compile.empty());
    EXPECT_EQ(compile[0].backends, std::vector<std::string>{"inductor"});
}

TEST(Advice, AccuracyFailureOffersPrecisionOrAotEager) {
    BackendRun bf16 = inductorRun();
    bf16.accuracy->pass = false;
    bf16.accuracy->status = "fail_accuracy";
    bf16.accuracy->precision = "bf16";
    bf16.accuracy->reason = "output 0: max rel 0.2 > 0.05";
    const auto fires = withRule(reportOf({bf16}), "accuracy_failure");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_EQ(fires[0].tryEntry, "inductor{emulate_precision_casts=true}");
    EXPECT_NE(fires[0].evidence.find("fail_accuracy at bf16"), std::string::npos);
    expectParses(fires[0]);
    // At fp32 the next row is aot_eager, which separates Inductor's code from the graphs.
    BackendRun fp32 = bf16;
    fp32.accuracy->precision = "fp32";
    const auto isolate = withRule(reportOf({fp32}), "accuracy_failure");
    ASSERT_EQ(isolate.size(), 1u);
    EXPECT_EQ(isolate[0].tryEntry, "aot_eager");
    // With the bisect's answer (--bisect) the advice starts at the kernel and line it named.
    BackendRun bisected = fp32;
    FirstDivergence where;
    where.node = "relu";
    where.op = "torch.nn.functional.relu";
    where.kernel = "cpp_fused_add_relu_1";
    where.file = "model.py";
    where.line = 30;
    where.compiles = 1;
    bisected.accuracy->firstDivergence = where;
    const auto named = withRule(reportOf({bisected}), "accuracy_failure");
    ASSERT_EQ(named.size(), 1u);
    EXPECT_EQ(named[0].message.rfind("Start at kernel cpp_fused_add_relu_1 (model.py:30): its node relu", 0),
              0u)
        << named[0].message;
    EXPECT_NE(named[0].evidence.find("bisect: first diverging node relu"), std::string::npos)
        << named[0].evidence;
    EXPECT_EQ(named[0].tryEntry, "aot_eager");
    // Near misses: a pass, and eager disagreeing with itself (not the backend's failure).
    EXPECT_TRUE(withRule(reportOf({inductorRun()}), "accuracy_failure").empty());
    BackendRun noisy = bf16;
    noisy.accuracy->status = "eager_two_runs_differ";
    EXPECT_TRUE(withRule(reportOf({noisy}), "accuracy_failure").empty());
}

TEST(Advice, PeakMemoryAboveEagerNamesInductorsMemoryOptions) {
    BackendRun run = inductorRun("inductor@max-autotune");
    run.eagerPeakMemoryBytes = 100 << 20;
    run.peakMemoryBytes = 150 << 20;
    run.memoryMethod = "cuda_max_memory_allocated";
    const auto gpu = withRule(reportOf({run}, "cuda"), "memory_above_eager");
    ASSERT_EQ(gpu.size(), 1u);
    EXPECT_EQ(gpu[0].tryEntry, "inductor@max-autotune-no-cudagraphs"); // CUDA graphs' pool
    EXPECT_NE(gpu[0].evidence.find("+50 %"), std::string::npos) << gpu[0].evidence;
    BackendRun plain = run;
    plain.name = "inductor";
    plain.options["mode"] = nullptr;
    const auto padded = withRule(reportOf({plain}, "cuda"), "memory_above_eager");
    ASSERT_EQ(padded.size(), 1u);
    EXPECT_EQ(padded[0].tryEntry, "inductor{comprehensive_padding=false,shape_padding=false}");
    const auto cpu = withRule(reportOf({plain}, "cpu"), "memory_above_eager");
    ASSERT_EQ(cpu.size(), 1u);
    EXPECT_EQ(cpu[0].tryEntry, "inductor{memory_planning=true}");
    for (const auto& a : {gpu[0], padded[0], cpu[0]})
        expectParses(a);
    // Near miss: 5 % above eager; and a backend with no memory options to set.
    plain.peakMemoryBytes = 105 << 20;
    EXPECT_TRUE(withRule(reportOf({plain}), "memory_above_eager").empty());
    BackendRun aot = run;
    aot.name = "aot_eager";
    EXPECT_TRUE(withRule(reportOf({aot}), "memory_above_eager").empty());
}

TEST(Advice, UnavailableBackendNamesTheMissingPiece) {
    BackendRun run;
    run.name = "nvfuser";
    run.status = RunStatus::Unavailable;
    run.error = RunError{
        "backend_unavailable",
        "backend 'nvfuser' is unavailable: runs on NVIDIA GPUs only and the device is cpu (use --device "
        "cuda); needs lightning-thunder with nvFuser: import thunder failed: No module named 'thunder'",
        {},
        {}};
    const auto fires = withRule(reportOf({run}), "backend_unavailable");
    ASSERT_EQ(fires.size(), 1u);
    EXPECT_NE(fires[0].message.find("'thunder'"), std::string::npos) << fires[0].message;
    BackendRun cuda = run;
    cuda.name = "cudagraphs";
    cuda.error->message =
        "backend 'cudagraphs' is unavailable: needs CUDA, and torch 2.13.0+cpu sees no CUDA device "
        "(torch.cuda.is_available() is False)";
    const auto noCuda = withRule(reportOf({cuda}), "backend_unavailable");
    ASSERT_EQ(noCuda.size(), 1u);
    EXPECT_NE(noCuda[0].message.find("a CUDA device visible to torch"), std::string::npos);
    EXPECT_TRUE(noCuda[0].tryEntry.empty());
    // Near miss: a failed compile is not an unavailable backend.
    cuda.status = RunStatus::Failed;
    cuda.error->code = "compile_failed";
    EXPECT_TRUE(withRule(reportOf({cuda}), "backend_unavailable").empty());
}

TEST(Advice, NoEvidenceNoAdvice) {
    EXPECT_TRUE(adviceFor(reportOf({inductorRun(), timedRun("eager", 1.0)})).empty());
}

TEST(Advice, SummaryJsonListsTheAdvice) {
    const auto j = summaryJson(reportOf({compileRun("inductor", "kernel_compilation", 6.0)}));
    ASSERT_TRUE(j.contains("advice"));
    ASSERT_EQ(j["advice"].size(), 1u);
    EXPECT_EQ(j["advice"][0]["rule"], "compile_kernel_compilation");
    EXPECT_EQ(j["advice"][0]["backend"], "inductor");
    EXPECT_EQ(j["advice"][0]["backends"], nlohmann::json({"inductor"}));
    EXPECT_EQ(j["advice"][0]["try"], "inductor@lite");
    EXPECT_TRUE(j["advice"][0]["evidence"].is_string());
    EXPECT_TRUE(summaryJson(reportOf({inductorRun()}))["advice"].empty());
}

TEST(Advice, AnInt8AccuracyFailureSeparatesQuantizationFromTheCompiler) {
    BackendRun q = inductorRun();
    q.name = "inductor{precision=int8_dynamic}";
    q.accuracy->pass = false;
    q.accuracy->status = "fail_accuracy";
    q.accuracy->rule = "quantized";
    q.accuracy->precision = "int8_dynamic";
    // First: eager at the same precision, which runs torchao's kernels without a compiler.
    const auto first = withRule(reportOf({q}), "accuracy_failure");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].tryEntry, "eager{precision=int8_dynamic}");
    EXPECT_NE(first[0].message.find("the quantization lost the accuracy, not inductor"), std::string::npos)
        << first[0].message;
    expectParses(first[0]);
    // With that row failing too: the gentler mode, and the eager row's verdict as evidence.
    BackendRun e = q;
    e.name = "eager{precision=int8_dynamic}";
    const auto next = withRule(reportOf({q, e}), "accuracy_failure");
    ASSERT_EQ(next.size(), 2u);
    EXPECT_EQ(next[0].tryEntry, "inductor{precision=int8_weight_only}");
    EXPECT_NE(next[0].evidence.find("eager{precision=int8_dynamic} (torchao's own kernels, no compiler): "
                                    "fail_accuracy"),
              std::string::npos)
        << next[0].evidence;
    EXPECT_EQ(next[0].message.find("aot_eager"), std::string::npos); // no fp32 reference offered
}
