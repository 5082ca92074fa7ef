#include "trace/ChromeTraceExport.h"

#include "SyntheticTrace.h"

#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>

using namespace fusescope;
using nlohmann::json;

TEST(ChromeTraceExport, EveryEventReadsBackWithItsTimes) {
    const KernelTrace t = synthetic::syntheticTrace(2'000);
    QTemporaryDir dir;
    const std::string path = dir.filePath("trace.json").toStdString();
    ASSERT_FALSE(writeChromeTrace(t, "inductor", path).has_value());

    std::ifstream in(path);
    const json doc = json::parse(in);
    const int64_t origin = doc["otherData"]["origin_ns"].get<int64_t>();
    EXPECT_EQ(origin, t.beginNs());

    std::map<std::pair<int, int>, std::string> threadNames;
    std::map<int, std::string> processNames;
    size_t complete = 0;
    size_t counters = 0;
    for (const json& e : doc["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "M" && e["name"] == "thread_name")
            threadNames[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
        if (ph == "M" && e["name"] == "process_name")
            processNames[e["pid"].get<int>()] = e["args"]["name"];
        if (ph == "X") {
            ASSERT_LT(complete, t.events.size());
            const TraceEvent& want = t.events[complete];
            EXPECT_EQ(e["name"], t.names[static_cast<size_t>(want.name)]);
            EXPECT_EQ(e["tid"].get<int>(), want.track);
            // Microseconds with the nanoseconds in the fraction: exact after rounding back.
            EXPECT_EQ(std::llround(e["ts"].get<double>() * 1000.0) + origin, want.startNs);
            EXPECT_EQ(std::llround(e["dur"].get<double>() * 1000.0), want.durationNs);
            EXPECT_EQ(e["args"]["kind"], toString(want.kind));
            ++complete;
        }
        if (ph == "C") {
            const MemoryEvent& want = t.memory[counters];
            EXPECT_EQ(e["args"]["bytes"].get<int64_t>(), want.totalBytes);
            EXPECT_EQ(std::llround(e["ts"].get<double>() * 1000.0) + origin, want.timeNs);
            ++counters;
        }
    }
    EXPECT_EQ(complete, t.events.size());
    EXPECT_EQ(counters, t.memory.size());
    EXPECT_EQ(threadNames.at({1, 1}), "thread 100");
    EXPECT_EQ(threadNames.at({2, 7}), "stream 7 (device 0)");
    EXPECT_EQ(processNames.at(2), "inductor (GPU)");
}

TEST(ChromeTraceExport, CsvHasOneRowPerKernelAndQuotesNames) {
    KernelTrace t;
    const int a = t.internName("void gemm<float, 128>(\"x\")");
    const int b = t.internName("add");
    t.events = {{0, 30, 0, a, EventKind::Kernel, 0, -1}, {40, 10, 0, b, EventKind::Kernel, 0, -1}};
    t.finalize();
    const std::string csv = kernelStatsCsv(computeKernelStats(t));
    EXPECT_EQ(csv, "name,calls,total_ns,mean_ns,min_ns,max_ns,share_percent,per_iteration_ns\n"
                   "\"void gemm<float, 128>(\"\"x\"\")\",1,30,30.0,30,30,60.000,30.0\n"
                   "add,1,10,10.0,10,10,20.000,10.0\n");
}

TEST(ChromeTraceExport, UnwritablePathIsAnError) {
    const auto status = writeChromeTrace(KernelTrace{}, "x", "/nonexistent-dir/trace.json");
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(status->code, "export_failed");
}
