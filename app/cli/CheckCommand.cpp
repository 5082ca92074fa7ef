#include "Commands.h"
#include "ExitCodes.h"
#include "analysis/Gate.h"
#include "report/ReportFile.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace fusescope::cli {

namespace {

bool isSweepFolder(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec) && std::filesystem::exists(path + "/sweep.json", ec);
}

int unusable(const std::string& message) {
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return kCheckUnusable;
}

} // namespace

int runCheck(const CheckOptions& options) {
    GateThresholds thresholds;
    thresholds.maxSlowdownPct = options.maxSlowdownPct;
    thresholds.maxCompileGrowthPct = options.maxCompileGrowthPct;
    const bool sweepNew = isSweepFolder(options.candidate), sweepOld = isSweepFolder(options.baseline);
    GateResult result;
    if (sweepNew || sweepOld) {
        if (sweepNew != sweepOld)
            return unusable("check compares a report with a report or a sweep folder with a sweep folder: " +
                            (sweepNew ? options.candidate : options.baseline) + " is a sweep folder, " +
                            (sweepNew ? options.baseline : options.candidate) + " is not");
        auto gated = gateSweeps(options.baseline, options.candidate, thresholds);
        if (!gated)
            return unusable(gated.error().message);
        result = std::move(gated).value();
        if (result.checks.empty())
            return unusable("nothing to check: no job of " + options.baseline +
                            " has a report to compare with " + options.candidate);
    } else {
        auto baseline = readReport(options.baseline);
        if (!baseline)
            return unusable(baseline.error().message);
        auto candidate = readReport(options.candidate);
        if (!candidate)
            return unusable(candidate.error().message);
        for (const auto* r : {&baseline, &candidate})
            for (const auto& note : r->value().readNotes)
                std::fprintf(stderr, "note: report %s: %s\n",
                             (r == &baseline ? options.baseline : options.candidate).c_str(), note.c_str());
        result = gateReports(baseline.value(), candidate.value(), thresholds);
        if (result.checks.empty())
            return unusable("nothing to check: " + options.candidate + " and " + options.baseline +
                            " share no backend" +
                            (result.notes.empty() ? std::string() : " (" + result.notes.front() + ")"));
    }
    const GateLabels labels{options.baseline, options.candidate};
    std::cout << gateText(result, thresholds, labels);
    const std::pair<const std::string*, std::string> outputs[] = {
        {&options.markdown, options.markdown.empty() ? "" : gateMarkdown(result, thresholds, labels)},
        {&options.junit, options.junit.empty() ? "" : gateJUnit(result, thresholds, labels)},
    };
    for (const auto& [path, text] : outputs)
        if (!path->empty())
            if (auto error = writeFileAtomically(*path, text))
                return unusable(error->message);
    return result.passed() ? kCheckPass : kCheckRegressed;
}

} // namespace fusescope::cli
