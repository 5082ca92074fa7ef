#pragma once

#include "codec/StageCodec.h"
#include "model/Report.h"

#include <nlohmann/json.hpp>

namespace fusescope::testdata {

// An ok run whose compiled samples are eager / `speedup`, each pair jittered by +-`spread`.
// Compile time 10 s, peak memory 1000 bytes.
inline BackendRun timedRun(const std::string& name, double speedup, double spread = 0.01, bool pass = true) {
    BackendRun run;
    run.name = name;
    run.status = RunStatus::Ok;
    for (int i = 0; i < 40; ++i) {
        const double jitter = 1.0 + spread * ((i % 5) - 2) / 2.0; // -spread .. +spread
        run.eagerSamplesMs.push_back(10.0);
        run.compiledSamplesMs.push_back(10.0 / speedup * jitter);
    }
    Accuracy a;
    a.pass = pass;
    a.maxAbs = pass ? 1e-6 : 0.3;
    a.maxRel = pass ? 1e-5 : 0.2;
    a.tolerance = 1e-3;
    a.rule = "allclose";
    run.accuracy = a;
    run.compileSeconds = 10.0;
    run.peakMemoryBytes = 1000;
    return run;
}

// A small post-fusion stage: three scheduler nodes, two of them fused into one kernel.
inline StageGraph fusedStage() {
    StageGraph s;
    s.name = "post_fusion";
    s.label = "Inductor scheduler, after fusion";
    s.level = "scheduler";
    s.fusion = "after";
    s.nodes = {
        {"buf0",
         "buf0",
         "aten.addmm.default",
         "extern_kernel",
         "matmul",
         {{"4", "128"}},
         {"float32"},
         "blocks.0.mlp.fc1",
         "torch.nn.Linear",
         SourceLocation{"model.py", 12, "self.fc1(x)"},
         "k0",
         {"addmm"}},
        {"buf1",
         "buf1",
         "gelu",
         "scheduler_node",
         "pointwise",
         {{"4", "s0"}},
         {"float32"},
         "blocks.0.mlp",
         "",
         {},
         "k1",
         {"mul", "erf"}},
        {"buf2",
         "buf2",
         "add",
         "scheduler_node",
         "pointwise",
         {{"4", "128"}},
         {"float32"},
         "blocks.0",
         "",
         {},
         "k1",
         {"add"}},
    };
    s.edges = {{"buf0", "buf1"}, {"buf1", "buf2"}};
    s.groups = {{"k0", "extern_kernels.addmm", "extern_kernel", {"buf0"}, {"addmm"}, "", std::nullopt},
                {"k1",
                 "cpp_fused_add_gelu_0",
                 "kernel",
                 {"buf1", "buf2"},
                 {"mul", "erf", "add"},
                 "output_code.py",
                 std::nullopt}};
    return s;
}

inline Report sampleReport() {
    Report r;
    r.created = "2026-11-30T08:00:00Z";
    r.generator = "FuseScope test";
    r.modelSpec = "demo:mlp";
    r.model.name = "demo:mlp";
    r.model.parameters = 1234;
    r.model.inputs = {{{"4", "16"}, "float32"}};
    r.environment.protocolVersion = 1;
    r.environment.torch = "2.13.0+cpu";

    BackendRun ok;
    ok.name = "inductor";
    ok.status = RunStatus::Ok;
    ok.compileSeconds = 3.5;
    ok.eagerSamplesMs = {2.0, 2.2, 2.1, 1.9};
    ok.compiledSamplesMs = {1.0, 1.1, 0.9, 1.0};
    ok.peakMemoryBytes = 1 << 20;
    ok.memoryMethod = "profiler-allocator-peak";
    ok.accuracy =
        Accuracy{1e-6, 1e-5, 0.999999, 1e-7, true, "allclose", 1e-3, "fp32", "pass", "", std::nullopt};
    ok.graphs = 1;
    ok.graphBreaks = 0;
    StageGraph pre = fusedStage();
    pre.name = "pre_fusion";
    pre.fusion = "before";
    pre.groups.clear();
    ok.stages = {pre, fusedStage()};
    ok.code = {{"output_code.py", "python", "post_fusion", "def call(args):\n    pass\n"}};

    BackendRun failed;
    failed.name = "tvm";
    failed.status = RunStatus::Unavailable;
    failed.error = RunError{"backend_unavailable", "backend tvm: apache-tvm is not installed", "", ""};

    r.backends = {ok, failed};
    return r;
}

// sampleReport() with as many copies of its inductor stages (each its own graph) as make their JSON
// at least `stageBytes` long: a report large enough for its stages to be read after the rest
// (report/ReportFile.h, kDeferStagesFromBytes). A third row, eager, has stages of its own.
inline Report largeStagesReport(size_t stageBytes) {
    Report r = sampleReport();
    const std::vector<StageGraph> one = r.backends[0].stages;
    const size_t perCopy = nlohmann::json(one).dump().size();
    std::vector<StageGraph> many;
    for (size_t copy = 0; copy * perCopy < stageBytes; ++copy)
        for (StageGraph s : one) {
            s.graph = static_cast<int>(copy);
            many.push_back(std::move(s));
        }
    r.backends[0].stages = std::move(many);
    BackendRun eager = r.backends[0];
    eager.name = "eager";
    eager.stages = {one.front()};
    r.backends.push_back(std::move(eager));
    return r;
}

} // namespace fusescope::testdata
