// libFuzzer target: bytes -> the PyTorch profiler (Kineto) trace reader (core/trace/KinetoTrace,
// docs/import.md), then what the views compute over the trace it returns: the kernel table, the
// links to a backend's graphs and the time per node (attached to a small fixed backend), the
// Chrome trace export and the report encoding. parseKinetoTrace must never throw and never crash,
// whatever the bytes; a refused input is an Error.
#include "codec/Json.h"
#include "codec/TraceCodec.h"
#include "trace/ChromeTraceExport.h"
#include "trace/KernelLinks.h"
#include "trace/KernelStats.h"
#include "trace/KinetoTrace.h"
#include "trace/TimeAttribution.h"
#include "trace/TimelineIndex.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

using namespace fusescope;

namespace {

BackendRun smallRun() {
    StageGraph s;
    s.name = "post_fusion";
    s.fusion = "after";
    const char* names[] = {"extern_kernels.addmm", "cpp_fused_relu_0", "triton_poi_fused_add_0"};
    for (int i = 0; i < 3; ++i) {
        FusionGroup g;
        g.id = "g" + std::to_string(i);
        g.name = names[i];
        g.kind = i == 0 ? "extern_kernel" : "kernel";
        GraphNode n;
        n.id = "n" + std::to_string(i);
        n.kind = "scheduler_node";
        n.group = g.id;
        g.nodes = {n.id};
        s.nodes.push_back(n);
        s.groups.push_back(g);
    }
    BackendRun run;
    run.stages.push_back(s);
    return run;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto trace =
        import::parseKinetoTrace(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (!trace)
        return 0;
    const KernelTrace& t = trace.value();
    for (const auto& track : t.tracks)
        (void)t.trackRange(track.id);
    const TimelineIndex index(t);
    (void)index.eventTracks();
    (void)kernelStatsCsv(computeKernelStats(t, KernelStatsOptions::forTrace(t)));
    BackendRun run = smallRun();
    run.trace = t;
    (void)attributeKernelTime(run);
    (void)codec::dumpJson(chromeTraceJson(t, "fuzz"));
    (void)codec::dumpJson(nlohmann::json(t));
    return 0;
}
