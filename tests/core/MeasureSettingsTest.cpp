// The measure settings and the placement are written and read in one place (RunRequest.h): the
// run request, the report's settings and the GUI's options all go through it, in the same format.
#include "capture/RunRequest.h"
#include "model/Result.h"

#include <gtest/gtest.h>
#include <memory>
#include <type_traits>

using namespace fusescope;
using nlohmann::json;

namespace {

MeasureSettings unusual() {
    MeasureSettings m;
    m.warmup = 1;
    m.minRuns = 7;
    m.minTimeSeconds = 0.25;
    m.maxRuns = 40;
    m.maxTimeSeconds = 5.5;
    m.confidencePct = 1.5;
    m.settle = 3;
    return m;
}

void expectSame(const MeasureSettings& a, const MeasureSettings& b) {
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.minRuns, b.minRuns);
    EXPECT_DOUBLE_EQ(a.minTimeSeconds, b.minTimeSeconds);
    EXPECT_EQ(a.maxRuns, b.maxRuns);
    EXPECT_DOUBLE_EQ(a.maxTimeSeconds, b.maxTimeSeconds);
    EXPECT_DOUBLE_EQ(a.confidencePct, b.confidencePct);
    EXPECT_EQ(a.settle, b.settle);
}

} // namespace

// The keys of docs/protocol.md's "measure" object, as reports and workers have always had them.
TEST(MeasureSettings, WritesTheProtocolKeys) {
    EXPECT_EQ(unusual().toJson(), json::parse(R"({"warmup": 1, "min_runs": 7, "min_time_s": 0.25,
        "max_runs": 40, "max_time_s": 5.5, "confidence_pct": 1.5, "settle": 3})"));
}

TEST(MeasureSettings, ReadsBackWhatItWrote) {
    expectSame(MeasureSettings::fromJson(unusual().toJson()), unusual());
}

// A report from before the confidence rule has no confidence_pct: the caller's default stands
// (the GUI passes 0, "off"); a value of the wrong type is not taken either.
TEST(MeasureSettings, MissingOrMistypedKeysKeepTheDefaults) {
    MeasureSettings off;
    off.confidencePct = 0;
    off.settle = 0;
    const auto old = MeasureSettings::fromJson(json::parse(R"({"warmup": 2, "min_runs": "many"})"), off);
    EXPECT_EQ(old.warmup, 2);
    EXPECT_EQ(old.minRuns, MeasureSettings{}.minRuns);
    EXPECT_DOUBLE_EQ(old.confidencePct, 0.0);
    EXPECT_EQ(old.settle, 0); // nor settle calls: none, as such a report was measured
    EXPECT_EQ(MeasureSettings{}.settle, 1);
    expectSame(MeasureSettings::fromJson(nullptr), MeasureSettings{});
}

TEST(Placement, RoundTripsThreadsAndPin) {
    Placement p;
    p.threads = 3;
    p.pin = {0, 2};
    p.malloc = "system";
    EXPECT_EQ(p.toProtocol(), json::parse(R"({"threads": 3, "pin": [0, 2], "malloc": "system"})"));
    const Placement back = Placement::fromJson(p.toProtocol());
    EXPECT_EQ(back.threads, std::optional<int>(3));
    EXPECT_EQ(back.pin, (std::vector<int>{0, 2}));
    EXPECT_EQ(back.malloc, "system");
    EXPECT_EQ(Placement{}.toProtocol(), json::parse(R"({"threads": null, "pin": null, "malloc": "steady"})"));
    EXPECT_EQ(Placement::fromJson(json::parse(R"({"malloc": "jemalloc"})")).malloc,
              "steady"); // unknown: default
    EXPECT_FALSE(Placement::fromJson(Placement{}.toProtocol()).threads.has_value());
    EXPECT_TRUE(Placement::fromJson(json::parse(R"({"pin": [1, -1, "x"]})")).pin == std::vector<int>{1});
}

// The request line carries the same objects the report's settings do (CompareSession writes those
// from the same functions; SessionTest checks the report side).
TEST(MeasureSettings, TheRunRequestUsesThem) {
    RunRequest r;
    r.measure = unusual();
    r.placement.threads = 2;
    const json line = r.toProtocol("x");
    EXPECT_EQ(line["measure"], unusual().toJson());
    EXPECT_EQ(line["placement"], r.placement.toProtocol());
}

// value() on a temporary Result moves the value out instead of referencing the dying Result
// (a reference into it once crashed the GUI at start-up).
static_assert(std::is_same_v<decltype(std::declval<Result<std::string>>().value()), std::string>);
static_assert(std::is_same_v<decltype(std::declval<Result<std::string>&>().value()), std::string&>);
static_assert(std::is_same_v<decltype(std::declval<Result<int>>().error()), Error>);

TEST(Result, ValueOfATemporaryIsMovedOut) {
    const auto make = [] { return Result<std::unique_ptr<int>>(std::make_unique<int>(7)); };
    const auto& held = make().value(); // lifetime-extended: a value, not a dangling reference
    ASSERT_TRUE(held);
    EXPECT_EQ(*held, 7);
    std::unique_ptr<int> taken = make().value();
    EXPECT_EQ(*taken, 7);
    const Error e = Result<int>(Error{"bad_request", "no"}).error();
    EXPECT_EQ(e.code, "bad_request");
}
