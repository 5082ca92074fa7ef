#include "KinetoTrace.h"

#include "KernelLinks.h"
#include "codec/Json.h"
#include "codec/Reader.h"
#include "files/PathChecks.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

namespace fusescope::import {

using nlohmann::json;

namespace {

constexpr const char* kCorrupt = "import_corrupt";

TraceInfo importedTraceInfo(const std::string& path, size_t events) {
    TraceInfo info;
    info.source = "import";
    info.file = path;
    info.events = static_cast<int64_t>(events);
    return info;
}
// Microseconds (the Chrome trace unit) past which ns would not fit an int64 with room to add.
constexpr double kMaxAbsMicros = 1e15;
constexpr double kMaxDurationMicros = 1e12;
constexpr const char* kIterationMark = "fusescope_iteration_";
constexpr const char* kProfilerStep = "ProfilerStep#";
// Frames that wrap a whole compiled call (the worker's tracing/profiler.py WRAPPERS): kept, they
// would hide the kernels under one long box.
constexpr const char* kWrappers[] = {"Torch-Compiled Region",
                                     "## Call CompiledFxGraph",
                                     "TorchDynamo Cache Lookup",
                                     "Pregraph bytecode",
                                     "AOTDispatcher",
                                     "CompiledFunction",
                                     "## Call ",
                                     "autograd::engine",
                                     "ProfilerStep#"};

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// Inductor's generated kernels, as the worker's profiler path names them (tracing/profiler.py).
bool isKernelName(const std::string& name) {
    return name.find("cpp_fused") != std::string::npos || startsWith(name, "triton_") ||
           startsWith(name, "cpp_") || startsWith(name, "extern_kernels");
}

// graph_0_cpp_fused_gelu_0 -> cpp_fused_gelu_0 (provenance and output_code.py use the bare name).
std::string withoutGraphPrefix(const std::string& name) {
    if (!startsWith(name, "graph_"))
        return name;
    size_t i = 6;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9')
        ++i;
    if (i == 6 || i >= name.size() || name[i] != '_')
        return name;
    return name.substr(i + 1);
}

std::string boundedName(std::string name) {
    if (name.size() <= kMaxKinetoNameBytes)
        return name;
    size_t cut = kMaxKinetoNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
        --cut; // on a UTF-8 character boundary
    name.resize(cut);
    return name + "...";
}

enum class Place { Cpu, Gpu, Skip };

struct Classified {
    Place place = Place::Skip;
    EventKind kind = EventKind::CpuOp;
};

Classified classify(const std::string& cat, const std::string& name) {
    if (cat == "kernel" || cat == "Kernel")
        return {Place::Gpu, EventKind::Kernel};
    if (cat == "gpu_memcpy" || cat == "Memcpy")
        return {Place::Gpu, EventKind::Memcpy};
    if (cat == "gpu_memset" || cat == "Memset")
        return {Place::Gpu, EventKind::Memset};
    if (cat == "cuda_runtime" || cat == "Runtime" || cat == "xpu_runtime" || cat == "privateuse1_runtime")
        return {Place::Cpu, EventKind::Runtime};
    if (cat == "cuda_driver" || cat == "Driver" || cat == "privateuse1_driver")
        return {Place::Cpu, EventKind::Driver};
    if (cat == "overhead" || cat == "Overhead")
        return {Place::Cpu, EventKind::Overhead};
    if (cat == "cpu_op" || cat == "operator" || cat == "Operator" || cat.empty())
        return {Place::Cpu, isKernelName(name) ? EventKind::Kernel : EventKind::CpuOp};
    // A record_function label wraps the ops it names (a user's "forward"), unless it is a kernel.
    if (cat == "user_annotation" && isKernelName(name))
        return {Place::Cpu, EventKind::Kernel};
    return {}; // python_function, gpu_user_annotation, ac2g, fwdbwd, Trace...: not drawn
}

// A pid or tid: Kineto writes integers, some tools strings ("Spans", "stream 7").
std::string idText(const codec::Reader& r, const char* key) {
    if (!r.has(key))
        return "0";
    const json& v = r.value()[key];
    if (v.is_number_integer())
        return std::to_string(v.get<int64_t>());
    if (v.is_string())
        return boundedName(v.get<std::string>());
    r.failAt(key, std::string("expected an integer or a string, got ") + codec::describeType(v));
    return "0";
}

int64_t microsToNs(double us) {
    return static_cast<int64_t>(std::llround(us * 1000.0));
}

// A required finite number within bounds (Chrome trace ts / dur, in microseconds).
double requiredMicros(const codec::Reader& r, const char* key, double low, double high) {
    if (!r.has(key)) {
        r.failAt(key, "missing (a complete event needs ts and dur)");
        return 0;
    }
    const double v = r.number(key);
    if (!r.failed() && !(v >= low && v <= high))
        r.failAt(key, "out of range (" + std::to_string(v) + " us)");
    return v;
}

struct Pending {
    int64_t startNs;
    int64_t durationNs;
    int32_t track;
    std::string name;
    EventKind kind;
    int64_t correlation;
    bool gpu;
};

struct Mark {
    int64_t begin;
    int64_t end;
};

int iterationAt(const std::vector<Mark>& marks, int64_t t) {
    // marks are sorted by begin and do not overlap: the last one beginning at or before t.
    auto it =
        std::upper_bound(marks.begin(), marks.end(), t, [](int64_t v, const Mark& m) { return v < m.begin; });
    if (it == marks.begin())
        return -1;
    --it;
    return t < it->end ? static_cast<int>(it - marks.begin()) : -1;
}

} // namespace

Result<KernelTrace> parseKinetoTrace(std::string_view text, const std::string& file) {
    auto parsed = codec::parseJson(text);
    if (!parsed)
        return Error{kCorrupt, file + ": " + parsed.error().message};
    const json& doc = parsed.value().value;
    if (!doc.is_object() || !doc.contains("traceEvents"))
        return Error{kCorrupt,
                     file + ": not a PyTorch profiler trace: expected an object with \"traceEvents\", got " +
                         std::string(doc.is_object() ? "an object without it" : codec::describeType(doc))};
    codec::Reader root(doc);
    if (!doc["traceEvents"].is_array())
        return Error{kCorrupt, file + ": traceEvents: expected an array, got " +
                                   std::string(codec::describeType(doc["traceEvents"]))};
    if (doc["traceEvents"].size() > kMaxKinetoEvents)
        return Error{"import_limit", file + ": traceEvents: " + std::to_string(doc["traceEvents"].size()) +
                                         " events, more than the " + std::to_string(kMaxKinetoEvents) +
                                         " imported"};

    std::map<std::string, std::string> threadNames; // "pid/tid" -> thread_name
    std::vector<Pending> pending;
    std::vector<Mark> steps, fusescopeMarks;
    std::vector<MemoryEvent> memory;
    std::map<std::string, int32_t> trackIndex; // "cpu pid/tid" or "gpu device/stream"
    std::vector<TraceTrack> tracks;
    std::vector<std::string> trackThread; // per track, its "pid/tid" key (CPU) for names
    bool sawGpu = false;

    auto trackFor = [&](bool gpu, const std::string& a, const std::string& b) {
        const std::string key = (gpu ? "gpu " : "cpu ") + a + "/" + b;
        auto [it, added] = trackIndex.try_emplace(key, static_cast<int32_t>(tracks.size()));
        if (added) {
            TraceTrack t;
            t.id = it->second;
            t.kind = gpu ? TrackKind::CudaStream : TrackKind::CpuThread;
            t.name = gpu ? "stream " + b + " (device " + a + ")" : "thread " + b;
            tracks.push_back(std::move(t));
            trackThread.push_back(gpu ? std::string() : a + "/" + b);
        }
        return it->second;
    };

    root.each("traceEvents", [&](const codec::Reader& ev) {
        if (!ev.expectObject())
            return;
        const std::string ph = ev.str("ph");
        const std::string name = ev.str("name");
        if (ph == "M") {
            if (name == "thread_name")
                if (auto args = ev.object("args"))
                    threadNames[idText(ev, "pid") + "/" + idText(ev, "tid")] = boundedName(args->str("name"));
            return;
        }
        if ((ph == "i" || ph == "I") && name == "[memory]") {
            const double ts = requiredMicros(ev, "ts", -kMaxAbsMicros, kMaxAbsMicros);
            auto args = ev.object("args");
            if (!args) {
                ev.failAt("args", "missing (a [memory] event carries Bytes and Total Allocated)");
                return;
            }
            MemoryEvent m;
            m.timeNs = microsToNs(ts);
            m.deltaBytes = args->int64("Bytes");
            m.totalBytes = args->int64("Total Allocated");
            m.device = static_cast<int32_t>(std::clamp<int64_t>(args->int64("Device Id", -1), -1, 1 << 20));
            if (!ev.failed())
                memory.push_back(m);
            return;
        }
        if (ph != "X")
            return; // flows, counters, instants: not drawn
        const std::string cat = ev.str("cat");
        const double ts = requiredMicros(ev, "ts", -kMaxAbsMicros, kMaxAbsMicros);
        const double dur = requiredMicros(ev, "dur", 0, kMaxDurationMicros);
        if (ev.failed())
            return;
        const int64_t startNs = microsToNs(ts), durationNs = microsToNs(dur);
        if (startsWith(name, kIterationMark) || startsWith(name, kProfilerStep)) {
            (startsWith(name, kIterationMark) ? fusescopeMarks : steps)
                .push_back({startNs, startNs + durationNs});
            return;
        }
        const Classified c = classify(cat, name);
        if (c.place == Place::Skip)
            return;
        if (c.place == Place::Cpu && c.kind == EventKind::CpuOp)
            for (const char* w : kWrappers)
                if (startsWith(name, w))
                    return;
        int64_t correlation = 0;
        std::string device, stream;
        if (auto args = ev.object("args")) {
            correlation = args->int64("correlation", args->int64("External id"));
            if (c.place == Place::Gpu) {
                if (args->has("device"))
                    device = std::to_string(args->int64("device"));
                if (args->has("stream"))
                    stream = std::to_string(args->int64("stream"));
            }
        }
        const bool gpu = c.place == Place::Gpu;
        sawGpu = sawGpu || gpu;
        const int32_t track = trackFor(gpu, device.empty() ? idText(ev, "pid") : device,
                                       stream.empty() ? idText(ev, "tid") : stream);
        if (ev.failed())
            return;
        pending.push_back(
            {startNs, durationNs, track, boundedName(withoutGraphPrefix(name)), c.kind, correlation, gpu});
    });
    if (auto err = root.error(kCorrupt))
        return Error{kCorrupt, file + ": " + err->message};

    KernelTrace trace;
    trace.source = sawGpu ? "kineto" : "cpu-profiler";
    for (size_t t = 0; t < tracks.size(); ++t)
        if (auto it = threadNames.find(trackThread[t]); it != threadNames.end() && !it->second.empty())
            tracks[t].name = it->second + " (" + tracks[t].name + ")";
    trace.tracks = std::move(tracks);

    // Iterations: FuseScope's own marks when the trace has them, else the profiler's steps.
    std::vector<Mark>& marks = fusescopeMarks.empty() ? steps : fusescopeMarks;
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < marks.size(); ++i) // overlapping marks: each ends where the next begins
        marks[i - 1].end = std::min(marks[i - 1].end, marks[i].begin);
    trace.iterations = static_cast<int>(marks.size());

