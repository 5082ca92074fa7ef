// The codec's promises (codec/Json.h, Reader.h and the record codecs): hostile JSON is refused with the path
// of the first bad field, limits hold, text stays valid UTF-8, and nothing throws.
#include "TestData.h"
#include "analysis/Summary.h"
#include "codec/Json.h"
#include "codec/Reader.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "codec/Utf8.h"
#include "report/ReportFile.h"

#include <gtest/gtest.h>

using namespace fusescope;
using nlohmann::json;

namespace {

// The sample report with every record kind filled in: settings, workload, search, trace,
// training, shapes, parts.
Report richReport() {
    Report r = testdata::sampleReport();
    r.settings =
        codec::decodeRunSettings(
            json{{"measure", {{"warmup", 3}, {"min_runs", 10}, {"min_time_s", 1.0}}},
                 {"timeout_s", 600},
                 {"cache", "cold"},
                 {"options",
                  {{"fullgraph", false}, {"dynamic", nullptr}, {"inductor", {{"max_autotune", true}}}}},
                 {"workload",
                  {{"mode", "training"},
                   {"precision", "bf16"},
                   {"shapes", json::array({json::array({{{"shape", {4, "s0"}}, {"dtype", "float32"}}})})},
                   {"assign", nullptr}}}})
            .value();
    r.search = codec::decodeSearchOutcome(
                   json{{"strategy", "exhaustive"},
                        {"modules", {"encoder"}},
                        {"backends", {"inductor"}},
                        {"candidates",
                         {{{"label", "mixed[encoder=inductor]"},
                           {"status", "ok"},
                           {"accuracy_pass", true},
                           {"speedup", {{"median", 1.2}, {"q1", 1.1}, {"q3", 1.3}, {"pairs", 10}}}}}},
                        {"pick", "inductor"},
                        {"verdict", "keep inductor"}})
                   .value();
    BackendRun& run = r.backends[0];
    run.workload = r.settings.workload;
    run.options = r.settings.options;
    run.notes = {"a note"};
    run.breakReasons = {{"data-dependent", "model.py", 7, "Dynamo: ...", 1}};
    run.training = TrainingResult{"mse", "sgd", 8, 1.0, 2.0, Accuracy{}, "fc1.weight"};
    ShapeStudy study;
    study.sets = r.settings.workload->shapes;
    study.runs = {{true, 1, 2, 8, false, {{0, "ok", true, 0.5, {1.0, 1.1}, {0.5, 0.6}, ""}}}};
    run.shapes = study;
    run.parts = {{"encoder", "inductor", 1, 0, 2.5}};
    run.assign = {{"encoder", "inductor"}};
    KernelTrace trace;
    trace.source = "cpu-profiler";
    trace.names = {"cpp_fused_add_gelu_0", "aten::addmm"};
    trace.tracks = {{1, "thread 1", TrackKind::CpuThread}};
    trace.events = {{100, 50, 1, 0, EventKind::Kernel, 0, 0}, {200, 20, 1, 1, EventKind::CpuOp, 0, 0}};
    trace.memory = {{120, 4096, 4096, -1}};
    trace.iterations = 1;
    run.trace = trace;
    run.traceInfo =
        codec::decodeTraceInfo(json{{"untraced_ms", 1.0}, {"traced_ms", 1.1}, {"overhead_ratio", 1.1}})
            .value();
    return r;
}

std::string goodReportText() {
    return codec::dumpJson(json(richReport()));
}

// The report with one member replaced, at a JSON pointer.
std::string withValue(const std::string& pointer, const std::string& literal) {
    json j = json::parse(goodReportText());
    j[json::json_pointer(pointer)] = "@@VALUE@@";
    std::string text = j.dump();
    const auto at = text.find("\"@@VALUE@@\"");
    return text.replace(at, std::string("\"@@VALUE@@\"").size(), literal);
}

std::string errorOf(const std::string& text) {
    auto r = parseReport(text, "r.fscope");
    return r.ok() ? std::string("(accepted)") : r.error().message;
}

} // namespace

