#include "ComparisonTable.h"

#include "analysis/Format.h"
#include "analysis/LatencyStats.h"
#include "analysis/Summary.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace fusescope::cli {

namespace {

using Row = std::vector<std::string>;

std::string accuracyCell(const BackendRun& run) {
    if (!run.accuracy)
        return "-";
    return format::scientific(run.accuracy->maxAbs) + (run.accuracy->pass ? " pass" : " FAIL");
}

Row rowFor(const BackendRun& run) {
    const auto stats = computeLatencyStats(run.compiledSamplesMs);
    const auto latency = stats.empty() ? std::optional<double>() : stats.median;
    const auto iqr = stats.empty() ? std::optional<double>() : stats.iqr();
    return {run.name,
            toString(run.status),
            format::seconds(run.compileSeconds),
            format::milliseconds(latency),
            format::milliseconds(iqr),
            format::ratio(speedupOverEager(run)),
            format::bytes(run.peakMemoryBytes),
            accuracyCell(run),
            format::count(run.graphs >= 0 ? std::optional<int>(run.graphs) : std::nullopt),
            format::count(run.graphBreaks >= 0 ? std::optional<int>(run.graphBreaks) : std::nullopt),
            format::count(nodesBeforeFusion(run)),
            format::count(kernelsAfterFusion(run))};
}

} // namespace

std::string comparisonTable(const Report& report) {
    const Row header = {"backend",  "status",   "compile s", "median ms", "IQR ms", "speedup",
                        "peak mem", "max|err|", "graphs",    "breaks",    "nodes",  "kernels"};
    std::vector<Row> rows = {header};
    for (const auto& run : report.backends)
        rows.push_back(rowFor(run));
    std::vector<size_t> widths(header.size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());

    std::ostringstream out;
    out << "model " << (report.modelSpec.empty() ? report.model.name : report.modelSpec) << " on "
        << report.device << ", torch " << report.environment.torch << "\n";
    for (size_t r = 0; r < rows.size(); ++r) {
        for (size_t c = 0; c < rows[r].size(); ++c) {
            const auto& cell = rows[r][c];
            const size_t pad = widths[c] - cell.size();
            // Names and words left-aligned, numbers right-aligned.
            if (c <= 1)
                out << cell << std::string(pad, ' ');
            else
                out << std::string(pad, ' ') << cell;
            out << (c + 1 < rows[r].size() ? "  " : "\n");
        }
    }
    out << "speedup: median eager / median compiled, interleaved in the same process; "
           "nodes: before fusion; kernels: after fusion\n";
    for (const auto& run : report.backends)
        if (run.error)
            out << run.name << ": [" << run.error->code << "] " << run.error->message << "\n";
    return out.str();
}

} // namespace fusescope::cli
