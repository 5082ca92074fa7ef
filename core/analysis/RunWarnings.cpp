#include "RunWarnings.h"

#include "Format.h"
#include "LatencyStats.h"

#include <algorithm>
#include <cmath>

namespace fusescope {

namespace {

std::optional<RunWarning> highVariance(const std::vector<double>& samplesMs, const std::string& series) {
    if (static_cast<int>(samplesMs.size()) < kHighVarianceMinSamples)
        return std::nullopt;
    const auto stats = computeLatencyStats(samplesMs);
    if (!(stats.median > 0) || !(stats.iqr() > kHighVarianceIqrFraction * stats.median))
        return std::nullopt;
    const int percent = static_cast<int>(std::lround(100.0 * stats.iqr() / stats.median));
    return RunWarning{"high_variance", series + " samples vary: IQR " + format::milliseconds(stats.iqr()) +
                                           " ms is " + std::to_string(percent) + " % of the " +
                                           format::milliseconds(stats.median) +
                                           " ms median (over 10 %); small differences are within the noise "
                                           "(docs/measurement.md)"};
}

} // namespace

std::vector<RunWarning> derivedWarnings(const BackendRun& run) {
    std::vector<RunWarning> out;
    if (auto w = highVariance(run.compiledSamplesMs, "compiled"))
        out.push_back(std::move(*w));
    if (auto w = highVariance(run.eagerSamplesMs, "eager"))
        out.push_back(std::move(*w));
    return out;
}

std::vector<RunWarning> runWarnings(const BackendRun& run) {
    std::vector<RunWarning> out = run.warnings;
    for (auto& w : derivedWarnings(run))
        out.push_back(std::move(w));
    return out;
}

bool sampledOnBusyMachine(const BackendRun& run) {
    return std::any_of(run.warnings.begin(), run.warnings.end(),
                       [](const RunWarning& w) { return w.code == "machine_busy"; });
}

} // namespace fusescope
