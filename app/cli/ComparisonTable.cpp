#include "ComparisonTable.h"

#include "analysis/Advice.h"
#include "analysis/ComparisonColumns.h"
#include "analysis/CompileTime.h"
#include "analysis/Deployment.h"
#include "analysis/Format.h"
#include "analysis/LatencyStats.h"
#include "analysis/QuantizationLines.h"
#include "analysis/RunWarnings.h"
#include "analysis/Speedup.h"
#include "analysis/Summary.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace fusescope::cli {

namespace {

using Row = std::vector<std::string>;

std::string workloadText(const std::optional<Workload>& workload) {
    if (!workload || (workload->mode == "inference" && workload->precision == "fp32"))
        return {};
    const std::string how = isQuantizedPrecision(workload->precision) ? " (torchao)" : " autocast";
    return workload->mode +
           (workload->precision == "fp32" ? std::string() : ", " + workload->precision + how);
}

std::string cpuText(const std::vector<int>& cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size(); ++i) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i)
            out += "-" + std::to_string(cpus[j]);
        i = j;
    }
    return out;
}

// "1 thread on CPUs 0-1" from the first run the worker echoed its placement for; every run of
// a comparison gets the same request, so a run that differs is named.
std::string placementText(const Report& report) {
    const RunPlacement* first = nullptr;
    std::string differs;
    for (const auto& run : report.backends) {
        if (!run.placement)
            continue;
        if (!first)
            first = &*run.placement;
        else if (run.placement->threads != first->threads || run.placement->affinity != first->affinity)
            differs += (differs.empty() ? "" : ", ") + run.name;
    }
    if (!first)
        return {};
    std::string text = std::to_string(first->threads) + (first->threads == 1 ? " thread" : " threads") +
                       (first->threadsRequested ? "" : " (default)") + " on CPU" +
                       (first->affinity.size() == 1 ? " " : "s ") + cpuText(first->affinity) +
                       (first->pin.empty() ? "" : " (pinned)") +
                       (first->malloc.empty() ? "" : ", malloc " + first->malloc);
    if (!differs.empty())
        text += "; other placement for " + differs;
    return text;
}

void breaksSection(std::ostringstream& out, const Report& report) {
    bool header = false;
    for (const auto& run : report.backends)
        for (const auto& b : run.breakReasons) {
            if (!header)
                out << "\ngraph breaks:\n";
            header = true;
            out << "  " << run.name << ": ";
            // `graph` counts the graphs Dynamo produced before the break.
            if (b.graph >= 0)
                out << format::breakPlacement(b.graph) << ": ";
            out << b.reason;
            if (!b.file.empty())
                out << " (" << b.file << ":" << b.line << ")";
            out << "\n";
        }
}

void shapesSection(std::ostringstream& out, const Report& report) {
    for (const auto& run : report.backends) {
        if (!run.shapes)
            continue;
        if (!run.shapes->error.empty()) {
            out << "\nshape list, " << run.name << ": not run: " << run.shapes->error << "\n";
            continue;
        }
        out << "\nshape list, " << run.name << " (median ms compiled, speedup over eager; R = recompiled):\n";
        for (const auto& r : run.shapes->runs) {
            out << "  dynamic=" << (r.dynamic ? "true" : "false") << ": " << r.recompiles << " recompiles, "
                << r.guardFailures << " guard failures";
            if (r.limitHit)
                out << "  RECOMPILE LIMIT (" << r.recompileLimit << ") HIT: later shapes ran eager, silently";
            out << "\n";
            for (const auto& p : r.points) {
                const auto set = p.index < static_cast<int>(run.shapes->sets.size())
                                     ? format::inputSet(run.shapes->sets[p.index])
                                     : std::to_string(p.index);
                out << "    " << set << "  ";
                if (p.status != "ok") {
                    out << "failed: " << p.error << "\n";
                    continue;
                }
                const auto stats = computeLatencyStats(p.compiledMs);
                const auto speed = pairedSpeedup(p.eagerMs, p.compiledMs);
                out << format::milliseconds(stats.empty() ? std::optional<double>() : stats.median) << " ms  "
                    << format::ratio(speed ? std::optional<double>(speed->median) : std::nullopt)
                    << (p.recompiled ? "  R" : "") << "\n";
            }
        }
    }
}

void trainingSection(std::ostringstream& out, const Report& report) {
    bool header = false;
    for (const auto& run : report.backends) {
        if (!run.training)
            continue;
        if (!header)
            out << "\ntraining steps (forward, loss, backward, optimizer step):\n";
        header = true;
        const auto& t = *run.training;
        out << "  " << run.name << ": compile " << format::seconds(t.compileForwardSeconds) << " s forward + "
            << format::seconds(t.compileBackwardSeconds) << " s backward";
        if (t.gradientAccuracy)
            out << ", gradients " << (t.gradientAccuracy->pass ? "match" : "DIFFER") << " (max rel "
                << format::scientific(t.gradientAccuracy->maxRel)
                << (t.worstParameter.empty() ? std::string() : " in " + t.worstParameter) << ")";
        out << "\n";
    }
}

