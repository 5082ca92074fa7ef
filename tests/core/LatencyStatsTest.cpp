#include "analysis/LatencyStats.h"

#include <gtest/gtest.h>
#include <vector>

using namespace fusescope;

TEST(LatencyStats, EmptyHasNoSamples) {
    EXPECT_TRUE(computeLatencyStats({}).empty());
}

TEST(LatencyStats, MatchesNumpyLinearPercentiles) {
    // numpy.percentile([5, 1, 4, 2, 3, 10], [25, 50, 75]) == [2.25, 3.5, 4.75]
    const std::vector<double> samples = {5, 1, 4, 2, 3, 10};
    const auto s = computeLatencyStats(samples);
    EXPECT_EQ(s.n, 6);
    EXPECT_DOUBLE_EQ(s.q1, 2.25);
    EXPECT_DOUBLE_EQ(s.median, 3.5);
    EXPECT_DOUBLE_EQ(s.q3, 4.75);
    EXPECT_DOUBLE_EQ(s.iqr(), 2.5);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 10);
    EXPECT_DOUBLE_EQ(s.mean, 25.0 / 6);
}

TEST(LatencyStats, SingleSample) {
    const std::vector<double> one = {7.5};
    const auto s = computeLatencyStats(one);
    EXPECT_DOUBLE_EQ(s.median, 7.5);
    EXPECT_DOUBLE_EQ(s.iqr(), 0);
}
