#include "ComparisonColumns.h"

#include "Format.h"
#include "LatencyStats.h"
#include "RunWarnings.h"
#include "Speedup.h"
#include "Summary.h"

namespace fusescope {

namespace {

std::optional<int> nonNegative(int v) {
    return v >= 0 ? std::optional<int>(v) : std::nullopt;
}

template <typename T> std::optional<double> number(const std::optional<T>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

std::optional<double> medianMs(const BackendRun& run) {
    const auto stats = computeLatencyStats(run.compiledSamplesMs);
    return stats.empty() ? std::nullopt : std::optional<double>(stats.median);
}

std::optional<double> iqrMs(const BackendRun& run) {
    const auto stats = computeLatencyStats(run.compiledSamplesMs);
    return stats.empty() ? std::nullopt : std::optional<double>(stats.iqr());
}

// "1.79-1.85x": the interval the recommendation ranks on (Speedup.h); "-" under 6 pairs.
std::string speedupCiText(const BackendRun& run) {
    const auto s = pairedSpeedup(run);
    if (!s || !s->ci95)
        return "-";
    return format::ratio(s->ci95->lo).substr(0, format::ratio(s->ci95->lo).size() - 1) + "-" +
           format::ratio(s->ci95->hi);
}

std::optional<double> speedupCiHalfWidth(const BackendRun& run) {
    const auto s = pairedSpeedup(run);
    return s && s->ci95 ? std::optional<double>(s->ci95->halfWidthPercent()) : std::nullopt;
}

std::string plural(size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A note changes how to read the row (e.g. reduce-overhead on cpu had no CUDA graphs); a warning
// says the numbers are less trustworthy (machine_busy, high_variance). Both are listed in full
// under the CLI table and in the GUI's tooltip; the cell counts them.
std::string statusText(const BackendRun& run) {
    std::string counts;
    if (!run.notes.empty())
        counts = plural(run.notes.size(), "note");
    if (const auto warnings = runWarnings(run).size(); warnings > 0)
        counts += (counts.empty() ? "" : ", ") + plural(warnings, "warning");
    const std::string status = toString(run.status);
    return counts.empty() ? status : status + " (" + counts + ")";
}

// The status itself where a max abs would say nothing (non-finite outputs, eager disagreeing
// with itself, a run that failed before it could compare).
std::string accuracyText(const BackendRun& run) {
    if (!run.accuracy)
        return "-";
    const std::string status = accuracyStatus(*run.accuracy);
    std::string text =
        status != "pass" && status != "fail_accuracy"
            ? status
            : format::scientific(run.accuracy->maxAbs) + (run.accuracy->pass ? " pass" : " FAIL");
    return gradientsFailed(run) ? text + " grad FAIL" : text;
}

const std::vector<ComparisonColumn> kColumns = {
    {column::Backend, "backend", "Backend", "backend", "torch.compile backend", false,
     [](const BackendRun& r) { return r.name; }, [](const BackendRun&) { return std::optional<double>(); }},
    {column::Status, "status", "Status", "status",
     "ok, failed, unavailable, or the phase of a run in progress", false, statusText,
     [](const BackendRun&) { return std::optional<double>(); }},
    {column::CompileSeconds, "compile_s", "Compile (s)", "compile s",
     "First call minus capture overhead: cold compile unless --warm-cache", true,
     [](const BackendRun& r) { return format::seconds(r.compileSeconds); },
     [](const BackendRun& r) { return r.compileSeconds; }},
    {column::MedianMs, "median_ms", "Median (ms)", "median ms", "Median latency of the compiled model", true,
     [](const BackendRun& r) { return format::milliseconds(medianMs(r)); }, medianMs},
    {column::IqrMs, "iqr_ms", "IQR (ms)", "IQR ms", "Interquartile range of the compiled latency samples",
     true, [](const BackendRun& r) { return format::milliseconds(iqrMs(r)); }, iqrMs},
    {column::Speedup, "speedup", "Speedup", "speedup",
     "Median of the paired ratios eager / compiled (each pair two neighbouring calls; LibTorch rows: eager "
     "from the export worker, docs/libtorch.md)",
     true, [](const BackendRun& r) { return format::ratio(speedupOverEager(r)); },
     [](const BackendRun& r) { return speedupOverEager(r); }},
    {column::SpeedupCi, "speedup_ci95", "Speedup 95% CI", "95% CI",
     "95 % confidence interval of the median speedup (order statistics, docs/measurement.md); sorted by its "
     "half-width. Backends are ranked only when these intervals do not overlap",
     true, speedupCiText, speedupCiHalfWidth},
    {column::PeakMemory, "peak_memory", "Peak memory", "peak mem",
     "Peak allocator bytes during one forward (see docs/measurement.md)", true,
     [](const BackendRun& r) { return format::bytes(r.peakMemoryBytes); },
     [](const BackendRun& r) { return number(r.peakMemoryBytes); }},
    {column::Accuracy, "accuracy", "Max |err|", "max|err|",
     "Max absolute error against eager, and the pass/fail verdict (grad FAIL: the gradients failed)", true,
     accuracyText,
     [](const BackendRun& r) { return r.accuracy ? r.accuracy->maxAbs : std::optional<double>(); }},
    {column::Graphs, "graphs", "Graphs", "graphs", "Dynamo graphs", true,
     [](const BackendRun& r) { return format::count(nonNegative(r.graphs)); },
     [](const BackendRun& r) { return number(nonNegative(r.graphs)); }},
    {column::GraphBreaks, "breaks", "Breaks", "breaks", "Graph breaks", true,
     [](const BackendRun& r) { return format::count(nonNegative(r.graphBreaks)); },
     [](const BackendRun& r) { return number(nonNegative(r.graphBreaks)); }},
    {column::NodesBeforeFusion, "nodes", "Nodes", "nodes", "Compute nodes before the backend's fusion passes",
     true, [](const BackendRun& r) { return format::count(nodesBeforeFusion(r)); },
     [](const BackendRun& r) { return number(nodesBeforeFusion(r)); }},
    {column::KernelsAfterFusion, "kernels", "Kernels", "kernels", "Kernels after fusion", true,
     [](const BackendRun& r) { return format::count(kernelsAfterFusion(r)); },
     [](const BackendRun& r) { return number(kernelsAfterFusion(r)); }},
};

} // namespace

bool gradientsFailed(const BackendRun& run) {
    return run.training && run.training->gradientAccuracy && !run.training->gradientAccuracy->pass;
}

const std::vector<ComparisonColumn>& comparisonColumns() {
    return kColumns;
}

const ComparisonColumn& comparisonColumn(column::Id id) {
    return kColumns.at(static_cast<size_t>(id));
}

std::string cellText(const BackendRun& run, column::Id id) {
    return comparisonColumn(id).text(run);
}

std::vector<std::string> rowCells(const BackendRun& run) {
    std::vector<std::string> cells;
    cells.reserve(kColumns.size());
    for (const auto& c : kColumns)
        cells.push_back(c.text(run));
    return cells;
}

std::optional<double> cellSortValue(const BackendRun& run, column::Id id) {
    return comparisonColumn(id).sortValue(run);
}

} // namespace fusescope
