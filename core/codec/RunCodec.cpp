#include "RunCodec.h"

#include "Json.h"
#include "SettingsCodec.h"
#include "StageCodec.h"
#include "TraceCodec.h"
#include "model/ErrorCode.h"
#include "model/JsonUtil.h"

#include <algorithm>

namespace fusescope {

using jsonutil::orNull;
using nlohmann::json;

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
    if (!r.captureFrom.empty())
        j["capture_from"] = r.captureFrom;
    if (!r.captureFromReason.empty())
        j["capture_from_reason"] = r.captureFromReason;
    if (!r.compileBreakdown.empty())
        j["compile_breakdown"] = compileBreakdownJson(r.compileBreakdown);
    if (!r.graphCompileBreakdown.empty())
        j["compile_breakdown_graphs"] = compileGraphsJson(r.graphCompileBreakdown);
    j["wall_s"] = r.wallSeconds;
    j["samples"] = {{"eager", r.eagerSamplesMs}, {"compiled", r.compiledSamplesMs}};
    if (!r.rounds.empty()) { // rows the tuner measured in more than one process (docs/tuning.md)
        json rounds = json::array();
        for (const auto& round : r.rounds) {
            json o = {{"first_sample", round.firstSample},
                      {"compile_s", orNull(round.compileSeconds)},
                      {"cache", round.cache},
                      {"status", round.status},
                      {"wall_s", round.wallSeconds}};
            if (!round.error.empty())
                o["error"] = round.error;
            rounds.push_back(std::move(o));
        }
        j["rounds"] = std::move(rounds);
    }
    j["peak_memory_bytes"] = orNull(r.peakMemoryBytes);
    j["eager_peak_memory_bytes"] = orNull(r.eagerPeakMemoryBytes);
    if (r.tuning) // tuned rows only
        j["tvm_tuning"] = *r.tuning;
    if (r.roofs) // traced rows of newer workers only
        j["roofs"] = *r.roofs;
    if (r.deployment) // written only when measured: older reports round-trip unchanged
        j["deployment"] = *r.deployment;
    if (r.quantization) // int8 rows only
        j["quantization"] = *r.quantization;
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
    j["trace_info"] = r.traceInfo ? json(*r.traceInfo) : json(nullptr);
    j["options"] = r.options;
    j["workload"] = r.workload ? json(*r.workload) : json(nullptr);
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

void to_json(json& j, const Deployment& d) {
    j = {{"artifact", d.artifact},
         {"loader", d.loader},
         {"artifact_bytes", orNull(d.artifactBytes)},
         {"eager_model_bytes", orNull(d.eagerModelBytes)},
         {"load_s", orNull(d.loadSeconds)},
         {"first_call_s", orNull(d.firstCallSeconds)},
         {"process_s", orNull(d.processSeconds)},
         {"fresh_processes", d.freshProcesses},
         {"load_samples_s", d.loadSamplesSeconds},
         {"first_call_samples_s", d.firstCallSamplesSeconds},
         {"file_cache", d.fileCache.empty() ? json(nullptr) : json(d.fileCache)},
         {"file_cache_resident", orNull(d.fileCacheResident)}};
    if (!d.error.empty())
        j["error"] = d.error;
}

void to_json(json& j, const Quantization& q) {
    json skipped = json::array();
    for (const auto& s : q.skippedModules)
        skipped.push_back({{"module", s.module}, {"reason", s.reason}});
    j = {{"mode", q.mode},
         {"library", q.library},
         {"version", q.version},
         {"quantized_modules", q.quantizedModules},
         {"skipped_modules", std::move(skipped)},
         {"weight_bytes", orNull(q.weightBytes)},
         {"fp32_weight_bytes", orNull(q.fp32WeightBytes)},
         {"quantize_s", orNull(q.quantizeSeconds)},
         {"notes", q.notes}};
    if (!q.calibration.empty())
        j["calibration"] = q.calibration;
}

void to_json(json& j, const Roofs& roofs) {
    if (!roofs.error.empty()) {
        j = {{"error", roofs.error}};
        return;
    }
    j = {{"bandwidth_gbs", orNull(roofs.bandwidthGbs)},
         {"gflops", roofs.gflops},
         {"unmeasured", roofs.unmeasured},
         {"method", roofs.method},
         {"measured_at", roofs.measuredAt},
         {"device", roofs.device},
         {"cache", roofs.cache},
         {"threads", roofs.threads},
         {"seconds", orNull(roofs.seconds)}};
    for (const auto& [key, value] : roofs.samples.items())
        j[key] = value;
}

void to_json(json& j, const Tuning& t) {
    j = {{"method", t.method},
         {"trials_requested", t.trialsRequested},
         {"trials", t.trials},
         {"tasks", t.tasks},
         {"tuned_tasks", t.tunedTasks},
         {"cache", t.cache},
         {"tune_s", t.seconds},
         {"key", t.key},
         {"dir", t.dir}};
    if (!t.stoppedBy.empty())
        j["stopped_by"] = t.stoppedBy;
    if (t.trialsWhenTuned)
        j["trials_when_tuned"] = *t.trialsWhenTuned;
}

} // namespace fusescope

