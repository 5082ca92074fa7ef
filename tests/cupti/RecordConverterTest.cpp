// The record -> chunk converter, fed synthetic CUPTI records: runs without a GPU.

#include "RecordConverter.h"

#include "model/KernelTrace.h"
#include "trace/TraceChunkMerger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tuple>

using namespace fusescope;
using namespace fusescope::cupti;
using nlohmann::json;

namespace {

GpuActivity kernel(uint64_t start, uint64_t end, uint32_t stream, const std::string& name, uint32_t corr = 0,
                   uint32_t device = 0) {
    return {GpuActivity::Kind::Kernel, start, end, device, stream, corr, name, 0};
}

MemoryActivity memory(MemoryActivity::Operation op, uint64_t t, uint64_t bytes, uint32_t device,
                      bool host = false) {
    return {op, t, 0x1000 + t, bytes, device, host, 0};
}

constexpr auto Alloc = MemoryActivity::Operation::Allocation;
constexpr auto Free = MemoryActivity::Operation::Release;

json take(RecordConverter& c, bool final = false) {
    return json::parse(c.takeChunk(final));
}

std::string trackName(const json& chunk, int id) {
    for (const auto& t : chunk["tracks"])
        if (t["id"] == id)
            return t["name"];
    return "";
}

} // namespace

TEST(RecordConverter, ChunkHasTheProtocolFieldsButNotTypeOrId) {
    RecordConverter c;
    c.add(kernel(100, 200, 7, "triton_poi_fused_add_0"));
    const json chunk = take(c, true);
    for (const char* key :
         {"source", "names", "tracks", "events", "memory", "dropped", "iterations", "overhead_ns", "final"})
        EXPECT_TRUE(chunk.contains(key)) << key;
    EXPECT_FALSE(chunk.contains("type"));
    EXPECT_FALSE(chunk.contains("id"));
    EXPECT_EQ(chunk["source"], "cupti");
    EXPECT_EQ(chunk["final"], true);
}

TEST(RecordConverter, KernelsOnTwoStreamsMakeTwoSortedTracks) {
    RecordConverter c;
    c.add(kernel(5000, 5300, 13, "b", 3));
    c.add(kernel(1000, 1250, 7, "a", 1));
    c.add(kernel(3000, 3999, 13, "b", 2));
    c.add(kernel(2000, 2100, 7, "a", 4));
    const json chunk = take(c);
    ASSERT_EQ(chunk["tracks"].size(), 2u);
    for (const auto& t : chunk["tracks"])
        EXPECT_EQ(t["kind"], "cuda_stream");
    const auto& ev = chunk["events"];
    ASSERT_EQ(ev.size(), 4u);
    // Sorted by (track, start); durations are end - start in ns.
    for (size_t i = 1; i < ev.size(); ++i)
        EXPECT_LE(std::make_tuple(ev[i - 1][2].get<int>(), ev[i - 1][0].get<int64_t>()),
                  std::make_tuple(ev[i][2].get<int>(), ev[i][0].get<int64_t>()));
    EXPECT_EQ(trackName(chunk, ev[0][2]), "stream 13 (device 0)");
    EXPECT_EQ(ev[0][0], 3000);
    EXPECT_EQ(ev[0][1], 999);
    EXPECT_EQ(ev[0][4], "kernel");
    EXPECT_EQ(ev[0][5], 2);
    EXPECT_EQ(trackName(chunk, ev[2][2]), "stream 7 (device 0)");
    EXPECT_EQ(ev[2][1], 250);
    EXPECT_EQ(ev[3][6], -1); // no iteration marked
}

TEST(RecordConverter, SameStreamOnTwoDevicesIsTwoTracks) {
    RecordConverter c;
    c.add(kernel(1, 2, 7, "k", 0, 0));
    c.add(kernel(1, 2, 7, "k", 0, 1));
    EXPECT_EQ(take(c)["tracks"].size(), 2u);
}

TEST(RecordConverter, NamesAreInternedPerChunk) {
    RecordConverter c;
    for (int i = 0; i < 3; ++i)
        c.add(kernel(10 * i, 10 * i + 5, 7, "triton_poi_fused_add_0"));
    c.add(kernel(100, 105, 7, "triton_red_fused_sum_1"));
    json first = take(c);
    EXPECT_EQ(first["names"], json({"triton_poi_fused_add_0", "triton_red_fused_sum_1"}));
    EXPECT_EQ(first["events"][2][3], 0);
    EXPECT_EQ(first["events"][3][3], 1);
    // A chunk is self-contained: the next one lists its own names from index 0.
    c.add(kernel(200, 205, 7, "triton_red_fused_sum_1"));
    json second = take(c);
    EXPECT_EQ(second["names"], json({"triton_red_fused_sum_1"}));
    EXPECT_EQ(second["events"][0][3], 0);
    EXPECT_EQ(second["tracks"].size(), 1u); // the tracks its events use, same id as before
    EXPECT_EQ(second["tracks"][0]["id"], first["tracks"][0]["id"]);
}

