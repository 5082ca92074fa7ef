#pragma once

#include "model/KernelTrace.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fusescope {

// What a timeline draws for one lane: a single event, or a run of events narrower than a pixel
// merged into one span (Tracy and Qt Creator's timeline do the same: 10^5 boxes of 0.01 px are
// noise and cost more than the screen can show).
struct TimelineSpan {
    int64_t startNs = 0;
    int64_t endNs = 0;
    uint32_t firstEvent = 0; // index into KernelTrace::events of the first event in the span
    uint32_t count = 1;      // events in the span; 1 = an ordinary box
    int64_t coveredNs = 0;   // sum of the durations of the merged events
    bool merged() const { return count > 1; }
};

// Per-pixel-column range of the memory in use, for drawing a curve of 10^6 points as one
// vertical line per column.
struct MemoryColumn {
    int64_t minBytes = 0;
    int64_t maxBytes = 0;
    bool valid = false; // false before the first memory event
};

// A read-only index over a finalized KernelTrace for visible-range queries.
//
// Events of one track may nest (CPU ops around the kernels they call), so each track is split
// into lanes by nesting depth. Within a lane events do not overlap, so both starts and ends are
// sorted and the first event ending after t0 is a binary search: a long event that starts before
// the window is found without scanning what lies under it. A query costs O(log n + output).
class TimelineIndex {
public:
    TimelineIndex() = default;
    // `trace` must outlive the index and must have been finalize()d.
    explicit TimelineIndex(const KernelTrace& trace);

    const KernelTrace* trace() const { return m_trace; }
    // Tracks that carry events (not the memory track), in trace order.
    const std::vector<int>& eventTracks() const { return m_eventTracks; }
    int laneCount(int track) const;

    // Events of one lane overlapping [t0, t1), as indices into KernelTrace::events.
    std::span<const uint32_t> visibleInLane(int track, int lane, int64_t t0, int64_t t1) const;
    // Events of a track overlapping [t0, t1), every lane, lane by lane.
    std::vector<uint32_t> visibleEvents(int track, int64_t t0, int64_t t1) const;

    // What to draw for one lane: events at least `nsPerPixel` wide stay single; neighbours
    // narrower than that, less than a pixel apart, merge, up to `maxMergedPixels` wide so that a
    // busy stream still shows which kernels run where. Costs O(log n) per drawn span, so a fully
    // zoomed-out 10^6-event lane is a few thousand binary searches, not 10^6 steps.
    std::vector<TimelineSpan> spansInLane(int track, int lane, int64_t t0, int64_t t1, double nsPerPixel,
                                          double maxMergedPixels = 3.0) const;

    // The event of a lane under time `t` (within `slackNs`), or -1.
    int64_t eventAt(int track, int lane, int64_t t, int64_t slackNs) const;

    // Memory devices present (-1 = CPU), and the peak over the whole trace.
    const std::vector<int32_t>& memoryDevices() const { return m_devices; }
    int64_t peakMemoryBytes() const { return m_peakMemory; }
    // Memory in use per pixel column: column c covers [t0 + c*nsPerPixel, t0 + (c+1)*nsPerPixel).
    std::vector<MemoryColumn> memoryColumns(int32_t device, int64_t t0, double nsPerPixel, int columns) const;

private:
    struct Lane {
        std::vector<uint32_t> events;  // indices into trace.events, sorted by start (and by end)
        std::vector<int64_t> prefixNs; // prefixNs[i] = sum of durations of events[0..i)
    };
    struct Track {
        int id = 0;
        std::vector<Lane> lanes;
    };
    const Track* findTrack(int id) const;
    const Lane* findLane(int track, int lane) const;

    const KernelTrace* m_trace = nullptr;
    std::vector<Track> m_tracks;
    std::vector<int> m_eventTracks;
    std::vector<int32_t> m_devices;
    std::vector<std::vector<uint32_t>> m_memoryByDevice; // indices into trace.memory, by time
    int64_t m_peakMemory = 0;
};

} // namespace fusescope
