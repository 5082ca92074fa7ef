#include "Gate.h"

#include "analysis/Format.h"
#include "analysis/RunWarnings.h"
#include "codec/Markup.h"
#include "report/SweepFiles.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace fusescope {

namespace {

// The warnings that make a run's samples doubtful for a verdict (docs/measurement.md, "Warnings").
bool doubtsSamples(const std::string& code) {
    return code == "machine_busy" || code == "drift" || code == "high_variance" || code == "baseline_drift";
}

std::string pct(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100 * fraction);
    return text;
}

std::string thresholdPct(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g %%", value);
    return text;
}

std::string joinNames(const std::vector<DiffKernel>& kernels, size_t limit = 6) {
    std::string out;
    for (size_t i = 0; i < kernels.size() && i < limit; ++i)
        out += (i ? ", " : "") + kernels[i].name;
    if (kernels.size() > limit)
        out += ", +" + std::to_string(kernels.size() - limit) + " more";
    return out;
}

std::string breakList(const std::vector<GraphBreak>& breaks, size_t limit = 3) {
    std::string out;
    for (size_t i = 0; i < breaks.size() && i < limit; ++i) {
        const auto& b = breaks[i];
        out += (i ? "; " : "") + b.reason +
               (b.file.empty() ? "" : " at " + b.file + ":" + std::to_string(b.line));
    }
    if (breaks.size() > limit)
        out += "; +" + std::to_string(breaks.size() - limit) + " more";
    return out;
}

struct Gate {
    const GateThresholds& thresholds;
    GateResult& out;
    std::string scope;

    void add(const std::string& backend, const char* check, CheckOutcome outcome, std::string message) {
        out.checks.push_back({scope, backend, check, outcome, std::move(message)});
    }

    std::string where(const std::string& side, const std::string& backend) const {
        return (scope.empty() ? "" : scope + ": ") + side + " " + backend;
    }

    void warnings(const BackendRun& run, const std::string& side) {
        for (const auto& w : runWarnings(run))
            if (doubtsSamples(w.code))
                out.warned.push_back(where(side, run.name) + ": " + w.code + ": " + w.message);
    }

    void reportWarnings(const Report& report, const std::string& side) {
        for (const auto& w : fusescope::reportWarnings(report))
            if (doubtsSamples(w.code))
                out.warned.push_back((scope.empty() ? "" : scope + ": ") + side + ": " + w.code + ": " +
                                     w.message);
    }

    void latency(const BackendDiff& d, const std::string& name) {
        if (!d.latency) {
            add(name, "latency", CheckOutcome::NotCompared, name + ": no latency to compare: " + d.sentence);
            return;
        }
        const LatencyRatio& r = *d.latency;
        const double limit = 1 + thresholds.maxSlowdownPct / 100;
        const std::string ratio = "latency new/baseline " + format::ratio(r.ratio) + " (95% CI " +
                                  (r.low ? format::ratio(*r.low) : std::string("unbounded")) + " to " +
                                  (r.high ? format::ratio(*r.high) : std::string("unbounded")) + ", " +
                                  std::to_string(r.samplesA) + " vs " + std::to_string(r.samplesB) +
                                  " samples)";
        if (d.verdict == DiffVerdict::Slower && r.low && *r.low > limit) {
            add(name, "latency", CheckOutcome::Regression,
                name + " is slower: " + ratio + ", beyond the " + thresholdPct(thresholds.maxSlowdownPct) +
                    " allowed and beyond the noise.");
        } else if (d.verdict == DiffVerdict::Faster && r.high && *r.high < 1 / limit) {
            add(name, "latency", CheckOutcome::Improvement, name + " is faster: " + ratio + ".");
        } else if (d.verdict == DiffVerdict::Slower) {
            add(name, "latency", CheckOutcome::Pass,
                name + " may be slower, but not beyond the " + thresholdPct(thresholds.maxSlowdownPct) +
                    " allowed with 95% confidence: " + ratio + ".");
        } else {
            add(name, "latency", CheckOutcome::Pass,
                name + ": " + ratio + ": no regression beyond the noise.");
        }
        if (d.eagerRatio && std::abs(*d.eagerRatio - 1.0) > 0.05)
            out.warned.push_back(where("both", name) + ": eager moved too (new/baseline " +
                                 format::ratio(*d.eagerRatio) +
                                 "): the machine, torch or the workload changed, not only the backend.");
    }