    // CPU events: only the top level of each thread, as the worker's CPU path keeps them
    // (aten::expand under aten::addmm would draw over its parent and count twice). Runtime and
    // driver calls nest inside ops by nature and are kept.
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
        if (a.track != b.track)
            return a.track < b.track;
        if (a.startNs != b.startNs)
            return a.startNs < b.startNs;
        return a.durationNs > b.durationNs;
    });
    std::unordered_map<std::string, int32_t> nameIndex;
    std::unordered_map<int64_t, int32_t> iterationOfCorrelation;
    std::vector<size_t> gpuEvents;
    int32_t openTrack = -1;
    int64_t openUntil = 0;
    for (const Pending& p : pending) {
        const bool nestable = !p.gpu && (p.kind == EventKind::CpuOp || p.kind == EventKind::Kernel);
        if (nestable) {
            if (p.track == openTrack && p.startNs < openUntil)
                continue;
            openTrack = p.track;
            openUntil = p.startNs + p.durationNs;
        }
        auto [it, added] = nameIndex.try_emplace(p.name, static_cast<int32_t>(trace.names.size()));
        if (added)
            trace.names.push_back(p.name);
        TraceEvent e;
        e.startNs = p.startNs;
        e.durationNs = p.durationNs;
        e.track = p.track;
        e.name = it->second;
        e.kind = p.kind;
        e.correlation = p.correlation;
        e.iteration = p.gpu ? -1 : iterationAt(marks, p.startNs);
        if (!p.gpu && p.correlation != 0 && e.iteration >= 0)
            iterationOfCorrelation.emplace(p.correlation, e.iteration);
        if (p.gpu)
            gpuEvents.push_back(trace.events.size());
        trace.events.push_back(e);
    }
    // A GPU kernel belongs to the iteration of the CPU call that launched it (same correlation id),
    // else to the step it ran in.
    for (size_t i : gpuEvents) {
        TraceEvent& e = trace.events[i];
        auto it =
            e.correlation != 0 ? iterationOfCorrelation.find(e.correlation) : iterationOfCorrelation.end();
        e.iteration = it != iterationOfCorrelation.end() ? it->second : iterationAt(marks, e.startNs);
    }
    std::sort(memory.begin(), memory.end(),
              [](const MemoryEvent& a, const MemoryEvent& b) { return a.timeNs < b.timeNs; });
    trace.memory = std::move(memory);
    trace.finalize();
    return trace;
}

