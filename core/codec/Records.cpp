#include "Records.h"

#include "Reader.h"
#include "model/ErrorCode.h"

#include <algorithm>
#include <limits>

namespace fusescope::codec {

using nlohmann::json;

namespace {

constexpr const char* kCorrupt = "report_corrupt";

template <typename T, typename Fn> Result<T> decodeWith(const json& j, const std::string& origin, Fn&& read) {
    Reader r(j, origin);
    T out{};
    if (r.expectObject())
        read(r, out);
    if (auto err = r.error(kCorrupt))
        return *err;
    return out;
}

// Integers that index or count things: 32-bit, and not below `min`.
int boundedInt(const Reader& r, const char* key, int fallback, int min) {
    const int v = r.integer(key, fallback);
    if (r.has(key) && v < min && !r.failed())
        r.failAt(key, "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
    return v;
}

// ---- JSON kept as JSON: shape checks ---------------------------------------------------------

// Drops members that are null, so views' value(key, fallback) sees them as absent.
json withoutNulls(const json& object) {
    json out = json::object();
    for (const auto& [key, value] : object.items())
        if (!value.is_null())
            out[key] = value;
    return out;
}

void checkStringMember(const Reader& r, const char* key) {
    (void)r.optStr(key);
}

void checkNumberMember(const Reader& r, const char* key) {
    (void)r.optNumber(key);
}

// Members that views read with value(key, fallback) inside nested records: null is refused there
// (a top-level null is dropped instead), since value() would throw on it.
void refuseNull(const Reader& r, const char* key, const char* expected) {
    if (r.value().is_object() && r.value().contains(key) && r.value()[key].is_null())
        r.failAt(key, std::string("expected ") + expected + ", got null");
}

void checkStringList(const Reader& r, const char* key) {
    (void)r.strings(key);
}

// One input set as --inputs / --shapes write it: [{"shape": [4, "s0"], "dtype": "float32"}, ...].
void checkInputSet(const Reader& set) {
    set.elements([](const Reader& input) {
        if (!input.expectObject())
            return;
        refuseNull(input, "shape", "an array of sizes");
        refuseNull(input, "dtype", "a dtype name");
        input.each("shape", [](const Reader& dim) {
            if (!dim.value().is_number_integer() && !dim.value().is_string())
                dim.fail(std::string("expected an integer or a symbolic size, got ") +
                         describeType(dim.value()));
        });
        checkStringMember(input, "dtype");
    });
}

void checkInputSets(const Reader& r, const char* key) {
    r.each(key, [](const Reader& set) { checkInputSet(set); });
}

json checkedWorkloadAt(const Reader& w) {
    if (w.isNull())
        return nullptr;
    if (!w.expectObject())
        return nullptr;
    checkStringMember(w, "mode");
    checkStringMember(w, "precision");
    checkInputSets(w, "shapes");
    if (auto assign = w.object("assign"))
        for (const auto& [module, backend] : assign->value().items())
            if (!backend.is_string())
                assign->child(module.c_str(), backend)
                    .fail(std::string("expected a backend name, got ") + describeType(backend));
    return withoutNulls(w.value());
}

json checkedOptionsAt(const Reader& o) {
    if (o.isNull())
        return json::object();
    if (!o.expectObject())
        return json::object();
    checkStringMember(o, "mode");
    (void)o.optBool("fullgraph");
    (void)o.optBool("dynamic"); // null is "auto": kept
    (void)o.object("inductor");
    json out = o.value();
    for (const char* key : {"mode", "fullgraph", "inductor"})
        if (out.contains(key) && out[key].is_null())
            out.erase(key);
    return out;
}

json checkedSettingsAt(const Reader& s) {
    if (s.isNull())
        return json::object();
    if (!s.expectObject())
        return json::object();
    if (auto measure = s.object("measure"))
        for (const char* key :
             {"warmup", "min_runs", "min_time_s", "max_runs", "max_time_s", "confidence_pct", "settle"})
            checkNumberMember(*measure, key);
    checkNumberMember(s, "timeout_s");
    checkStringMember(s, "cache");
    checkNumberMember(s, "bisect_budget_s");      // only when --bisect was given
    if (auto placement = s.object("placement")) { // reports before --threads have none
        checkNumberMember(*placement, "threads");
        (void)placement->numbers("pin");
    }
    json out = withoutNulls(s.value());
    if (s.has("options"))
        out["options"] = checkedOptionsAt(s.child("options", s.value()["options"]));
    if (s.has("workload"))
        out["workload"] = checkedWorkloadAt(s.child("workload", s.value()["workload"]));
    return out;
}

void checkSpeedup(const Reader& r, const char* key) {
    if (auto s = r.object(key)) {
        for (const char* k : {"median", "q1", "q3"})
            checkNumberMember(*s, k);
        (void)s->optInt64("pairs");
    }
}

json checkedSearchAt(const Reader& s) {
    if (s.isNull())
        return nullptr;
    if (!s.expectObject())
        return nullptr;
    for (const char* key : {"error", "strategy", "best_mixed", "best_single", "pick", "verdict"})
        checkStringMember(s, key);
    checkStringList(s, "modules");
    checkStringList(s, "backends");
    checkNumberMember(s, "gain_over_best_single");
    checkSpeedup(s, "best_mixed_speedup");
    checkSpeedup(s, "best_single_speedup");
    s.each("candidates", [](const Reader& c) {
        if (!c.expectObject())
            return;
        refuseNull(c, "status", "a run status");
        checkStringMember(c, "label");
        checkStringMember(c, "status");
        (void)c.optBool("accuracy_pass");
        checkSpeedup(c, "speedup");
    });
    json out = s.value();
    for (const char* key : {"error", "strategy", "verdict", "candidates", "modules", "backends"})
        if (out.contains(key) && out[key].is_null())
            out.erase(key);
    return out;
}

json checkedTraceInfoAt(const Reader& t) {
    if (t.isNull())
        return nullptr;
    if (!t.expectObject())
        return nullptr;
    checkStringMember(t, "error");
    checkStringMember(t, "source");
    for (const char* key : {"untraced_ms", "traced_ms", "overhead_ratio"})
        checkNumberMember(t, key);
    return withoutNulls(t.value());
}

// ---- records ---------------------------------------------------------------------------------

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
    if (r.has("sets")) {
        checkInputSets(r, "sets");
        study.sets = r.value()["sets"];
    } else {
        study.sets = json::array();
    }
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

// ---- stage graphs ----------------------------------------------------------------------------

void readNode(const Reader& r, GraphNode& n) {
    if (!r.has("id"))
        r.fail("a node needs an \"id\"");
    n.id = r.str("id");
    n.name = r.str("name", n.id);
    n.op = r.str("op");
    n.kind = r.str("kind");
    n.category = r.str("category");
    r.each("shapes", [&](const Reader& s) {
        std::vector<std::string> dims;
        s.elements([&](const Reader& d) {
            const json& v = d.value();
            if (v.is_string())
                dims.push_back(v.get<std::string>());
            else if (v.is_number_integer())
                dims.push_back(v.dump());
            else
                d.fail(std::string("expected an integer or a symbolic size, got ") + describeType(v));
        });
        n.shapes.push_back(std::move(dims));
    });
    n.dtypes = r.strings("dtypes");
    n.module = r.str("module");
    n.moduleType = r.str("module_type");
    if (auto src = r.object("source")) {
        SourceLocation loc;
        loc.file = src->str("file");
        loc.line = src->integer("line");
        loc.code = src->str("code");
        n.source = std::move(loc);
    }
    n.group = r.str("group");
    n.origins = r.strings("origins");
}

void readStage(const Reader& r, StageGraph& s) {
    if (!r.has("name"))
        r.fail("a stage needs a \"name\"");
    s.name = r.str("name");
    s.graph = boundedInt(r, "graph", 0, 0);
    s.label = r.str("label", s.name);
    s.level = r.str("level");
    s.fusion = r.str("fusion", "none");
    s.status = stageStatusFromString(r.str("status", "ok"));
    s.reason = r.str("reason");
    s.pass = r.str("pass");
    s.module = r.str("module");
    s.backend = r.str("backend");
    s.nodes.clear();
    r.each("nodes", [&](const Reader& n) {
        if (!n.expectObject())
            return;
        GraphNode node;
        readNode(n, node);
        s.nodes.push_back(std::move(node));
    });
    s.edges.clear();
    r.each("edges", [&](const Reader& e) {
        if (!e.expectObject())
            return;
        if (!e.has("src") || !e.has("dst"))
            e.fail("an edge needs \"src\" and \"dst\"");
        s.edges.push_back({e.str("src"), e.str("dst")});
    });
    s.groups.clear();
    r.each("groups", [&](const Reader& g) {
        if (!g.expectObject())
            return;
        if (!g.has("id"))
            g.fail("a group needs an \"id\"");
        FusionGroup group;
        group.id = g.str("id");
        group.name = g.str("name", group.id);
        group.kind = g.str("kind", "kernel");
        group.nodes = g.strings("nodes");
        group.provenance = g.strings("provenance");
        group.code = g.str("code");
        s.groups.push_back(std::move(group));
    });
}

// ---- traces ----------------------------------------------------------------------------------

TrackKind trackKindFromString(const std::string& s) {
    if (s == "cuda_stream")
        return TrackKind::CudaStream;
    if (s == "memory")
        return TrackKind::Memory;
    return TrackKind::CpuThread;
}

int32_t int32At(const Reader& row, size_t index, int32_t min) {
    const int64_t v = row.int64At(index);
    if (row.failed())
        return 0;
    if (v < min || v > std::numeric_limits<int32_t>::max()) {
        row.fail("element " + std::to_string(index) + " (" + std::to_string(v) + ") is out of range");
        return 0;
    }
    return static_cast<int32_t>(v);
}

void readTrace(const Reader& r, KernelTrace& t) {
    t.source = r.str("source");
    t.names = r.strings("names");
    t.tracks.clear();
    r.each("tracks", [&](const Reader& tr) {
        if (!tr.expectObject())
            return;
        t.tracks.push_back({tr.integer("id"), tr.str("name"), trackKindFromString(tr.str("kind"))});
    });
    t.events.clear();
    if (const json* events = r.has("events") ? &r.value()["events"] : nullptr; events && events->is_array())
        t.events.reserve(events->size());
    r.each("events", [&](const Reader& e) {
        if (!e.value().is_array() || e.size() < 4) {
            e.fail("expected [start_ns, duration_ns, track, name, kind?, correlation?, iteration?]");
            return;
        }
        TraceEvent ev;
        ev.startNs = e.int64At(0);
        ev.durationNs = e.int64At(1);
        ev.track = int32At(e, 2, std::numeric_limits<int32_t>::min());
        ev.name = int32At(e, 3, 0);
        ev.kind = e.size() > 4 ? eventKindFromString(e.strAt(4)) : EventKind::Kernel;
        ev.correlation = e.size() > 5 ? e.int64At(5) : 0;
        ev.iteration = e.size() > 6 ? int32At(e, 6, -1) : -1;
        if (e.failed())
            return;
        if (ev.durationNs < 0 || ev.startNs < 0 ||
            ev.startNs > std::numeric_limits<int64_t>::max() - ev.durationNs)
            e.fail("start and duration must be >= 0 and end within 64 bits");
        else if (ev.name >= static_cast<int32_t>(t.names.size()))
            e.fail("names name index " + std::to_string(ev.name) + ", but there are " +
                   std::to_string(t.names.size()) + " names");
        t.events.push_back(ev);
    });
    t.memory.clear();
    r.each("memory", [&](const Reader& m) {
        if (!m.value().is_array() || m.size() < 3) {
            m.fail("expected [time_ns, delta_bytes, total_bytes, device?]");
            return;
        }
        const MemoryEvent event{m.int64At(0), m.int64At(1), m.int64At(2),
                                m.size() > 3 ? int32At(m, 3, -1) : -1};
        // Times are offsets on one clock: a negative one would overflow every span taken from it.
        if (!m.failed() && event.timeNs < 0)
            m.fail("time_ns must be >= 0");
        t.memory.push_back(event);
    });
    t.dropped = r.int64("dropped");
    t.iterations = boundedInt(r, "iterations", 0, 0);
    t.overheadNs = r.int64("overhead_ns");
}

// ---- backend runs ----------------------------------------------------------------------------

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
    run.memoryMethod = r.str("memory_method", run.memoryMethod);
    if (auto a = optAccuracy(r, "accuracy"))
        run.accuracy = a;
    run.graphs = r.integer("graphs", run.graphs);
    run.graphBreaks = r.integer("graph_breaks", run.graphBreaks);
    run.recompiles = r.integer("recompiles", run.recompiles);
    if (r.has("break_reasons")) {
        std::vector<GraphBreak> breaks;
        r.each("break_reasons", [&](const Reader& b) {
            if (!b.expectObject())
                return;
            GraphBreak item;
            readGraphBreak(b, item);
            breaks.push_back(std::move(item));
        });
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
    if (r.has("workload"))
        run.workload = checkedWorkloadAt(r.child("workload", r.value()["workload"]));
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
        r.each("parts", [&](const Reader& p) {
            if (!p.expectObject())
                return;
            AssignedPart part;
            readPart(p, part);
            parts.push_back(std::move(part));
        });
        run.parts = std::move(parts);
    }
    if (r.has("options"))
        run.options = checkedOptionsAt(r.child("options", r.value()["options"]));
}

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
    readResultFields(r, run);
    r.each("stages", [&](const Reader& s) {
        if (!s.expectObject())
            return;
        StageGraph stage;
        readStage(s, stage);
        run.stages.push_back(std::move(stage));
    });
    r.each("code", [&](const Reader& c) {
        if (!c.expectObject())
            return;
        CodeArtifact code;
        readCode(c, code);
        run.code.push_back(std::move(code));
    });
    if (auto m = r.object("model")) {
        ModelInfo model;
        readModelInfo(*m, model);
        run.model = std::move(model);
    }
    if (auto t = r.object("trace")) {
        KernelTrace trace;
        readTrace(*t, trace);
        trace.finalize();
        run.trace = std::move(trace);
    }
    if (r.has("trace_info"))
        run.traceInfo = checkedTraceInfoAt(r.child("trace_info", r.value()["trace_info"]));
    run.log = r.str("log");
}

void readEnvironment(const Reader& r, WorkerEnvironment& e) {
    // A report stores the version as "protocol"; the handshake names the protocol there and
    // carries the version in "version".
    const json* protocol = r.has("protocol") ? &r.value()["protocol"] : nullptr;
    e.protocolVersion =
        protocol && protocol->is_number_integer() ? r.integer("protocol") : r.integer("version");
    e.worker = r.str("worker");
    e.python = r.str("python");
    e.torch = r.str("torch");
    e.torchGit = r.str("torch_git");
    e.torchBuild = r.str("torch_build");
    e.devices = r.strings("devices");
    if (r.has("cuda")) {
        (void)r.object("cuda");
        e.cuda = r.value()["cuda"];
    }
}

void readProvenance(const Reader& r, Provenance& p) {
    p.fusescope = r.str("fusescope");
    p.frontEnd = r.str("front_end");
    p.commandLine = r.strings("command_line");
    if (auto t = r.object("torch")) {
        p.torch = t->str("version");
        p.torchGit = t->str("git");
        p.torchBuild = t->str("build");
    }
    p.python = r.str("python");
    if (auto e = r.object("environment"))
        for (const auto& [key, value] : e->value().items()) {
            if (!value.is_string()) {
                e->failAt(key.c_str(), std::string("expected a string, got ") + describeType(value));
                return;
            }
            p.environment[key] = value.get<std::string>();
        }
    p.cpu = r.str("cpu");
    p.cpuCount = r.integer("cpu_count");
    p.gpus = r.strings("gpus");
    p.os = r.str("os");
}

} // namespace