    void accuracy(const BackendDiff& d, const std::string& name) {
        if (!d.accuracyA || !d.accuracyB) {
            add(name, "accuracy", CheckOutcome::NotCompared,
                name + ": accuracy was not measured in " +
                    (!d.accuracyA && !d.accuracyB ? "either report"
                     : !d.accuracyA               ? "the baseline"
                                                  : "the new report") +
                    ".");
            return;
        }
        const std::string a = accuracyStatus(*d.accuracyA), b = accuracyStatus(*d.accuracyB);
        if (a == "pass" && b != "pass")
            add(name, "accuracy", CheckOutcome::Regression,
                name + ": accuracy went from pass to " + b +
                    (d.accuracyB->reason.empty() ? "" : " (" + d.accuracyB->reason + ")") + ".");
        else if (a != "pass" && b == "pass")
            add(name, "accuracy", CheckOutcome::Improvement,
                name + ": accuracy went from " + a + " to pass.");
        else
            add(name, "accuracy", CheckOutcome::Pass, name + ": accuracy " + a + " -> " + b + ".");
    }

    void compile(const BackendDiff& d, const std::string& name) {
        if (!d.compileRatio) {
            add(name, "compile", CheckOutcome::NotCompared, name + ": no compile time on both sides.");
            return;
        }
        const double growth = *d.compileRatio - 1;
        const std::string text =
            "compile time new/baseline " + format::ratio(*d.compileRatio) + " (" + pct(growth) + ")";
        if (growth * 100 > thresholds.maxCompileGrowthPct)
            add(name, "compile", CheckOutcome::Regression,
                name + ": " + text + ", beyond the " + thresholdPct(thresholds.maxCompileGrowthPct) +
                    " allowed.");
        else if (-growth * 100 > thresholds.maxCompileGrowthPct)
            add(name, "compile", CheckOutcome::Improvement, name + ": " + text + ".");
        else
            add(name, "compile", CheckOutcome::Pass, name + ": " + text + ".");
    }

    void breaks(const BackendDiff& d, const std::string& name) {
        const auto& b = d.breaks;
        if (!b.added.empty())
            add(name, "graph_breaks", CheckOutcome::Regression,
                name + ": " + std::to_string(b.added.size()) + " new graph break(s): " + breakList(b.added) +
                    ".");
        else if (!b.removed.empty())
            add(name, "graph_breaks", CheckOutcome::Improvement,
                name + ": " + std::to_string(b.removed.size()) +
                    " graph break(s) gone: " + breakList(b.removed) + ".");
        else
            add(name, "graph_breaks", CheckOutcome::Pass, name + ": no new graph breaks.");
    }

    void kernels(const BackendDiff& d, const std::string& name) {
        const auto& k = d.kernels;
        if (!k.added.empty() || !k.removed.empty()) {
            std::string text = name + ": kernels changed by provenance:";
            if (!k.added.empty())
                text += " " + std::to_string(k.added.size()) + " added (" + joinNames(k.added) + ")";
            if (!k.removed.empty())
                text += std::string(k.added.empty() ? "" : ";") + " " + std::to_string(k.removed.size()) +
                        " removed (" + joinNames(k.removed) + ")";
            add(name, "kernels", CheckOutcome::Regression, text + ".");
        } else if (k.matched.empty() && k.changed.empty()) {
            add(name, "kernels", CheckOutcome::NotCompared,
                name + ": no kernels after fusion to compare (the backend does not fuse, or a side has no "
                       "stages).");
        } else {
            add(name, "kernels", CheckOutcome::Pass,
                name + ": " + std::to_string(k.matched.size()) + " kernels matched, none added or removed" +
                    (k.changed.empty() ? ""
                                       : " (" + std::to_string(k.changed.size()) + " fused differently)") +
                    ".");
        }
    }

