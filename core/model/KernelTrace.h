#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusescope {

// What a trace row is: a CPU thread (profiler), a CUDA stream (CUPTI), or the memory track.
enum class TrackKind { CpuThread, CudaStream, Memory };

struct TraceTrack {
    int id = 0;
    std::string name; // "thread 1234", "stream 7 (device 0)"
    TrackKind kind = TrackKind::CpuThread;
};

enum class EventKind { Kernel, Memcpy, Memset, Runtime, Driver, CpuOp, Overhead };

// One timed event. Names are interned in KernelTrace::names: a 10^6-event trace must not
// carry 10^6 copies of "triton_poi_fused_add_0".
struct TraceEvent {
    int64_t startNs = 0;
    int64_t durationNs = 0;
    int32_t track = 0;
    int32_t name = 0;
    EventKind kind = EventKind::Kernel;
    int64_t correlation = 0; // CUPTI correlation id / profiler id, 0 when none
    int32_t iteration = -1;  // which traced iteration it belongs to, -1 when unknown

    int64_t endNs() const { return startNs + durationNs; }
};

// Bytes in use after an allocation (+) or a free (-), from allocator events.
struct MemoryEvent {
    int64_t timeNs = 0;
    int64_t deltaBytes = 0;
    int64_t totalBytes = 0;
    int32_t device = -1; // -1 = CPU
};

// The kernels of a few steady-state iterations of one backend, from the PyTorch profiler on CPU
// or FuseScope's CUPTI tracer on NVIDIA GPUs. Events are sorted by (track, start) so a view can
// binary-search the visible range of each row.
struct KernelTrace {
    std::string source; // "cpu-profiler" or "cupti"
    std::vector<std::string> names;
    std::vector<TraceTrack> tracks;
    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    int64_t dropped = 0;    // records lost (CUPTI buffers full), shown to the user
    int iterations = 0;     // steady-state iterations traced
    int64_t overheadNs = 0; // tracer overhead records, when the source reports them

    // Interns a name and returns its index.
    int32_t internName(const std::string& name);
    // Sorts events by (track, start) and memory by time; call after appending.
    void finalize();
    // Events of `track` as a [first, last) index range into `events` (after finalize()).
    std::pair<size_t, size_t> trackRange(int track) const;
    int64_t beginNs() const;
    int64_t endNs() const;
};

const char* toString(EventKind kind);
EventKind eventKindFromString(const std::string& text);
const char* toString(TrackKind kind);
TrackKind trackKindFromString(const std::string& text);
// Encoder and decoder: codec/TraceCodec.h.

} // namespace fusescope
