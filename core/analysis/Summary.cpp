#include "Summary.h"

#include "Advice.h"
#include "Confidence.h"
#include "LatencyStats.h"
#include "QuantizationLines.h"
#include "RunWarnings.h"
#include "Speedup.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "trace/KernelLinks.h"

#include <algorithm>
#include <map>

namespace fusescope {

using nlohmann::json;

std::optional<double> speedupOverEager(const BackendRun& run) {
    // One number everywhere (table, charts, recommendation): the median per-iteration ratio.
    if (auto s = pairedSpeedup(run))
        return s->median;
    return std::nullopt;
}

StageCounts stageCounts(const StageGraph& stage) {
    StageCounts c;
    c.nodes = stage.computeNodeCount();
    if (stage.fusion == "after")
        c.kernels = stage.kernelCount();
    return c;
}

namespace {

json orNullD(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

json intervalJson(const std::optional<MedianInterval>& ci) {
    return ci ? json::array({ci->lo, ci->hi}) : json(nullptr);
}

json latencyJson(const std::vector<double>& samples) {
    if (samples.empty())
        return nullptr;
    const auto s = computeLatencyStats(samples);
    return {
        {"median", s.median}, {"iqr", s.iqr()}, {"q1", s.q1},
        {"q3", s.q3},         {"min", s.min},   {"max", s.max},
        {"mean", s.mean},     {"n", s.n},       {"ci95", intervalJson(medianConfidenceInterval(samples))}};
}

// How the timing loop ended and whether the confidence target was met (RunWarnings.h).
json measureJson(const BackendRun& run) {
    const auto c = confidenceOutcome(run);
    if (!c)
        return nullptr;
    return {{"confidence_pct", c->targetPct},
            {"confidence_reached", c->reached},
            {"half_width_pct", orNullD(c->halfWidthPct)},
            {"stopped_by", c->stoppedBy.empty() ? json(nullptr) : json(c->stoppedBy)},
            // as the report writes it (RunMeasure's to_json), null when not counted
            {"faults_per_call",
             run.measure ? json(*run.measure).value("faults_per_call", json(nullptr)) : json(nullptr)}};
}

template <typename T> json orNull(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json speedupJson(const std::optional<SpeedupEstimate>& s) {
    if (!s)
        return nullptr;
    return {{"median", s->median},
            {"q1", s->q1},
            {"q3", s->q3},
            {"pairs", s->pairs},
            {"ci95", intervalJson(s->ci95)}};
}

json shapesSummary(const BackendRun& run) {
    if (!run.shapes)
        return nullptr;
    const auto& study = *run.shapes;
    json runs = json::array();
    for (const auto& r : study.runs) {
        json points = json::array();
        for (const auto& p : r.points) {
            const json inputs = p.index >= 0 && p.index < static_cast<int>(study.sets.size())
                                    ? json(study.sets[p.index])
                                    : json(nullptr);
            points.push_back({{"index", p.index},
                              {"inputs", inputs},
                              {"status", p.status},
                              {"recompiled", p.recompiled},
                              {"first_call_s", orNull(p.firstCallSeconds)},
                              {"latency_ms", latencyJson(p.compiledMs)},
                              {"eager_latency_ms", latencyJson(p.eagerMs)},
                              {"speedup", speedupJson(pairedSpeedup(p.eagerMs, p.compiledMs))},
                              {"error", p.error.empty() ? json(nullptr) : json(p.error)}});
        }
        runs.push_back({{"dynamic", r.dynamic},
                        {"recompiles", r.recompiles},
                        {"guard_failures", r.guardFailures},
                        {"recompile_limit", r.recompileLimit},
                        {"limit_hit", r.limitHit},
                        {"per_shape", std::move(points)}});
    }
    return {{"sets", study.sets},
            {"runs", std::move(runs)},
            {"error", study.error.empty() ? json(nullptr) : json(study.error)}};
}

json trainingSummary(const BackendRun& run) {
    if (!run.training)
        return nullptr;
    json t = *run.training;
    t["throughput_samples_s"] = nullptr;
    if (run.training->batchSize && !run.compiledSamplesMs.empty()) {
        const double ms = computeLatencyStats(run.compiledSamplesMs).median;
        if (ms > 0)
            t["throughput_samples_s"] = static_cast<double>(*run.training->batchSize) * 1000.0 / ms;
    }
    return t;
}

json traceSummary(const BackendRun& run) {
    if (!run.trace) {
        if (run.traceInfo && !run.traceInfo->error.empty())
            return {{"source", run.traceInfo->source.empty() ? json(nullptr) : json(run.traceInfo->source)},
                    {"error", run.traceInfo->error}};
        return nullptr;
    }
    const auto& t = *run.trace;
    const auto kernels = std::count_if(t.events.begin(), t.events.end(),
                                       [](const TraceEvent& e) { return e.kind == EventKind::Kernel; });
    json out = {{"source", t.source},   {"events", t.events.size()},  {"kernels", kernels},
                {"dropped", t.dropped}, {"iterations", t.iterations}, {"memory_events", t.memory.size()}};
    if (run.traceInfo) {
        if (run.traceInfo->untracedMs)
            out["untraced_ms"] = *run.traceInfo->untracedMs;
        if (run.traceInfo->tracedMs)
            out["traced_ms"] = *run.traceInfo->tracedMs;
        if (run.traceInfo->overheadRatio)
            out["overhead_ratio"] = *run.traceInfo->overheadRatio;
    }
    // Kernels and ops linked to the kernel groups they ran (trace/KernelLinks.h), when the run has
    // after-fusion stages to link to.
    if (const auto stages = afterFusionStages(run); !stages.empty()) {
        const auto links = linkKernelsToGroups(t, stages);
        out["linked"] = links.groups.size();
        out["unlinked_kernels"] = links.unlinkedKernels;
    }
    return out;
}

} // namespace

std::optional<int> nodesBeforeFusion(const BackendRun& run) {
    // Per Dynamo graph, the last stage captured before fusion is what the fusion passes get
    // (Inductor's pre-fusion scheduler nodes). A backend without fusion passes runs its last
    // stage as it is (aot_eager's AOT graph, eager's Dynamo graph). In training mode the backward
    // graph is counted as well, like the backward kernels after fusion.
    std::map<std::pair<std::string, int>, const StageGraph*> lastBefore;
    for (const auto& s : run.stages)
        if (s.status == StageStatus::Ok && (s.fusion == "before" || s.fusion == "none"))
            lastBefore[{s.pass, s.graph}] = &s;
    if (lastBefore.empty())
        return std::nullopt;
    int total = 0;
    for (const auto& [graph, stage] : lastBefore)
        total += stage->computeNodeCount();
    return total;
}

std::optional<int> kernelsAfterFusion(const BackendRun& run) {
    int total = 0;
    bool any = false;
    for (const auto& s : run.stages)
        if (s.status == StageStatus::Ok && s.fusion == "after") {
            total += s.kernelCount();
            any = true;
        }
    return any ? std::optional<int>(total) : std::nullopt;
}

json summaryJson(const Report& report, const SummaryOptions& options) {
    json backends = json::array();
    for (const auto& run : report.backends) {
        json b = {{"name", run.name}, {"family", run.family}};
        // `pending`/`running` never reach a summary of a finished run; a run cut short is failed.
        std::string status = toString(run.status);
        if (run.status == RunStatus::Pending || run.status == RunStatus::Running ||
            run.status == RunStatus::Cancelled)
            status = "failed";
        b["status"] = status;
        b["error"] = run.error ? json(run.error->code + ": " + run.error->message) : json(nullptr);
        b["error_code"] = run.error ? json(run.error->code) : json(nullptr);
        b["compile_s"] = orNull(run.compileSeconds);
        b["latency_ms"] = latencyJson(run.compiledSamplesMs);
        b["eager_latency_ms"] = latencyJson(run.eagerSamplesMs);
        b["speedup_vs_eager"] = orNull(speedupOverEager(run));
        const auto speedup = pairedSpeedup(run);
        b["speedup"] = speedupJson(speedup);
        b["speedup_ci95"] = speedup ? intervalJson(speedup->ci95) : json(nullptr);
        b["measure"] = measureJson(run);
        b["peak_memory_bytes"] = orNull(run.peakMemoryBytes);
        b["eager_peak_memory_bytes"] = orNull(run.eagerPeakMemoryBytes);
        b["deployment"] = run.deployment ? json(*run.deployment) : json(nullptr); // artifact backends
        b["tvm_tuning"] = run.tuning ? json(*run.tuning) : json(nullptr);         // tvm{tune=N} rows
        b["quantization"] = json(nullptr); // int8 rows: the record and the kernels computing in int8
        if (run.quantization) {
            b["quantization"] = *run.quantization;
            b["quantization"]["int8_kernels"] = int8KernelNames(run);
        }
        b["memory_method"] = run.memoryMethod.empty() ? json(nullptr) : json(run.memoryMethod);
        // The report's record (with the bisect's first_divergence when it ran), and its status as
        // PyTorch's harness names it even for reports written before statuses.
        b["accuracy"] = run.accuracy ? json(*run.accuracy) : json(nullptr);
        if (run.accuracy)
            b["accuracy"]["status"] = accuracyStatus(*run.accuracy);
        b["graphs"] = run.graphs >= 0 ? json(run.graphs) : json(nullptr);
        b["graph_breaks"] = run.graphBreaks >= 0 ? json(run.graphBreaks) : json(nullptr);
        b["break_reasons"] = run.breakReasons;
        b["notes"] = run.notes;
        b["warnings"] = runWarnings(run); // stored and derived (RunWarnings.h)
        b["placement"] = run.placement ? json(*run.placement) : json(nullptr);
        b["recompiles"] = run.recompiles >= 0 ? json(run.recompiles) : json(nullptr);
        b["workload"] = run.workload ? json(*run.workload) : json(nullptr);
        b["training"] = trainingSummary(run);
        b["shapes"] = shapesSummary(run);
        if (!run.assign.empty()) {
            b["assign"] = json::object();
            for (const auto& [module, backend] : run.assign)
                b["assign"][module] = backend;
        } else {
            b["assign"] = nullptr;
        }
        b["parts"] = run.parts;
        // compile_s split up, and the compiles apart from it (docs/measurement.md "Compile time")
        b["capture_s"] = orNull(run.captureSeconds);
        b["warm_compile_s"] = orNull(run.warmCompileSeconds);
        b["capture_from"] = run.captureFrom.empty() ? json(nullptr) : json(run.captureFrom);
        b["capture_from_reason"] =
            run.captureFromReason.empty() ? json(nullptr) : json(run.captureFromReason);
        b["compile_breakdown"] = compileBreakdownJson(run.compileBreakdown);
        b["compile_breakdown_graphs"] = compileGraphsJson(run.graphCompileBreakdown);
        b["trace"] = traceSummary(run);
        b["nodes_before_fusion"] = orNull(nodesBeforeFusion(run));
        b["kernels_after_fusion"] = orNull(kernelsAfterFusion(run));
        json stages = json::array();
        for (const auto& s : run.stages) {
            const auto c = stageCounts(s);
            json st = {
                {"name", s.name}, {"graph", s.graph}, {"status", toString(s.status)}, {"nodes", c.nodes}};
            if (!s.pass.empty())
                st["pass"] = s.pass;
            if (!s.module.empty())
                st["module"] = s.module;
            st["kernels"] = orNull(c.kernels);
            if (s.status != StageStatus::Ok)
                st["reason"] = s.reason;
            stages.push_back(std::move(st));
        }
        b["stages"] = std::move(stages);
        backends.push_back(std::move(b));
    }
    return {{"schema", report.schema},
            {"model", report.modelSpec.empty() ? report.model.name : report.modelSpec},
            {"model_info", report.model},
            {"device", report.device},
            {"torch", report.environment.torch},
            {"python", report.environment.python},
            {"created", report.created},
            {"completion",
             [&] {
                 switch (completionOf(report)) {
                 case Completion::Complete:
                     return "complete";
                 case Completion::Partial:
                     return "partial";
                 case Completion::Failed:
                     return "failed";
                 }
                 return "failed";
             }()},
            {"backends", std::move(backends)},
            {"recommendation", toJson(recommend(report, options.goal, options.recommend))},
            {"search", report.search ? json(*report.search) : json(nullptr)},
            // `tune` reports: the tuner's outcome as stored (docs/tuning.md); null otherwise
            {"tuning", report.tuning ? json(*report.tuning) : json(nullptr)},
            // docs/advice.md: computed from the report each time, never stored in it
            {"advice", toJson(adviceFor(report))},
            {"warnings", reportWarnings(report)}, // stored, then derived (RunWarnings.h)
            {"provenance", report.provenance ? json(*report.provenance) : json()}};
}

Completion completionOf(const Report& report) {
    const auto ok = std::count_if(report.backends.begin(), report.backends.end(),
                                  [](const BackendRun& r) { return r.status == RunStatus::Ok; });
    if (!report.backends.empty() && ok == static_cast<long>(report.backends.size()))
        return Completion::Complete;
    return ok > 0 ? Completion::Partial : Completion::Failed;
}

} // namespace fusescope