    void backend(const BackendDiff& d, const BackendRun& a, const BackendRun& b) {
        const std::string& name = d.nameB;
        warnings(a, "baseline");
        warnings(b, "new");
        const bool ranA = d.statusA == RunStatus::Ok, ranB = d.statusB == RunStatus::Ok;
        if (ranA && !ranB) {
            add(name, "status", CheckOutcome::Regression,
                name + " stopped running: " + toString(d.statusA) + " in the baseline, " +
                    toString(d.statusB) +
                    (b.error ? " (" + b.error->code + ": " + b.error->message + ")" : std::string()) +
                    " now.");
            return; // nothing else to compare
        }
        if (!ranA && ranB)
            add(name, "status", CheckOutcome::Improvement,
                name + " runs now: " + toString(d.statusA) + " in the baseline, ok now.");
        else if (!ranA)
            add(name, "status", CheckOutcome::NotCompared,
                name + " ran in neither: " + toString(d.statusA) + " in the baseline, " +
                    toString(d.statusB) + " now.");
        else
            add(name, "status", CheckOutcome::Pass, name + " runs in both.");
        if (!ranA || !ranB)
            return;
        latency(d, name);
        accuracy(d, name);
        compile(d, name);
        breaks(d, name);
        kernels(d, name);
        for (const auto& note : d.notes)
            out.notes.push_back((scope.empty() ? "" : scope + ": ") + name + ": " + note);
    }

    void reports(const Report& baseline, const Report& candidate) {
        reportWarnings(baseline, "baseline");
        reportWarnings(candidate, "new");
        auto diff = diffReports(baseline, candidate, {}, {}, "baseline", "new");
        if (!diff) {
            out.notes.push_back((scope.empty() ? "" : scope + ": ") + diff.error().message);
            // A sweep job whose new report kept none of its backends lost every one that ran
            // (two single reports with nothing in common are unusable input instead: exit 2).
            if (!scope.empty())
                for (const auto& run : baseline.backends)
                    if (run.status == RunStatus::Ok)
                        add(run.name, "status", CheckOutcome::Regression,
                            run.name + " ran in the baseline and is missing from the new report.");
            return;
        }
        for (const auto& d : diff.value().backends) {
            const BackendRun* a = baseline.findBackend(d.nameA);
            const BackendRun* b = candidate.findBackend(d.nameB);
            if (a && b)
                backend(d, *a, *b);
        }
        for (const auto& name : diff.value().onlyA) {
            const BackendRun* a = baseline.findBackend(name);
            if (a && a->status == RunStatus::Ok)
                add(name, "status", CheckOutcome::Regression,
                    name + " ran in the baseline and is missing from the new report.");
            else
                out.notes.push_back((scope.empty() ? "" : scope + ": ") + name +
                                    ": only in the baseline, where it did not run either.");
        }
        for (const auto& name : diff.value().onlyB)
            out.notes.push_back((scope.empty() ? "" : scope + ": ") + name +
                                ": new in this report, no baseline to compare.");
    }
};

} // namespace

const char* toString(CheckOutcome outcome) {
    switch (outcome) {
    case CheckOutcome::Pass:
        return "pass";
    case CheckOutcome::Regression:
        return "regression";
    case CheckOutcome::Improvement:
        return "improvement";
    case CheckOutcome::NotCompared:
        return "not_compared";
    }
    return "pass";
}

int GateResult::count(CheckOutcome outcome) const {
    int n = 0;
    for (const auto& c : checks)
        n += c.outcome == outcome;
    return n;
}

GateResult gateReports(const Report& baseline, const Report& candidate, const GateThresholds& thresholds) {
    GateResult out;
    Gate{thresholds, out, {}}.reports(baseline, candidate);
    return out;
}