// compile_s of each backend by phase, with the warm and capture compiles (analysis/CompileTime.h).
void compileSection(std::ostringstream& out, const Report& report) {
    bool header = false;
    for (const auto& run : report.backends) {
        if (run.compileBreakdown.empty() && !run.captureSeconds && !run.warmCompileSeconds && !run.tuning)
            continue; // older reports: the table's compile column says all there is
        if (!header)
            out << "\ncompile time:\n";
        header = true;
        const auto lines = compileTimeLines(run);
        for (size_t i = 0; i < lines.size(); ++i)
            out << "  " << (i == 0 ? run.name + ": " : std::string()) << lines[i] << "\n";
    }
}

// One section of per-run lines under `title`, each run's first line after its name and the rest
// after `continuation`; nothing when no run has lines.
void runLinesSection(std::ostringstream& out, const Report& report, const char* title,
                     std::vector<std::string> (*linesOf)(const BackendRun&),
                     const std::string& continuation) {
    bool header = false;
    for (const auto& run : report.backends) {
        const auto lines = linesOf(run);
        if (lines.empty())
            continue;
        if (!header)
            out << "\n" << title << ":\n";
        header = true;
        for (size_t i = 0; i < lines.size(); ++i)
            out << "  " << (i == 0 ? run.name + ": " : continuation) << lines[i] << "\n";
    }
}

// The artifact of each backend that ships one: size next to eager, load and first call in fresh
// processes (analysis/Deployment.h; its later lines carry their own indent).
void deploymentSection(std::ostringstream& out, const Report& report) {
    runLinesSection(out, report, "deployment (the artifact a user would ship)", deploymentLines, "");
}

// What each int8 row quantized and its weights against fp32's (analysis/QuantizationLines.h).
void quantizationSection(std::ostringstream& out, const Report& report) {
    runLinesSection(out, report, "quantization (speedup and accuracy against fp32 eager)", quantizationLines,
                    "  ");
}

// How sure each median is (analysis/RunWarnings.h, confidenceText): the 95 % order-statistic
// intervals of the speedup and of the compiled latency, and whether the target was met.
void confidenceSection(std::ostringstream& out, const Report& report) {
    bool header = false;
    for (const auto& run : report.backends) {
        const auto text = confidenceText(run);
        if (text.empty())
            continue;
        if (!header)
            out << "\nconfidence (95 % intervals of the medians, from order statistics):\n";
        header = true;
        out << "  " << run.name << ": " << text << "\n";
    }
}

void partsSection(std::ostringstream& out, const Report& report) {
    for (const auto& run : report.backends) {
        if (run.parts.empty())
            continue;
        out << "\n" << run.name << " parts:\n";
        for (const auto& p : run.parts)
            out << "  " << p.module << " -> " << p.backend << ": "
                << format::count(p.graphs >= 0 ? std::optional<int>(p.graphs) : std::nullopt) << " graphs, "
                << format::count(p.graphBreaks >= 0 ? std::optional<int>(p.graphBreaks) : std::nullopt)
                << " breaks, compile " << format::seconds(p.compileSeconds) << " s\n";
    }
}

void recommendationSection(std::ostringstream& out, const Report& report, const SummaryOptions& summary) {
    if (report.tuning)
        out << "\ntuning (" << report.tuning->goal << ", stopped by " << report.tuning->stoppedBy << "):\n"
            << tuningTable(*report.tuning);
    if (report.search)
        out << "\nassignment search: " << format::searchSummary(*report.search) << "\n";
    const auto rec = recommend(report, summary.goal, summary.recommend);
    out << "\nrecommendation (" << toString(rec.goal) << "): " << rec.verdict << "\n";
    for (const auto& r : rec.ranked)
        out << "  " << r.tier << ". " << r.sentence << "\n";
    for (const auto& e : rec.excluded)
        out << "  not ranked: " << e.backend << ": " << e.reason << "\n";
}

// docs/advice.md: what to try next, each with the measurement that triggered it.
void adviceSection(std::ostringstream& out, const Report& report) {
    const auto advice = adviceFor(report);
    if (advice.empty())
        return;
    out << "\nadvice:\n";
    for (const auto& a : advice)
        out << "  " << adviceLine(a) << "\n";
}

} // namespace

