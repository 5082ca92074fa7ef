#include "capture/SessionPlan.h"

#include <gtest/gtest.h>

using namespace fusescope;

TEST(SessionPlan, DefaultsGiveTheRequestOfAPlainComparison) {
    CompareSettings settings;
    settings.model = "demo:mlp";
    settings.backends = {"eager", "inductor"};
    auto plan = planSession(settings);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan.value().backends, (std::vector<std::string>{"eager", "inductor"}));
    EXPECT_FALSE(plan.value().searchAssignments);
    const RunRequest& base = plan.value().base;
    EXPECT_EQ(base.model, "demo:mlp");
    EXPECT_EQ(base.device, "cpu");
    EXPECT_FALSE(base.options.contains("mode"));
    EXPECT_EQ(base.options["fullgraph"], false);
    EXPECT_TRUE(base.options["dynamic"].is_null());
    EXPECT_EQ(base.options["inductor"], nlohmann::json::object());
    EXPECT_TRUE(base.inputs.empty());
    EXPECT_TRUE(base.workload.isDefault());
    EXPECT_TRUE(base.captureStages);
    EXPECT_FALSE(base.captureTrace);
    EXPECT_FALSE(base.warmCache);
    EXPECT_EQ(base.timeoutSeconds, 900);
}

TEST(SessionPlan, EverySettingReachesTheRequest) {
    CompareSettings s;
    s.model = "m.py";
    s.backends = {"inductor{fullgraph,dynamic=false}", "aot_eager"};
    s.device = "cuda";
    s.compileMode = "max-autotune";
    s.fullgraph = true;
    s.dynamic = "true";
    s.inductorConfig = {"epilogue_fusion=false", "note=a,b"};
    s.inputs = "4x16:float32,4:int64";
    s.mode = "training";
    s.precision = "bf16";
    s.shapes = "1x8:int64;4x8:int64";
    s.assign = "encoder=inductor,decoder=aot_eager";
    s.searchAssign = true;
    s.measure.warmup = 1;
    s.measure.maxRuns = 7;
    s.placement.threads = 2;
    s.placement.pin = {0, 1};
    s.timeoutSeconds = 60;
    s.warmCache = true;
    s.captureStages = false;
    s.captureTrace = true;
    auto plan = planSession(s);
    ASSERT_TRUE(plan) << plan.error().message;
    const auto& p = plan.value();
    // --assign adds its mixed run after the listed entries.
    EXPECT_EQ(p.backends, (std::vector<std::string>{"inductor{fullgraph,dynamic=false}", "aot_eager",
                                                    "mixed[encoder=inductor,decoder=aot_eager]"}));
    EXPECT_TRUE(p.searchAssignments);
    EXPECT_EQ(p.base.device, "cuda");
    EXPECT_EQ(p.base.options["mode"], "max-autotune");
    EXPECT_EQ(p.base.options["fullgraph"], true);
    EXPECT_EQ(p.base.options["dynamic"], true);
    EXPECT_EQ(p.base.options["inductor"], (nlohmann::json{{"epilogue_fusion", false}, {"note", "a,b"}}));
    EXPECT_EQ(p.base.inputs.size(), 2u);
    EXPECT_EQ(p.base.workload.mode, "training");
    EXPECT_EQ(p.base.workload.precision, "bf16");
    EXPECT_EQ(p.base.workload.shapes.size(), 2u);
    EXPECT_TRUE(p.base.workload.assign.empty()); // the mixed row carries its own
    EXPECT_EQ(p.base.measure.warmup, 1);
    EXPECT_EQ(p.base.measure.maxRuns, 7);
    EXPECT_EQ(p.base.placement.threads, 2);
    EXPECT_EQ(p.base.placement.pin, (std::vector<int>{0, 1}));
    EXPECT_EQ(p.base.timeoutSeconds, 60);
    EXPECT_TRUE(p.base.warmCache);
    EXPECT_FALSE(p.base.captureStages);
    EXPECT_TRUE(p.base.captureTrace);
}

TEST(SessionPlan, EachBadSettingIsNamed) {
    struct Case {
        const char* what;
        void (*change)(CompareSettings&);
        Setting setting;
        const char* says;
    };
    const Case cases[] = {
        {"no backend", [](CompareSettings& s) { s.backends.clear(); }, Setting::Backends, "names no backend"},
        {"bad entry", [](CompareSettings& s) { s.backends = {"inductor{fullgraph"}; }, Setting::Backends,
         "inductor{fullgraph"},
        {"dynamic", [](CompareSettings& s) { s.dynamic = "maybe"; }, Setting::Dynamic, "maybe"},
        {"inductor", [](CompareSettings& s) { s.inductorConfig = {"novalue"}; }, Setting::InductorConfig,
         "KEY=VALUE"},
        {"inputs", [](CompareSettings& s) { s.inputs = "4x4:complex"; }, Setting::Inputs, "complex"},
        {"mode", [](CompareSettings& s) { s.mode = "max-autotune"; }, Setting::Mode, "--compile-mode"},
        {"precision", [](CompareSettings& s) { s.precision = "fp8"; }, Setting::Precision, "fp8"},
        {"shapes", [](CompareSettings& s) { s.shapes = "4x;8x8"; }, Setting::Shapes, "4x"},
        {"assign", [](CompareSettings& s) { s.assign = "encoder"; }, Setting::Assign, "SUBMODULE=BACKEND"},
    };
    for (const auto& c : cases) {
        CompareSettings s;
        s.model = "demo:mlp";
        s.backends = {"eager"};
        c.change(s);
        Setting bad = Setting::Backends;
        if (c.setting == Setting::Backends)
            bad = Setting::Assign; // must be overwritten
        auto plan = planSession(s, &bad);
        ASSERT_FALSE(plan) << c.what;
        EXPECT_EQ(bad, c.setting) << c.what;
        EXPECT_NE(plan.error().message.find(c.says), std::string::npos)
            << c.what << ": " << plan.error().message;
    }
    EXPECT_STREQ(settingFlag(Setting::InductorConfig), "--inductor-config");
    EXPECT_STREQ(settingFlag(Setting::Backends), "--backends");
}

TEST(SessionPlan, BackendListsSplitOutsideBraces) {
    auto one = parseBackendList("inductor{fullgraph,dynamic=false}");
    ASSERT_TRUE(one) << one.error().message;
    EXPECT_EQ(one.value(), (std::vector<std::string>{"inductor{fullgraph,dynamic=false}"}));
    auto several = parseBackendList(" eager, inductor@max-autotune{x=[1,2]} ,mixed[a=inductor,b=eager]");
    ASSERT_TRUE(several) << several.error().message;
    EXPECT_EQ(several.value(), (std::vector<std::string>{"eager", "inductor@max-autotune{x=[1,2]}",
                                                         "mixed[a=inductor,b=eager]"}));
    EXPECT_FALSE(parseBackendList(" , "));
    auto bad = parseBackendList("eager,inductor{fullgraph");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("inductor{fullgraph"), std::string::npos) << bad.error().message;
}