TEST(RecordConverter, DemanglesCppNamesAndKeepsTritonNames) {
    EXPECT_EQ(RecordConverter::displayName("_Z5scalePfi"), "scale(float*, int)");
    EXPECT_EQ(RecordConverter::displayName("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
    EXPECT_EQ(RecordConverter::displayName("_Znot a mangled name"), "_Znot a mangled name");
    RecordConverter c;
    c.add(kernel(
        1, 2, 7,
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_"));
    const std::string name = take(c)["names"][0];
    EXPECT_EQ(
        name.rfind("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>", 0), 0u)
        << name;
}

TEST(RecordConverter, MemcpyAndMemsetKeepTheirKinds) {
    RecordConverter c;
    c.add(GpuActivity{GpuActivity::Kind::Memcpy, 10, 30, 0, 7, 1, "Memcpy HtoD", 4096});
    c.add(GpuActivity{GpuActivity::Kind::Memset, 40, 45, 0, 7, 2, "Memset", 4096});
    const json chunk = take(c);
    EXPECT_EQ(chunk["events"][0][4], "memcpy");
    EXPECT_EQ(chunk["names"][chunk["events"][0][3].get<int>()], "Memcpy HtoD");
    EXPECT_EQ(chunk["events"][1][4], "memset");
    EXPECT_EQ(chunk["events"][1][1], 5);
}

TEST(RecordConverter, ApiCallsGoToOneTrackPerThread) {
    RecordConverter c;
    c.add(ApiActivity{false, 10, 20, 4242, 1, "cudaLaunchKernel"});
    c.add(ApiActivity{true, 12, 18, 4242, 1, "cuLaunchKernel"});
    c.add(ApiActivity{false, 30, 40, 4343, 2, "cudaMemcpyAsync"});
    const json chunk = take(c);
    ASSERT_EQ(chunk["tracks"].size(), 2u);
    EXPECT_EQ(chunk["tracks"][0]["kind"], "cpu_thread");
    EXPECT_EQ(chunk["tracks"][0]["name"], "thread 4242");
    EXPECT_EQ(chunk["events"][0][4], "runtime");
    EXPECT_EQ(chunk["events"][1][4], "driver");
    EXPECT_EQ(chunk["events"][0][5], chunk["events"][1][5]); // correlation ties them to GPU work
}

TEST(RecordConverter, MemoryEventsCarryARunningTotalPerDevice) {
    RecordConverter c;
    c.add(memory(Alloc, 10, 100, 0));
    c.add(memory(Alloc, 30, 20, 0));
    c.add(memory(Alloc, 20, 50, 1)); // out of order in the buffer: totals follow time
    c.add(memory(Alloc, 35, 8, 0, true));
    json chunk = take(c);
    EXPECT_EQ(chunk["memory"], json::parse("[[10,100,100,0],[20,50,50,1],[30,20,120,0],[35,8,8,-1]]"));
    // Totals continue across chunks.
    c.add(memory(Free, 40, 100, 0));
    c.add(memory(Free, 50, 50, 1));
    chunk = take(c);
    EXPECT_EQ(chunk["memory"], json::parse("[[40,-100,20,0],[50,-50,0,1]]"));
    // Freeing memory allocated before tracing began does not go below zero.
    c.add(memory(Free, 60, 4096, 1));
    EXPECT_EQ(take(c)["memory"], json::parse("[[60,-4096,0,1]]"));
}

TEST(RecordConverter, DroppedAndOverheadAreCountedPerChunk) {
    RecordConverter c;
    c.addDropped(5);
    c.add(OverheadActivity{100, 350, 4242, "overhead: CUPTI buffer flush"});
    EXPECT_TRUE(c.hasPending());
    json chunk = take(c);
    EXPECT_EQ(chunk["dropped"], 5);
    EXPECT_EQ(chunk["overhead_ns"], 250);
    EXPECT_EQ(chunk["events"][0][4], "overhead");
    EXPECT_FALSE(c.hasPending());
    chunk = take(c, true);
    EXPECT_EQ(chunk["dropped"], 0); // the merger sums chunks, so each carries only its own
}

TEST(RecordConverter, EventsBelongToTheIterationMarkedBeforeThem) {
    RecordConverter c;
    c.beginIteration(0, 1000);
    c.beginIteration(1, 2000);
    c.add(kernel(500, 600, 7, "warmup"));
    c.add(kernel(1000, 1100, 7, "k"));
    c.add(kernel(2500, 2600, 7, "k"));
    const json chunk = take(c);
    EXPECT_EQ(chunk["events"][0][6], -1);
    EXPECT_EQ(chunk["events"][1][6], 0);
    EXPECT_EQ(chunk["events"][2][6], 1);
    EXPECT_EQ(chunk["iterations"], 2);
}

TEST(RecordConverter, NamesAreEscaped) {
    RecordConverter c;
    const std::string odd = "k<\"quoted\", \\ back>\n\x01";
    c.add(kernel(1, 2, 7, odd));
    EXPECT_EQ(take(c)["names"][0], odd);
}

// What goes in comes out: chunks merged by the app's TraceChunkMerger give the same trace.
TEST(RecordConverter, ChunksMergeIntoTheTraceThatWasFed) {
    struct Fed {
        int64_t start, duration;
        std::string track, name;
        EventKind kind;
        int64_t correlation;
    };
    std::vector<Fed> fed;
    RecordConverter c;
    std::vector<json> chunks;
    auto addKernel = [&](uint64_t s, uint64_t e, uint32_t stream, const std::string& n, uint32_t corr) {
        c.add(kernel(s, e, stream, n, corr));
        fed.push_back({int64_t(s), int64_t(e - s), "stream " + std::to_string(stream) + " (device 0)", n,
                       EventKind::Kernel, corr});
    };
    c.beginIteration(0, 0);
    addKernel(100, 150, 7, "triton_poi_fused_add_0", 1);
    addKernel(120, 180, 13, "triton_red_fused_sum_1", 2);
    c.add(ApiActivity{false, 90, 99, 4242, 1, "cudaLaunchKernel"});
    fed.push_back({90, 9, "thread 4242", "cudaLaunchKernel", EventKind::Runtime, 1});
    c.add(memory(Alloc, 95, 1 << 20, 0));
    c.addDropped(2);
    chunks.push_back(take(c));
    addKernel(300, 350, 7, "triton_poi_fused_add_0", 3);
    c.add(GpuActivity{GpuActivity::Kind::Memcpy, 400, 420, 0, 13, 4, "Memcpy DtoH", 64});
    fed.push_back({400, 20, "stream 13 (device 0)", "Memcpy DtoH", EventKind::Memcpy, 4});
    c.add(memory(Free, 430, 1 << 20, 0));
    c.addDropped(1);
    chunks.push_back(take(c));
    chunks.push_back(take(c, true));

    KernelTrace trace;
    TraceChunkMerger merger(trace);
    for (const auto& chunk : chunks)
        merger.add(chunk);

    EXPECT_EQ(trace.source, "cupti");
    EXPECT_EQ(trace.dropped, 3);
    EXPECT_EQ(trace.iterations, 1);
    EXPECT_EQ(trace.tracks.size(), 3u);
    EXPECT_EQ(trace.names.size(), 4u);
    ASSERT_EQ(trace.events.size(), fed.size());
    auto trackOf = [&](int id) {
        for (const auto& t : trace.tracks)
            if (t.id == id)
                return t.name;
        return std::string();
    };
    for (const Fed& f : fed) {
        auto it = std::find_if(trace.events.begin(), trace.events.end(), [&](const TraceEvent& e) {
            return e.startNs == f.start && trace.names[e.name] == f.name;
        });
        ASSERT_NE(it, trace.events.end()) << f.name << " at " << f.start;
        EXPECT_EQ(it->durationNs, f.duration);
        EXPECT_EQ(trackOf(it->track), f.track);
        EXPECT_EQ(it->kind, f.kind);
        EXPECT_EQ(it->correlation, f.correlation);
        EXPECT_EQ(it->iteration, 0);
    }
    for (size_t i = 1; i < trace.events.size(); ++i) // finalized by the final chunk
        EXPECT_LE(std::make_pair(trace.events[i - 1].track, trace.events[i - 1].startNs),
                  std::make_pair(trace.events[i].track, trace.events[i].startNs));
    ASSERT_EQ(trace.memory.size(), 2u);
    EXPECT_EQ(trace.memory[0].totalBytes, 1 << 20);
    EXPECT_EQ(trace.memory[1].totalBytes, 0);
    EXPECT_EQ(trace.memory[1].device, 0);
}