TEST(Utf8, SanitizeReplacesEachIllFormedSequenceOnce) {
    size_t n = 0;
    EXPECT_EQ(utf8::sanitize("ok \xff\xfe end", &n), "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
    EXPECT_EQ(n, 2u);
    // A truncated 3-byte sequence, an overlong '/', a UTF-16 surrogate.
    EXPECT_EQ(utf8::sanitize("\xE2\x82", &n), "\xEF\xBF\xBD");
    EXPECT_EQ(utf8::sanitize("\xC0\xAF", &n), "\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_FALSE(utf8::isValid("\xED\xA0\x80"));
    EXPECT_TRUE(utf8::isValid("h\xC3\xA9llo \xF0\x9F\x98\x80"));
    EXPECT_EQ(utf8::sanitize("h\xC3\xA9llo", &n), "h\xC3\xA9llo");
    EXPECT_EQ(n, 0u);
}

TEST(Utf8, TailNeverStartsInsideACharacter) {
    std::string text;
    for (int i = 0; i < 1000; ++i)
        text += "\xE2\x82\xAC"; // the euro sign, 3 bytes
    for (size_t max : {1u, 2u, 3u, 4u, 100u, 1000u}) {
        const auto t = utf8::tail(text, max);
        EXPECT_LE(t.size(), max);
        EXPECT_TRUE(utf8::isValid(t)) << max;
        EXPECT_EQ(t.size() % 3, 0u);
    }
    EXPECT_EQ(utf8::boundaryAtOrBefore("a\xE2\x82\xAC", 2), 1u);
    EXPECT_EQ(utf8::boundaryAtOrAfter("a\xE2\x82\xAC", 2), 4u);
}

TEST(Json, NumbersPastDoubleRangeNameTheirPath) {
    auto r = codec::parseJson(
        R"({"backends":[{},{},{"samples":{"eager":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,1e309]}}]})");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "backends[2].samples.eager[17]: expected a finite number, got 1e309");
    auto neg = codec::parseJson(R"({"compile_s": -1e400})");
    ASSERT_FALSE(neg.ok());
    EXPECT_EQ(neg.error().message, "compile_s: expected a finite number, got -1e400");
}

TEST(Json, DeepNestingIsRefusedNotAStackOverflow) {
    const std::string deep = "{\"search\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto r = codec::parseJson(deep);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("nested deeper than 128 levels"), std::string::npos)
        << r.error().message;
    EXPECT_EQ(r.error().message.rfind("search[0]", 0), 0u) << r.error().message;
    // At the limit it still parses.
    const std::string ok = std::string(127, '[') + std::string(127, ']');
    EXPECT_TRUE(codec::parseJson(ok).ok());
}

TEST(Json, SyntaxErrorsSayTheByteAndTruncationIsNamed) {
    auto bad = codec::parseJson(R"({"a": tru})");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "json_invalid");
    EXPECT_NE(bad.error().message.find("byte"), std::string::npos);
    auto cut = codec::parseJson(R"({"a": [1, 2)");
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().code, "json_truncated");
}

TEST(Json, SyntaxErrorMessagesAreValidUtf8) {
    // The parser quotes the byte it stopped at: the first byte of a U+FFFD here.
    auto r = codec::parseJson("\xff\xfe not json");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(utf8::isValid(r.error().message)) << r.error().message;
}

TEST(Json, InvalidUtf8IsReplacedAndCountedAndDumpNeverThrows) {
    auto r = codec::parseJson("{\"log\": \"bad \xff byte\"}");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().replacedSequences, 1u);
    EXPECT_EQ(r.value().value["log"], "bad \xEF\xBF\xBD byte");
    json j = {{"log", std::string("raw \xC3 half")}};
    EXPECT_NO_THROW(EXPECT_EQ(codec::dumpJson(j), "{\"log\":\"raw \xEF\xBF\xBD half\"}"));
}

TEST(Json, LimitsOnStringsAndItems) {
    codec::JsonLimits limits;
    limits.maxStringBytes = 8;
    limits.maxItems = 3;
    EXPECT_NE(codec::parseJson(R"({"a":"123456789"})", limits).error().message.find("a: a string of 9 bytes"),
              std::string::npos);
    EXPECT_NE(codec::parseJson(R"({"a":[1,2,3,4]})", limits).error().message.find("more than 3 items"),
              std::string::npos);
}

TEST(Reader, WrongTypesFailWithThePathAndNeverThrow) {
    const json j = json::parse(R"({"a": {"b": [1, "x"]}, "n": "5", "big": 4294967296})");
    codec::Reader r(j, "root");
    const auto a = r.object("a");
    ASSERT_TRUE(a.has_value());
    const auto nums = a->numbers("b");
    EXPECT_EQ(nums.size(), 1u);
    ASSERT_TRUE(r.failed());
    EXPECT_EQ(r.error("x")->message, "root.a.b[1]: expected a finite number, got \"x\"");

    codec::Reader r2(j);
    EXPECT_EQ(r2.integer("n", 7), 7);
    EXPECT_EQ(r2.error("x")->message, "n: expected an integer, got \"5\"");
    codec::Reader r3(j);
    EXPECT_EQ(r3.integer("big", -1), -1);
    EXPECT_NE(r3.error("x")->message.find("32-bit"), std::string::npos);
    codec::Reader r4(j);
    EXPECT_EQ(r4.int64("big"), 4294967296);
    EXPECT_EQ(r4.str("missing", "fallback"), "fallback");
    EXPECT_FALSE(r4.failed());
}