namespace fusescope::codec {

using nlohmann::json;

namespace {

// The objects of array `key`, each read by `read(reader, item)`; a member that is not an object
// fails the decode with its path and is skipped.
template <class T, class Read>
void appendObjects(const Reader& r, const char* key, std::vector<T>& out, Read read) {
    r.each(key, [&](const Reader& item) {
        if (item.expectObject())
            read(item, out.emplace_back());
    });
}

void readAccuracy(const Reader& r, Accuracy& a) {
    a.maxAbs = r.number("max_abs");
    a.maxRel = r.number("max_rel");
    a.cosine = r.number("cosine");
    a.rmse = r.number("rmse");
    a.pass = r.boolean("pass");
    a.rule = r.str("rule");
    a.tolerance = r.number("tolerance");
    a.precision = r.str("precision");
    a.status = r.str("status"); // absent in reports written before statuses
    a.reason = r.str("reason");
    a.firstDivergence.reset();
    if (auto d = r.object("first_divergence")) { // absent unless the bisect ran
        FirstDivergence f;
        f.node = d->str("node");
        f.graph = d->integer("graph", -1);
        f.stage = d->str("stage");
        f.op = d->str("op");
        f.kernel = d->str("kernel");
        f.kernels = d->strings("kernels");
        f.module = d->str("module");
        f.moduleType = d->str("module_type");
        f.file = d->str("file");
        f.line = d->integer("line");
        f.code = d->str("code");
        f.maxAbs = d->optNumber("max_abs");
        f.maxRel = d->optNumber("max_rel");
        f.method = d->str("method");
        f.compiles = d->integer("compiles");
        f.seconds = d->number("seconds");
        f.budgetSeconds = d->optNumber("budget_s");
        f.budgetExhausted = d->boolean("budget_exhausted");
        f.reason = d->str("reason");
        a.firstDivergence = std::move(f);
    }
}

std::optional<Accuracy> optAccuracy(const Reader& r, const char* key) {
    auto o = r.object(key);
    if (!o)
        return std::nullopt;
    Accuracy a;
    readAccuracy(*o, a);
    return a;
}

} // namespace

void readModelInfo(const Reader& r, ModelInfo& m) {
    m.name = r.str("name");
    m.source = r.str("source");
    m.className = r.str("class");
    m.parameters = r.int64("parameters");
    m.inputs.clear();
    r.each("inputs", [&](const Reader& in) {
        if (!in.expectObject())
            return;
        TensorSpec spec;
        in.each("shape", [&](const Reader& d) {
            const json& v = d.value();
            if (v.is_string())
                spec.shape.push_back(v.get<std::string>());
            else if (v.is_number_integer())
                spec.shape.push_back(v.dump());
            else
                d.fail(std::string("expected an integer or a symbolic size, got ") + describeType(v));
        });
        spec.dtype = in.str("dtype");
        m.inputs.push_back(std::move(spec));
    });
    m.modules.clear();
    r.each("modules", [&](const Reader& mod) {
        if (!mod.expectObject())
            return;
        m.modules.push_back(
            {mod.str("name"), mod.str("class"), mod.int64("parameters"), boundedInt(mod, "depth", 1, 0)});
    });
}

namespace {

void readGraphBreak(const Reader& r, GraphBreak& b) {
    b.reason = r.str("reason");
    b.file = r.str("file");
    b.line = r.integer("line");
    b.detail = r.str("detail");
    b.graph = r.integer("graph", -1);
}

void readTraining(const Reader& r, TrainingResult& t) {
    t.loss = r.str("loss");
    t.optimizer = r.str("optimizer");
    t.batchSize = r.optInt64("batch_size");
    t.compileForwardSeconds = r.optNumber("compile_forward_s");
    t.compileBackwardSeconds = r.optNumber("compile_backward_s");
    t.gradientAccuracy = optAccuracy(r, "gradient_accuracy");
    t.worstParameter.clear();
    if (auto g = r.object("gradient_accuracy"))
        t.worstParameter = g->str("worst_parameter");
}

// A worker reports an error either as a string or as the protocol's error object.
std::string errorText(const Reader& r) {
    if (!r.has("error"))
        return {};
    const json& e = r.value()["error"];
    if (e.is_string())
        return e.get<std::string>();
    if (auto o = r.object("error"))
        return o->str("message", dumpJson(e));
    r.failAt("error", std::string("expected a message or an error object, got ") + describeType(e));
    return {};
}

void readShapes(const Reader& r, ShapeStudy& study) {
    study.sets.clear();
    if (r.has("sets"))
        readInputSets(r.child("sets", r.value()["sets"]), study.sets);
    study.error = errorText(r);
    study.runs.clear();
    r.each("runs", [&](const Reader& rr) {
        if (!rr.expectObject())
            return;
        ShapeRun run;
        run.dynamic = rr.boolean("dynamic");
        run.recompiles = rr.integer("recompiles", -1);
        run.guardFailures = rr.integer("guard_failures", -1);
        run.recompileLimit = rr.integer("recompile_limit", -1);
        run.limitHit = rr.boolean("limit_hit");
        rr.each("per_shape", [&](const Reader& p) {
            if (!p.expectObject())
                return;
            ShapePoint sp;
            sp.index = boundedInt(p, "index", static_cast<int>(run.points.size()), 0);
            sp.status = p.str("status", "ok");
            sp.recompiled = p.boolean("recompiled");
            sp.firstCallSeconds = p.optNumber("first_call_s");
            sp.eagerMs = p.numbers("eager_ms");
            sp.compiledMs = p.numbers("compiled_ms");
            sp.error = errorText(p);
            run.points.push_back(std::move(sp));
        });
        study.runs.push_back(std::move(run));
    });
}

// `compile_breakdown`: {phase: seconds >= 0}, put in the documented phase order.
std::vector<CompilePhase> readCompilePhases(const Reader& r) {
    std::vector<CompilePhase> phases;
    if (!r.expectObject())
        return phases;
    for (const auto& [name, value] : r.value().items()) {
        const Reader item = r.child(name.c_str(), value);
        if (!value.is_number()) {
            item.fail(std::string("expected seconds (a number), got ") + describeType(value));
            return {};
        }
        const double seconds = value.get<double>();
        if (seconds < 0) {
            item.fail("seconds must be >= 0");
            return {};
        }
        phases.push_back({name, seconds});
    }
    return orderedPhases(std::move(phases));
}

void readCompileTimes(const Reader& r, BackendRun& run) {
    if (auto v = r.optNumber("capture_s"))
        run.captureSeconds = v;
    if (auto from = r.optStr("capture_from")) {
        if (*from != "timed_compile" && *from != "second_compile")
            r.fail("capture_from: expected \"timed_compile\" or \"second_compile\", got \"" + *from + "\"");
        else
            run.captureFrom = *from;
    }
    if (auto why = r.optStr("capture_from_reason"))
        run.captureFromReason = *why;
    if (auto v = r.optNumber("warm_compile_s"))
        run.warmCompileSeconds = v;
    if (auto b = r.object("compile_breakdown"))
        run.compileBreakdown = readCompilePhases(*b);
    if (r.has("compile_breakdown_graphs")) {
        std::vector<GraphCompileTime> graphs;
        r.each("compile_breakdown_graphs", [&](const Reader& g) {
            if (!g.expectObject())
                return;
            GraphCompileTime graph;
            graph.compileId = g.str("compile_id");
            if (auto phases = g.object("phases"))
                graph.phases = readCompilePhases(*phases);
            graph.totalSeconds = g.number("total_s");
            graphs.push_back(std::move(graph));
        });
        run.graphCompileBreakdown = std::move(graphs);
    }
}

// `deployment` (docs/protocol.md): sizes >= 0, times >= 0, fresh_processes >= 0, the resident
// fraction in [0, 1]; a bad member fails with its path.
Deployment readDeployment(const Reader& r) {
    Deployment d;
    d.artifact = r.str("artifact");
    d.loader = r.str("loader");
    const auto nonNegative = [&](const char* key, auto value) {
        if (value && *value < 0) {
            r.failAt(key, "must be >= 0");
            value.reset();
        }
        return value;
    };
    d.artifactBytes = nonNegative("artifact_bytes", r.optInt64("artifact_bytes"));
    d.eagerModelBytes = nonNegative("eager_model_bytes", r.optInt64("eager_model_bytes"));
    d.loadSeconds = nonNegative("load_s", r.optNumber("load_s"));
    d.firstCallSeconds = nonNegative("first_call_s", r.optNumber("first_call_s"));
    d.processSeconds = nonNegative("process_s", r.optNumber("process_s"));
    d.freshProcesses = boundedInt(r, "fresh_processes", 0, 0);
    d.loadSamplesSeconds = r.numbers("load_samples_s");
    d.firstCallSamplesSeconds = r.numbers("first_call_samples_s");
    d.fileCache = r.str("file_cache");
    d.fileCacheResident = r.optNumber("file_cache_resident");
    if (d.fileCacheResident && !(*d.fileCacheResident >= 0 && *d.fileCacheResident <= 1))
        r.failAt("file_cache_resident", "expected a fraction in [0, 1]");
    d.error = r.str("error");
    return d;
}

// `quantization` (docs/protocol.md, docs/quantization.md): a mode, byte counts >= 0, skipped
// modules as {module, reason}; a bad member fails with its path.
Quantization readQuantization(const Reader& r) {
    Quantization q;
    q.mode = r.str("mode");
    if (q.mode.empty())
        r.failAt("mode", "a quantization record needs its mode");
    q.library = r.str("library");
    q.version = r.str("version");
    q.quantizedModules = r.strings("quantized_modules");
    r.each("skipped_modules", [&](const Reader& s) {
        if (!s.expectObject())
            return;
        q.skippedModules.push_back({s.str("module"), s.str("reason")});
    });
    for (const char* key : {"weight_bytes", "fp32_weight_bytes"}) {
        auto value = r.optInt64(key);
        if (value && *value < 0) {
            r.failAt(key, "must be >= 0");
            value.reset();
        }
        (std::string(key) == "weight_bytes" ? q.weightBytes : q.fp32WeightBytes) = value;
    }
    q.quantizeSeconds = r.optNumber("quantize_s");
    if (q.quantizeSeconds && !(*q.quantizeSeconds >= 0)) {
        r.failAt("quantize_s", "must be >= 0");
        q.quantizeSeconds.reset();
    }
    q.calibration = r.str("calibration");
    q.notes = r.strings("notes");
    return q;
}

// `roofs` (docs/roofline.md): rates > 0 and finite, threads >= 0; `error` alone when there are none.
Roofs readRoofs(const Reader& r) {
    Roofs roofs;
    roofs.error = r.str("error");
    if (!roofs.error.empty())
        return roofs;
    const auto rate = [&](const Reader& owner, const char* key) -> std::optional<double> {
        auto v = owner.optNumber(key);
        if (v && !(*v > 0 && *v < 1e12)) {
            owner.failAt(key, "expected a rate > 0");
            return std::nullopt;
        }
        return v;
    };
    roofs.bandwidthGbs = rate(r, "bandwidth_gbs");
    if (auto g = r.object("gflops")) {
        for (const auto& [dtype, value] : g->value().items()) {
            if (auto v = rate(*g, dtype.c_str()))
                roofs.gflops[dtype] = *v;
        }
    }
    if (auto u = r.object("unmeasured")) {
        for (const auto& [what, why] : u->value().items())
            roofs.unmeasured[what] = u->str(what.c_str());
    }
    roofs.method = r.str("method");
    roofs.measuredAt = r.str("measured_at");
    roofs.device = r.str("device");
    roofs.cache = r.str("cache");
    roofs.threads = boundedInt(r, "threads", 0, 0);
    roofs.seconds = r.optNumber("seconds");
    for (const char* key : {"stream", "gemm"}) {
        if (auto v = r.object(key))
            roofs.samples[key] = v->value();
    }
    return roofs;
}

// `tvm_tuning` (docs/protocol.md): counts >= 0, tune_s >= 0; a bad member fails with its path.
Tuning readTuning(const Reader& r) {
    Tuning t;
    t.method = r.str("method");
    t.trialsRequested = boundedInt(r, "trials_requested", 0, 0);
    t.trials = boundedInt(r, "trials", 0, 0);
    t.tasks = boundedInt(r, "tasks", 0, 0);
    t.tunedTasks = boundedInt(r, "tuned_tasks", 0, 0);
    t.cache = r.str("cache");
    if (auto s = r.optNumber("tune_s")) {
        if (*s < 0)
            r.failAt("tune_s", "must be >= 0");
        else
            t.seconds = *s;
    }
    t.key = r.str("key");
    t.dir = r.str("dir");
    t.stoppedBy = r.str("stopped_by");
    if (auto n = r.optInt64("trials_when_tuned")) {
        if (*n < 0 || *n > 1000000000)
            r.failAt("trials_when_tuned", "expected an integer in [0, 1e9]");
        else
            t.trialsWhenTuned = static_cast<int>(*n);
    }
    return t;
}

void readPart(const Reader& r, AssignedPart& p) {
    p.module = r.str("module");
    p.backend = r.str("backend");
    p.graphs = r.integer("graphs", -1);
    p.graphBreaks = r.integer("graph_breaks", -1);
    p.compileSeconds = r.optNumber("compile_s");
}

void readRunError(const Reader& r, RunError& e) {
    e.code = r.str("code", toString(ErrorCode::Internal));
    e.message = r.str("message");
    e.file = r.str("file");
    e.traceback = r.str("traceback");
}

void readCode(const Reader& r, CodeArtifact& c) {
    c.name = r.str("name");
    c.language = r.str("language");
    c.stage = r.str("stage");
    c.text = r.str("text");
}

} // namespace

// `warnings`: [{code, message}], of a run or of the whole report.
std::vector<RunWarning> readWarnings(const Reader& r) {
    std::vector<RunWarning> warnings;
    r.each("warnings", [&](const Reader& w) {
        if (!w.expectObject())
            return;
        if (!w.has("code"))
            w.fail("a warning needs a \"code\"");
        warnings.push_back({w.str("code"), w.str("message")});
    });
    return warnings;
}

namespace {

// The fields a `result` message and a saved run share, applied where present.
void readResultFields(const Reader& r, BackendRun& run) {
    if (auto v = r.optNumber("compile_s"))
        run.compileSeconds = v;
    if (auto v = r.optNumber("compile_capture_overhead_s"))
        run.captureOverheadSeconds = v;
    if (auto v = r.optNumber("first_call_s"))
        run.firstCallSeconds = v;
    readCompileTimes(r, run); // capture_s, warm_compile_s, compile_breakdown: newer workers only
    if (auto v = r.optInt64("peak_memory_bytes"))
        run.peakMemoryBytes = v;
    if (auto v = r.optInt64("eager_peak_memory_bytes"))
        run.eagerPeakMemoryBytes = v;
    if (auto d = r.object("deployment")) // artifact backends only; absent in older reports
        run.deployment = readDeployment(*d);
    if (auto t = r.object("tvm_tuning")) // tvm{tune=N} only
        run.tuning = readTuning(*t);
    if (auto roofs = r.object("roofs")) // traced rows of newer workers only
        run.roofs = readRoofs(*roofs);
    if (auto q = r.object("quantization")) // int8 rows only
        run.quantization = readQuantization(*q);
    run.memoryMethod = r.str("memory_method", run.memoryMethod);
    if (auto a = optAccuracy(r, "accuracy"))
        run.accuracy = a;
    run.graphs = r.integer("graphs", run.graphs);
    run.graphBreaks = r.integer("graph_breaks", run.graphBreaks);
    run.recompiles = r.integer("recompiles", run.recompiles);
    if (r.has("break_reasons")) {
        std::vector<GraphBreak> breaks;
        appendObjects(r, "break_reasons", breaks, readGraphBreak);
        run.breakReasons = std::move(breaks);
    }
    for (auto& note : r.strings("notes"))
        run.notes.push_back(std::move(note));
    if (r.has("warnings")) // reports written before the machine check have none
        run.warnings = readWarnings(r);
    if (auto p = r.object("placement")) {
        RunPlacement placement;
        placement.threads = boundedInt(*p, "threads", 0, 0);
        if (p->has("threads_requested") && !p->value()["threads_requested"].is_null())
            placement.threadsRequested = boundedInt(*p, "threads_requested", 0, 1);
        const auto cpuList = [&](const char* key) {
            std::vector<int> cpus;
            for (double cpu : p->numbers(key)) {
                if (!(cpu >= 0 && cpu < (1 << 20)) || cpu != static_cast<double>(static_cast<int>(cpu))) {
                    p->failAt(key, "expected CPU numbers (integers >= 0)");
                    return std::vector<int>{};
                }
                cpus.push_back(static_cast<int>(cpu));
            }
            return cpus;
        };
        placement.affinity = cpuList("affinity");
        placement.pin = cpuList("pin");
        placement.malloc = p->str("malloc");
        run.placement = std::move(placement);
    }
    if (auto m = r.object("measure")) { // results and reports before the confidence rule have none
        RunMeasure measure;
        if (auto pct = m->optNumber("confidence_pct")) {
            if (*pct < 0 || *pct > 100)
                m->failAt("confidence_pct", "expected a percentage from 0 to 100");
            measure.confidencePct = *pct;
        }
        measure.stoppedBy = m->str("stopped_by");
        if (auto f = m->object("faults_per_call")) { // minor page faults per timed call, each side
            const auto count = [&](const char* side) {
                auto v = f->optNumber(side);
                if (v && !(*v >= 0)) {
                    f->failAt(side, "must be >= 0");
                    v.reset();
                }
                return v;
            };
            measure.eagerFaultsPerCall = count("eager");
            measure.compiledFaultsPerCall = count("compiled");
        }
        if (auto settle = m->optInt64("settle")) { // untimed calls before each timed one
            if (*settle < 0 || *settle > 1000)
                m->failAt("settle", "expected a number of calls from 0 to 1000");
            else
                measure.settle = static_cast<int>(*settle);
        }
        run.measure = std::move(measure);
    }
    if (auto w = r.object("workload")) {
        Workload workload;
        readWorkload(*w, workload);
        run.workload = std::move(workload);
    }
    if (auto t = r.object("training")) {
        TrainingResult training;
        readTraining(*t, training);
        run.training = std::move(training);
    }
    if (auto s = r.object("shapes")) {
        ShapeStudy study;
        readShapes(*s, study);
        run.shapes = std::move(study);
    }
    if (auto a = r.object("assign")) {
        run.assign.clear();
        for (const auto& [module, backend] : a->value().items()) {
            if (!backend.is_string()) {
                a->child(module.c_str(), backend)
                    .fail(std::string("expected a backend name, got ") + describeType(backend));
                break;
            }
            run.assign.emplace_back(module, backend.get<std::string>());
        }
    }
    if (r.has("parts")) {
        std::vector<AssignedPart> parts;
        appendObjects(r, "parts", parts, readPart);
        run.parts = std::move(parts);
    }
    if (r.has("options"))
        run.options = checkedOptions(r.child("options", r.value()["options"]));
}

} // namespace

namespace {

// `rounds` (docs/report-format.md): in order, each starting at or after the one before and
// inside the samples; absent in rows one process measured.
void readRounds(const Reader& r, BackendRun& run) {
    const auto samples =
        static_cast<int64_t>(std::min(run.eagerSamplesMs.size(), run.compiledSamplesMs.size()));
    int64_t previous = 0;
    r.each("rounds", [&](const Reader& o) {
        if (!o.expectObject())
            return;
        MeasureRound round;
        round.firstSample = o.int64("first_sample");
        if (round.firstSample < previous || round.firstSample > samples) {
            o.failAt("first_sample", "expected a sample index from " + std::to_string(previous) + " to " +
                                         std::to_string(samples) + " (rounds in order, inside the samples)");
            return;
        }
        previous = round.firstSample;
        round.compileSeconds = o.optNumber("compile_s");
        if (round.compileSeconds && !(*round.compileSeconds >= 0))
            o.failAt("compile_s", "must be >= 0");
        round.cache = o.str("cache", "cold");
        round.status = o.str("status", "ok");
        round.error = o.str("error");
        round.wallSeconds = o.number("wall_s");
        run.rounds.push_back(std::move(round));
    });
}

} // namespace

void readBackendRun(const Reader& r, BackendRun& run) {
    if (!r.has("name"))
        r.fail("a backend run needs a \"name\"");
    run.name = r.str("name");
    run.family = r.str("family", "torch_compile");
    run.status = runStatusFromString(r.str("status", "failed"));
    if (auto e = r.object("error")) {
        RunError err;
        readRunError(*e, err);
        err.code = e->str("code", "");
        run.error = std::move(err);
    }
    run.wallSeconds = r.number("wall_s");
    if (auto samples = r.object("samples")) {
        run.eagerSamplesMs = samples->numbers("eager");
        run.compiledSamplesMs = samples->numbers("compiled");
    }
    readRounds(r, run);
    readResultFields(r, run);
    readStages(r, run.stages);
    appendObjects(r, "code", run.code, readCode);
    if (auto m = r.object("model")) {
        ModelInfo model;
        readModelInfo(*m, model);
        run.model = std::move(model);
    }
    if (auto t = r.object("trace")) {
        KernelTrace trace;
        readKernelTrace(*t, trace);
        trace.finalize();
        run.trace = std::move(trace);
    }
    if (r.has("trace_info"))
        run.traceInfo = readTraceInfo(r.child("trace_info", r.value()["trace_info"]));
    run.log = r.str("log");
}

void readStages(const Reader& r, std::vector<StageGraph>& out) {
    appendObjects(r, "stages", out, readStageGraph);
}

Result<BackendRun> decodeBackendRun(const json& j, const std::string& origin) {
    return decodeWith<BackendRun>(j, origin, readBackendRun);
}

Result<ModelInfo> decodeModelInfo(const json& j, const std::string& origin) {
    return decodeWith<ModelInfo>(j, origin, readModelInfo);
}

Result<CodeArtifact> decodeCodeArtifact(const json& j, const std::string& origin) {
    return decodeWith<CodeArtifact>(j, origin, readCode);
}

Result<RunError> decodeRunError(const json& j, const std::string& origin) {
    return decodeWith<RunError>(j, origin, readRunError);
}

Status decodeRunResult(const json& message, BackendRun& run, const std::string& origin) {
    Reader r(message, origin);
    if (!r.expectObject())
        return r.error(kRecordCorrupt);
    // Checked on a scratch run first (a result message is small), so a bad one changes nothing.
    BackendRun scratch;
    readResultFields(r, scratch);
    const auto traceInfo = r.has("trace") ? readTraceInfo(r.child("trace", message["trace"])) : std::nullopt;
    if (auto err = r.error(kRecordCorrupt))
        return err;
    readResultFields(r, run);
    if (r.has("trace"))
        run.traceInfo = traceInfo;
    return std::nullopt;
}

} // namespace fusescope::codec
