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
}

void to_json(json& j, const Accuracy& a) {
    j = {{"max_abs", a.maxAbs}, {"max_rel", a.maxRel}, {"cosine", a.cosine},      {"rmse", a.rmse},
         {"pass", a.pass},      {"rule", a.rule},      {"tolerance", a.tolerance}};
}

void from_json(const json& j, Accuracy& a) {
    a.maxAbs = valueOr<double>(j, "max_abs", 0);
    a.maxRel = valueOr<double>(j, "max_rel", 0);
    a.cosine = valueOr<double>(j, "cosine", 0);
    a.rmse = valueOr<double>(j, "rmse", 0);
    a.pass = valueOr<bool>(j, "pass", false);
    a.rule = valueOr<std::string>(j, "rule", "");
    a.tolerance = valueOr<double>(j, "tolerance", 0);
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
    json breaks = json::array();
    for (const auto& b : r.breakReasons)
        breaks.push_back({{"reason", b.reason}, {"file", b.file}, {"line", b.line}});
    j["break_reasons"] = std::move(breaks);
    j["stages"] = r.stages;
    json code = json::array();
    for (const auto& c : r.code)
        code.push_back({{"name", c.name}, {"language", c.language}, {"stage", c.stage}, {"text", c.text}});
    j["code"] = std::move(code);
    j["model"] = r.model ? json(*r.model) : json(nullptr);
    j["trace"] = r.trace ? json(*r.trace) : json(nullptr);
    j["trace_info"] = r.traceInfo;
    j["options"] = r.options;
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
    r.breakReasons.clear();
    if (auto it = j.find("break_reasons"); it != j.end() && it->is_array())
        for (const auto& b : *it)
            r.breakReasons.push_back({valueOr<std::string>(b, "reason", ""),
                                      valueOr<std::string>(b, "file", ""), valueOr<int>(b, "line", 0)});
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
    r.log = valueOr<std::string>(j, "log", "");
}

} // namespace fusescope
