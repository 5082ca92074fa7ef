#include "HtmlReport.h"

#include "Markup.h"
#include "SvgGraph.h"
#include "analysis/Advice.h"
#include "analysis/ComparisonColumns.h"
#include "analysis/CompileTime.h"
#include "analysis/Format.h"
#include "analysis/FusionLinks.h"
#include "analysis/QuantizationLines.h"
#include "analysis/Roofline.h"
#include "analysis/RunWarnings.h"
#include "analysis/Speedup.h"
#include "codec/Utf8.h"
#include "model/Provenance.h"
#include "trace/KernelLinks.h"
#include "trace/TimeAttribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace fusescope::html {

namespace {

// Everything the page needs to look right, inline.
constexpr const char* kStyle = R"CSS(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2329;background:#f6f7f9}
main{max-width:1400px;margin:0 auto;padding:18px 24px 60px}
h1{font-size:22px;margin:8px 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d5d9de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.sub{color:#5b6670}.verdict{background:#fff;border-left:4px solid #2e7d32;padding:10px 14px;margin:12px 0}
.warn{background:#fff8e1;border-left:4px solid #f9a825;padding:8px 14px;margin:8px 0}
.err{color:#b71c1c}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #d5d9de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:18px}.chart{background:#fff;border:1px solid #d5d9de;padding:6px}
.pair{display:flex;gap:12px;align-items:flex-start}.pane{flex:1;min-width:0;background:#fff;border:1px solid #d5d9de}
.pane h4{margin:0;padding:6px 8px;font-size:13px;background:#eef1f4}.scroll{overflow:auto;max-height:720px}
svg.graph{font:11px system-ui,sans-serif;display:block}
svg.graph .edges path{fill:none;stroke:#78838d;stroke-width:1}svg.graph .arrow{fill:#78838d}
svg.graph .box rect{stroke:#546e7a;stroke-width:1}svg.graph .frame rect{fill-opacity:.35;stroke:#90a4ae;stroke-dasharray:4 3}
svg.graph .kernel rect{stroke:#e65100}svg.graph .t{font-weight:600}svg.graph .d,svg.graph .ft{fill:#37474f}
svg.graph [data-hl]{cursor:pointer}svg.graph .hover rect{stroke:#1565c0;stroke-width:3}
svg.graph .hl rect{stroke:#d50000;stroke-width:3;fill-opacity:1}
code,pre{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:#fff;border:1px solid #d5d9de;padding:8px;overflow:auto}
details{margin:6px 0}summary{cursor:pointer}
)CSS";

// Hover a box of an after-fusion graph (or a node of a before-fusion one): the boxes it is
// linked with light up. Reads only data-hl attributes the page itself wrote.
constexpr const char* kScript = R"JS(
(function(){
  function clear(){document.querySelectorAll('.hl,.hover').forEach(function(e){e.classList.remove('hl','hover');});}
  document.querySelectorAll('[data-hl]').forEach(function(el){
    el.addEventListener('mouseenter',function(){
      clear();el.classList.add('hover');
      el.getAttribute('data-hl').split(' ').forEach(function(id){var t=document.getElementById(id);if(t)t.classList.add('hl');});
    });
    el.addEventListener('mouseleave',clear);
  });
  document.documentElement.setAttribute('data-script','ran');
})();
)JS";

std::string td(const std::string& text, bool numeric = false) {
    return std::string(numeric ? "<td class=\"num\">" : "<td>") + escape(text) + "</td>";
}

std::string paragraph(const std::string& cls, const std::string& text) {
    return "<div class=\"" + cls + "\">" + escape(text) + "</div>\n";
}

// A horizontal bar chart with optional whiskers: one row per backend.
struct Bar {
    std::string label;
    double value = 0;
    std::optional<double> low, high; // whisker
};

std::string barChart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit,
                     std::optional<double> reference = std::nullopt) {
    if (bars.empty())
        return {};
    double top = reference.value_or(0);
    for (const auto& b : bars)
        top = std::max({top, b.value, b.high.value_or(0)});
    if (!(top > 0))
        return {};
    const double labelW = 150, plotW = 360, rowH = 24, width = labelW + plotW + 90;
    const double height = 34 + rowH * double(bars.size()) + 8;
    auto xOf = [&](double v) { return labelW + plotW * std::clamp(v / top, 0.0, 1.0); };
    std::string out = "<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
                      "\" height=\"" + num(height) +
                      "\" font-family=\"system-ui,sans-serif\" font-size=\"12\">";
    out += "<text x=\"4\" y=\"16\" font-weight=\"600\">" + escape(title) + "</text>";
    if (reference) {
        const double x = xOf(*reference);
        out += "<line x1=\"" + num(x) + "\" y1=\"24\" x2=\"" + num(x) + "\" y2=\"" + num(height - 6) +
               "\" stroke=\"#b0bec5\" stroke-dasharray=\"3 3\"/>";
    }
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        const double y = 30 + rowH * double(i);
        out +=
            "<text x=\"" + num(labelW - 6) + "\" y=\"" + num(y + 13) + "\" text-anchor=\"end\">" +
            escape(b.label.size() > 24 ? b.label.substr(0, utf8::boundaryAtOrBefore(b.label, 23)) + "\u2026"
                                       : b.label) +
            "<title>" + escape(b.label) + "</title></text>";
        out += "<rect x=\"" + num(labelW) + "\" y=\"" + num(y + 2) + "\" width=\"" +
               num(xOf(b.value) - labelW) + "\" height=\"" + num(rowH - 8) + "\" fill=\"#64b5f6\"/>";
        if (b.low && b.high)
            out += "<line x1=\"" + num(xOf(*b.low)) + "\" y1=\"" + num(y + rowH / 2 - 2) + "\" x2=\"" +
                   num(xOf(*b.high)) + "\" y2=\"" + num(y + rowH / 2 - 2) +
                   "\" stroke=\"#0d47a1\" stroke-width=\"2\"/>";
        char value[48];
        std::snprintf(value, sizeof value, "%.3g%s", b.value, unit.c_str());
        out += "<text x=\"" + num(labelW + plotW + 6) + "\" y=\"" + num(y + 13) + "\">" + escape(value) +
               "</text>";
    }
    out += "</svg></div>\n";
    return out;
}

std::string chartsOf(const Report& report) {
    std::vector<Bar> speedup, compile, memory;
    for (const auto& run : report.backends) {
        if (run.status != RunStatus::Ok)
            continue;
        if (auto s = pairedSpeedup(run)) {
            Bar b{run.name, s->median, std::nullopt, std::nullopt};
            if (s->ci95) {
                b.low = s->ci95->lo;
                b.high = s->ci95->hi;
            } else {
                b.low = s->q1;
                b.high = s->q3;
            }
            speedup.push_back(b);
        }
        if (run.compileSeconds)
            compile.push_back({run.name, *run.compileSeconds, std::nullopt, std::nullopt});
        if (run.peakMemoryBytes)
            memory.push_back(
                {run.name, double(*run.peakMemoryBytes) / (1024.0 * 1024.0), std::nullopt, std::nullopt});
    }
    std::string out = "<div class=\"charts\">\n";
    out += barChart("Speedup over eager (95% CI, else IQR)", speedup, "x", 1.0);
    out += barChart("Compile time", compile, " s");
    out += barChart("Peak memory", memory, " MiB");
    out += "</div>\n";
    return out;
}

std::string comparisonTable(const Report& report) {
    std::string out = "<table class=\"comparison\"><thead><tr>";
    for (const auto& c : comparisonColumns())
        out += "<th title=\"" + escape(c.tip) + "\">" + escape(c.header) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (const auto& run : report.backends) {
        out += "<tr>";
        const auto cells = rowCells(run);
        for (size_t i = 0; i < cells.size(); ++i)
            out += td(cells[i], comparisonColumns()[i].numeric);
        out += "</tr>\n";
    }
    out += "</tbody></table>\n";
    return out;
}

std::string warningsOf(const Report& report) {
    std::string out;
    for (const auto& w : reportWarnings(report))
        out += paragraph("warn", w.code + ": " + w.message);
    for (const auto& run : report.backends)
        for (const auto& w : runWarnings(run))
            out += paragraph("warn", run.name + ": " + w.code + ": " + w.message);
    return out;
}

std::string recommendationOf(const Report& report, Goal goal) {
    const Recommendation r = recommend(report, goal);
    std::string out = paragraph("verdict", r.verdict);
    if (!r.ranked.empty()) {
        out += "<ol>";
        for (const auto& b : r.ranked)
            out += "<li>" + escape("tier " + std::to_string(b.tier) + ": " + b.sentence) + "</li>";
        out += "</ol>\n";
    }
    if (!r.excluded.empty()) {
        out += "<p>Not ranked:</p><ul>";
        for (const auto& e : r.excluded)
            out += "<li>" + escape(e.backend + ": " + e.reason) + "</li>";
        out += "</ul>\n";
    }
    return out;
}

std::string adviceOf(const Report& report) {
    const auto advice = adviceFor(report);
    if (advice.empty())
        return "<p class=\"sub\">No advice: no rule of docs/advice.md fired.</p>\n";
    std::string out = "<ul>";
    for (const auto& a : advice) {
        out += "<li><b>" + escape(adviceScope(a)) + "</b> <code>" + escape(a.rule) +
               "</code>: " + escape(a.message);
        if (!a.evidence.empty())
            out += " <span class=\"sub\">(evidence: " + escape(a.evidence) + ")</span>";
        if (!a.tryEntry.empty())
            out += " Try <code>--backends '" + escape(a.tryEntry) + "'</code>.";
        out += "</li>";
    }
    out += "</ul>\n";
    return out;
}

// One Dynamo graph of one backend: before and after fusion side by side, each kernel of the
// after graph linked both ways with the nodes it came from (hover).
std::string graphPair(const BackendRun& run, int graph, const std::string& prefix,
                      const HtmlOptions& options) {
    const FusionPair pair = fusionPair(run, graph);
    if (!pair.before)
        return {};
    const StageDrawing before = drawStage(*pair.before, prefix + "b", options.maxVisible);
    std::string out = "<h3>Graph " + std::to_string(graph) + "</h3>\n<div class=\"pair\">";
    auto pane = [](const StageGraph& stage, const std::string& svg, const std::string& reason) {
        return "<div class=\"pane\"><h4>" +
               escape(stage.key() + " (" + std::to_string(stage.nodes.size()) + " nodes" +
                      (stage.groups.empty() ? "" : ", " + std::to_string(stage.groups.size()) + " groups") +
                      ")") +
               "</h4><div class=\"scroll\">" +
               (svg.empty() ? "<p class=\"err\">" + escape(reason) + "</p>" : svg) + "</div></div>";
    };
    if (!pair.after) {
        out += pane(*pair.before, renderSvg(before), before.reason) + "</div>\n";
        return out;
    }
    const StageDrawing after = drawStage(*pair.after, prefix + "a", options.maxVisible);
    // Kernel k of the after graph came from before nodes origins[k]: its boxes light up those
    // nodes' boxes, and each of those lights up the kernel's boxes.
    const auto origins = kernelOrigins(*pair.after, *pair.before);
    std::map<std::string, std::set<std::string>> afterHl, beforeHl;
    for (size_t k = 0; k < origins.size(); ++k)
        for (const auto& kernelBox : after.boxesOfGroup[k])
            for (const int node : origins[k]) {
                const std::string& nodeBox = before.boxOfNode[size_t(node)];
                if (nodeBox.empty())
                    continue;
                afterHl[kernelBox].insert(nodeBox);
                beforeHl[nodeBox].insert(kernelBox);
            }
    auto joined = [](const std::map<std::string, std::set<std::string>>& links) {
        std::map<std::string, std::string> out;
        for (const auto& [box, targets] : links) {
            std::string ids;
            for (const auto& t : targets)
                ids += (ids.empty() ? "" : " ") + t;
            out[box] = ids;
        }
        return out;
    };
    out += pane(*pair.before, renderSvg(before, joined(beforeHl)), before.reason);
    out += pane(*pair.after, renderSvg(after, joined(afterHl)), after.reason);
    out += "</div>\n";
    return out;
}

std::string timeByModule(const BackendRun& run, int maxRows) {
    if (!run.trace)
        return {};
    const TimeAttribution time = attributeKernelTime(run);
    if (time.tracedNs <= 0)
        return {};
    const auto rows = time.rows(TimeGrouping::Module);
    std::string out =
        "<h3>Time by module</h3><table><thead><tr><th>module</th><th>ms per iteration</th><th>share</th>"
        "<th>kernels</th></tr></thead><tbody>";
    for (size_t i = 0; i < rows.size() && int(i) < maxRows; ++i) {
        char ms[32], share[32];
        std::snprintf(ms, sizeof ms, "%.3f", rows[i].ns / 1e6);
        std::snprintf(share, sizeof share, "%.1f %%", 100 * rows[i].share);
        out += "<tr>" + td(rows[i].key) + td(ms, true) + td(share, true) +
               td(std::to_string(rows[i].kernels.size()), true) + "</tr>";
    }
    out += "</tbody></table>";
    if (int(rows.size()) > maxRows)
        out += "<p class=\"sub\">" + std::to_string(rows.size() - size_t(maxRows)) +
               " smaller rows not shown.</p>";
    return out + "\n";
}

std::string fixed(std::optional<double> value, const char* format) {
    if (!value)
        return "-";
    char buf[48];
    std::snprintf(buf, sizeof buf, format, *value);
    return buf;
}

// The roofline of one backend (docs/roofline.md): bytes per call against eager's, the roofs and
// the traced kernels with their rates and fraction of the roof, or why a number is missing.
std::string rooflineOf(const BackendRun& run, int maxRows) {
    const auto links =
        run.trace ? std::optional<KernelLinks>(linkKernelsToGroups(*run.trace, afterFusionStages(run)))
                  : std::nullopt;
    const BackendRoofline b = computeRoofline(run, links ? &*links : nullptr);
    if (!b.bytesPerCall && !run.roofs) // reports before the roofline: nothing to say
        return {};
    std::string out = "<h3>Roofline</h3>";
    if (b.bytesPerCall) {
        std::string line = "Kernels move " + format::bytes(b.bytesPerCall) + " per call";
        if (auto r = b.bytesRatio())
            line += ", " + fixed(100 * *r, "%.0f %%") + " of the " + format::bytes(b.eagerBytesPerCall) +
                    " the same eager ops move";
        if (b.speedup)
            line += "; speedup " + format::ratio(b.speedup);
        out += paragraph("sub", line + ".");
    }
    if (run.roofs && run.roofs->error.empty()) {
        std::string line = "Roofs: " + fixed(run.roofs->bandwidthGbs, "%.1f GB/s");
        for (const auto& [dtype, gflops] : run.roofs->gflops)
            line += ", " + fixed(gflops, "%.0f GFLOP/s") + " " + dtype;
        line += " (" + std::to_string(run.roofs->threads) + " thread(s), measured " + run.roofs->measuredAt +
                ").";
        out += paragraph("sub", line);
    } else if (run.roofs) {
        out += paragraph("sub", "No roofs: " + run.roofs->error);
    }
    if (b.kernels.empty())
        return out + "\n";
    out += "<table><thead><tr><th>kernel</th><th>calls</th><th>ms per call</th><th>bytes</th><th>GB/s</th>"
           "<th>GFLOP/s</th><th>FLOP/B</th><th>roof</th><th>bound</th><th>note</th></tr></thead><tbody>";
    for (size_t i = 0; i < b.kernels.size() && int(i) < maxRows; ++i) {
        const KernelRoofline& k = b.kernels[i];
        const std::string note = !k.unknownReason.empty() ? k.unknownReason : k.note;
        out += "<tr>" + td(k.name) + td(std::to_string(k.calls), true) + td(fixed(k.timeMs, "%.4f"), true) +
               td(format::bytes(k.bytes), true) + td(fixed(k.gbs, "%.2f"), true) +
               td(fixed(k.gflops, "%.2f"), true) + td(fixed(k.intensity, "%.2f"), true) +
               td(k.roofFraction ? fixed(100 * *k.roofFraction, "%.0f%%") : "-", true) +
               td(k.bound.empty() ? "-" : k.bound) + td(note) + "</tr>";
    }
    out += "</tbody></table>";
    if (int(b.kernels.size()) > maxRows)
        out += paragraph("sub",
                         std::to_string(b.kernels.size() - size_t(maxRows)) + " smaller kernels not shown.");
    return out + "\n";
}

std::string backendSection(const BackendRun& run, size_t index, const HtmlOptions& options) {
    std::string out = "<section><h2>" + escape(run.name) + "</h2>\n";
    out += "<p class=\"sub\">" + escape(std::string("status: ") + toString(run.status)) + "</p>\n";
    if (run.error)
        out += "<p class=\"err\">" + escape(run.error->code + ": " + run.error->message) + "</p>\n";
    const auto compile = compileTimeLines(run);
    if (!compile.empty()) {
        std::string text;
        for (const auto& line : compile)
            text += line + "\n";
        out += "<h3>Compile time</h3><pre>" + escape(text) + "</pre>\n";
    }
    if (const auto lines = quantizationLines(run); !lines.empty()) { // analysis/QuantizationLines.h
        std::string text;
        for (const auto& line : lines)
            text += line + "\n";
        out += "<h3>Quantization</h3><pre>" + escape(text) + "</pre>\n";
    }
    out += timeByModule(run, options.maxTimeRows);
    out += rooflineOf(run, options.maxTimeRows);
    std::set<int> graphs;
    for (const auto& s : run.stages)
        graphs.insert(s.graph);
    int drawn = 0;
    for (const int g : graphs) {
        if (drawn == options.maxGraphsPerBackend)
            break;
        const std::string svg =
            graphPair(run, g, "g" + std::to_string(index) + "-" + std::to_string(g), options);
        if (!svg.empty()) {
            out += svg;
            ++drawn;
        }
    }
    if (int(graphs.size()) > drawn && drawn == options.maxGraphsPerBackend)
        out += "<p class=\"sub\">" + std::to_string(graphs.size() - size_t(drawn)) +
               " more graph(s) not drawn: open the report in FuseScope.</p>\n";
    if (graphs.empty())
        out += "<p class=\"sub\">No captured stages.</p>\n";
    return out + "</section>\n";
}

std::string provenanceOf(const Report& report) {
    std::string text;
    if (report.provenance)
        for (const auto& line : provenanceLines(*report.provenance))
            text += line + "\n";
    text += "model: " + report.modelSpec + "\ndevice: " + report.device + "\ncreated: " + report.created +
            "\ngenerator: " + report.generator + "\n";
    return "<pre>" + escape(text) + "</pre>\n";
}

} // namespace

std::string htmlReport(const Report& report, const HtmlOptions& options) {
    const std::string title =
        "FuseScope: " + (report.modelSpec.empty() ? report.model.name : report.modelSpec);
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
           "'unsafe-inline'; "
           "script-src 'unsafe-inline'; img-src data:\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<title>" << escape(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body><main>\n";
    out << "<h1>" << escape(title) << "</h1>\n";
    out << "<p class=\"sub\">"
        << escape(report.device + " \u00b7 " + std::to_string(report.backends.size()) +
                  " backend(s) \u00b7 " + report.created + " \u00b7 " + report.generator)
        << "</p>\n";
    out << "<h2>Recommendation (" << escape(toString(options.goal)) << ")</h2>\n"
        << recommendationOf(report, options.goal);
    const std::string warnings = warningsOf(report);
    if (!warnings.empty())
        out << "<h2>Warnings</h2>\n" << warnings;
    out << "<h2>Comparison</h2>\n" << comparisonTable(report) << chartsOf(report);
    out << "<h2>Advice</h2>\n" << adviceOf(report);
    for (size_t i = 0; i < report.backends.size(); ++i)
        out << backendSection(report.backends[i], i, options);
    out << "<h2>Provenance</h2>\n" << provenanceOf(report);
    out << "<p class=\"sub\">Written by FuseScope. Hover a kernel of an after-fusion graph to see the nodes "
           "it came "
           "from.</p>\n";
    out << "</main><script>" << kScript << "</script></body></html>\n";
    return out.str();
}

} // namespace fusescope::html
