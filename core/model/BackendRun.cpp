#include "BackendRun.h"

#include "JsonUtil.h"

#include <algorithm>
#include <sstream>

namespace fusescope {

using jsonutil::orNull;
using nlohmann::json;

const char* toString(RunStatus status) {
    switch (status) {
    case RunStatus::Pending:
        return "pending";
    case RunStatus::Running:
        return "running";
    case RunStatus::Ok:
        return "ok";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Unavailable:
        return "unavailable";
    case RunStatus::Cancelled:
        return "cancelled";
    }
    return "failed";
}

RunStatus runStatusFromString(const std::string& text) {
    for (auto s : {RunStatus::Pending, RunStatus::Running, RunStatus::Ok, RunStatus::Failed,
                   RunStatus::Unavailable, RunStatus::Cancelled})
        if (text == toString(s))
            return s;
    return RunStatus::Failed;
}

json compileBreakdownJson(const std::vector<CompilePhase>& phases) {
    if (phases.empty())
        return nullptr;
    json j = json::object();
    for (const auto& p : phases)
        j[p.name] = p.seconds;
    return j;
}

json compileGraphsJson(const std::vector<GraphCompileTime>& graphs) {
    json list = json::array();
    for (const auto& g : graphs)
        list.push_back({{"compile_id", g.compileId},
                        {"phases", compileBreakdownJson(g.phases)},
                        {"total_s", g.totalSeconds}});
    return list;
}

const StageGraph* BackendRun::findStage(const std::string& key) const {
    auto it = std::find_if(stages.begin(), stages.end(), [&](const StageGraph& s) { return s.key() == key; });
    return it == stages.end() ? nullptr : &*it;
}

void to_json(json& j, const ModelInfo& m) {
    json inputs = json::array();
    for (const auto& in : m.inputs)
        inputs.push_back({{"shape", in.shape}, {"dtype", in.dtype}});
    j = {{"name", m.name},
         {"source", m.source},
         {"class", m.className},
         {"parameters", m.parameters},
         {"inputs", std::move(inputs)}};
    json modules = json::array();
    for (const auto& mod : m.modules)
        modules.push_back({{"name", mod.name},
                           {"class", mod.className},
                           {"parameters", mod.parameters},
                           {"depth", mod.depth}});
    j["modules"] = std::move(modules);
}

void to_json(json& j, const Accuracy& a) {
    j = {{"max_abs", a.maxAbs}, {"max_rel", a.maxRel}, {"cosine", a.cosine},      {"rmse", a.rmse},
         {"pass", a.pass},      {"rule", a.rule},      {"tolerance", a.tolerance}};
    j["precision"] = a.precision.empty() ? json(nullptr) : json(a.precision);
    j["status"] = a.status.empty() ? json(nullptr) : json(a.status);
    j["reason"] = a.reason.empty() ? json(nullptr) : json(a.reason);
    if (a.firstDivergence)
        j["first_divergence"] = *a.firstDivergence;
}

std::string firstDivergenceText(const FirstDivergence& d) {
    std::ostringstream out;
    out.precision(3);
    if (d.node.empty()) {
        out << "no diverging node named: " << (d.reason.empty() ? "unknown" : d.reason);
    } else {
        out << "first diverging node " << d.node;
        if (!d.op.empty())
            out << " (" << d.op << ")";
        if (d.graph >= 0)
            out << " in graph " << d.graph;
        out << ", kernel " << (d.kernel.empty() ? "unknown" : d.kernel);
        if (d.kernels.size() > 1)
            out << " (and " << d.kernels.size() - 1 << " more)";
        if (!d.module.empty())
            out << ", module " << d.module;
        if (!d.file.empty())
            out << ", at " << d.file << ":" << d.line;
        if (!d.code.empty())
            out << " `" << d.code << "`";
        if (d.maxAbs)
            out << "; max abs " << *d.maxAbs;
        if (d.maxRel)
            out << ", max rel " << *d.maxRel;
    }
    out << " (bisect " << (d.method.empty() ? "" : d.method + ", ") << d.compiles
        << (d.compiles == 1 ? " compile, " : " compiles, ") << d.seconds << " s"
        << (d.budgetExhausted ? ", budget exhausted" : "") << ")";
    return out.str();
}

void to_json(json& j, const FirstDivergence& d) {
    j = json::object();
    auto text = [&j](const char* key, const std::string& value) {
        if (!value.empty())
            j[key] = value;
    };
    text("node", d.node);
    if (d.graph >= 0)
        j["graph"] = d.graph;
    text("stage", d.stage);
    text("op", d.op);
    text("kernel", d.kernel);
    if (!d.kernels.empty())
        j["kernels"] = d.kernels;
    text("module", d.module);
    text("module_type", d.moduleType);
    text("file", d.file);
    if (d.line > 0)
        j["line"] = d.line;
    text("code", d.code);
    if (d.maxAbs)
        j["max_abs"] = *d.maxAbs;
    if (d.maxRel)
        j["max_rel"] = *d.maxRel;
    text("method", d.method);
    j["compiles"] = d.compiles;
    j["seconds"] = d.seconds;
    if (d.budgetSeconds)
        j["budget_s"] = *d.budgetSeconds;
    j["budget_exhausted"] = d.budgetExhausted;
    text("reason", d.reason);
}

std::string accuracyStatus(const Accuracy& a) {
    if (!a.status.empty())
        return a.status;
    return a.pass ? "pass" : "fail_accuracy";
}

void to_json(json& j, const GraphBreak& b) {
    j = {{"reason", b.reason},
         {"file", b.file},
         {"line", b.line},
         {"detail", b.detail},
         {"graph", b.graph < 0 ? json(nullptr) : json(b.graph)}};
}

void to_json(json& j, const TrainingResult& t) {
    j = {{"loss", t.loss},
         {"optimizer", t.optimizer},
         {"batch_size", orNull(t.batchSize)},
         {"compile_forward_s", orNull(t.compileForwardSeconds)},
         {"compile_backward_s", orNull(t.compileBackwardSeconds)},
         {"gradient_accuracy", t.gradientAccuracy ? json(*t.gradientAccuracy) : json(nullptr)}};
    if (t.gradientAccuracy)
        j["gradient_accuracy"]["worst_parameter"] = t.worstParameter;
}

void to_json(json& j, const ShapeStudy& study) {
    json runs = json::array();
    for (const auto& run : study.runs) {
        json points = json::array();
        for (const auto& p : run.points)
            points.push_back({{"index", p.index},
                              {"status", p.status},
                              {"recompiled", p.recompiled},
                              {"first_call_s", orNull(p.firstCallSeconds)},
                              {"eager_ms", p.eagerMs},
                              {"compiled_ms", p.compiledMs},
                              {"error", p.error.empty() ? json(nullptr) : json(p.error)}});
        runs.push_back({{"dynamic", run.dynamic},
                        {"recompiles", run.recompiles},
                        {"guard_failures", run.guardFailures},
                        {"recompile_limit", run.recompileLimit},
                        {"limit_hit", run.limitHit},
                        {"per_shape", std::move(points)}});
    }
    j = {{"sets", study.sets},
         {"runs", std::move(runs)},
         {"error", study.error.empty() ? json(nullptr) : json(study.error)}};
}

void to_json(json& j, const AssignedPart& p) {
    j = {{"module", p.module},
         {"backend", p.backend},
         {"graphs", p.graphs},
         {"graph_breaks", p.graphBreaks},
         {"compile_s", orNull(p.compileSeconds)}};
}

void to_json(json& j, const RunWarning& w) {
    j = {{"code", w.code}, {"message", w.message}};
}

void to_json(json& j, const RunPlacement& p) {
    j = {{"threads", p.threads},
         {"threads_requested", orNull(p.threadsRequested)},
         {"affinity", p.affinity},
         {"pin", p.pin.empty() ? json(nullptr) : json(p.pin)}};
    if (!p.malloc.empty())
        j["malloc"] = p.malloc;
}

void to_json(json& j, const RunMeasure& m) {
    j = {{"confidence_pct", m.confidencePct},
         {"stopped_by", m.stoppedBy.empty() ? json(nullptr) : json(m.stoppedBy)}};
    if (m.eagerFaultsPerCall || m.compiledFaultsPerCall)
        j["faults_per_call"] = {{"eager", orNull(m.eagerFaultsPerCall)},
                                {"compiled", orNull(m.compiledFaultsPerCall)}};
    if (m.settle)
        j["settle"] = *m.settle;
}

void to_json(json& j, const BackendRun& r) {
    j = {{"name", r.name}, {"family", r.family}, {"status", toString(r.status)}};
    if (r.error)
        j["error"] = {{"code", r.error->code},
                      {"message", r.error->message},
                      {"file", r.error->file},
                      {"traceback", r.error->traceback}};
    else
        j["error"] = nullptr;
    j["compile_s"] = orNull(r.compileSeconds);
    j["compile_capture_overhead_s"] = orNull(r.captureOverheadSeconds);
    j["first_call_s"] = orNull(r.firstCallSeconds);
    // Written only when measured, so a report from before them reads and writes back unchanged.
    if (r.captureSeconds)
        j["capture_s"] = *r.captureSeconds;
    if (r.warmCompileSeconds)
        j["warm_compile_s"] = *r.warmCompileSeconds;
    if (!r.compileBreakdown.empty())
        j["compile_breakdown"] = compileBreakdownJson(r.compileBreakdown);
    if (!r.graphCompileBreakdown.empty())
        j["compile_breakdown_graphs"] = compileGraphsJson(r.graphCompileBreakdown);
    j["wall_s"] = r.wallSeconds;
    j["samples"] = {{"eager", r.eagerSamplesMs}, {"compiled", r.compiledSamplesMs}};
    j["peak_memory_bytes"] = orNull(r.peakMemoryBytes);
    j["eager_peak_memory_bytes"] = orNull(r.eagerPeakMemoryBytes);
    if (r.tuning) // tuned rows only
        j["tvm_tuning"] = *r.tuning;
    if (r.deployment) // written only when measured: older reports round-trip unchanged
        j["deployment"] = *r.deployment;
    j["memory_method"] = r.memoryMethod;
    j["accuracy"] = r.accuracy ? json(*r.accuracy) : json(nullptr);
    j["graphs"] = r.graphs;
    j["graph_breaks"] = r.graphBreaks;
    j["recompiles"] = r.recompiles;
    j["break_reasons"] = r.breakReasons;
    j["notes"] = r.notes;
    j["warnings"] = r.warnings;
    j["placement"] = r.placement ? json(*r.placement) : json(nullptr);
    if (r.measure)
        j["measure"] = *r.measure;
    j["stages"] = r.stages;
    json code = json::array();
    for (const auto& c : r.code)
        code.push_back({{"name", c.name}, {"language", c.language}, {"stage", c.stage}, {"text", c.text}});
    j["code"] = std::move(code);
    j["model"] = r.model ? json(*r.model) : json(nullptr);
    j["trace"] = r.trace ? json(*r.trace) : json(nullptr);
    j["trace_info"] = r.traceInfo;
    j["options"] = r.options;
    j["workload"] = r.workload;
    j["training"] = r.training ? json(*r.training) : json(nullptr);
    j["shapes"] = r.shapes ? json(*r.shapes) : json(nullptr);
    json assign = nullptr;
    if (!r.assign.empty()) {
        assign = json::object();
        for (const auto& [module, backend] : r.assign)
            assign[module] = backend;
    }
    j["assign"] = std::move(assign);
    j["parts"] = r.parts;
    j["log"] = r.log;
}

} // namespace fusescope
