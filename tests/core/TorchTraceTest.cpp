// TORCH_TRACE log import (docs/import.md): the envelope parser on damaged text, the FX and
// output-code readers, and the mapping of tests/fixtures/torch_trace/inductor_break.log (a real
// log of a Linear-ReLU-print-Linear model compiled with inductor and called with two shapes,
// reduced by keeping the records FuseScope maps).
#include "import/FxText.h"
#include "import/Import.h"
#include "import/TorchTraceLog.h"
#include "report/ReportFile.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>

using namespace fusescope;
using namespace fusescope::import;

namespace {

std::string fixture(const std::string& name) {
    return std::string(FUSESCOPE_SOURCE_DIR) + "/tests/fixtures/torch_trace/" + name;
}

std::string md5(const std::string& text) {
    return QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Md5)
        .toHex()
        .toStdString();
}

// One envelope line (and its payload lines) as torch writes them.
std::string record(const std::string& fields, const std::string& payload = {}, bool withPayload = false) {
    std::string line = "V1201 15:48:10.296000 8435 torch/_dynamo/output_graph.py:2841] {" + fields;
    if (!withPayload)
        return line + "}\n";
    line += ", \"has_payload\": \"" + md5(payload) + "\"}\n";
    size_t pos = 0;
    while (pos <= payload.size()) {
        size_t end = payload.find('\n', pos);
        if (end == std::string::npos)
            end = payload.size();
        line += "\t" + payload.substr(pos, end - pos) + "\n";
        pos = end + 1;
    }
    return line;
}

const char* kGraph = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, L_x_: \"f32[2, 8][8, 1]cpu\"):\n"
                     "        l_x_ = L_x_\n"
                     "        \n"
                     "         # File: /m.py:8 in forward, code: y = torch.relu(x)\n"
                     "        y: \"f32[2, 8][8, 1]cpu\" = torch.relu(l_x_);  l_x_ = None\n"
                     "        mul: \"f32[2, 8][8, 1]cpu\" = y * 2;  y = None\n"
                     "        return (mul,)\n"
                     "        ";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST(TorchTraceLog, ParsesEnvelopesIdsAndPayloads) {
    const std::string text = record("\"str\": [\"/m.py\", 1]") +
                             record("\"dynamo_output_graph\": {\"sizes\": {}}, \"frame_id\": 0, "
                                    "\"frame_compile_id\": 1, \"attempt\": 2",
                                    kGraph, true) +
                             "[rank1]:" +
                             record("\"artifact\": {\"name\": \"x\"}, \"frame_id\": 3, \"frame_compile_id\": "
                                    "0, \"compiled_autograd_id\": 4");
    auto log = parseTorchTraceText(text, "t.log");
    ASSERT_TRUE(log) << log.error().message;
    ASSERT_EQ(log.value().records.size(), 3u);
    EXPECT_TRUE(log.value().notes.empty()) << log.value().notes.front();
    const auto& g = log.value().records[1];
    EXPECT_EQ(g.kind, "dynamo_output_graph");
    EXPECT_EQ(g.compileId(), "0/1_2");
    EXPECT_EQ(g.line, 2u);
    EXPECT_EQ(g.payload, kGraph);
    EXPECT_EQ(log.value().records[0].compileId(), "");
    EXPECT_EQ(log.value().records[2].compileId(), "!4/3/0");
}

