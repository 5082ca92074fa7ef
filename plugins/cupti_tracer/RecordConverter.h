#pragma once

#include "ActivityRecords.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fusescope::cupti {

// Turns CUPTI activity records into `trace` chunks (docs/protocol.md, "Traces"), one chunk per
// completed CUPTI buffer. Each chunk is self-contained (its own names and the tracks its events
// use); what must stay consistent across chunks lives here: track ids, memory totals per device,
// iteration boundaries. Not thread-safe: the tracer serialises calls.
class RecordConverter {
public:
    void add(const GpuActivity& record);
    void add(const ApiActivity& record);
    void add(const MemoryActivity& record);
    void add(const OverheadActivity& record);
    void addDropped(uint64_t records) { m_dropped += records; }

    // Events starting at or after `timestampNs` belong to `iteration` (until the next mark).
    // The worker synchronises the device before marking, so GPU work of one iteration does not
    // spill past the next mark.
    void beginIteration(int iteration, uint64_t timestampNs);

    bool hasPending() const {
        return !m_events.empty() || !m_memory.empty() || m_dropped != 0 || m_overheadNs != 0;
    }

    // The chunk of everything added since the last call, as compact UTF-8 JSON without the
    // "type"/"id" fields (the worker adds them). Clears what was pending.
    std::string takeChunk(bool final);

    // Kernel name for display: demangles C++ names (`_Z...`), keeps Triton names as they are.
    static std::string displayName(const std::string& raw);

private:
    struct PendingEvent {
        int64_t startNs, durationNs;
        int32_t track, name;
        const char* kind;
        int64_t correlation;
        int32_t iteration;
    };
    struct Track {
        int id;
        std::string name;
        const char* kind;
    };

    int32_t internName(const std::string& name);
    int trackForStream(uint32_t device, uint32_t stream);
    int trackForThread(uint32_t thread);
    int32_t iterationAt(uint64_t timestampNs) const;
    void addEvent(uint64_t start, uint64_t end, int track, const std::string& name, const char* kind,
                  uint32_t correlation);

    // Kept across chunks.
    std::map<std::pair<uint32_t, uint32_t>, int> m_streamTracks;
    std::map<uint32_t, int> m_threadTracks;
    std::vector<Track> m_tracks; // index = id - 1
    std::map<int32_t, int64_t> m_memoryTotals;
    std::vector<std::pair<uint64_t, int>> m_iterationStarts; // sorted by time
    int m_iterations = 0;
    std::unordered_map<std::string, std::string> m_demangled;

    // Pending for the next chunk.
    std::vector<std::string> m_names;
    std::unordered_map<std::string, int32_t> m_nameIndex;
    std::vector<PendingEvent> m_events;
    std::vector<MemoryActivity> m_memory;
    uint64_t m_dropped = 0;
    int64_t m_overheadNs = 0;
};

} // namespace fusescope::cupti