TEST(Records, AGoodReportRoundTrips) {
    auto r = parseReport(goodReportText(), "r.fscope");
    ASSERT_TRUE(r.ok()) << r.error().message;
    // Decode and encode are each other's inverse: every member comes back as it was written.
    const std::string once = codec::dumpJson(json(r.value()));
    EXPECT_EQ(json::parse(once), json::parse(goodReportText()));
    auto again = parseReport(once, "r.fscope");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(codec::dumpJson(json(again.value())), once);
}

TEST(Records, AccuracyStatusAndReasonRoundTripAndOlderReportsStillLoad) {
    Report r = testdata::sampleReport();
    Accuracy& a = *r.backends[0].accuracy;
    a.pass = false;
    a.status = "nonfinite";
    a.reason = "non-finite values: output[1].layers[0].keys has 4 NaN in compiled (of 64 values)";
    auto back = parseReport(codec::dumpJson(json(r)), "r.fscope");
    ASSERT_TRUE(back.ok()) << back.error().message;
    const Accuracy& read = *back.value().backends[0].accuracy;
    EXPECT_EQ(read.status, "nonfinite");
    EXPECT_EQ(read.reason, a.reason);
    const json summary = summaryJson(back.value())["backends"][0]["accuracy"];
    EXPECT_EQ(summary["status"], "nonfinite");
    EXPECT_EQ(summary["reason"], a.reason);
    // A report from before statuses has neither member: it loads, and its status follows `pass`.
    json old = json(r);
    old["backends"][0]["accuracy"].erase("status");
    old["backends"][0]["accuracy"].erase("reason");
    auto legacy = parseReport(codec::dumpJson(old), "r.fscope");
    ASSERT_TRUE(legacy.ok()) << legacy.error().message;
    EXPECT_TRUE(legacy.value().backends[0].accuracy->status.empty());
    EXPECT_TRUE(legacy.value().backends[0].accuracy->reason.empty());
    EXPECT_EQ(accuracyStatus(*legacy.value().backends[0].accuracy), "fail_accuracy");
    EXPECT_EQ(summaryJson(legacy.value())["backends"][0]["accuracy"]["status"], "fail_accuracy");
    EXPECT_TRUE(summaryJson(legacy.value())["backends"][0]["accuracy"]["reason"].is_null());
}

TEST(Records, SchemaValuesThatWouldWrapAreRefused) {
    EXPECT_NE(errorOf(withValue("/schema", "4294967297")).find("newer FuseScope"), std::string::npos);
    EXPECT_NE(errorOf(withValue("/schema", "2147483648")).find("schema 2147483648"), std::string::npos);
    EXPECT_NE(errorOf(withValue("/schema", "18446744073709551615")).find("newer"), std::string::npos);
    EXPECT_NE(errorOf(withValue("/schema", "0")).find("not a report schema version"), std::string::npos);
    EXPECT_NE(errorOf(withValue("/schema", "-3")).find("not a report schema version"), std::string::npos);
    EXPECT_NE(errorOf(withValue("/schema", "1.5")).find("integer"), std::string::npos);
}