std::string comparisonTable(const Report& report, const SummaryOptions& summary) {
    // The columns and cells are the GUI's (analysis/ComparisonColumns.h), with the short headers.
    const auto& columns = comparisonColumns();
    Row header;
    for (const auto& c : columns)
        header.push_back(c.tableHeader);
    std::vector<Row> rows = {header};
    for (const auto& run : report.backends)
        rows.push_back(rowCells(run));
    std::vector<size_t> widths(header.size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());

    std::ostringstream out;
    out << "model " << (report.modelSpec.empty() ? report.model.name : report.modelSpec) << " on "
        << report.device << ", torch " << report.environment.torch;
    if (const auto w = workloadText(report.settings.workload); !w.empty())
        out << ", " << w;
    if (const auto p = placementText(report); !p.empty())
        out << ", " << p;
    // Settle calls (docs/measurement.md): said only when the report records them.
    if (report.settings.measure && report.settings.measure->settle)
        out << ", settle " << *report.settings.measure->settle;
    out << "\n";
    for (size_t r = 0; r < rows.size(); ++r) {
        for (size_t c = 0; c < rows[r].size(); ++c) {
            const auto& cell = rows[r][c];
            const size_t pad = widths[c] - cell.size();
            // Names and words left-aligned, numbers right-aligned.
            if (!columns[c].numeric)
                out << cell << std::string(pad, ' ');
            else
                out << std::string(pad, ' ') << cell;
            out << (c + 1 < rows[r].size() ? "  " : "\n");
        }
    }
    out << "speedup: median of the paired ratios eager / compiled (neighbouring calls); "
           "nodes: before fusion; kernels: after fusion\n";
    if (report.provenance) // what produced the report (docs/report-format.md, "provenance")
        for (const auto& line : provenanceLines(*report.provenance))
            out << line << "\n";
    for (const auto& run : report.backends)
        if (run.error)
            out << run.name << ": [" << run.error->code << "] " << run.error->message << "\n";
    for (const auto& run : report.backends)
        for (const auto& note : run.notes)
            out << "note: " << note << "\n";
    for (const auto& w :
         reportWarnings(report)) // run-wide: the check before the first backend, baseline_drift
        out << "warning: [" << w.code << "] " << w.message << "\n";
    for (const auto& run : report.backends)
        for (const auto& w : runWarnings(run))
            out << "warning: " << run.name << ": [" << w.code << "] " << w.message << "\n";
    for (const auto& run : report.backends) // a failed run's error above already says why
        if (run.status == RunStatus::Ok && run.accuracy && !run.accuracy->pass &&
            !run.accuracy->reason.empty())
            out << "accuracy: " << run.name << ": [" << accuracyStatus(*run.accuracy) << "] "
                << run.accuracy->reason << "\n";
    for (const auto& run : report.backends) // --bisect (docs/accuracy.md)
        if (run.accuracy && run.accuracy->firstDivergence)
            out << "bisect: " << run.name << ": " << firstDivergenceText(*run.accuracy->firstDivergence)
                << "\n";
    compileSection(out, report);
    deploymentSection(out, report);
    quantizationSection(out, report);
    trainingSection(out, report);
    breaksSection(out, report);
    shapesSection(out, report);
    partsSection(out, report);
    confidenceSection(out, report);
    recommendationSection(out, report, summary);
    adviceSection(out, report);
    return out.str();
}

namespace {

std::string intervalText(const std::optional<double>& median, const std::optional<SpeedupInterval>& ci) {
    if (!median)
        return "-";
    std::string out = format::ratio(median);
    if (ci)
        out += " (" + format::ratio(ci->first) + "-" + format::ratio(ci->second) + ")";
    return out;
}

} // namespace

std::string tuningTable(const TuneOutcome& t) {
    std::string out;
    const auto line = [&](const char* fmt, auto... args) {
        std::string buffer(static_cast<size_t>(std::snprintf(nullptr, 0, fmt, args...)) + 1, '\0');
        std::snprintf(buffer.data(), buffer.size(), fmt, args...);
        buffer.pop_back();
        out += buffer;
    };
    size_t width = 5;
    for (const auto& c : t.candidates)
        width = std::max(width, c.entry.size());
    line("%-*s  %-8s %-24s %9s %11s %6s  %s\n", int(width), "entry", "origin", "speedup (95 % CI)",
         "compile s", "peak", "rounds", "status");
    for (const auto& c : t.candidates) {
        std::string status = c.dropped ? "dropped: " + *c.dropped : c.status;
        if (t.best && c.entry == t.best->entry)
            status = "BEST";
        line("%-*s  %-8s %-24s %9s %11s %6d  %s\n", int(width), c.entry.c_str(), c.origin.c_str(),
             intervalText(c.speedup, c.speedupCi95).c_str(), format::seconds(c.compileSeconds).c_str(),
             format::bytes(c.peakMemoryBytes).c_str(), c.rounds, status.c_str());
    }
    line("\n%s\n", t.verdict.c_str());
    if (!t.pareto.empty()) {
        line("Pareto front (speedup x compile time x peak memory):");
        for (size_t i = 0; i < t.pareto.size(); ++i)
            line("%s %s", i ? "," : "", t.pareto[i].c_str());
        line("\n");
    }
    for (const auto& a : t.adviceOutcomes)
        if (a.outcome.empty())
            line("advice %s -> %s: %s\n", a.rule.c_str(), a.entry.c_str(), a.reason.c_str());
        else
            line("advice %s -> %s: %s (%s)\n", a.rule.c_str(), a.entry.c_str(), a.outcome.c_str(),
                 a.reason.c_str());
    if (t.best)
        line("\n%s\n", t.best->snippet.c_str());
    return out;
}

} // namespace fusescope::cli