TEST(TorchTraceLog, DamagedLinesAreSkippedWithFileLineAndWhy) {
    std::string good =
        record("\"dynamo_output_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 0", kGraph, true);
    std::string text = "garbage line\n" +
                       record("\"artifact\": {\"name\": \"a\"}, \"frame_id\": 0, \"frame_compile_id\"") +
                       "\tstray payload\n" + good;
    // A payload altered after it was written: kept, noted.
    std::string altered = good;
    altered.replace(altered.find("torch.relu"), 10, "torch.tanh");
    text += altered;
    auto log = parseTorchTraceText(text, "bad.log");
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_EQ(log.value().records.size(), 2u);
    const auto& notes = log.value().notes;
    ASSERT_EQ(notes.size(), 4u);
    EXPECT_EQ(notes[0].rfind("bad.log:1: not a structured-trace line", 0), 0u) << notes[0];
    EXPECT_EQ(notes[1].rfind("bad.log:2: envelope skipped", 0), 0u) << notes[1];
    EXPECT_EQ(notes[2].rfind("bad.log:3: payload line with no record", 0), 0u) << notes[2];
    EXPECT_NE(notes[3].find("does not match its has_payload md5"), std::string::npos) << notes[3];
    EXPECT_EQ(log.value().skippedLines, 3u);
}

TEST(TorchTraceLog, LimitsAreErrorsNamingTheRecord) {
    TorchTraceLimits limits;
    limits.maxPayloadBytes = 64;
    auto log = parseTorchTraceText(
        record("\"dynamo_output_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 0", kGraph, true),
        "big.log", limits);
    ASSERT_FALSE(log);
    EXPECT_EQ(log.error().code, "import_limit");
    EXPECT_NE(log.error().message.find("big.log:1: the payload of this dynamo_output_graph record"),
              std::string::npos)
        << log.error().message;
    limits = {};
    limits.maxRecords = 1;
    log = parseTorchTraceText(record("\"str\": [\"a\", 1]") + record("\"str\": [\"b\", 2]"), "many.log",
                              limits);
    ASSERT_FALSE(log);
    EXPECT_NE(log.error().message.find("many.log:2: more than 1 records"), std::string::npos)
        << log.error().message;
}

TEST(TorchTraceLog, HostileBytesNeverCrash) {
    // Truncated at every byte of a real record, NULs and invalid UTF-8: a result or an error.
    const std::string text =
        record("\"dynamo_output_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 0", kGraph, true);
    for (size_t cut = 0; cut < text.size(); ++cut) {
        auto log = parseTorchTraceText(text.substr(0, cut), "cut.log");
        if (log && !log.value().records.empty())
            EXPECT_TRUE(reportFromTorchTrace(log.value(), "cut.log"));
        else if (log)
            EXPECT_EQ(reportFromTorchTrace(log.value(), "cut.log").error().code, "import_empty");
    }
    std::string binary = text;
    binary[40] = '\0';
    binary[60] = char(0xff);
    EXPECT_TRUE(parseTorchTraceText(binary, "bin.log"));
}

TEST(FxText, ReadsPlaceholdersNodesEdgesAndSource) {
    auto g = parseFxText(kGraph).stage;
    ASSERT_EQ(g.nodes.size(), 4u);
    EXPECT_EQ(g.nodes[0].id, "L_x_");
    EXPECT_EQ(g.nodes[0].kind, "placeholder");
    EXPECT_EQ(g.nodes[0].dtypes, std::vector<std::string>{"float32"});
    EXPECT_EQ(g.nodes[0].shapes, (std::vector<std::vector<std::string>>{{"2", "8"}}));
    EXPECT_EQ(g.nodes[1].id, "y");
    EXPECT_EQ(g.nodes[1].op, "torch.relu");
    EXPECT_EQ(g.nodes[1].category, "pointwise");
    ASSERT_TRUE(g.nodes[1].source);
    EXPECT_EQ(g.nodes[1].source->file, "/m.py");
    EXPECT_EQ(g.nodes[1].source->line, 8);
    EXPECT_EQ(g.nodes[2].op, "mul");
    EXPECT_EQ(g.nodes[3].kind, "output");
    // l_x_ is an alias of L_x_: the edge starts at the placeholder.
    const std::vector<std::pair<std::string, std::string>> want = {
        {"L_x_", "y"}, {"y", "mul"}, {"mul", "output"}};
    ASSERT_EQ(g.edges.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(g.edges[i].src, want[i].first);
        EXPECT_EQ(g.edges[i].dst, want[i].second);
    }
    EXPECT_TRUE(parseFxText("no graph here").stage.nodes.empty());
}

