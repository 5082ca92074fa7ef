#include "capture/ProvenanceCollect.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "model/Report.h"
#include "report/ReportFile.h"

#include <QTemporaryDir>
#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace fusescope;
using nlohmann::json;

namespace {

bool anyLineHas(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

} // namespace

TEST(Provenance, CollectsOriginCompileVariablesAndMachine) {
    setProcessOrigin("cli", {"fusescope-cli", "compare", "demo:mlp", "--out", "my report.fscope"});
    ::setenv("TORCHINDUCTOR_MAX_AUTOTUNE", "1", 1);
    ::setenv("TORCH_LOGS", "+dynamo,recompiles", 1);
    ::setenv("FUSESCOPE_PROVENANCE_TEST_UNRELATED", "x", 1);
    Provenance p = collectProvenance();
    EXPECT_EQ(p.fusescope, FUSESCOPE_VERSION);
    EXPECT_EQ(p.frontEnd, "cli");
    ASSERT_EQ(p.commandLine.size(), 5u);
    EXPECT_EQ(p.environment.at("TORCHINDUCTOR_MAX_AUTOTUNE"), "1");
    EXPECT_EQ(p.environment.at("TORCH_LOGS"), "+dynamo,recompiles");
    EXPECT_EQ(p.environment.count("FUSESCOPE_PROVENANCE_TEST_UNRELATED"), 0u);
    EXPECT_EQ(p.environment.count("HOME"), 0u);
    EXPECT_FALSE(p.cpu.empty());
    EXPECT_GT(p.cpuCount, 0);
    EXPECT_FALSE(p.os.empty());
    ::unsetenv("TORCHINDUCTOR_MAX_AUTOTUNE");
    ::unsetenv("TORCH_LOGS");
    ::unsetenv("FUSESCOPE_PROVENANCE_TEST_UNRELATED");

    WorkerEnvironment env;
    env.torch = "2.13.0+cu128";
    env.torchGit = "abc123";
    env.torchBuild = "cuda 12.8";
    env.python = "3.12.3";
    env.cuda = {{"version", "12.8"}, {"devices", {"NVIDIA H200"}}};
    p.gpus.clear();
    addWorkerEnvironment(p, env);
    EXPECT_EQ(p.torch, "2.13.0+cu128");
    EXPECT_EQ(p.torchBuild, "cuda 12.8");
    EXPECT_EQ(p.gpus, (std::vector<std::string>{"NVIDIA H200"}));
    const auto lines = provenanceLines(p);
    EXPECT_TRUE(anyLineHas(lines, "command line: fusescope-cli compare demo:mlp --out 'my report.fscope'"));
    EXPECT_TRUE(anyLineHas(lines, "torch: 2.13.0+cu128, cuda 12.8, git abc123"));
    EXPECT_TRUE(anyLineHas(lines, "GPU: NVIDIA H200"));
}

TEST(Provenance, CompileVariablesAreTheOnesThatChangeCompilation) {
    for (const char* name :
         {"TORCHINDUCTOR_FREEZING", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_VERBOSE", "TORCH_LOGS", "TORCH_TRACE",
          "TRITON_CACHE_DIR", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS"})
        EXPECT_TRUE(isCompileEnvironmentVariable(name)) << name;
    for (const char* name : {"PATH", "HOME", "TORCH", "LD_LIBRARY_PATH", "XTORCHINDUCTOR_X"})
        EXPECT_FALSE(isCompileEnvironmentVariable(name)) << name;
}

TEST(Provenance, CpuModelFromCpuinfo) {
    EXPECT_EQ(cpuModelFromCpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
                                  "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t: fpu\n"),
              "Intel(R) Xeon(R) CPU @ 2.20GHz");
    EXPECT_EQ(cpuModelFromCpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n\nModel\t: Raspberry Pi 4 Model B\n"),
              "Raspberry Pi 4 Model B");
    EXPECT_EQ(cpuModelFromCpuinfo(""), "");
    EXPECT_EQ(cpuModelFromCpuinfo("model\t: 85\n"), "");
}

TEST(Provenance, RoundTripsThroughAReportFileAndOldReportsHaveNone) {
    Report report;
    report.modelSpec = "demo:mlp";
    report.environment.torch = "2.13.0+cpu";
    report.environment.torchGit = "deadbeef";
    report.environment.torchBuild = "cpu";
    Provenance p;
    p.fusescope = "1.2.3";
    p.frontEnd = "gui";
    p.commandLine = {"fusescope", "--model", "demo:mlp"};
    p.torch = "2.13.0+cpu";
    p.torchGit = "deadbeef";
    p.torchBuild = "cpu";
    p.python = "3.12.3";
    p.environment = {{"TORCHINDUCTOR_FREEZING", "1"}, {"TORCH_LOGS", "recompiles"}};
    p.cpu = "Some CPU";
    p.cpuCount = 2;
    p.gpus = {"GPU A", "GPU B"};
    p.os = "Linux 6.8";
    report.provenance = p;

    QTemporaryDir dir;
    const std::string path = dir.filePath("p.fscope").toStdString();
    ASSERT_FALSE(writeReport(report, path));
    auto back = readReport(path);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back.value().provenance);
    EXPECT_EQ(*back.value().provenance, p);
    EXPECT_EQ(back.value().environment.torchGit, "deadbeef");
    EXPECT_EQ(back.value().environment.torchBuild, "cpu");

    json j = report;
    j.erase("provenance");
    j["environment"].erase("torch_git");
    j["environment"].erase("torch_build");
    auto old = codec::decodeReport(j);
    ASSERT_TRUE(old) << old.error().message;
    EXPECT_FALSE(old.value().provenance);
    EXPECT_TRUE(old.value().environment.torchGit.empty());
}

TEST(Provenance, AWrongTypedFieldIsAnErrorNamingIt) {
    Report report;
    report.provenance = Provenance{};
    json j = report;
    j["provenance"]["environment"] = {{"TORCH_LOGS", 3}};
    auto bad = codec::decodeReport(j);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("provenance.environment.TORCH_LOGS"), std::string::npos)
        << bad.error().message;
    j = report;
    j["provenance"]["gpus"] = "one";
    bad = codec::decodeReport(j);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("provenance.gpus"), std::string::npos) << bad.error().message;
}
