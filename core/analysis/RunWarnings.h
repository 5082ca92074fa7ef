#pragma once

#include "model/BackendRun.h"

#include <string>
#include <vector>

namespace fusescope {

// high_variance: a series whose IQR passes this share of its median (torch.utils.benchmark's
// threshold for its own warning). Series of fewer than kHighVarianceMinSamples are not judged.
inline constexpr double kHighVarianceIqrFraction = 0.10;
inline constexpr int kHighVarianceMinSamples = 4;

// Warnings derived from a run's own samples (docs/measurement.md, "Warnings"). Never stored in a
// report: computed from the samples each time, so the report cannot disagree with itself.
std::vector<RunWarning> derivedWarnings(const BackendRun& run);

// What to show next to a run: the worker's stored warnings, then the derived ones.
std::vector<RunWarning> runWarnings(const BackendRun& run);

// Whether the worker saw other processes keep a core busy while this run's samples were taken.
bool sampledOnBusyMachine(const BackendRun& run);

} // namespace fusescope
