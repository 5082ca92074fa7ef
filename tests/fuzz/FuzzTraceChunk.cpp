// libFuzzer target: bytes -> JSON -> TraceChunkMerger (the decoder of the worker's `trace`
// messages, docs/protocol.md "Traces"), then what the trace views and exports compute over the
// merged trace (TimelineIndex as ui/trace/TimelineView draws it, the kernel table, the Chrome
// trace export). A JSON array is taken as a sequence of chunks, so merging is exercised too.
//
// Only the JSON parse is guarded. TraceChunkMerger::add is documented to throw
// nlohmann::json::exception on a malformed chunk (WorkerStream reports it as a problem), so that
// one exception type is its "rejected" answer; anything else escaping is a finding.
#include "codec/Json.h"
#include "codec/TraceCodec.h"
#include "trace/ChromeTraceExport.h"
#include "trace/KernelStats.h"
#include "trace/TimelineIndex.h"
#include "trace/TraceChunkMerger.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

using namespace fusescope;
using nlohmann::json;

namespace {

// The whole trace on a 1000-pixel-wide view, as TimelineView paints it when it opens.
void drawTimeline(const KernelTrace& trace) {
    const TimelineIndex index(trace);
    const int64_t t0 = trace.beginNs();
    const int64_t end = trace.endNs();
    const int64_t t1 = end < std::numeric_limits<int64_t>::max() ? end + 1 : end;
    const double npp = std::max(1.0, (static_cast<double>(t1) - static_cast<double>(t0)) / 1000.0);
    for (const int track : index.eventTracks()) {
        (void)index.visibleEvents(track, t0, t1);
        for (int lane = 0; lane < index.laneCount(track); ++lane) {
            (void)index.spansInLane(track, lane, t0, t1, npp);
            (void)index.eventAt(track, lane, t0 / 2 + t1 / 2, static_cast<int64_t>(npp));
        }
    }
    for (const int32_t device : index.memoryDevices())
        (void)index.memoryColumns(device, t0, npp, 1000);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The stream's own path: codec::parseJson, then the merger, which reports a malformed chunk
    // as a Status and must never throw.
    auto parsed = codec::parseJson(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!parsed)
        return 0;
    const json& input = parsed.value().value;

    KernelTrace trace;
    TraceChunkMerger merger(trace);
    const auto addChunk = [&](const json& chunk) { (void)merger.add(chunk); };
    if (input.is_array())
        for (const auto& chunk : input)
            addChunk(chunk);
    else
        addChunk(input);
    trace.finalize();

    for (const auto& track : trace.tracks)
        (void)trace.trackRange(track.id);
    drawTimeline(trace);
    (void)kernelStatsCsv(computeKernelStats(trace, KernelStatsOptions::forTrace(trace)));
    (void)codec::dumpJson(chromeTraceJson(trace, "fuzz"));
    (void)codec::dumpJson(json(trace));
    return 0;
}