Result<GateResult> gateSweeps(const std::string& baselineDir, const std::string& candidateDir,
                              const GateThresholds& thresholds) {
    auto a = readSweepFiles(baselineDir);
    if (!a)
        return a.error();
    auto b = readSweepFiles(candidateDir);
    if (!b)
        return b.error();
    GateResult out;
    for (const auto& note : a.value().notes)
        out.notes.push_back("baseline: " + note);
    for (const auto& note : b.value().notes)
        out.notes.push_back("new: " + note);
    const auto& jobsA = a.value().state.jobs;
    const auto& jobsB = b.value().state.jobs;
    std::set<std::string> seen;
    for (size_t i = 0; i < jobsA.size(); ++i) {
        const SuiteJob& job = jobsA[i];
        seen.insert(job.id);
        Gate gate{thresholds, out, job.id};
        size_t j = 0;
        while (j < jobsB.size() && jobsB[j].id != job.id)
            ++j;
        const auto& reportA = a.value().reports[i];
        if (j == jobsB.size()) {
            if (reportA)
                gate.add(job.label(), "job", CheckOutcome::Regression,
                         "job " + job.id + " (" + job.label() + ") is missing from the new sweep.");
            else
                out.notes.push_back(job.id +
                                    ": in the baseline without a report, missing from the new sweep.");
            continue;
        }
        const auto& reportB = b.value().reports[j];
        if (reportA && !reportB) {
            gate.add(job.label(), "job", CheckOutcome::Regression,
                     "job " + job.id + " (" + job.label() +
                         ") has no report in the new sweep: " + jobsB[j].status +
                         (jobsB[j].reason.empty() ? "" : " (" + jobsB[j].reason + ")") + ".");
            continue;
        }
        if (!reportA) {
            out.notes.push_back(job.id + ": no baseline report (" + job.status + "), nothing to compare.");
            continue;
        }
        gate.reports(*reportA, *reportB);
    }
    for (const auto& job : jobsB)
        if (!seen.count(job.id))
            out.notes.push_back(job.id + ": new in this sweep, no baseline to compare.");
    return out;
}

// --- outputs ---------------------------------------------------------------------------------

std::string escapeMarkdown(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '\n':
        case '\r':
        case '\t':
            out += ' ';
            break;
        case '@': // no @mention from a report string
            out += "&#64;";
            break;
        case ':': // no autolinked URL (https://...)
            out += "&#58;";
            break;
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[': // with ] escaped, ( ) and ! cannot form a link or an image
        case ']':
        case '#':
        case '|':
        case '~':
            out += '\\';
            out += c;
            break;
        default:
            // As HTML text otherwise (GitHub renders inline HTML in comments): < > & " ' become
            // entities, control characters go.
            out += codec::escapeMarkup(std::string_view(&c, 1));
        }
    }
    return out;
}

namespace {

std::string verdictLine(const GateResult& r) {
    const int regressions = r.count(CheckOutcome::Regression),
              improvements = r.count(CheckOutcome::Improvement);
    std::string line = r.passed() ? "PASS" : "FAIL";
    line += ": " + std::to_string(regressions) + " regression(s), " + std::to_string(improvements) +
            " improvement(s)";
    if (!r.warned.empty())
        line += "; the verdict rests on warned samples";
    return line;
}

std::string thresholdsLine(const GateThresholds& t) {
    return "thresholds: slowdown " + thresholdPct(t.maxSlowdownPct) +
           " beyond the 95% interval, compile growth " + thresholdPct(t.maxCompileGrowthPct);
}

std::string qualified(const GateCheck& c) {
    return c.scope.empty() ? c.backend : c.scope + " / " + c.backend;
}

} // namespace

std::string gateText(const GateResult& r, const GateThresholds& t, const GateLabels& labels) {
    std::ostringstream out;
    out << "check " << labels.candidate << " against " << labels.baseline << " (" << thresholdsLine(t)
        << ")\n";
    for (const CheckOutcome kind : {CheckOutcome::Regression, CheckOutcome::Improvement})
        for (const auto& c : r.checks)
            if (c.outcome == kind)
                out << "  " << (kind == CheckOutcome::Regression ? "REGRESSION" : "improvement") << " ["
                    << (c.scope.empty() ? "" : c.scope + " ") << c.check << "] " << c.message << "\n";
    for (const auto& w : r.warned)
        out << "  warning: " << w << "\n";
    for (const auto& n : r.notes)
        out << "  note: " << n << "\n";
    out << verdictLine(r) << "\n";
    return out.str();
}