Result<KernelTrace> readKinetoTraceFile(const std::string& path) {
    auto bytes = files::readRegularFile(path, kMaxKinetoTraceBytes);
    if (!bytes) {
        const auto& e = bytes.error();
        const std::string code = e.code == "not_found"   ? "import_not_found"
                                 : e.code == "too_large" ? "import_limit"
                                                         : "import_unreadable";
        return Error{code, path + ": " + e.message};
    }
    return parseKinetoTrace(bytes.value(), path);
}

bool looksLikeKinetoTrace(bool isDirectory, const std::string& head) {
    if (isDirectory)
        return false;
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || head[first] != '{')
        return false;
    return head.find("\"traceEvents\"") != std::string::npos;
}

Result<Report> importKinetoTrace(const std::string& path) {
    auto trace = readKinetoTraceFile(path);
    if (!trace)
        return trace.error();
    Report report;
    report.generator = "FuseScope " FUSESCOPE_VERSION " (import)";
    report.modelSpec = path;
    report.model.name = std::filesystem::path(path).stem().string();
    report.device = trace.value().source == "kineto" ? "cuda" : "cpu";
    BackendRun run;
    run.name = "profiler";
    run.family = "import";
    run.status = RunStatus::Ok;
    run.notes.push_back("imported from the PyTorch profiler trace " + path +
                        ": kernel times only; no latency samples, graphs or accuracy in the trace");
    run.traceInfo = importedTraceInfo(path, trace.value().events.size());
    run.trace = std::move(trace.value());
    report.backends.push_back(std::move(run));
    return report;
}

Result<AttachOutcome> attachKinetoTrace(Report& report, const std::string& backend, const std::string& path) {
    BackendRun* run = report.findBackend(backend);
    if (!run) {
        std::string names;
        for (const auto& b : report.backends)
            names += (names.empty() ? "" : ", ") + b.name;
        return Error{"import_no_backend", "no backend '" + backend + "' in the report (it has: " +
                                              (names.empty() ? "none" : names) + ")"};
    }
    auto trace = readKinetoTraceFile(path);
    if (!trace)
        return trace.error();
    AttachOutcome out;
    out.events = trace.value().events.size();
    const KernelLinks links = linkKernelsToGroups(trace.value(), afterFusionStages(*run));
    std::set<int32_t> kernels;
    for (const auto& e : trace.value().events)
        if (e.kind == EventKind::Kernel)
            kernels.insert(e.name);
    out.kernelNames = kernels.size();
    out.linkedNames = out.kernelNames - std::min(out.kernelNames, links.unlinkedKernels.size());
    run->traceInfo = importedTraceInfo(path, out.events);
    run->trace = std::move(trace.value());
    return out;
}

} // namespace fusescope::import