Result<BackendRun> decodeBackendRun(const json& j, const std::string& origin) {
    return decodeWith<BackendRun>(j, origin, readBackendRun);
}

Result<StageGraph> decodeStageGraph(const json& j, const std::string& origin) {
    return decodeWith<StageGraph>(j, origin, readStage);
}

Result<ModelInfo> decodeModelInfo(const json& j, const std::string& origin) {
    return decodeWith<ModelInfo>(j, origin, readModelInfo);
}

Result<WorkerEnvironment> decodeEnvironment(const json& j, const std::string& origin) {
    return decodeWith<WorkerEnvironment>(j, origin, readEnvironment);
}

Result<KernelTrace> decodeKernelTrace(const json& j, const std::string& origin) {
    return decodeWith<KernelTrace>(j, origin, readTrace);
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
        return r.error(kCorrupt);
    // Checked on a scratch run first (a result message is small), so a bad one changes nothing.
    BackendRun scratch;
    readResultFields(r, scratch);
    json traceInfo = r.has("trace") ? checkedTraceInfoAt(r.child("trace", message["trace"])) : json();
    if (auto err = r.error(kCorrupt))
        return err;
    readResultFields(r, run);
    if (r.has("trace"))
        run.traceInfo = std::move(traceInfo);
    return std::nullopt;
}

