#include "RecordConverter.h"

#include "JsonWriter.h"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace fusescope::cupti {

std::string RecordConverter::displayName(const std::string& raw) {
    // Only Itanium-mangled names start with _Z; Triton and Inductor names
    // (triton_poi_fused_add_0, cpp_fused_...) are shown as they are.
    if (raw.rfind("_Z", 0) != 0)
        return raw;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(
        abi::__cxa_demangle(raw.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && demangled ? std::string(demangled.get()) : raw;
}

int32_t RecordConverter::internName(const std::string& name) {
    auto [it, inserted] = m_nameIndex.emplace(name, static_cast<int32_t>(m_names.size()));
    if (inserted)
        m_names.push_back(name);
    return it->second;
}

int RecordConverter::trackForStream(uint32_t device, uint32_t stream) {
    auto [it, inserted] = m_streamTracks.emplace(std::make_pair(device, stream), 0);
    if (inserted) {
        it->second = static_cast<int>(m_tracks.size()) + 1;
        m_tracks.push_back({it->second,
                            "stream " + std::to_string(stream) + " (device " + std::to_string(device) + ")",
                            "cuda_stream"});
    }
    return it->second;
}

int RecordConverter::trackForThread(uint32_t thread) {
    auto [it, inserted] = m_threadTracks.emplace(thread, 0);
    if (inserted) {
        it->second = static_cast<int>(m_tracks.size()) + 1;
        m_tracks.push_back({it->second,
                            thread == 0 ? std::string("CUPTI (process)") : "thread " + std::to_string(thread),
                            "cpu_thread"});
    }
    return it->second;
}

void RecordConverter::beginIteration(int iteration, uint64_t timestampNs) {
    auto pos = std::upper_bound(m_iterationStarts.begin(), m_iterationStarts.end(),
                                std::make_pair(timestampNs, iteration));
    m_iterationStarts.insert(pos, {timestampNs, iteration});
    m_iterations = std::max(m_iterations, iteration + 1);
}

int32_t RecordConverter::iterationAt(uint64_t timestampNs) const {
    auto pos =
        std::upper_bound(m_iterationStarts.begin(), m_iterationStarts.end(), timestampNs,
                         [](uint64_t t, const std::pair<uint64_t, int>& mark) { return t < mark.first; });
    return pos == m_iterationStarts.begin() ? -1 : std::prev(pos)->second;
}

void RecordConverter::addEvent(uint64_t start, uint64_t end, int track, const std::string& name,
                               const char* kind, uint32_t correlation) {
    // CUPTI reports end 0 for records it could not complete; a negative duration would break the view.
    const int64_t duration = end >= start ? static_cast<int64_t>(end - start) : 0;
    m_events.push_back({static_cast<int64_t>(start), duration, track, internName(name), kind,
                        static_cast<int64_t>(correlation), iterationAt(start)});
}

void RecordConverter::add(const GpuActivity& r) {
    const int track = trackForStream(r.deviceId, r.streamId);
    switch (r.kind) {
    case GpuActivity::Kind::Kernel: {
        auto it = m_demangled.find(r.name);
        if (it == m_demangled.end())
            it = m_demangled.emplace(r.name, displayName(r.name)).first;
        addEvent(r.startNs, r.endNs, track, it->second, "kernel", r.correlationId);
        break;
    }
    case GpuActivity::Kind::Memcpy:
        addEvent(r.startNs, r.endNs, track, r.name, "memcpy", r.correlationId);
        break;
    case GpuActivity::Kind::Memset:
        addEvent(r.startNs, r.endNs, track, r.name, "memset", r.correlationId);
        break;
    }
}

void RecordConverter::add(const ApiActivity& r) {
    addEvent(r.startNs, r.endNs, trackForThread(r.threadId), r.name, r.driver ? "driver" : "runtime",
             r.correlationId);
}

void RecordConverter::add(const MemoryActivity& r) {
    m_memory.push_back(r);
}

void RecordConverter::add(const OverheadActivity& r) {
    addEvent(r.startNs, r.endNs, trackForThread(r.threadId), r.name, "overhead", 0);
    if (r.endNs > r.startNs)
        m_overheadNs += static_cast<int64_t>(r.endNs - r.startNs);
}

std::string RecordConverter::takeChunk(bool final) {
    std::stable_sort(m_events.begin(), m_events.end(), [](const PendingEvent& a, const PendingEvent& b) {
        return a.track != b.track ? a.track < b.track : a.startNs < b.startNs;
    });
    // Totals must follow time order; records inside one buffer are not guaranteed to be sorted.
    std::stable_sort(m_memory.begin(), m_memory.end(), [](const MemoryActivity& a, const MemoryActivity& b) {
        return a.timestampNs < b.timestampNs;
    });

    std::vector<int> usedTracks;
    for (const auto& e : m_events)
        if (usedTracks.empty() || usedTracks.back() != e.track)
            usedTracks.push_back(e.track);

    std::string out;
    out.reserve(128 + m_events.size() * 64 + m_memory.size() * 48);
    out += "{\"source\":\"cupti\",\"names\":[";
    for (size_t i = 0; i < m_names.size(); ++i) {
        if (i)
            out += ',';
        appendJsonString(out, m_names[i]);
    }
    out += "],\"tracks\":[";
    for (size_t i = 0; i < usedTracks.size(); ++i) {
        const Track& t = m_tracks[usedTracks[i] - 1];
        out += i ? ",{\"id\":" : "{\"id\":";
        appendJsonInt(out, t.id);
        out += ",\"name\":";
        appendJsonString(out, t.name);
        out += ",\"kind\":\"";
        out += t.kind;
        out += "\"}";
    }
    out += "],\"events\":[";
    for (size_t i = 0; i < m_events.size(); ++i) {
        const PendingEvent& e = m_events[i];
        out += i ? ",[" : "[";
        for (int64_t v : {e.startNs, e.durationNs, int64_t(e.track), int64_t(e.name)}) {
            appendJsonInt(out, v);
            out += ',';
        }
        out += '"';
        out += e.kind;
        out += "\",";
        appendJsonInt(out, e.correlation);
        out += ',';
        appendJsonInt(out, e.iteration);
        out += ']';
    }
    out += "],\"memory\":[";
    for (size_t i = 0; i < m_memory.size(); ++i) {
        const MemoryActivity& m = m_memory[i];
        const int32_t device = m.hostMemory ? -1 : static_cast<int32_t>(m.deviceId);
        const int64_t delta = m.operation == MemoryActivity::Operation::Allocation
                                  ? static_cast<int64_t>(m.bytes)
                                  : -static_cast<int64_t>(m.bytes);
        // A free of memory allocated before tracing began would drive the total below zero;
        // the total counts what was allocated while tracing, so it stops at zero.
        int64_t& total = m_memoryTotals[device];
        total = std::max<int64_t>(0, total + delta);
        out += i ? ",[" : "[";
        for (int64_t v : {static_cast<int64_t>(m.timestampNs), delta, total}) {
            appendJsonInt(out, v);
            out += ',';
        }
        appendJsonInt(out, device);
        out += ']';
    }
    out += "],\"dropped\":";
    appendJsonInt(out, static_cast<int64_t>(m_dropped));
    out += ",\"iterations\":";
    appendJsonInt(out, m_iterations);
    out += ",\"overhead_ns\":";
    appendJsonInt(out, m_overheadNs);
    out += final ? ",\"final\":true}" : ",\"final\":false}";

    m_names.clear();
    m_nameIndex.clear();
    m_events.clear();
    m_memory.clear();
    m_dropped = 0;
    m_overheadNs = 0;
    return out;
}

} // namespace fusescope::cupti
