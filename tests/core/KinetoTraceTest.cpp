// PyTorch profiler (Kineto) trace import (docs/import.md, "PyTorch profiler traces"), on the
// checked-in fixtures of tests/fixtures/kineto: a CPU trace of an Inductor-compiled model, a CUDA
// one, and damaged ones.
#include "trace/KinetoTrace.h"

#include "report/ReportFile.h"
#include "trace/KernelStats.h"
#include "trace/TimeAttribution.h"

#include <QTemporaryDir>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace fusescope;
using namespace fusescope::import;

namespace {

std::string fixture(const std::string& name) {
    return std::string(FUSESCOPE_SOURCE_DIR) + "/tests/fixtures/kineto/" + name;
}

std::string nameOf(const KernelTrace& t, const TraceEvent& e) {
    return t.names.at(static_cast<size_t>(e.name));
}

// A backend whose after-fusion graph has extern addmm, the relu kernel and another addmm, as
// Inductor's output for Linear-ReLU-Linear.
BackendRun inductorRun() {
    StageGraph s;
    s.name = "post_fusion";
    s.fusion = "after";
    int n = 0;
    for (const auto& [name, kind] :
         std::vector<std::pair<std::string, std::string>>{{"extern_kernels.addmm", "extern_kernel"},
                                                          {"cpp_fused_relu_0", "kernel"},
                                                          {"extern_kernels.addmm", "extern_kernel"}}) {
        FusionGroup g;
        g.id = "g" + std::to_string(n);
        g.name = name;
        g.kind = kind;
        GraphNode node;
        node.id = "n" + std::to_string(n++);
        node.name = node.id;
        node.kind = "scheduler_node";
        node.group = g.id;
        g.nodes = {node.id};
        s.nodes.push_back(node);
        s.groups.push_back(g);
    }
    BackendRun run;
    run.name = "inductor";
    run.status = RunStatus::Ok;
    run.stages.push_back(s);
    return run;
}

} // namespace

TEST(KinetoTrace, CpuTraceKeepsTopLevelOpsAndNumbersIterationsBySteps) {
    auto parsed = readKinetoTraceFile(fixture("cpu_inductor.json"));
    ASSERT_TRUE(parsed) << parsed.error().message;
    const KernelTrace& t = parsed.value();
    EXPECT_EQ(t.source, "cpu-profiler");
    EXPECT_EQ(t.iterations, 2);
    ASSERT_EQ(t.tracks.size(), 1u);
    EXPECT_EQ(t.tracks[0].name, "python3 (thread 4242)");
    // Wrappers (Torch-Compiled Region), nested ops (aten::expand), python frames and steps are left out.
    ASSERT_EQ(t.events.size(), 6u);
    std::vector<std::string> names;
    for (const auto& e : t.events)
        names.push_back(nameOf(t, e));
    EXPECT_EQ(names, (std::vector<std::string>{"aten::addmm", "cpp_fused_relu_0", "aten::addmm",
                                               "aten::addmm", "cpp_fused_relu_0", "aten::addmm"}));
    EXPECT_EQ(t.events[1].kind, EventKind::Kernel); // graph_0_ prefix dropped, a generated kernel
    EXPECT_EQ(t.events[0].kind, EventKind::CpuOp);
    EXPECT_EQ(t.events[0].startNs, 1'010'000);
    EXPECT_EQ(t.events[0].durationNs, 20'000);
    EXPECT_EQ(t.events[3].iteration, 1);
    EXPECT_EQ(t.events[2].iteration, 0);
    ASSERT_EQ(t.memory.size(), 2u);
    EXPECT_EQ(t.memory[0].totalBytes, 4096);
    EXPECT_EQ(t.memory[1].deltaBytes, -4096);
    EXPECT_EQ(t.memory[0].device, -1);
    // The kernel table counts aten::addmm beside cpp_fused_* (the CPU profiler rule).
    const auto stats = computeKernelStats(t, KernelStatsOptions::forTrace(t));
    EXPECT_EQ(stats.iterations, 2);
    ASSERT_FALSE(stats.rows.empty());
    EXPECT_EQ(stats.rows[0].label, "aten::addmm");
    EXPECT_EQ(stats.rows[0].calls, 4);
}

TEST(KinetoTrace, CudaTracePutsKernelsOnStreamsInTheIterationOfTheirLaunch) {
    auto parsed = readKinetoTraceFile(fixture("cuda_small.json"));
    ASSERT_TRUE(parsed) << parsed.error().message;
    const KernelTrace& t = parsed.value();
    EXPECT_EQ(t.source, "kineto");
    EXPECT_EQ(t.iterations, 1);
    int kernels = 0, memcpys = 0, runtime = 0;
    for (const auto& e : t.events) {
        const auto& track = t.tracks.at(static_cast<size_t>(e.track));
        if (e.kind == EventKind::Kernel && track.kind == TrackKind::CudaStream) {
            ++kernels;
            EXPECT_EQ(track.name, "stream 7 (device 0)");
            // Launched inside ProfilerStep#0 though run after it ended: correlation decides.
            EXPECT_EQ(e.iteration, 0) << nameOf(t, e);
        }
        memcpys += e.kind == EventKind::Memcpy;
        runtime += e.kind == EventKind::Runtime;
    }
    EXPECT_EQ(kernels, 2);
    EXPECT_EQ(memcpys, 1);
    EXPECT_EQ(runtime, 2);
    const auto stats = computeKernelStats(t, KernelStatsOptions::forTrace(t));
    ASSERT_EQ(stats.rows.size(), 3u); // two kernels and the memcpy; CPU ops do not count twice
    EXPECT_EQ(stats.rows[0].label, "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n");
}

TEST(KinetoTrace, DamagedTracesAreErrorsNamingFileAndField) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"damaged_truncated.json", "damaged_truncated.json"},
        {"damaged_bad_ts.json", "traceEvents[7].ts"},
        {"damaged_events_not_array.json", "traceEvents: expected an array"},
        {"damaged_negative_dur.json", "traceEvents[0].dur: out of range"},
        {"damaged_huge_ts.json", "traceEvents[0].ts: out of range"},
    };
    for (const auto& [file, field] : cases) {
        auto parsed = readKinetoTraceFile(fixture(file));
        ASSERT_FALSE(parsed) << file;
        EXPECT_EQ(parsed.error().code, "import_corrupt") << file;
        EXPECT_NE(parsed.error().message.find(file), std::string::npos) << parsed.error().message;
        EXPECT_NE(parsed.error().message.find(field), std::string::npos) << parsed.error().message;
    }
    for (const std::string text :
         {"", "[]", "{}", "null", "{\"traceEvents\": [1]}",
          "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1}]}",
          "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": []}]}"}) {
        auto parsed = parseKinetoTrace(text, "t.json");
        ASSERT_FALSE(parsed) << text;
        EXPECT_EQ(parsed.error().message.rfind("t.json: ", 0), 0u) << parsed.error().message;
    }
    auto missing = readKinetoTraceFile(fixture("no_such_trace.json"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "import_not_found");
    // A name past the limit is cut, not refused.
    const std::string longName(5000, 'x');
    auto cut = parseKinetoTrace("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" +
                                    longName + "\", \"ts\": 1, \"dur\": 1}]}",
                                "t.json");
    ASSERT_TRUE(cut) << cut.error().message;
    EXPECT_LE(cut.value().names.at(0).size(), kMaxKinetoNameBytes + 3);
}

