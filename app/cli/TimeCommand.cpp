// `fusescope-cli show REPORT --by module|line [--backend B] [--json]`: measured kernel time per
// module or source line (core/trace/TimeAttribution, docs/trace-view.md "Time on the graph").
#include "Commands.h"
#include "ExitCodes.h"
#include "codec/Json.h"
#include "report/ReportFile.h"
#include "trace/TimeAttribution.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace fusescope::cli {

namespace {

std::string msText(double ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ns / 1e6);
    return buf;
}

void printTable(const BackendRun& run, const TimeAttribution& time, TimeGrouping grouping) {
    const auto rows = time.rows(grouping);
    std::printf("%s: %s ms of traced kernel time per iteration (%d iteration%s), by %s\n", run.name.c_str(),
                msText(time.tracedNs).c_str(), time.iterations, time.iterations == 1 ? "" : "s",
                toString(grouping));
    size_t width = 6;
    for (const auto& r : rows)
        width = std::max(width, std::min<size_t>(r.key.size(), 60));
    std::printf("  %-*s %10s %7s %8s\n", static_cast<int>(width),
                grouping == TimeGrouping::Module ? "module" : "line", "time ms", "share", "kernels");
    for (const auto& r : rows) {
        std::string key = r.key.size() > 60 ? "..." + r.key.substr(r.key.size() - 57) : r.key;
        std::printf("  %-*s %10s %6.1f%% %8zu", static_cast<int>(width), key.c_str(), msText(r.ns).c_str(),
                    100 * r.share, r.kernels.size());
        if (!r.code.empty())
            std::printf("  %s", r.code.c_str());
        std::printf("\n");
    }
}

nlohmann::json rowsJson(const TimeAttribution& time, TimeGrouping grouping) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : time.rows(grouping)) {
        nlohmann::json row{{toString(grouping), r.key}, {"time_ms", r.ns / 1e6},
                           {"share", r.share},          {"kernels", r.kernels.size()},
                           {"kernel_names", r.kernels}, {"attributed", !r.unattributed}};
        if (!r.code.empty())
            row["code"] = r.code;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace

int runShowTime(const std::string& path, const std::string& by, const std::string& backend, bool json) {
    TimeGrouping grouping;
    if (by == "module")
        grouping = TimeGrouping::Module;
    else if (by == "line")
        grouping = TimeGrouping::Line;
    else {
        std::fprintf(stderr, "error: --by: '%s' is not one of module, line\n", by.c_str());
        return kExitUsage;
    }
    const auto report = openReportPrintingNotes(path);
    if (!report)
        return kExitError;
    std::vector<const BackendRun*> runs;
    for (const auto& run : report->backends)
        if (backend.empty() ? run.trace.has_value() : run.name == backend)
            runs.push_back(&run);
    if (!backend.empty() && runs.empty()) {
        std::fprintf(stderr, "error: report %s has no backend '%s'\n", path.c_str(), backend.c_str());
        return kExitError;
    }
    if (!backend.empty() && !runs.front()->trace) {
        std::fprintf(stderr, "error: backend '%s' in %s has no kernel trace (compare with --trace)\n",
                     backend.c_str(), path.c_str());
        return kExitError;
    }
    if (runs.empty()) {
        std::fprintf(stderr, "error: report %s has no kernel trace (compare with --trace)\n", path.c_str());
        return kExitError;
    }
    nlohmann::json out{{"by", toString(grouping)}, {"backends", nlohmann::json::array()}};
    for (const BackendRun* run : runs) {
        const TimeAttribution time = attributeKernelTime(*run);
        if (json)
            out["backends"].push_back({{"name", run->name},
                                       {"traced_ms", time.tracedNs / 1e6},
                                       {"unattributed_ms", time.unattributedNs / 1e6},
                                       {"iterations", time.iterations},
                                       {"rows", rowsJson(time, grouping)}});
        else
            printTable(*run, time, grouping);
    }
    if (json)
        std::cout << codec::dumpJson(out, 2) << std::endl;
    return kExitOk;
}

} // namespace fusescope::cli
