// `fusescope-cli check`'s gate (core/analysis/Gate, docs/ci.md): regressions only beyond the
// thresholds and the noise, each check named; improvements listed; warned samples said; hostile
// strings escaped in the Markdown and the JUnit XML.
#include "analysis/Gate.h"

#include "codec/Markup.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

std::vector<double> samples(double ms, double spread, int n = 60) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        out.push_back(ms * (1.0 + spread * ((i * 7 % 11) - 5) / 5.0));
    return out;
}

StageGraph kernels(const std::vector<std::pair<std::string, std::string>>& named) {
    StageGraph s;
    s.name = "post_fusion";
    s.fusion = "after";
    for (size_t i = 0; i < named.size(); ++i) {
        FusionGroup g;
        g.id = "g" + std::to_string(i);
        g.name = named[i].first;
        g.kind = "kernel";
        g.provenance = {named[i].second};
        GraphNode node;
        node.id = "n" + std::to_string(i);
        node.kind = "scheduler_node";
        node.group = g.id;
        g.nodes = {node.id};
        s.nodes.push_back(node);
        s.groups.push_back(g);
    }
    return s;
}

BackendRun run(const std::string& name, double ms, double compileS = 4.0) {
    BackendRun r;
    r.name = name;
    r.status = RunStatus::Ok;
    r.compiledSamplesMs = samples(ms, 0.01);
    r.eagerSamplesMs = samples(10, 0.01);
    r.compileSeconds = compileS;
    Accuracy a;
    a.pass = true;
    a.status = "pass";
    r.accuracy = a;
    r.stages.push_back(kernels({{"cpp_fused_add_0", "add"}, {"cpp_fused_relu_1", "relu"}}));
    return r;
}

Report report(std::vector<BackendRun> runs) {
    Report r;
    r.modelSpec = "demo:mlp";
    r.backends = std::move(runs);
    return r;
}

const GateCheck* find(const GateResult& r, const std::string& backend, const std::string& check) {
    for (const auto& c : r.checks)
        if (c.backend == backend && c.check == check)
            return &c;
    return nullptr;
}

} // namespace

TEST(Gate, AReportAgainstItselfPasses) {
    const Report a = report({run("eager", 10), run("inductor", 6)});
    const GateResult r = gateReports(a, a, {});
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(r.count(CheckOutcome::Regression), 0);
    EXPECT_EQ(r.count(CheckOutcome::Improvement), 0);
    ASSERT_TRUE(find(r, "inductor", "latency"));
    EXPECT_EQ(find(r, "inductor", "latency")->outcome, CheckOutcome::Pass);
    EXPECT_TRUE(r.warned.empty());
}

TEST(Gate, ThirtyPercentSlowerIsARegressionNamingTheBackend) {
    const Report a = report({run("eager", 10), run("inductor", 6)});
    const Report b = report({run("eager", 10), run("inductor", 7.8)});
    const GateResult r = gateReports(a, b, {});
    EXPECT_FALSE(r.passed());
    const GateCheck* c = find(r, "inductor", "latency");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->outcome, CheckOutcome::Regression);
    EXPECT_NE(c->message.find("inductor is slower"), std::string::npos) << c->message;
    EXPECT_EQ(find(r, "eager", "latency")->outcome, CheckOutcome::Pass);
    // The other way round it is an improvement, and nothing regressed.
    const GateResult back = gateReports(b, a, {});
    EXPECT_TRUE(back.passed());
    EXPECT_EQ(find(back, "inductor", "latency")->outcome, CheckOutcome::Improvement);
}

TEST(Gate, ASlowdownInsideTheThresholdOrTheNoiseIsNoRegression) {
    const Report a = report({run("inductor", 6)});
    // 3 % slower, clearly measured: inside the default 5 %.
    EXPECT_TRUE(gateReports(a, report({run("inductor", 6.18)}), {}).passed());
    // The same with 2 % allowed: a regression.
    GateThresholds strict;
    strict.maxSlowdownPct = 2;
    EXPECT_FALSE(gateReports(a, report({run("inductor", 6.18)}), strict).passed());
    // 30 % slower in the median but noise of +-40 % on three samples: not called.
    BackendRun noisy = run("inductor", 7.8);
    noisy.compiledSamplesMs = {4.0, 7.8, 11.0};
    EXPECT_TRUE(gateReports(a, report({noisy}), {}).passed());
}

