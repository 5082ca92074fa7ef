#include "KernelTrace.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace fusescope {

namespace {

constexpr const char* kKindNames[] = {"kernel", "memcpy", "memset",  "runtime",
                                      "driver", "cpu_op", "overhead"};

} // namespace

const char* toString(EventKind kind) {
    return kKindNames[static_cast<int>(kind)];
}

const char* toString(TrackKind k) {
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

TrackKind trackKindFromString(const std::string& s) {
    if (s == "cuda_stream")
        return TrackKind::CudaStream;
    if (s == "memory")
        return TrackKind::Memory;
    return TrackKind::CpuThread;
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

} // namespace fusescope
