#include "trace/TimelineIndex.h"

#include "SyntheticTrace.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace fusescope;

namespace {

bool overlaps(const TraceEvent& e, int64_t t0, int64_t t1) {
    return e.startNs < t1 && (e.endNs() > t0 || (e.durationNs == 0 && e.startNs >= t0));
}

// What a visible-range query must return, found the slow way.
std::set<uint32_t> naiveVisible(const KernelTrace& t, int track, int64_t t0, int64_t t1) {
    std::set<uint32_t> out;
    for (size_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].track == track && overlaps(t.events[i], t0, t1))
            out.insert(static_cast<uint32_t>(i));
    return out;
}

} // namespace

TEST(TimelineIndex, LongEventStartingBeforeTheWindowIsFound) {
    KernelTrace t;
    const int n = t.internName("k");
    t.events = {{0, 10'000, 1, n, EventKind::CpuOp, 0, -1}, // the long one, under everything
                {100, 10, 1, n, EventKind::Kernel, 0, -1},  {200, 10, 1, n, EventKind::Kernel, 0, -1},
                {5000, 10, 1, n, EventKind::Kernel, 0, -1}, {9000, 10, 1, n, EventKind::Kernel, 0, -1},
                {20'000, 5, 1, n, EventKind::Kernel, 0, -1}};
    t.finalize();
    const TimelineIndex index(t);
    EXPECT_EQ(index.laneCount(1), 2);
    auto visible = index.visibleEvents(1, 4000, 6000);
    std::sort(visible.begin(), visible.end());
    EXPECT_EQ(visible, (std::vector<uint32_t>{0, 3}));
    // Nothing outside: the window between two short events holds only the long one.
    EXPECT_EQ(index.visibleEvents(1, 300, 4000), (std::vector<uint32_t>{0}));
    EXPECT_TRUE(index.visibleEvents(1, 10'001, 19'999).empty());
    EXPECT_TRUE(index.visibleEvents(99, 0, 100'000).empty());
}

TEST(TimelineIndex, MatchesNaiveScanOnARealisticTrace) {
    const KernelTrace t = synthetic::syntheticTrace(20'000);
    const TimelineIndex index(t);
    const int64_t begin = t.beginNs();
    const int64_t span = t.endNs() - begin;
    for (int track : index.eventTracks()) {
        for (int64_t width : {span, span / 10, span / 1000, int64_t{1000}, int64_t{1}}) {
            for (int64_t at :
                 {begin - 100, begin + span / 3, begin + span / 2 + 17, begin + span - width / 2}) {
                auto got = index.visibleEvents(track, at, at + width);
                const std::set<uint32_t> gotSet(got.begin(), got.end());
                EXPECT_EQ(gotSet.size(), got.size()) << "an event was returned twice";
                EXPECT_EQ(gotSet, naiveVisible(t, track, at, at + width))
                    << "track " << track << " width " << width;
            }
        }
    }
}

TEST(TimelineIndex, MergingKeepsEveryEvent) {
    const KernelTrace t = synthetic::syntheticTrace(50'000);
    const TimelineIndex index(t);
    const int64_t begin = t.beginNs();
    const int64_t span = t.endNs() - begin;
    for (int64_t width : {span, span / 20, span / 2000}) {
        const double nsPerPixel = static_cast<double>(width) / 1600.0;
        for (int track : index.eventTracks()) {
            for (int lane = 0; lane < index.laneCount(track); ++lane) {
                const int64_t t0 = begin + span / 4;
                const auto visible = index.visibleInLane(track, lane, t0, t0 + width);
                const auto spans = index.spansInLane(track, lane, t0, t0 + width, nsPerPixel);
                uint64_t count = 0;
                int64_t covered = 0;
                int64_t expectedCovered = 0;
                for (uint32_t i : visible)
                    expectedCovered += t.events[i].durationNs;
                int64_t previousEnd = INT64_MIN;
                for (const TimelineSpan& s : spans) {
                    count += s.count;
                    covered += s.coveredNs;
                    EXPECT_GE(s.startNs, previousEnd) << "spans of a lane must not overlap";
                    previousEnd = s.endNs;
                    // Merged runs stop after a few pixels, so kernel colours stay visible.
                    if (s.merged())
                        EXPECT_LE(static_cast<double>(s.endNs - s.startNs), 5 * nsPerPixel);
                    if (!s.merged()) {
                        EXPECT_EQ(s.startNs, t.events[s.firstEvent].startNs);
                        EXPECT_EQ(s.endNs, t.events[s.firstEvent].endNs());
                    }
                }
                EXPECT_EQ(count, visible.size());
                EXPECT_EQ(covered, expectedCovered);
                if (width == span && lane == 0 && track == 7) {
                    // Zoomed out, 12'500 kernels per 1600 px must collapse into far fewer spans.
                    EXPECT_LT(spans.size(), 4000u);
                    EXPECT_GT(spans.size(), 0u);
                }
            }
        }
    }
}

TEST(TimelineIndex, WideEventsStaySingle) {
    KernelTrace t;
    const int n = t.internName("k");
    t.events = {{0, 1, 0, n, EventKind::Kernel, 0, -1},
                {2, 1, 0, n, EventKind::Kernel, 0, -1},
                {4, 100, 0, n, EventKind::Kernel, 0, -1},
                {110, 1, 0, n, EventKind::Kernel, 0, -1},
                {500, 1, 0, n, EventKind::Kernel, 0, -1}};
    t.finalize();
    const TimelineIndex index(t);
    const auto spans = index.spansInLane(0, 0, 0, 1000, 10.0);
    ASSERT_EQ(spans.size(), 4u);
    EXPECT_EQ(spans[0].count, 2u); // [0,1) and [2,3): narrow and a pixel apart
    EXPECT_EQ(spans[0].coveredNs, 2);
    EXPECT_EQ(spans[1].count, 1u); // the 100 ns event is 10 px wide
    EXPECT_EQ(spans[1].startNs, 4);
    EXPECT_EQ(spans[2].count, 1u); // alone: the next narrow event is 39 px away
    EXPECT_EQ(spans[3].startNs, 500);
}

TEST(TimelineIndex, MemoryColumnsAreMinMaxPerPixel) {
    KernelTrace t;
    t.memory = {{10, 100, 100, 0}, {12, 50, 150, 0}, {15, -120, 30, 0}, {35, 70, 100, 0}, {40, 5, 5, -1}};
    t.finalize();
    const TimelineIndex index(t);
    EXPECT_EQ(index.peakMemoryBytes(), 150);
    EXPECT_EQ(index.memoryDevices().size(), 2u);
    // Columns of 10 ns from 0: [0,10) nothing yet, [10,20) 100..150..30, [20,30) carries 30,
    // [30,40) 30 then 100.
    const auto cols = index.memoryColumns(0, 0, 10.0, 5);
    ASSERT_EQ(cols.size(), 5u);
    EXPECT_FALSE(cols[0].valid);
    EXPECT_TRUE(cols[1].valid);
    EXPECT_EQ(cols[1].minBytes, 30);
    EXPECT_EQ(cols[1].maxBytes, 150);
    EXPECT_EQ(cols[2].minBytes, 30);
    EXPECT_EQ(cols[2].maxBytes, 30);
    EXPECT_EQ(cols[3].minBytes, 30);
    EXPECT_EQ(cols[3].maxBytes, 100);
    EXPECT_EQ(cols[4].minBytes, 100);
    const auto cpu = index.memoryColumns(-1, 0, 10.0, 5);
    EXPECT_FALSE(cpu[3].valid);
    EXPECT_EQ(cpu[4].maxBytes, 5);
}

TEST(TimelineIndex, MemoryDownsamplingOfManyPoints) {
    const KernelTrace t = synthetic::syntheticTrace(100'000);
    const TimelineIndex index(t);
    const int64_t begin = t.beginNs();
    const double npp = static_cast<double>(t.endNs() - begin) / 800.0;
    const auto cols = index.memoryColumns(0, begin, npp, 800);
    int64_t peak = INT64_MIN;
    for (const auto& c : cols)
        if (c.valid)
            peak = std::max(peak, c.maxBytes);
    EXPECT_EQ(peak, index.peakMemoryBytes()); // the peak survives downsampling
}