TEST(Gate, StatusAccuracyCompileBreaksAndKernels) {
    const Report a = report({run("eager", 10), run("inductor", 6), run("aot_eager", 9)});
    BackendRun failed = run("inductor", 6);
    failed.status = RunStatus::Failed;
    failed.error = RunError{"compile_error", "Inductor raised", "", ""};
    BackendRun wrong = run("eager", 10, 4.0);
    wrong.accuracy->pass = false;
    wrong.accuracy->status = "fail_accuracy";
    wrong.accuracy->reason = "output 0: max rel 0.3";
    wrong.compileSeconds = 6.0; // +50 %
    GraphBreak brk;
    brk.reason = "data-dependent branch";
    brk.file = "model.py";
    brk.line = 12;
    wrong.breakReasons = {brk};
    wrong.stages = {kernels({{"cpp_fused_add_0", "add"}, {"cpp_fused_mul_2", "mul"}})};
    const Report b = report({wrong, failed}); // aot_eager missing

    const GateResult r = gateReports(a, b, {});
    EXPECT_FALSE(r.passed());
    EXPECT_EQ(find(r, "inductor", "status")->outcome, CheckOutcome::Regression);
    EXPECT_NE(find(r, "inductor", "status")->message.find("compile_error"), std::string::npos);
    EXPECT_FALSE(find(r, "inductor", "latency")); // nothing else compared for a row that stopped
    EXPECT_EQ(find(r, "eager", "accuracy")->outcome, CheckOutcome::Regression);
    EXPECT_NE(find(r, "eager", "accuracy")->message.find("fail_accuracy"), std::string::npos);
    EXPECT_EQ(find(r, "eager", "compile")->outcome, CheckOutcome::Regression);
    EXPECT_EQ(find(r, "eager", "graph_breaks")->outcome, CheckOutcome::Regression);
    EXPECT_NE(find(r, "eager", "graph_breaks")->message.find("model.py:12"), std::string::npos);
    const GateCheck* k = find(r, "eager", "kernels");
    EXPECT_EQ(k->outcome, CheckOutcome::Regression);
    EXPECT_NE(k->message.find("cpp_fused_mul_2"), std::string::npos) << k->message;
    EXPECT_NE(k->message.find("cpp_fused_relu_1"), std::string::npos) << k->message;
    const GateCheck* missing = find(r, "aot_eager", "status");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->outcome, CheckOutcome::Regression);
    // Back: the row runs again, accuracy passes, the break is gone, compile shrank.
    const GateResult back = gateReports(b, a, {});
    EXPECT_EQ(find(back, "inductor", "status")->outcome, CheckOutcome::Improvement);
    EXPECT_EQ(find(back, "eager", "accuracy")->outcome, CheckOutcome::Improvement);
    EXPECT_EQ(find(back, "eager", "graph_breaks")->outcome, CheckOutcome::Improvement);
    EXPECT_EQ(find(back, "eager", "compile")->outcome, CheckOutcome::Improvement);
}

TEST(Gate, WarnedSamplesAreSaid) {
    const Report a = report({run("inductor", 6)});
    Report b = a;
    b.backends[0].warnings.push_back({"machine_busy", "another process kept a core busy"});
    const GateResult r = gateReports(a, b, {});
    EXPECT_TRUE(r.passed());
    ASSERT_EQ(r.warned.size(), size_t(1));
    EXPECT_NE(r.warned[0].find("new inductor: machine_busy"), std::string::npos);
    GateLabels labels{"old.fscope", "new.fscope"};
    EXPECT_NE(gateText(r, {}, labels).find("the verdict rests on warned samples"), std::string::npos);
    EXPECT_NE(gateMarkdown(r, {}, labels).find("rests on warned samples"), std::string::npos);
    EXPECT_NE(gateJUnit(r, {}, labels).find("name=\"warned_samples\" value=\"true\""), std::string::npos);
}

TEST(Gate, HostileNamesStayText) {
    const std::string evil = "<script>alert(1)</script>|**x**](http://evil)\n# h";
    const Report a = report({run(evil, 6)});
    const Report b = report({run(evil, 7.8)});
    const GateResult r = gateReports(a, b, {});
    ASSERT_FALSE(r.passed());
    const GateLabels labels{"a\"<b>.fscope", "new.fscope"};
    const std::string md = gateMarkdown(r, {}, labels);
    EXPECT_EQ(md.find("<script>"), std::string::npos);
    EXPECT_EQ(md.find("**x**"), std::string::npos);
    for (size_t at = md.find("]("); at != std::string::npos; at = md.find("](", at + 1))
        EXPECT_EQ(md[at - 1], '\\') << "an unescaped link: " << md.substr(at - 10, 30);
    EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos);
    // Each table row stays one row: no raw newline or column bar from the name.
    for (size_t at = md.find("| regression"); at != std::string::npos; at = md.find("| regression", at + 1)) {
        const std::string row = md.substr(at, md.find('\n', at) - at);
        size_t bars = 0;
        for (size_t i = 0; i < row.size(); ++i)
            bars += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
        EXPECT_EQ(bars, size_t(5)) << row;
    }
    const std::string xml = gateJUnit(r, {}, labels);
    EXPECT_EQ(xml.find("<script>"), std::string::npos);
    EXPECT_EQ(xml.find("a\"<b>"), std::string::npos);
    EXPECT_NE(xml.find("&lt;script&gt;"), std::string::npos);
    EXPECT_EQ(codec::escapeMarkup(std::string("a\x01"
                                              "b\x1f"
                                              "c")),
              "abc");
    EXPECT_EQ(escapeMarkdown("a|b`c"), "a\\|b\\`c");
    EXPECT_EQ(escapeMarkdown("@team https://x <b>"), "&#64;team https&#58;//x &lt;b&gt;");
}

TEST(Gate, JUnitCountsFailuresAndSkips) {
    const Report a = report({run("inductor", 6)});
    const Report b = report({run("inductor", 7.8)});
    const GateResult r = gateReports(a, b, {});
    const std::string xml = gateJUnit(r, {}, {"a", "b"});
    EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure message=\"inductor is slower"), std::string::npos);
    EXPECT_NE(xml.find("classname=\"fusescope.inductor\" name=\"latency\""), std::string::npos);
}
