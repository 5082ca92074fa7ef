// Backend entries as users type them: NAME[@MODE][{OPTION,...}] (core/model/BackendEntry.h).
#include "capture/CompareSession.h"
#include "model/BackendEntry.h"

#include <gtest/gtest.h>

using namespace fusescope;

TEST(BackendEntry, PlainNameAndMode) {
    auto plain = parseBackendEntry("inductor");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain.value().backend, "inductor");
    EXPECT_TRUE(plain.value().mode.empty());
    EXPECT_FALSE(plain.value().hasOptions());
    auto moded = parseBackendEntry(" inductor@max-autotune ");
    ASSERT_TRUE(moded);
    EXPECT_EQ(moded.value().backend, "inductor");
    EXPECT_EQ(moded.value().mode, "max-autotune");
    EXPECT_TRUE(isAssignableEntry("inductor@max-autotune"));
}

TEST(BackendEntry, OptionsSplitIntoFullgraphDynamicAndInductor) {
    auto e = parseBackendEntry("inductor@max-autotune{fullgraph,dynamic=false,epilogue_fusion=false,"
                               "max_autotune_gemm_backends=ATEN,size_hints=[1,2]}");
    ASSERT_TRUE(e) << e.error().message;
    const auto& o = e.value().options;
    EXPECT_EQ(e.value().mode, "max-autotune");
    EXPECT_EQ(o["fullgraph"], true);
    EXPECT_EQ(o["dynamic"], false);
    EXPECT_EQ(o["inductor"]["epilogue_fusion"], false);
    EXPECT_EQ(o["inductor"]["max_autotune_gemm_backends"], "ATEN");
    EXPECT_EQ(o["inductor"]["size_hints"], nlohmann::json::parse("[1,2]"));
    EXPECT_FALSE(isAssignableEntry("inductor{fullgraph}"));
    auto autoDynamic = parseBackendEntry("aot_eager{dynamic=auto,fullgraph=false}");
    ASSERT_TRUE(autoDynamic);
    EXPECT_TRUE(autoDynamic.value().options["dynamic"].is_null());
    EXPECT_EQ(autoDynamic.value().options["fullgraph"], false);
}

TEST(BackendEntry, BadEntriesNameTheEntryAndTheProblem) {
    for (const auto& [label, expected] : std::vector<std::pair<std::string, std::string>>{
             {"inductor{fullgraph", "close with '}'"},
             {"inductor}", "without '{'"},
             {"inductor@", "nothing after '@'"},
             {"{fullgraph}", "no backend name"},
             {"inductor{dynamic=maybe}", "dynamic takes true, false or auto"},
             {"inductor{fullgraph=yes}", "fullgraph takes true or false"},
             {"inductor{mode=max-autotune}", "NAME@MODE"},
             {"inductor{=3}", "not KEY=VALUE"},
             {"inductor{novalue}", "not KEY=VALUE"},
             {"inductor{a=1}{b=2}", "unbalanced"},
             {"inductor{a=\"x}", "unbalanced"}}) {
        auto e = parseBackendEntry(label);
        ASSERT_FALSE(e) << label;
        EXPECT_NE(e.error().message.find("'" + label + "'"), std::string::npos) << e.error().message;
        EXPECT_NE(e.error().message.find(expected), std::string::npos) << label << ": " << e.error().message;
    }
}

TEST(BackendEntry, FormatReadsBack) {
    for (const std::string label :
         {"inductor", "inductor@reduce-overhead", "inductor{fullgraph}",
          "inductor{fullgraph=false,dynamic=auto}",
          "inductor@max-autotune{dynamic=true,epilogue_fusion=false,max_autotune_gemm_backends=ATEN}",
          "inductor{cpp.simdlen=512,note=\"a,b\",text=\"true\"}", "inductor{q=\"x\\\"y\",b=\"\\\\\"}"}) {
        auto e = parseBackendEntry(label);
        ASSERT_TRUE(e) << label << ": " << e.error().message;
        const auto formatted = formatBackendEntry(e.value());
        auto again = parseBackendEntry(formatted);
        ASSERT_TRUE(again) << formatted;
        EXPECT_EQ(again.value().backend, e.value().backend);
        EXPECT_EQ(again.value().mode, e.value().mode);
        EXPECT_EQ(again.value().options, e.value().options) << label << " -> " << formatted;
    }
    auto quoted = parseBackendEntry("inductor{note=\"a,b\",text=\"true\"}");
    ASSERT_TRUE(quoted);
    EXPECT_EQ(quoted.value().options["inductor"]["note"], "a,b");
    EXPECT_EQ(quoted.value().options["inductor"]["text"], "true"); // a string, not the boolean
}