TEST(KinetoTrace, DetectedByContentAndImportedAsAReportOfItsOwn) {
    EXPECT_TRUE(looksLikeKinetoTrace(false, "  {\"schemaVersion\": 1, \"traceEvents\": ["));
    EXPECT_FALSE(looksLikeKinetoTrace(true, "  {\"schemaVersion\": 1, \"traceEvents\": ["));
    EXPECT_FALSE(looksLikeKinetoTrace(false, "{\"format\": \"fusescope-report\"}"));
    EXPECT_FALSE(looksLikeKinetoTrace(
        false, "V1201 10:00:00.000000 123 torch/_dynamo/convert_frame.py:1 {\"traceEvents\""));
    EXPECT_FALSE(looksLikeKinetoTrace(false, ""));

    auto report = importKinetoTrace(fixture("cpu_inductor.json"));
    ASSERT_TRUE(report) << report.error().message;
    ASSERT_EQ(report.value().backends.size(), 1u);
    const BackendRun& run = report.value().backends[0];
    EXPECT_EQ(run.family, "import");
    ASSERT_TRUE(run.trace);
    EXPECT_EQ(run.trace->events.size(), 6u);
    EXPECT_TRUE(run.compiledSamplesMs.empty()); // absent, not invented
    QTemporaryDir dir;
    const std::string out = dir.filePath("k.fscope").toStdString();
    ASSERT_FALSE(writeReport(report.value(), out));
    auto back = readReport(out);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back.value().backends.at(0).trace);
    EXPECT_EQ(back.value().backends[0].trace->events.size(), 6u);
    EXPECT_EQ(back.value().backends[0].trace->iterations, 2);
}

TEST(KinetoTrace, AttachedToABackendItsKernelsLinkToThatBackendsGraphsByName) {
    Report report;
    report.backends.push_back(inductorRun());
    auto outcome = attachKinetoTrace(report, "inductor", fixture("cpu_inductor.json"));
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome.value().events, 6u);
    EXPECT_EQ(outcome.value().kernelNames, 1u);
    EXPECT_EQ(outcome.value().linkedNames, 1u);
    const BackendRun& run = report.backends[0];
    ASSERT_TRUE(run.trace);
    // Both addmm calls of an iteration link to their own extern group, the relu to its kernel.
    const TimeAttribution time = attributeKernelTime(run);
    ASSERT_EQ(time.groups.size(), 3u);
    std::map<std::string, double> ms;
    for (const auto& [ref, ns] : time.groups)
        ms[ref.id] = ns / 1e6;
    EXPECT_NEAR(ms.at("g0"), (0.020 + 0.022) / 2, 1e-9);
    EXPECT_NEAR(ms.at("g1"), (0.005 + 0.007) / 2, 1e-9);
    EXPECT_NEAR(ms.at("g2"), (0.0125 + 0.0105) / 2, 1e-9);
    EXPECT_NEAR(time.unattributedNs, 0, 1e-6);

    auto missing = attachKinetoTrace(report, "tvm", fixture("cpu_inductor.json"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "import_no_backend");
    EXPECT_NE(missing.error().message.find("inductor"), std::string::npos);
    auto damaged = attachKinetoTrace(report, "inductor", fixture("damaged_bad_ts.json"));
    ASSERT_FALSE(damaged);
    EXPECT_TRUE(report.backends[0].trace); // a refused trace changes nothing
    EXPECT_EQ(report.backends[0].trace->events.size(), 6u);
}
