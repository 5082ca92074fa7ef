// libFuzzer target: bytes -> parseReport, then what `fusescope-cli show` computes from a report
// that parsed (app/cli/ShowCommand.cpp, ComparisonTable.cpp: the summary, every goal's
// recommendation, the per-row statistics), then the report written back as JSON (writeReport's
// to_json + dump). A report file is untrusted input: no exception may escape, nothing may crash.
// The GUI's two-step read of a large report (report/ReportFile.h, DeferredStages: the report
// without its stages, then each backend's stages from its span) must agree with the whole read:
// the same report when that succeeds, a refusal or a named note when it fails.
#include "analysis/Format.h"
#include "analysis/LatencyStats.h"
#include "analysis/Recommendation.h"
#include "analysis/Speedup.h"
#include "analysis/Summary.h"
#include "codec/ReportCodec.h"
#include "codec/StageSpans.h"
#include "report/ReportFile.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

using namespace fusescope;

namespace {

// The per-backend cells of the comparison table and its shape-list section.
void tableCells(const BackendRun& run) {
    const auto stats = computeLatencyStats(run.compiledSamplesMs);
    format::milliseconds(stats.empty() ? std::optional<double>() : stats.median);
    format::milliseconds(stats.empty() ? std::optional<double>() : stats.iqr());
    format::seconds(run.compileSeconds);
    format::ratio(speedupOverEager(run));
    format::bytes(run.peakMemoryBytes);
    if (run.accuracy)
        format::scientific(run.accuracy->maxAbs);
    format::count(nodesBeforeFusion(run));
    format::count(kernelsAfterFusion(run));
    for (const auto& stage : run.stages)
        stageCounts(stage);
    if (run.shapes)
        for (const auto& r : run.shapes->runs)
            for (const auto& p : r.points) {
                computeLatencyStats(p.compiledMs);
                if (const auto speed = pairedSpeedup(p.eagerMs, p.compiledMs))
                    format::ratio(speed->median);
            }
    if (run.training && run.training->gradientAccuracy)
        format::scientific(run.training->gradientAccuracy->maxRel);
}

void twoStepAgrees(const std::string& text, const Result<Report>& whole) {
    const auto spans = codec::findStageSpans(text);
    if (!spans)
        return; // the GUI reads such a file whole
    const auto skeleton = parseReport(codec::withoutSpans(text, *spans), "fuzz");
    if (!skeleton) {
        if (whole)
            std::abort(); // the report without its stages must read when the whole one does
        return;
    }
    const Report two = withDeferredStages(
        skeleton.value(), DeferredStages{std::make_shared<const std::string>(text), *spans, "fuzz"});
    bool named = false;
    for (const auto& note : two.readNotes)
        named = named || note.find("is shown without its graphs") != std::string::npos;
    if (whole ? named || nlohmann::json(two) != nlohmann::json(whole.value()) : !named)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto report = parseReport(text, "fuzz");
    twoStepAgrees(text, report);
    if (!report)
        return 0;
    const Report& r = report.value();
    for (const auto& run : r.backends)
        tableCells(run);
    for (const Goal goal : {Goal::Latency, Goal::Throughput, Goal::Memory, Goal::Compile}) {
        SummaryOptions options;
        options.goal = goal;
        (void)summaryJson(r, options).dump(2);
        (void)toJson(recommend(r, goal, options.recommend)).dump();
    }
    (void)completionOf(r);
    (void)nlohmann::json(r).dump();
    return 0;
}
