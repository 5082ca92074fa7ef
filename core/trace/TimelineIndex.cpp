#include "TimelineIndex.h"

#include <algorithm>
#include <cmath>

namespace fusescope {

TimelineIndex::TimelineIndex(const KernelTrace& trace)
    : m_trace(&trace) {
    const auto& events = trace.events;
    for (size_t i = 0; i < events.size();) {
        Track track;
        track.id = events[i].track;
        // Nesting depth by a stack of open events: an event goes one lane below the innermost
        // event still open at its start. A lane slot is reused only once its previous event has
        // ended, so lanes never overlap, even for partially overlapping (badly nested) events.
        std::vector<int64_t> openEnds;
        for (; i < events.size() && events[i].track == track.id; ++i) {
            const TraceEvent& e = events[i];
            while (!openEnds.empty() && openEnds.back() <= e.startNs)
                openEnds.pop_back();
            const size_t depth = openEnds.size();
            if (track.lanes.size() <= depth)
                track.lanes.emplace_back();
            Lane& lane = track.lanes[depth];
            lane.prefixNs.push_back((lane.prefixNs.empty() ? 0 : lane.prefixNs.back()) +
                                    (lane.events.empty() ? 0 : events[lane.events.back()].durationNs));
            lane.events.push_back(static_cast<uint32_t>(i));
            openEnds.push_back(e.endNs());
        }
        for (Lane& lane : track.lanes)
            lane.prefixNs.push_back(lane.prefixNs.back() + events[lane.events.back()].durationNs);
        m_eventTracks.push_back(track.id);
        m_tracks.push_back(std::move(track));
    }

    for (size_t i = 0; i < trace.memory.size(); ++i) {
        const MemoryEvent& m = trace.memory[i];
        auto it = std::find(m_devices.begin(), m_devices.end(), m.device);
        if (it == m_devices.end()) {
            m_devices.push_back(m.device);
            m_memoryByDevice.emplace_back();
            it = m_devices.end() - 1;
        }
        m_memoryByDevice[static_cast<size_t>(it - m_devices.begin())].push_back(static_cast<uint32_t>(i));
        m_peakMemory = std::max(m_peakMemory, m.totalBytes);
    }
}

const TimelineIndex::Track* TimelineIndex::findTrack(int id) const {
    for (const Track& t : m_tracks)
        if (t.id == id)
            return &t;
    return nullptr;
}

const TimelineIndex::Lane* TimelineIndex::findLane(int track, int lane) const {
    const Track* t = findTrack(track);
    if (!t || lane < 0 || static_cast<size_t>(lane) >= t->lanes.size())
        return nullptr;
    return &t->lanes[static_cast<size_t>(lane)];
}

int TimelineIndex::laneCount(int track) const {
    const Track* t = findTrack(track);
    return t ? static_cast<int>(t->lanes.size()) : 0;
}

std::span<const uint32_t> TimelineIndex::visibleInLane(int track, int lane, int64_t t0, int64_t t1) const {
    const Lane* l = findLane(track, lane);
    if (!l || t1 <= t0)
        return {};
    const auto& ev = m_trace->events;
    // Ends are sorted within a lane, so "first event ending after t0" is a lower bound. A
    // zero-length event at exactly t0 counts as inside.
    auto first = std::partition_point(l->events.begin(), l->events.end(), [&](uint32_t i) {
        return ev[i].endNs() < t0 || (ev[i].endNs() == t0 && ev[i].durationNs > 0);
    });
    auto last = std::partition_point(first, l->events.end(), [&](uint32_t i) { return ev[i].startNs < t1; });
    return {first, last};
}

std::vector<uint32_t> TimelineIndex::visibleEvents(int track, int64_t t0, int64_t t1) const {
    std::vector<uint32_t> out;
    for (int lane = 0; lane < laneCount(track); ++lane) {
        auto span = visibleInLane(track, lane, t0, t1);
        out.insert(out.end(), span.begin(), span.end());
    }
    return out;
}

std::vector<TimelineSpan> TimelineIndex::spansInLane(int track, int lane, int64_t t0, int64_t t1,
                                                     double nsPerPixel, double maxMergedPixels) const {
    std::vector<TimelineSpan> out;
    const Lane* l = findLane(track, lane);
    auto visible = visibleInLane(track, lane, t0, t1);
    if (!l || visible.empty())
        return out;
    const auto& ev = m_trace->events;
    const auto laneBegin = l->events.begin();
    const size_t endPos = static_cast<size_t>(visible.data() + visible.size() - l->events.data());
    const auto pixel = static_cast<int64_t>(std::max(1.0, std::ceil(nsPerPixel)));
    auto isNarrow = [&](size_t pos) {
        return static_cast<double>(ev[l->events[pos]].durationNs) < nsPerPixel;
    };
    // First position in [from, endPos) whose event starts at or after `t`.
    auto startingFrom = [&](size_t from, int64_t t) {
        return static_cast<size_t>(std::partition_point(laneBegin + static_cast<std::ptrdiff_t>(from),
                                                        laneBegin + static_cast<std::ptrdiff_t>(endPos),
                                                        [&](uint32_t i) { return ev[i].startNs < t; }) -
                                   laneBegin);
    };

    size_t pos = static_cast<size_t>(visible.data() - l->events.data());
    while (pos < endPos) {
        const TraceEvent& e = ev[l->events[pos]];
        if (!isNarrow(pos)) {
            out.push_back({e.startNs, e.endNs(), l->events[pos], 1, e.durationNs});
            ++pos;
            continue;
        }
        // Grow a merged span a pixel at a time: everything starting within a pixel of its end
        // joins, found by binary search, so a pixel holding 10^4 events costs one search.
        const size_t groupBegin = pos;
        int64_t groupEnd = e.endNs();
        size_t next = pos + 1;
        const double mergeLimit =
            static_cast<double>(e.startNs) + std::max(maxMergedPixels, 1.0) * nsPerPixel;
        while (next < endPos && static_cast<double>(groupEnd) < mergeLimit) {
            size_t reach = startingFrom(next, groupEnd + pixel);
            // Events in [next, reach) start within a pixel. All but the last end before the last
            // one starts (no overlap within a lane); the last may be wide and then stays single.
            if (reach > next && !isNarrow(reach - 1))
                --reach;
            if (reach == next)
                break;
            groupEnd = std::max(groupEnd, ev[l->events[reach - 1]].endNs());
            next = reach;
        }
        const auto first = l->events[groupBegin];
        out.push_back({e.startNs, groupEnd, first, static_cast<uint32_t>(next - groupBegin),
                       l->prefixNs[next] - l->prefixNs[groupBegin]});
        pos = next;
    }
    return out;
}

int64_t TimelineIndex::eventAt(int track, int lane, int64_t t, int64_t slackNs) const {
    auto candidates = visibleInLane(track, lane, t - slackNs, t + slackNs + 1);
    if (candidates.empty())
        return -1;
    // Prefer the event that contains t; otherwise the nearest within the slack.
    const auto& ev = m_trace->events;
    int64_t best = -1;
    int64_t bestDistance = slackNs + 1;
    for (uint32_t i : candidates) {
        const int64_t d = t < ev[i].startNs ? ev[i].startNs - t : (t > ev[i].endNs() ? t - ev[i].endNs() : 0);
        if (d < bestDistance) {
            best = i;
            bestDistance = d;
        }
        if (d == 0)
            break;
    }
    return best;
}

std::vector<MemoryColumn> TimelineIndex::memoryColumns(int32_t device, int64_t t0, double nsPerPixel,
                                                       int columns) const {
    std::vector<MemoryColumn> out(static_cast<size_t>(std::max(columns, 0)));
    auto it = std::find(m_devices.begin(), m_devices.end(), device);
    if (it == m_devices.end() || columns <= 0 || nsPerPixel <= 0)
        return out;
    const auto& ids = m_memoryByDevice[static_cast<size_t>(it - m_devices.begin())];
    const auto& mem = m_trace->memory;
    // The value in force at a column's left edge is the last event before it: memory in use is a
    // step function, so a column with no event still shows the level carried into it.
    auto pos = static_cast<size_t>(
        std::partition_point(ids.begin(), ids.end(), [&](uint32_t i) { return mem[i].timeNs < t0; }) -
        ids.begin());
    bool haveLevel = pos > 0;
    int64_t level = haveLevel ? mem[ids[pos - 1]].totalBytes : 0;
    for (int c = 0; c < columns; ++c) {
        const auto colEnd = static_cast<int64_t>(std::floor(static_cast<double>(t0) + (c + 1) * nsPerPixel));
        MemoryColumn col{level, level, haveLevel};
        for (; pos < ids.size() && mem[ids[pos]].timeNs < colEnd; ++pos) {
            level = mem[ids[pos]].totalBytes;
            col.minBytes = col.valid ? std::min(col.minBytes, level) : level;
            col.maxBytes = col.valid ? std::max(col.maxBytes, level) : level;
            col.valid = haveLevel = true;
        }
        out[static_cast<size_t>(c)] = col;
        if (pos == ids.size() && !haveLevel)
            break;
    }
    return out;
}

} // namespace fusescope
