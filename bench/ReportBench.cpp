// Report and stream throughput on a synthetic transformer-sized stage graph (bench/README.md).
#include "codec/ReportCodec.h"
#include "codec/StageCodec.h"
#include "model/Report.h"
#include "report/ReportFile.h"
#include "stream/WorkerStream.h"

#include <benchmark/benchmark.h>

using namespace fusescope;

namespace {

StageGraph syntheticStage(int nodes) {
    StageGraph s;
    s.name = "post_grad";
    s.fusion = "none";
    for (int i = 0; i < nodes; ++i) {
        GraphNode n;
        n.id = "n" + std::to_string(i);
        n.name = n.id;
        n.op = i % 3 ? "aten.add.Tensor" : "aten.mm.default";
        n.kind = "call_function";
        n.category = i % 3 ? "pointwise" : "matmul";
        n.shapes = {{"8", "128", "768"}};
        n.dtypes = {"float32"};
        n.module = "encoder.layer." + std::to_string(i / 100) + ".attention";
        s.nodes.push_back(std::move(n));
        if (i > 0)
            s.edges.push_back({"n" + std::to_string(i - 1), n.id});
    }
    return s;
}

std::string streamText(int nodes) {
    nlohmann::json stage = syntheticStage(nodes);
    return R"({"type":"hello","protocol":"fusescope-worker","version":1})"
           "\n" +
           nlohmann::json{{"type", "stage"}, {"stage", stage}}.dump() + "\n";
}

void BM_ParseWorkerStream(benchmark::State& state) {
    const std::string text = streamText(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        BackendRun run;
        WorkerStream stream(run);
        benchmark::DoNotOptimize(stream.feed(text));
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseWorkerStream)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ParseReport(benchmark::State& state) {
    Report r;
    BackendRun run;
    run.name = "inductor";
    run.stages = {syntheticStage(static_cast<int>(state.range(0)))};
    r.backends = {run};
    const std::string text = nlohmann::json(r).dump();
    for (auto _ : state)
        benchmark::DoNotOptimize(parseReport(text, "bench"));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseReport)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
