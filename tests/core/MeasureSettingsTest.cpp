// The measure settings and the placement are written and read in one place (codec/SettingsCodec.h):
// the run request, the report's settings and the GUI's options all go through it, in the same format.
#include "codec/MessageCodec.h"
#include "codec/SettingsCodec.h"
#include "model/Result.h"
#include "model/RunRequest.h"

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
    EXPECT_EQ(json(unusual()), json::parse(R"({"warmup": 1, "min_runs": 7, "min_time_s": 0.25,
        "max_runs": 40, "max_time_s": 5.5, "confidence_pct": 1.5, "settle": 3})"));
}

TEST(MeasureSettings, ReadsBackWhatItWrote) {
    expectSame(codec::measureSettingsFrom(json(unusual())), unusual());
}

// A report from before the confidence rule has no confidence_pct: the caller's default stands
// (the GUI passes 0, "off"); a value of the wrong type is not taken either.
TEST(MeasureSettings, MissingOrMistypedKeysKeepTheDefaults) {
    MeasureSettings off;
    off.confidencePct = 0;
    off.settle = 0;
    const auto old = codec::measureSettingsFrom(json::parse(R"({"warmup": 2, "min_runs": "many"})"), off);
    EXPECT_EQ(old.warmup, 2);
    EXPECT_EQ(old.minRuns, MeasureSettings{}.minRuns);
    EXPECT_DOUBLE_EQ(old.confidencePct, 0.0);
    EXPECT_EQ(old.settle, 0); // nor settle calls: none, as such a report was measured
    EXPECT_EQ(MeasureSettings{}.settle, 1);
    expectSame(codec::measureSettingsFrom(nullptr), MeasureSettings{});
}

// A report's settings record the measure members its FuseScope knew: a record resolves the
// missing ones from the caller's defaults and writes back only what it has.
TEST(MeasureSettings, ARecordKeepsWhatAReportSaid) {
    EXPECT_EQ(MeasureRecord::of(unusual()).resolved(MeasureSettings{}), unusual());
    MeasureRecord old;
    old.warmup = 2;
    MeasureSettings off;
    off.confidencePct = 0;
    const auto resolved = old.resolved(off);
    EXPECT_EQ(resolved.warmup, 2);
    EXPECT_DOUBLE_EQ(resolved.confidencePct, 0.0);
    EXPECT_EQ(resolved.maxRuns, MeasureSettings{}.maxRuns);
    EXPECT_EQ(json(old), json::parse(R"({"warmup": 2})"));
    EXPECT_EQ(json(MeasureRecord::of(unusual())), json(unusual()));
}

TEST(Placement, RoundTripsThreadsAndPin) {
    Placement p;
    p.threads = 3;
    p.pin = {0, 2};
    p.malloc = "system";
    EXPECT_EQ(json(p), json::parse(R"({"threads": 3, "pin": [0, 2], "malloc": "system"})"));
    const Placement back = codec::placementFrom(json(p));
    EXPECT_EQ(back.threads, std::optional<int>(3));
    EXPECT_EQ(back.pin, (std::vector<int>{0, 2}));
    EXPECT_EQ(back.malloc, "system");
    EXPECT_EQ(json(Placement{}), json::parse(R"({"threads": null, "pin": null, "malloc": "steady"})"));
    EXPECT_EQ(codec::placementFrom(json::parse(R"({"malloc": "jemalloc"})")).malloc,
              "steady"); // unknown: default
    EXPECT_FALSE(codec::placementFrom(json(Placement{})).threads.has_value());
    EXPECT_TRUE(codec::placementFrom(json::parse(R"({"pin": [1, -1, "x"]})")).pin == std::vector<int>{1});
}

// The request line carries the same objects the report's settings do (CompareSession writes those
// from the same functions; SessionTest checks the report side).
TEST(MeasureSettings, TheRunRequestUsesThem) {
    RunRequest r;
    r.measure = unusual();
    r.placement.threads = 2;
    const json line = codec::encodeRunRequest(r, "x");
    EXPECT_EQ(line["measure"], json(unusual()));
    EXPECT_EQ(line["placement"], json(r.placement));
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