Result<Report> decodeReport(const json& j) {
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
        j["format"].get<std::string>() != kReportFormatName)
        return Error{"report_not_fscope", "not a FuseScope report (no \"format\": \"fusescope-report\")"};
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_number_integer())
        return Error{kCorrupt, "schema: the manifest has no integer \"schema\" version"};
    // Compare as the integer that was written, never narrowed: 2^32+1 is not schema 1.
    uint64_t version = 0;
    if (schema->is_number_unsigned())
        version = schema->get<uint64_t>();
    else if (schema->get<int64_t>() > 0)
        version = static_cast<uint64_t>(schema->get<int64_t>());
    if (version < 1)
        return Error{kCorrupt, "schema: " + schema->dump() + " is not a report schema version (1 or more)"};
    if (version > static_cast<uint64_t>(kReportSchemaVersion))
        return Error{"report_newer_schema", "written with report schema " + std::to_string(version) +
                                                " by a newer FuseScope; this build reads schema " +
                                                std::to_string(kReportSchemaVersion) +
                                                " and older. Update FuseScope to open it."};
    Reader r(j);
    Report report;
    report.schema = static_cast<int>(version);
    report.created = r.str("created");
    report.generator = r.str("generator");
    report.modelSpec = r.str("model_spec");
    if (auto m = r.object("model"))
        readModelInfo(*m, report.model);
    report.device = r.str("device", "cpu");
    if (auto e = r.object("environment"))
        readEnvironment(*e, report.environment);
    if (r.has("settings"))
        report.settings = checkedSettingsAt(r.child("settings", j["settings"]));
    r.each("backends", [&](const Reader& b) {
        if (!b.expectObject())
            return;
        BackendRun run;
        readBackendRun(b, run);
        report.backends.push_back(std::move(run));
    });
    if (r.has("search"))
        report.search = checkedSearchAt(r.child("search", j["search"]));
    if (r.has("warnings")) // run-wide; reports written before them have none
        report.warnings = readWarnings(r);
    if (auto p = r.object("provenance")) { // reports written before it have none
        Provenance provenance;
        readProvenance(*p, provenance);
        report.provenance = std::move(provenance);
    }
    if (auto err = r.error(kCorrupt))
        return *err;
    return report;
}

} // namespace fusescope::codec
