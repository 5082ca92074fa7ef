#include "TraceChunkMerger.h"

#include "codec/TraceCodec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fusescope {

using nlohmann::json;

TraceChunkMerger::TraceChunkMerger(KernelTrace& trace)
    : m_trace(trace) {
    for (size_t i = 0; i < trace.names.size(); ++i)
        m_nameIndex.emplace(trace.names[i], static_cast<int32_t>(i));
}

int32_t TraceChunkMerger::intern(const std::string& name) {
    auto [it, inserted] = m_nameIndex.emplace(name, static_cast<int32_t>(m_trace.names.size()));
    if (inserted)
        m_trace.names.push_back(name);
    return it->second;
}

Status TraceChunkMerger::add(const json& chunk) {
    // Decode the whole chunk before touching the trace, so a malformed one adds nothing.
    auto decoded = codec::decodeKernelTrace(chunk, "trace");
    if (!decoded)
        return decoded.error();
    const bool final = chunk.contains("final") && chunk["final"].is_boolean() && chunk["final"].get<bool>();
    KernelTrace part = std::move(decoded).value();
    if (m_trace.source.empty())
        m_trace.source = part.source;
    for (const auto& track : part.tracks) {
        auto it = std::find_if(m_trace.tracks.begin(), m_trace.tracks.end(),
                               [&](const TraceTrack& t) { return t.id == track.id; });
        if (it == m_trace.tracks.end())
            m_trace.tracks.push_back(track);
    }
    std::vector<int32_t> remap(part.names.size());
    for (size_t i = 0; i < part.names.size(); ++i)
        remap[i] = intern(part.names[i]);
    for (auto ev : part.events) {
        ev.name = remap[ev.name];
        m_trace.events.push_back(ev);
    }
    m_trace.memory.insert(m_trace.memory.end(), part.memory.begin(), part.memory.end());
    m_trace.dropped += part.dropped;
    m_trace.iterations = std::max(m_trace.iterations, part.iterations);
    m_trace.overheadNs += part.overheadNs;
    if (final)
        m_trace.finalize();
    return std::nullopt;
}

} // namespace fusescope
