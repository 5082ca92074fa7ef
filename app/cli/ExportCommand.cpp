#include "Commands.h"
#include "ExitCodes.h"
#include "GraphExport.h"
#include "html/HtmlReport.h"
#include "report/ReportFile.h"
#include "trace/ChromeTraceExport.h"
#include "trace/KernelStats.h"

#include <QString>
#include <algorithm>
#include <cstdio>

namespace fusescope::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int exportTrace(const BackendRun& run, const ExportOptions& options) {
    if (!run.trace) {
        std::string why = "it was run without --trace";
        if (run.traceInfo && !run.traceInfo->error.empty())
            why = run.traceInfo->error;
        std::fprintf(stderr, "error: backend %s in %s has no trace: %s\n", run.name.c_str(),
                     options.report.c_str(), why.c_str());
        return kExitError;
    }
    Status status;
    if (endsWith(options.out, ".csv"))
        status = writeKernelStatsCsv(computeKernelStats(*run.trace, KernelStatsOptions::forTrace(*run.trace)),
                                     options.out);
    else
        status = writeChromeTrace(*run.trace, run.name, options.out);
    if (status) {
        std::fprintf(stderr, "error: %s\n", status->message.c_str());
        return kExitError;
    }
    std::fprintf(stderr, "wrote %s (%s trace, %zu events)\n", options.out.c_str(), run.name.c_str(),
                 run.trace->events.size());
    return kExitOk;
}

} // namespace

int runExport(const ExportOptions& options) {
    auto report = readReport(options.report);
    if (!report) {
        std::fprintf(stderr, "error: %s\n", report.error().message.c_str());
        return kExitError;
    }
    const BackendRun* run = report.value().findBackend(options.backend);
    if (!run) {
        std::string names;
        for (const auto& b : report.value().backends)
            names += (names.empty() ? "" : ", ") + b.name;
        std::fprintf(stderr, "error: report %s has no backend '%s' (it has: %s)\n", options.report.c_str(),
                     options.backend.c_str(), names.c_str());
        return kExitUsage;
    }
    if (options.trace)
        return exportTrace(*run, options);
    std::string stage = options.stage;
    if (stage.empty()) {
        // The most telling picture by default: after fusion when the backend fuses.
        auto after = std::find_if(run->stages.begin(), run->stages.end(), [](const StageGraph& s) {
            return s.status == StageStatus::Ok && s.fusion == "after";
        });
        stage = after != run->stages.end() ? after->key()
                                           : (run->stages.empty() ? "" : run->stages.front().key());
    }
    if (!run->findStage(stage)) {
        std::string keys;
        for (const auto& s : run->stages)
            keys += (keys.empty() ? "" : ", ") + s.key();
        std::fprintf(stderr, "error: backend %s has no stage '%s' (it has: %s)\n", options.backend.c_str(),
                     stage.c_str(), keys.empty() ? "none" : keys.c_str());
        return kExitUsage;
    }
    QString error;
    if (!exportStageImage(*run, stage, QString::fromStdString(options.out), options.scale, &error,
                          options.measuredTime)) {
        std::fprintf(stderr, "error: %s\n", error.toStdString().c_str());
        return kExitError;
    }
    std::fprintf(stderr, "wrote %s (%s, stage %s)\n", options.out.c_str(), options.backend.c_str(),
                 stage.c_str());
    return kExitOk;
}

int runExportHtml(const ExportOptions& options) {
    auto report = readReport(options.report);
    if (!report) {
        std::fprintf(stderr, "error: %s\n", report.error().message.c_str());
        return kExitError;
    }
    for (const auto& note : report.value().readNotes)
        std::fprintf(stderr, "note: report %s: %s\n", options.report.c_str(), note.c_str());
    const std::string page = html::htmlReport(report.value());
    if (auto error = writeFileAtomically(options.html, page)) {
        std::fprintf(stderr, "error: %s\n", error->message.c_str());
        return kExitError;
    }
    std::fprintf(stderr, "wrote %s (%.1f KiB, %zu backends)\n", options.html.c_str(),
                 double(page.size()) / 1024.0, report.value().backends.size());
    return kExitOk;
}

} // namespace fusescope::cli
