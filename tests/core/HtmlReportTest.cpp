// The HTML report (core/html, docs/html-report.md): the page has its parts, nothing external,
// hostile names (quantization records' included) stay text, hover links point at boxes that exist, large
// stages stay collapsed.
#include "html/HtmlReport.h"

#include "../fixtures/RooflineCounts.h"
#include "analysis/FusionLinks.h"
#include "html/Markup.h"
#include "html/SvgGraph.h"
#include "report/ReportFile.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>

using namespace fusescope;

namespace {

Report fixture() {
    auto r = readReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? std::move(r).value() : Report{};
}

std::set<std::string> attributeValues(const std::string& page, const std::string& attribute) {
    std::set<std::string> out;
    const std::regex re(attribute + "=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), re); it != std::sregex_iterator(); ++it)
        out.insert((*it)[1]);
    return out;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

TEST(HtmlReport, HasItsPartsAndNothingExternal) {
    const std::string page = html::htmlReport(fixture());
    EXPECT_NE(page.find("<table class=\"comparison\">"), std::string::npos);
    EXPECT_NE(page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\""), std::string::npos);
    EXPECT_NE(page.find("Speedup over eager"), std::string::npos);
    EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
    EXPECT_NE(page.find("<h2>inductor</h2>"), std::string::npos);
    EXPECT_NE(page.find("Time by module"), std::string::npos);
    // No URL but the SVG namespace; no external reference of any form.
    const std::regex url(R"((https?:|ftp:|//[a-z0-9.-]+\.[a-z]{2,}/))");
    std::string rest = page;
    size_t ns = 0;
    for (size_t at; (at = rest.find("http://www.w3.org/2000/svg")) != std::string::npos; ++ns)
        rest.erase(at, 26);
    EXPECT_GT(ns, 0u);
    EXPECT_FALSE(std::regex_search(rest, url));
    for (const char* external : {"src=", "href=", "@import", "url("})
        EXPECT_EQ(rest.find(external), std::string::npos) << external;
}

TEST(HtmlReport, HoverLinksPointAtBoxesThatExist) {
    const std::string page = html::htmlReport(fixture());
    const auto ids = attributeValues(page, "id");
    const auto links = attributeValues(page, "data-hl");
    ASSERT_FALSE(links.empty()); // inductor's kernels link to their nodes
    for (const auto& list : links) {
        size_t start = 0;
        while (start < list.size()) {
            const size_t end = std::min(list.find(' ', start), list.size());
            EXPECT_TRUE(ids.count(list.substr(start, end - start))) << list.substr(start, end - start);
            start = end + 1;
        }
    }
}

TEST(HtmlReport, HostileNamesStayText) {
    Report r = fixture();
    const std::string evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";
    r.modelSpec = evil;
    r.backends[1].name = "inductor" + evil;
    for (auto& stage : r.backends[1].stages) {
        for (auto& g : stage.groups)
            g.name += evil;
        for (auto& n : stage.nodes) {
            n.op += evil;
            n.module = evil;
        }
    }
    r.backends[1].error = RunError{"x" + evil, evil, "", ""};
    // An int8 row's quantization section (docs/quantization.md), with hostile module names.
    Quantization q;
    q.mode = "int8_dynamic";
    q.library = "torchao";
    q.quantizedModules = {"up"};
    q.skippedModules = {{"proj" + evil, "Conv1d" + evil}};
    r.backends[1].quantization = q;
    const std::string page = html::htmlReport(r);
    EXPECT_NE(page.find("<h3>Quantization</h3><pre>int8_dynamic (torchao): 1 of 2 layers quantized"),
              std::string::npos);
    EXPECT_NE(page.find("not quantized: proj&lt;script&gt;"), std::string::npos);
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_EQ(page.find("<img"), std::string::npos);
    EXPECT_NE(page.find("&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    // The page's own script is the only one.
    EXPECT_EQ(count(page, "<script"), 1u);
    EXPECT_EQ(html::escape("a\x01<b>\"'&"), "a&lt;b&gt;&quot;&#39;&amp;");
}

TEST(HtmlReport, LargeStagesStayCollapsed) {
    // 100 blocks of 100 nodes each, one module per block.
    StageGraph stage;
    stage.name = "post_grad";
    for (int b = 0; b < 100; ++b)
        for (int i = 0; i < 100; ++i) {
            GraphNode n;
            n.id = "n" + std::to_string(b) + "_" + std::to_string(i);
            n.name = n.id;
            n.op = "aten.add";
            n.kind = "call_function";
            n.category = "pointwise";
            n.module = "blocks." + std::to_string(b);
            if (!stage.nodes.empty())
                stage.edges.push_back({stage.nodes.back().id, n.id});
            stage.nodes.push_back(n);
        }
    const html::StageDrawing d = html::drawStage(stage, "t", 60);
    ASSERT_TRUE(d.reason.empty()) << d.reason;
    size_t visible = 0;
    for (const auto& box : d.boxes)
        visible += !box.frame;
    EXPECT_GT(visible, 0u);
    EXPECT_LE(visible, 60u);
    for (const auto& box : d.boxOfNode)
        EXPECT_FALSE(box.empty());
    EXPECT_LT(html::renderSvg(d).size(), 200u * 1024);
}

TEST(FusionLinks, KernelsReachTheirBeforeNodesByIdOrProvenance) {
    StageGraph before, after;
    for (const char* name : {"add", "relu", "mm"}) {
        GraphNode n;
        n.id = std::string("b_") + name;
        n.name = name;
        before.nodes.push_back(n);
    }
    FusionGroup k;
    k.id = "k0";
    k.kind = "kernel";
    k.provenance = {"add", "relu"};
    FusionGroup module;
    module.id = "m";
    module.kind = "module";
    module.provenance = {"mm"};
    after.groups = {k, module};
    const auto origins = kernelOrigins(after, before);
    ASSERT_EQ(origins.size(), 2u);
    EXPECT_EQ(origins[0], (std::vector<int>{0, 1}));
    EXPECT_TRUE(origins[1].empty()); // not a kernel
}

TEST(HtmlReport, RooflineOfATracedBackendWithItsRoofsAndEscapedNames) {
    Report report = fixture();
    BackendRun* run = nullptr;
    for (auto& r : report.backends)
        if (r.name == "inductor")
            run = &r;
    ASSERT_TRUE(run && run->trace);
    EXPECT_EQ(html::htmlReport(report).find("<h3>Roofline</h3>"), std::string::npos); // no counts yet
    KernelCost total;
    total.bytes = 410;
    total.eagerBytes = 1000;
    fixtures::addRooflineCounts(*run, total);
    for (auto& stage : run->stages)
        if (stage.fusion == "after")
            stage.groups.front().name = "<b>k</b>";
    const std::string page = html::htmlReport(report);
    EXPECT_NE(page.find("<h3>Roofline</h3>"), std::string::npos);
    EXPECT_NE(page.find("Kernels move 410 B per call, 41 % of the"), std::string::npos) << page.substr(0, 0);
    EXPECT_NE(page.find("Roofs: 20.0 GB/s, 100 GFLOP/s float32"), std::string::npos);
    EXPECT_NE(page.find("<th>roof</th>"), std::string::npos);
    EXPECT_NE(page.find("memory"), std::string::npos);
    EXPECT_EQ(page.find("<b>k</b>"), std::string::npos);
}