TEST(FxText, OutputCodeKernelsWithSourceNodes) {
    const std::string code =
        "# AOT ID: ['0_forward']\n"
        "# kernel path: /c/x.py\n"
        "# Topologically Sorted Source Nodes: [y, mul], Original ATen: [aten.relu, aten.mul]\n"
        "cpp_fused_mul_relu_0 = async_compile.cpp_pybinding(['float*'], r'''\n"
        "body\n"
        "''')\n"
        "class Runner:\n"
        "    def call(self, args):\n"
        "        primals_1, primals_2 = args\n"
        "        buf0 = empty_strided_cpu((2, 8), (8, 1), torch.float32)\n"
        "        # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.addmm]\n"
        "        extern_kernels.addmm(primals_2, primals_1, out=buf0)\n"
        "        buf1 = buf0; del buf0  # reuse\n"
        "        cpp_fused_mul_relu_0(buf1)\n"
        "        return (buf1, )\n";
    const OutputCode parsed = parseOutputCode(code);
    EXPECT_EQ(parsed.aotId, "0_forward");
    EXPECT_EQ(parsed.inputs, (std::vector<std::string>{"primals_1", "primals_2"}));
    std::vector<const OutputKernel*> kernels;
    for (const auto& k : parsed.kernels)
        if (k.kind != "alias")
            kernels.push_back(&k);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0]->name, "extern_kernels.addmm");
    EXPECT_EQ(kernels[0]->sourceNodes, std::vector<std::string>{"linear"});
    EXPECT_EQ(kernels[1]->name, "cpp_fused_mul_relu_0");
    EXPECT_EQ(kernels[1]->sourceNodes, (std::vector<std::string>{"y", "mul"}));
    const StageGraph stage = postFusionStage(parsed);
    EXPECT_EQ(stage.kernelCount(), 2);
    // addmm wrote buf0, reused as buf1 by the relu kernel: one edge between them.
    const bool linked = std::any_of(stage.edges.begin(), stage.edges.end(), [](const GraphEdge& e) {
        return e.src == "extern_kernels.addmm" && e.dst == "cpp_fused_mul_relu_0";
    });
    EXPECT_TRUE(linked);
}