TEST(BackendEntry, ListSplitsOutsideBracesBracketsAndQuotes) {
    EXPECT_EQ(
        splitBackendList("eager, inductor{a=1,b=[2,3]},mixed[encoder=inductor,decoder=eager],x{s=\"p,q\"},,"),
        (std::vector<std::string>{"eager", "inductor{a=1,b=[2,3]}", "mixed[encoder=inductor,decoder=eager]",
                                  "x{s=\"p,q\"}"}));
}

TEST(BackendEntry, RequestAppliesTheEntryOnTopOfTheRunWideOptions) {
    RunRequest base;
    base.options = {
        {"fullgraph", false}, {"dynamic", nullptr}, {"inductor", {{"epilogue_fusion", true}, {"x", 1}}}};
    auto r = requestFor("inductor@max-autotune{fullgraph,epilogue_fusion=false}", base);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().backend, "inductor");
    EXPECT_EQ(r.value().options["mode"], "max-autotune");
    EXPECT_EQ(r.value().options["fullgraph"], true);
    EXPECT_TRUE(r.value().options["dynamic"].is_null());
    EXPECT_EQ(r.value().options["inductor"], (nlohmann::json{{"epilogue_fusion", false}, {"x", 1}}));
    // The run-wide options are untouched for the next entry.
    auto plain = requestFor("inductor", base);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain.value().options, base.options);
    auto bad = requestFor("inductor{dynamic=maybe}", base);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, "bad_option");
}

TEST(BackendEntry, DynamoOptionsGoToOptionsDynamo) {
    auto e = parseBackendEntry(
        "inductor{freezing=true,dynamo.capture_scalar_outputs=true,dynamo.cache_size_limit=16}");
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_EQ(e.value().options["dynamo"],
              (nlohmann::json{{"capture_scalar_outputs", true}, {"cache_size_limit", 16}}));
    EXPECT_EQ(e.value().options["inductor"], (nlohmann::json{{"freezing", true}}));
    const std::string canonical =
        "inductor{dynamo.cache_size_limit=16,dynamo.capture_scalar_outputs=true,freezing=true}";
    EXPECT_EQ(formatBackendEntry(e.value()), canonical);
    auto again = parseBackendEntry(canonical);
    ASSERT_TRUE(again);
    EXPECT_EQ(again.value().options, e.value().options);
    // On top of the run-wide options, merged like Inductor's.
    RunRequest base;
    base.options = {{"fullgraph", false}, {"dynamo", {{"cache_size_limit", 8}, {"verbose", true}}}};
    auto r = requestFor("inductor{dynamo.cache_size_limit=16}", base);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().options["dynamo"], (nlohmann::json{{"cache_size_limit", 16}, {"verbose", true}}));
    for (const std::string bad : {"inductor{dynamo.=1}", "inductor{dynamo.x}", "inductor{dynamo.1a=true}",
                                  "inductor{dynamo.a-b=true}", "inductor{dynamo.x=}"}) {
        auto refused = parseBackendEntry(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.error().message.find("dynamo.NAME=VALUE"), std::string::npos)
            << refused.error().message;
    }
}

TEST(BackendEntry, TvmTuneOptionsGoToOptionsTvm) {
    // docs/tvm.md, "Tuning": tvm{tune=TRIALS,tune_time=SECONDS} -> options.tvm, not Inductor's.
    auto tuned = parseBackendEntry("tvm{tune=64,tune_time=30}");
    ASSERT_TRUE(tuned) << tuned.error().message;
    EXPECT_EQ(tuned.value().options, (nlohmann::json{{"tvm", {{"tune", 64}, {"tune_time", 30}}}}));
    EXPECT_EQ(formatBackendEntry(tuned.value()), "tvm{tune=64,tune_time=30}");
    auto request = requestFor("tvm{tune=8}", RunRequest{});
    ASSERT_TRUE(request) << request.error().message;
    EXPECT_EQ(request.value().backend, "tvm");
    EXPECT_EQ(request.value().options["tvm"], (nlohmann::json{{"tune", 8}}));
    // The same key on another backend stays an Inductor option.
    EXPECT_EQ(parseBackendEntry("inductor{tune=8}").value().options["inductor"]["tune"], 8);
    for (const char* bad : {"tvm{tune=0}", "tvm{tune=abc}", "tvm{tune=1.5}", "tvm{tune=4,tune_time=-1}"}) {
        auto r = parseBackendEntry(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "bad_option") << bad;
        EXPECT_NE(r.error().message.find("takes a positive number"), std::string::npos) << r.error().message;
    }
    // Options other than tune/tune_time on tvm stay where they were: refused for the row later.
    EXPECT_TRUE(parseBackendEntry("tvm{tune=4,fullgraph}").value().options.contains("fullgraph"));
}
