#include "trace/KernelStats.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

KernelTrace twoIterationTrace() {
    KernelTrace t;
    t.tracks = {{7, "stream 7", TrackKind::CudaStream}};
    const int a = t.internName("gemm");
    const int b = t.internName("add");
    const int cpu = t.internName("aten::mm");
    // Iteration 0 spans [0, 100), iteration 1 spans [1000, 1080): step time 180 ns.
    t.events = {{0, 60, 7, a, EventKind::Kernel, 1, 0},
                {60, 40, 7, b, EventKind::Kernel, 2, 0},
                {1000, 50, 7, a, EventKind::Kernel, 3, 1},
                {1050, 30, 7, b, EventKind::Kernel, 4, 1},
                {0, 90, 7, cpu, EventKind::CpuOp, 0, 0}};
    t.iterations = 2;
    t.finalize();
    return t;
}

} // namespace

TEST(KernelStats, SumsPerNameSortedByTotal) {
    const auto table = computeKernelStats(twoIterationTrace());
    ASSERT_EQ(table.rows.size(), 2u); // the CPU op is not a kernel by default
    EXPECT_EQ(table.iterations, 2);
    EXPECT_EQ(table.stepTimeNs, 180);
    const KernelStat& gemm = table.rows[0];
    EXPECT_EQ(gemm.label, "gemm");
    EXPECT_EQ(gemm.calls, 2);
    EXPECT_EQ(gemm.totalNs, 110);
    EXPECT_DOUBLE_EQ(gemm.meanNs, 55);
    EXPECT_EQ(gemm.minNs, 50);
    EXPECT_EQ(gemm.maxNs, 60);
    EXPECT_DOUBLE_EQ(gemm.share, 110.0 / 180.0);
    EXPECT_DOUBLE_EQ(gemm.perIterationNs, 55);
    EXPECT_EQ(table.rows[1].label, "add");
    EXPECT_EQ(table.rows[1].totalNs, 70);
    EXPECT_DOUBLE_EQ(table.rows[1].share, 70.0 / 180.0);
}

TEST(KernelStats, KindsAreSelectable) {
    KernelStatsOptions options;
    options.kinds = {EventKind::CpuOp};
    const auto table = computeKernelStats(twoIterationTrace(), options);
    ASSERT_EQ(table.rows.size(), 1u);
    EXPECT_EQ(table.rows[0].label, "aten::mm");
}

TEST(KernelStats, WithoutIterationsShareIsOfTheTraceSpan) {
    KernelTrace t;
    const int a = t.internName("k");
    t.events = {{100, 50, 0, a, EventKind::Kernel, 0, -1}, {250, 50, 0, a, EventKind::Kernel, 0, -1}};
    t.finalize();
    const auto table = computeKernelStats(t);
    EXPECT_EQ(table.iterations, 0);
    EXPECT_EQ(table.stepTimeNs, 200);
    ASSERT_EQ(table.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(table.rows[0].share, 0.5);
}

TEST(KernelStats, EmptyTrace) {
    const auto table = computeKernelStats(KernelTrace{});
    EXPECT_TRUE(table.rows.empty());
    EXPECT_EQ(table.stepTimeNs, 0);
}