TEST(TorchTraceImport, FixtureMapsGraphsBreaksRecompilesKernelsAndTimes) {
    auto report = importPath(fixture("inductor_break.log"));
    ASSERT_TRUE(report) << report.error().message;
    const Report& r = report.value();
    EXPECT_EQ(r.environment.torch, "2.13.0+cpu");
    EXPECT_EQ(r.device, "cpu");
    ASSERT_TRUE(r.settings.import);
    EXPECT_EQ(r.settings.import->format, "torch_trace");
    ASSERT_EQ(r.backends.size(), 1u);
    const BackendRun& run = r.backends[0];
    // tlparse on the same log (docs/import.md): compiles 0/0_1, 1/0, 0/1_1, 1/1 have one Dynamo
    // graph each; two dynamo_graph_break_reason artifacts (0/0 and its recompile 0/1); two
    // recompiles (0/1, 1/1).
    EXPECT_EQ(run.graphs, 4);
    EXPECT_EQ(run.graphBreaks, 2);
    EXPECT_EQ(run.recompiles, 2);
    ASSERT_EQ(run.breakReasons.size(), 2u);
    EXPECT_EQ(run.breakReasons[0].file, "/tmp/tt/model.py");
    EXPECT_EQ(run.breakReasons[0].line, 9);
    EXPECT_NE(run.breakReasons[0].reason.find("Failed to trace builtin operator"), std::string::npos)
        << run.breakReasons[0].reason;
    EXPECT_TRUE(run.eagerSamplesMs.empty());
    EXPECT_TRUE(run.compiledSamplesMs.empty());
    EXPECT_FALSE(run.accuracy);
    EXPECT_FALSE(run.peakMemoryBytes);
    // Every compile's stages, keyed by graph.
    for (const char* key : {"dynamo_fx", "aot_joint", "aot_forward", "aot_backward", "post_grad",
                            "post_fusion", "dynamo_fx#3", "post_fusion#3", "post_fusion_backward#2"})
        EXPECT_NE(run.findStage(key), nullptr) << key;
    const StageGraph* fused = run.findStage("post_fusion");
    ASSERT_NE(fused, nullptr);
    std::vector<std::string> names;
    for (const auto& g : fused->groups)
        names.push_back(g.name);
    EXPECT_EQ(names,
              (std::vector<std::string>{"extern_kernels.addmm", "cpp_fused_relu_threshold_backward_0"}));
    // Inductor's "Source Nodes" comment: torch 2.13 writes it for the extern call on CPU, not for
    // its C++ kernels (those get provenance only from INDUCTOR_PROVENANCE=1, the next test).
    EXPECT_EQ(fused->groups[0].provenance, std::vector<std::string>{"linear"});
    EXPECT_TRUE(fused->groups[1].provenance.empty());
    const StageGraph* dynamo = run.findStage("dynamo_fx");
    ASSERT_NE(dynamo->findNode("linear"), nullptr);
    ASSERT_TRUE(dynamo->findNode("linear")->source);
    EXPECT_EQ(dynamo->findNode("linear")->source->line, 8);
    // compilation_metrics of the four compiles.
    ASSERT_EQ(run.graphCompileBreakdown.size(), 4u);
    EXPECT_EQ(run.graphCompileBreakdown[0].compileId, "0/0");
    ASSERT_TRUE(run.compileSeconds);
    EXPECT_GT(*run.compileSeconds, 0);
    const bool recompileNoted = std::any_of(run.notes.begin(), run.notes.end(), [](const std::string& n) {
        return n.rfind("recompile 0/1: ", 0) == 0 && n.find("size mismatch") != std::string::npos;
    });
    EXPECT_TRUE(recompileNoted);
}

TEST(TorchTraceImport, ReportRoundTripsAndDirectoryIsDetected) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string logDir = dir.filePath("trace").toStdString();
    std::filesystem::create_directory(logDir);
    std::ofstream(logDir + "/dedicated_log_torch_trace_abc.log") << readFile(fixture("inductor_break.log"));
    std::ofstream(logDir + "/notes.txt") << "not a log";
    auto detected = detectImporter(logDir);
    ASSERT_TRUE(detected) << detected.error().message;
    EXPECT_STREQ(detected.value()->name, "torch_trace");
    auto report = importPath(logDir);
    ASSERT_TRUE(report) << report.error().message;
    const std::string out = dir.filePath("r.fscope").toStdString();
    ASSERT_FALSE(writeReport(report.value(), out));
    auto back = readReport(out);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back.value().backends[0].graphs, 4);
    EXPECT_EQ(back.value().backends[0].stages.size(), report.value().backends[0].stages.size());
    ASSERT_TRUE(back.value().settings.import);
    EXPECT_EQ(back.value().settings.import->source, logDir);
}

TEST(TorchTraceImport, UnknownAndEmptyInputsAreErrorsNamingThePath) {
    QTemporaryDir dir;
    const std::string text = dir.filePath("x.log").toStdString();
    std::ofstream(text) << "hello\nworld\n";
    auto r = importPath(text);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "import_unknown_format");
    EXPECT_NE(r.error().message.find(text), std::string::npos);
    EXPECT_NE(r.error().message.find("'hello"), std::string::npos) << r.error().message;
    r = importPath(dir.filePath("missing").toStdString());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "import_not_found");
    // A log whose only line is an envelope of no compile: no graphs, nothing invented.
    const std::string one = dir.filePath("one.log").toStdString();
    std::ofstream(one) << record("\"str\": [\"/m.py\", 1]");
    auto report = importPath(one);
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(report.value().backends[0].graphs, 0);
    EXPECT_FALSE(report.value().backends[0].compileSeconds);
}

