#include "BackendRun.h"

#include "JsonUtil.h"

#include <algorithm>

namespace fusescope {

using jsonutil::optional;
using jsonutil::orNull;
using jsonutil::valueOr;
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

void from_json(const json& j, ModelInfo& m) {
    m.name = valueOr<std::string>(j, "name", "");
    m.source = valueOr<std::string>(j, "source", "");
    m.className = valueOr<std::string>(j, "class", "");
    m.parameters = valueOr<int64_t>(j, "parameters", 0);
    m.inputs.clear();
    if (auto it = j.find("inputs"); it != j.end() && it->is_array()) {
        for (const auto& in : *it) {
            TensorSpec spec;
            if (auto s = in.find("shape"); s != in.end() && s->is_array())
                for (const auto& d : *s)
                    spec.shape.push_back(d.is_string() ? d.get<std::string>() : d.dump());
            spec.dtype = valueOr<std::string>(in, "dtype", "");
            m.inputs.push_back(std::move(spec));
        }
    }
    m.modules.clear();
    if (auto it = j.find("modules"); it != j.end() && it->is_array())
        for (const auto& mod : *it)
            m.modules.push_back({valueOr<std::string>(mod, "name", ""),
                                 valueOr<std::string>(mod, "class", ""),
                                 valueOr<int64_t>(mod, "parameters", 0), valueOr<int>(mod, "depth", 1)});
}

void to_json(json& j, const Accuracy& a) {
    j = {{"max_abs", a.maxAbs}, {"max_rel", a.maxRel}, {"cosine", a.cosine},      {"rmse", a.rmse},
         {"pass", a.pass},      {"rule", a.rule},      {"tolerance", a.tolerance}};
    j["precision"] = a.precision.empty() ? json(nullptr) : json(a.precision);
}

void from_json(const json& j, Accuracy& a) {
    a.maxAbs = valueOr<double>(j, "max_abs", 0);
    a.maxRel = valueOr<double>(j, "max_rel", 0);
    a.cosine = valueOr<double>(j, "cosine", 0);
    a.rmse = valueOr<double>(j, "rmse", 0);
    a.pass = valueOr<bool>(j, "pass", false);
    a.rule = valueOr<std::string>(j, "rule", "");
    a.tolerance = valueOr<double>(j, "tolerance", 0);
    a.precision = valueOr<std::string>(j, "precision", "");
}

void to_json(json& j, const GraphBreak& b) {
    j = {{"reason", b.reason},
         {"file", b.file},
         {"line", b.line},
         {"detail", b.detail},
         {"graph", b.graph < 0 ? json(nullptr) : json(b.graph)}};
}

void from_json(const json& j, GraphBreak& b) {
    b.reason = valueOr<std::string>(j, "reason", "");
    b.file = valueOr<std::string>(j, "file", "");
    b.line = valueOr<int>(j, "line", 0);
    b.detail = valueOr<std::string>(j, "detail", "");
    b.graph = valueOr<int>(j, "graph", -1);
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

void from_json(const json& j, TrainingResult& t) {
    t.loss = valueOr<std::string>(j, "loss", "");
    t.optimizer = valueOr<std::string>(j, "optimizer", "");
    t.batchSize = optional<int64_t>(j, "batch_size");
    t.compileForwardSeconds = optional<double>(j, "compile_forward_s");
    t.compileBackwardSeconds = optional<double>(j, "compile_backward_s");
    t.gradientAccuracy = optional<Accuracy>(j, "gradient_accuracy");
    t.worstParameter.clear();
    if (auto it = j.find("gradient_accuracy"); it != j.end() && it->is_object())
        t.worstParameter = valueOr<std::string>(*it, "worst_parameter", "");
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

namespace {

// A worker reports an error either as a string or as the protocol's error object.
std::string errorText(const json& j) {
    auto it = j.find("error");
    if (it == j.end() || it->is_null())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_object())
        return valueOr<std::string>(*it, "message", it->dump());
    return it->dump();
}

} // namespace

void from_json(const json& j, ShapeStudy& study) {
    study.sets = valueOr<json>(j, "sets", json::array());
    study.error = errorText(j);
    study.runs.clear();
    if (auto it = j.find("runs"); it != j.end() && it->is_array()) {
        for (const auto& r : *it) {
            ShapeRun run;
            run.dynamic = valueOr<bool>(r, "dynamic", false);
            run.recompiles = valueOr<int>(r, "recompiles", -1);
            run.guardFailures = valueOr<int>(r, "guard_failures", -1);
            run.recompileLimit = valueOr<int>(r, "recompile_limit", -1);
            run.limitHit = valueOr<bool>(r, "limit_hit", false);
            if (auto p = r.find("per_shape"); p != r.end() && p->is_array()) {
                for (const auto& point : *p) {
                    ShapePoint sp;
                    sp.index = valueOr<int>(point, "index", static_cast<int>(run.points.size()));
                    sp.status = valueOr<std::string>(point, "status", "ok");
                    sp.recompiled = valueOr<bool>(point, "recompiled", false);
                    sp.firstCallSeconds = optional<double>(point, "first_call_s");
                    sp.eagerMs = valueOr<std::vector<double>>(point, "eager_ms", {});
                    sp.compiledMs = valueOr<std::vector<double>>(point, "compiled_ms", {});
                    sp.error = errorText(point);
                    run.points.push_back(std::move(sp));
                }
            }
            study.runs.push_back(std::move(run));
        }
    }
}

void to_json(json& j, const AssignedPart& p) {
    j = {{"module", p.module},
         {"backend", p.backend},
         {"graphs", p.graphs},
         {"graph_breaks", p.graphBreaks},
         {"compile_s", orNull(p.compileSeconds)}};
}

void from_json(const json& j, AssignedPart& p) {
    p.module = valueOr<std::string>(j, "module", "");
    p.backend = valueOr<std::string>(j, "backend", "");
    p.graphs = valueOr<int>(j, "graphs", -1);
    p.graphBreaks = valueOr<int>(j, "graph_breaks", -1);
    p.compileSeconds = optional<double>(j, "compile_s");
}

void readWorkloadResults(const json& j, BackendRun& r) {
    if (auto it = j.find("workload"); it != j.end() && it->is_object())
        r.workload = *it;
    if (auto it = j.find("training"); it != j.end() && it->is_object())
        r.training = it->get<TrainingResult>();
    if (auto it = j.find("shapes"); it != j.end() && it->is_object())
        r.shapes = it->get<ShapeStudy>();
    if (auto it = j.find("assign"); it != j.end() && it->is_object()) {
        r.assign.clear();
        for (const auto& [module, backend] : it->items())
            if (backend.is_string())
                r.assign.emplace_back(module, backend.get<std::string>());
    }
    if (auto it = j.find("parts"); it != j.end() && it->is_array())
        r.parts = it->get<std::vector<AssignedPart>>();
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
    j["wall_s"] = r.wallSeconds;
    j["samples"] = {{"eager", r.eagerSamplesMs}, {"compiled", r.compiledSamplesMs}};
    j["peak_memory_bytes"] = orNull(r.peakMemoryBytes);
    j["eager_peak_memory_bytes"] = orNull(r.eagerPeakMemoryBytes);
    j["memory_method"] = r.memoryMethod;
    j["accuracy"] = r.accuracy ? json(*r.accuracy) : json(nullptr);
    j["graphs"] = r.graphs;
    j["graph_breaks"] = r.graphBreaks;
    j["recompiles"] = r.recompiles;
    j["break_reasons"] = r.breakReasons;
    j["notes"] = r.notes;
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

void from_json(const json& j, BackendRun& r) {
    r.name = j.at("name").get<std::string>();
    r.family = valueOr<std::string>(j, "family", "torch_compile");
    r.status = runStatusFromString(valueOr<std::string>(j, "status", "failed"));
    if (auto it = j.find("error"); it != j.end() && it->is_object()) {
        r.error = RunError{valueOr<std::string>(*it, "code", ""), valueOr<std::string>(*it, "message", ""),
                           valueOr<std::string>(*it, "file", ""), valueOr<std::string>(*it, "traceback", "")};
    }
    r.compileSeconds = optional<double>(j, "compile_s");
    r.captureOverheadSeconds = optional<double>(j, "compile_capture_overhead_s");
    r.firstCallSeconds = optional<double>(j, "first_call_s");
    r.wallSeconds = valueOr<double>(j, "wall_s", 0);
    if (auto it = j.find("samples"); it != j.end() && it->is_object()) {
        r.eagerSamplesMs = valueOr<std::vector<double>>(*it, "eager", {});
        r.compiledSamplesMs = valueOr<std::vector<double>>(*it, "compiled", {});
    }
    r.peakMemoryBytes = optional<int64_t>(j, "peak_memory_bytes");
    r.eagerPeakMemoryBytes = optional<int64_t>(j, "eager_peak_memory_bytes");
    r.memoryMethod = valueOr<std::string>(j, "memory_method", "");
    r.accuracy = optional<Accuracy>(j, "accuracy");
    r.graphs = valueOr<int>(j, "graphs", -1);
    r.graphBreaks = valueOr<int>(j, "graph_breaks", -1);
    r.recompiles = valueOr<int>(j, "recompiles", -1);
    r.breakReasons = valueOr<std::vector<GraphBreak>>(j, "break_reasons", {});
    r.notes = valueOr<std::vector<std::string>>(j, "notes", {});
    r.stages = valueOr<std::vector<StageGraph>>(j, "stages", {});
    r.code.clear();
    if (auto it = j.find("code"); it != j.end() && it->is_array())
        for (const auto& c : *it)
            r.code.push_back({valueOr<std::string>(c, "name", ""), valueOr<std::string>(c, "language", ""),
                              valueOr<std::string>(c, "stage", ""), valueOr<std::string>(c, "text", "")});
    r.model = optional<ModelInfo>(j, "model");
    r.trace = optional<KernelTrace>(j, "trace");
    r.traceInfo = valueOr<json>(j, "trace_info", nullptr);
    r.options = valueOr<json>(j, "options", json::object());
    readWorkloadResults(j, r);
    r.log = valueOr<std::string>(j, "log", "");
}

} // namespace fusescope
