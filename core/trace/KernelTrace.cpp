#include "KernelTrace.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace fusescope {

using nlohmann::json;

namespace {

constexpr const char* kKindNames[] = {"kernel", "memcpy", "memset",  "runtime",
                                      "driver", "cpu_op", "overhead"};

const char* trackKindName(TrackKind k) {
    switch (k) {
    case TrackKind::CpuThread:
        return "cpu_thread";
    case TrackKind::CudaStream:
        return "cuda_stream";
    case TrackKind::Memory:
        return "memory";
    }
    return "cpu_thread";
}

} // namespace

const char* toString(EventKind kind) {
    return kKindNames[static_cast<int>(kind)];
}

EventKind eventKindFromString(const std::string& text) {
    for (int i = 0; i < static_cast<int>(std::size(kKindNames)); ++i)
        if (text == kKindNames[i])
            return static_cast<EventKind>(i);
    return EventKind::CpuOp;
}

int32_t KernelTrace::internName(const std::string& name) {
    // Linear search is fine for the few hundred distinct names of a trace built once; bulk
    // importers keep their own map.
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end())
        return static_cast<int32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<int32_t>(names.size() - 1);
}

void KernelTrace::finalize() {
    std::stable_sort(events.begin(), events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.track != b.track ? a.track < b.track : a.startNs < b.startNs;
    });
    std::stable_sort(memory.begin(), memory.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.timeNs < b.timeNs; });
}

std::pair<size_t, size_t> KernelTrace::trackRange(int track) const {
    auto lo = std::lower_bound(events.begin(), events.end(), track,
                               [](const TraceEvent& e, int t) { return e.track < t; });
    auto hi =
        std::upper_bound(lo, events.end(), track, [](int t, const TraceEvent& e) { return t < e.track; });
    return {static_cast<size_t>(lo - events.begin()), static_cast<size_t>(hi - events.begin())};
}

int64_t KernelTrace::beginNs() const {
    int64_t begin = std::numeric_limits<int64_t>::max();
    for (const auto& e : events)
        begin = std::min(begin, e.startNs);
    for (const auto& m : memory)
        begin = std::min(begin, m.timeNs);
    return begin == std::numeric_limits<int64_t>::max() ? 0 : begin;
}

int64_t KernelTrace::endNs() const {
    int64_t end = 0;
    for (const auto& e : events)
        end = std::max(end, e.endNs());
    for (const auto& m : memory)
        end = std::max(end, m.timeNs);
    return end;
}

void to_json(json& j, const KernelTrace& t) {
    json tracks = json::array();
    for (const auto& tr : t.tracks)
        tracks.push_back({{"id", tr.id}, {"name", tr.name}, {"kind", trackKindName(tr.kind)}});
    // Events as arrays, not objects: a trace of 10^5 events stays a few MB.
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

} // namespace fusescope
