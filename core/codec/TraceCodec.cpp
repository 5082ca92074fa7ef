#include "TraceCodec.h"

#include <limits>

namespace fusescope {

using nlohmann::json;

void to_json(json& j, const KernelTrace& t) {
    json tracks = json::array();
    for (const auto& tr : t.tracks)
        tracks.push_back({{"id", tr.id}, {"name", tr.name}, {"kind", toString(tr.kind)}});
    json events = json::array();
    for (const auto& e : t.events)
        events.push_back(
            {e.startNs, e.durationNs, e.track, e.name, toString(e.kind), e.correlation, e.iteration});
    json memory = json::array();
    for (const auto& m : t.memory)
        memory.push_back({m.timeNs, m.deltaBytes, m.totalBytes, m.device});
    j = {{"source", t.source},
         {"names", t.names},
         {"tracks", std::move(tracks)},
         {"events", std::move(events)},
         {"memory", std::move(memory)},
         {"dropped", t.dropped},
         {"iterations", t.iterations},
         {"overhead_ns", t.overheadNs},
         {"event_fields", {"start_ns", "duration_ns", "track", "name", "kind", "correlation", "iteration"}},
         {"memory_fields", {"time_ns", "delta_bytes", "total_bytes", "device"}}};
}

void to_json(json& j, const TraceInfo& t) {
    j = t.unknown.is_object() ? t.unknown : json::object();
    const auto text = [&j](const char* key, const std::string& value) {
        if (!value.empty())
            j[key] = value;
    };
    const auto put = [&j](const char* key, const auto& value) {
        if (value)
            j[key] = *value;
    };
    text("source", t.source);
    text("error", t.error);
    put("iterations", t.iterations);
    put("untraced_ms", t.untracedMs);
    put("traced_ms", t.tracedMs);
    put("overhead_ratio", t.overheadRatio);
    put("dropped", t.dropped);
    put("events", t.events);
    put("kernels", t.kernels);
    put("chunks", t.chunks);
    text("file", t.file);
}

} // namespace fusescope

namespace fusescope::codec {

namespace {

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

} // namespace

void readKernelTrace(const Reader& r, KernelTrace& t) {
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

std::optional<TraceInfo> readTraceInfo(const Reader& t) {
    if (t.isNull() || !t.expectObject())
        return std::nullopt;
    static const char* const kKnown[] = {"source",    "error",          "iterations", "untraced_ms",
                                         "traced_ms", "overhead_ratio", "dropped",    "events",
                                         "kernels",   "chunks",         "file"};
    TraceInfo info;
    info.source = t.str("source");
    info.error = t.str("error");
    info.iterations = t.optInt64("iterations");
    info.untracedMs = t.optNumber("untraced_ms");
    info.tracedMs = t.optNumber("traced_ms");
    info.overheadRatio = t.optNumber("overhead_ratio");
    info.dropped = t.optInt64("dropped");
    info.events = t.optInt64("events");
    info.kernels = t.optInt64("kernels");
    info.chunks = t.optInt64("chunks");
    info.file = t.str("file");
    info.unknown = withoutNulls(t.value());
    for (const char* key : kKnown)
        info.unknown.erase(key);
    return info;
}

Result<KernelTrace> decodeKernelTrace(const json& j, const std::string& origin) {
    return decodeWith<KernelTrace>(j, origin, readKernelTrace);
}

Result<std::optional<TraceInfo>> decodeTraceInfo(const json& j, const std::string& origin) {
    Reader r(j, origin);
    auto info = readTraceInfo(r);
    if (auto err = r.error(kRecordCorrupt))
        return *err;
    return info;
}

} // namespace fusescope::codec