// Each record kind with one wrong-typed field: refused, and the message names the field.
TEST(Records, AWrongTypedFieldInEachRecordIsNamed) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/format", "5"},
        {"/model", "[]"},
        {"/environment/devices", "\"cpu\""},
        {"/settings", "[1]"},
        {"/settings/measure/warmup", "\"three\""},
        {"/settings/options/fullgraph", "\"yes\""},
        {"/settings/workload", "{\"mode\": 5}"},
        {"/settings/workload", "{\"shapes\": 5}"},
        {"/search", "{\"error\": 5}"},
        {"/search", "{\"candidates\": [{\"speedup\": {\"median\": \"fast\"}}]}"},
        {"/backends/0/compile_s", "\"slow\""},
        {"/backends/0/samples/eager/1", "\"x\""},
        {"/backends/0/samples", "[1]"},
        {"/backends/0/accuracy/pass", "1"},
        {"/backends/0/accuracy/status", "5"},
        {"/backends/0/stages/0/nodes/0/id", "7"},
        {"/backends/0/stages/0/nodes/0/shapes/0", "5"},
        {"/backends/0/stages/0/edges/0", "[\"a\", \"b\"]"},
        {"/backends/0/stages/1/groups/0/nodes", "{}"},
        {"/backends/0/break_reasons", "[5]"},
        {"/backends/0/workload", "{\"precision\": []}"},
        {"/backends/0/training", "{\"batch_size\": \"8\"}"},
        {"/backends/0/shapes", "{\"runs\": [{\"per_shape\": [{\"eager_ms\": [null]}]}]}"},
        {"/backends/0/parts", "[{\"compile_s\": true}]"},
        {"/backends/0/assign", "{\"encoder\": 3}"},
        {"/backends/0/trace_info", "{\"error\": 5}"},
        {"/backends/0/trace", "{\"names\": [\"k\"], \"events\": [[0, 1, 0, 3]]}"},
        {"/backends/0/trace", "{\"names\": [\"k\"], \"events\": [[0, -5, 0, 0]]}"},
        {"/backends/0/trace", "{\"memory\": [[0, \"a\", 0]]}"},
        {"/backends/0/trace", "{\"memory\": [[-8698686243974275780, 1, 1]]}"},
        {"/backends/0/error", "{\"message\": 5}"},
        {"/backends/0/log", "{}"},
    };
    for (const auto& [pointer, literal] : cases) {
        const std::string message = errorOf(withValue(pointer, literal));
        SCOPED_TRACE(pointer + " = " + literal + " -> " + message);
        EXPECT_NE(message, "(accepted)");
        EXPECT_EQ(message.rfind("report r.fscope: ", 0), 0u);
        // The path in the message: /backends/0/compile_s -> backends[0].compile_s
        std::string path;
        std::string rest = pointer.substr(1);
        for (size_t at = 0; at <= rest.size();) {
            const size_t slash = std::min(rest.find('/', at), rest.size());
            const std::string part = rest.substr(at, slash - at);
            const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
            path += index ? "[" + part + "]" : (path.empty() ? "" : ".") + part;
            at = slash + 1;
        }
        if (pointer != "/format") {
            EXPECT_NE(message.find(path), std::string::npos) << path;
        }
    }
}

TEST(Records, NullsOfOptionalViewFieldsAreDroppedSoViewsCanDefault) {
    auto r = parseReport(withValue("/settings/workload", R"({"mode": null, "precision": null})"), "r.fscope");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r.value().settings.workload);
    EXPECT_EQ(r.value().settings.workload->precision, "fp32");
    EXPECT_EQ(r.value().settings.workload->mode, "inference");
    EXPECT_NO_THROW(summaryJson(r.value()));
}

// Every leaf of a good report replaced in turn by values of every other type, and a few
// hostile numbers: the reader answers each with a report or an error, and what it accepts
// the summary (what `show --json` prints) can use without throwing.
TEST(Records, SystematicMutationsNeverThrow) {
    const json good = json::parse(goodReportText());
    std::vector<json::json_pointer> leaves;
    const std::function<void(const json&, const json::json_pointer&)> walk =
        [&](const json& v, const json::json_pointer& at) {
            leaves.push_back(at);
            if (v.is_object())
                for (const auto& [k, child] : v.items())
                    walk(child, at / k);
            else if (v.is_array())
                for (size_t i = 0; i < v.size(); ++i)
                    walk(v[i], at / i);
        };
    walk(good, json::json_pointer());
    const std::vector<std::string> replacements = {"null", "true", "-1",    "2147483648", "1.5",   "\"x\"",
                                                   "[]",   "{}",   "[[1]]", "{\"a\":{}}", "1e309", "-0"};
    size_t accepted = 0, refused = 0;
    for (const auto& at : leaves) {
        for (const auto& literal : replacements) {
            json j = good;
            if (at.empty())
                continue;
            j[at] = "@@VALUE@@";
            std::string text = j.dump();
            text.replace(text.find("\"@@VALUE@@\""), 11, literal);
            Result<Report> r = Error{};
            ASSERT_NO_THROW(r = parseReport(text, "m.fscope")) << at.to_string() << " = " << literal;
            if (!r.ok()) {
                ++refused;
                EXPECT_FALSE(r.error().message.empty());
                continue;
            }
            ++accepted;
            EXPECT_NO_THROW((void)summaryJson(r.value())) << at.to_string() << " = " << literal;
            EXPECT_NO_THROW((void)codec::dumpJson(json(r.value())));
        }
    }
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(refused, 0u);
}