TEST(TorchTraceImport, DamagedFixtureImportsWhatItHoldsAndSaysWhere) {
    // tests/fixtures/torch_trace/damaged.log: the first 300 lines of inductor_break.log with a
    // foreign line, a cut envelope and a stray payload line after line 40 (inside the break's
    // payload), and the first Dynamo graph's payload edited (md5 mismatch).
    auto log = readTorchTrace(fixture("damaged.log"));
    ASSERT_TRUE(log) << log.error().message;
    const auto& notes = log.value().notes;
    auto noted = [&](const std::string& prefix) {
        return std::any_of(notes.begin(), notes.end(),
                           [&](const std::string& n) { return n.find(prefix) != std::string::npos; });
    };
    const std::string f = fixture("damaged.log");
    EXPECT_TRUE(noted(f + ":41: not a structured-trace line"));
    EXPECT_TRUE(noted(f + ":42: envelope skipped"));
    EXPECT_TRUE(noted(f + ":43: payload line with no record"));
    EXPECT_TRUE(noted(f + ":81: the payload of this dynamo_output_graph record does not match"));
    auto report = reportFromTorchTrace(log.value(), f);
    ASSERT_TRUE(report) << report.error().message;
    const BackendRun& run = report.value().backends[0];
    EXPECT_EQ(run.graphs, 2); // 0/0_1 (edited, kept) and 1/0, the rest was cut off
    ASSERT_EQ(run.breakReasons.size(), 1u);
    EXPECT_EQ(run.breakReasons[0].line, 9);
    EXPECT_EQ(run.findStage("dynamo_fx")->findNode("y")->op, "torch.tanh");
    const bool skippedNoted = std::any_of(run.notes.begin(), run.notes.end(), [](const std::string& n) {
        return n.find("line(s) of the log skipped as damaged") != std::string::npos;
    });
    EXPECT_TRUE(skippedNoted);
}

TEST(TorchTraceImport, InductorProvenanceMappingGivesPostGradNodes) {
    // tests/fixtures/torch_trace/provenance.log: the model with a break under no_grad, compiled with
    // INDUCTOR_PROVENANCE=1, so each output code is followed by its kernel -> post-grad node map.
    auto report = importPath(fixture("provenance.log"));
    ASSERT_TRUE(report) << report.error().message;
    const BackendRun& run = report.value().backends[0];
    EXPECT_EQ(run.graphs, 2);
    const StageGraph* second = run.findStage("post_fusion#1");
    ASSERT_NE(second, nullptr);
    const FusionGroup* fused = nullptr;
    for (const auto& g : second->groups)
        if (g.name == "cpp_fused_mul_sigmoid_0")
            fused = &g;
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->provenance, (std::vector<std::string>{"mul", "sigmoid"}));
    // The source-node names of Inductor's comment stay on the kernel node (the extern addmm's:
    // Dynamo's `linear`), the mapping's post-grad names become the group's provenance.
    const GraphNode* node = second->findNode(second->groups.front().nodes.front());
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->origins, std::vector<std::string>{"linear"});
    EXPECT_EQ(second->groups.front().provenance, std::vector<std::string>{"addmm"});
    // Every provenance name is a node of the compile's post-grad graph.
    const StageGraph* postGrad = run.findStage("post_grad#1");
    ASSERT_NE(postGrad, nullptr);
    for (const auto& g : second->groups)
        for (const auto& name : g.provenance)
            EXPECT_NE(postGrad->findNode(name), nullptr) << g.name << " -> " << name;
}