std::string gateMarkdown(const GateResult& r, const GateThresholds& t, const GateLabels& labels) {
    std::ostringstream out;
    out << "## FuseScope check: " << verdictLine(r) << "\n\n";
    out << "New " << escapeMarkdown(labels.candidate) << " against baseline "
        << escapeMarkdown(labels.baseline) << "; " << thresholdsLine(t) << ".\n\n";
    if (!r.warned.empty()) {
        out << "> **Warning:** the verdict rests on warned samples:\n";
        for (const auto& w : r.warned)
            out << "> - " << escapeMarkdown(w) << "\n";
        out << "\n";
    }
    const int listed = r.count(CheckOutcome::Regression) + r.count(CheckOutcome::Improvement);
    if (listed > 0) {
        out << "| | backend | check | what |\n|---|---|---|---|\n";
        for (const CheckOutcome kind : {CheckOutcome::Regression, CheckOutcome::Improvement})
            for (const auto& c : r.checks)
                if (c.outcome == kind)
                    out << "| " << (kind == CheckOutcome::Regression ? "regression" : "improvement") << " | "
                        << escapeMarkdown(qualified(c)) << " | " << c.check << " | "
                        << escapeMarkdown(c.message) << " |\n";
        out << "\n";
    } else {
        out << "No regression and no improvement beyond the thresholds and the noise.\n\n";
    }
    const int passed = r.count(CheckOutcome::Pass), skipped = r.count(CheckOutcome::NotCompared);
    out << passed << " check(s) passed, " << skipped << " not compared.\n";
    if (!r.notes.empty()) {
        out << "\n<details><summary>Notes</summary>\n\n";
        for (const auto& n : r.notes)
            out << "- " << escapeMarkdown(n) << "\n";
        out << "\n</details>\n";
    }
    return out.str();
}

std::string gateJUnit(const GateResult& r, const GateThresholds& t, const GateLabels& labels) {
    std::ostringstream out;
    const int failures = r.count(CheckOutcome::Regression), skipped = r.count(CheckOutcome::NotCompared);
    const size_t tests = r.checks.size();
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"fusescope check\" tests=\"" << tests << "\" failures=\"" << failures
        << "\">\n";
    out << "  <testsuite name=\""
        << codec::escapeMarkup("fusescope check: " + labels.candidate + " against " + labels.baseline)
        << "\" tests=\"" << tests << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\">\n";
    out << "    <properties>\n";
    out << "      <property name=\"baseline\" value=\"" << codec::escapeMarkup(labels.baseline) << "\"/>\n";
    out << "      <property name=\"new\" value=\"" << codec::escapeMarkup(labels.candidate) << "\"/>\n";
    out << "      <property name=\"max_slowdown_pct\" value=\"" << t.maxSlowdownPct << "\"/>\n";
    out << "      <property name=\"max_compile_growth_pct\" value=\"" << t.maxCompileGrowthPct << "\"/>\n";
    out << "      <property name=\"warned_samples\" value=\"" << (r.warned.empty() ? "false" : "true")
        << "\"/>\n";
    out << "    </properties>\n";
    for (const auto& c : r.checks) {
        out << "    <testcase classname=\"" << codec::escapeMarkup("fusescope." + qualified(c))
            << "\" name=\"" << c.check << "\">";
        if (c.outcome == CheckOutcome::Regression)
            out << "\n      <failure message=\"" << codec::escapeMarkup(c.message)
                << "\" type=\"regression\">" << codec::escapeMarkup(c.message) << "</failure>\n    ";
        else if (c.outcome == CheckOutcome::NotCompared)
            out << "\n      <skipped message=\"" << codec::escapeMarkup(c.message) << "\"/>\n    ";
        else if (c.outcome == CheckOutcome::Improvement)
            out << "\n      <system-out>" << codec::escapeMarkup("improvement: " + c.message)
                << "</system-out>\n    ";
        out << "</testcase>\n";
    }
    std::string log;
    for (const auto& w : r.warned)
        log += "warning: " + w + "\n";
    for (const auto& n : r.notes)
        log += "note: " + n + "\n";
    log += verdictLine(r) + "\n";
    out << "    <system-out>" << codec::escapeMarkup(log) << "</system-out>\n";
    out << "  </testsuite>\n</testsuites>\n";
    return out.str();
}

} // namespace fusescope
