#pragma once

#include "BackendFamily.h"
#include "analysis/Recommendation.h"
#include "analysis/Tuner.h"
#include "model/Result.h"
#include "model/RunRequest.h"

#include <memory>
#include <string>
#include <vector>

namespace fusescope {

// What a user asks `tune` for (the CLI's options, the window's Tune dialog): docs/tuning.md.
struct TuneSettings {
    double budgetSeconds = 300;
    Goal goal = Goal::Latency;
    std::string spaceFile; // FILE.toml, or empty
};

// The space file checked before anything runs (a usage error naming the file and key), or nullopt.
std::optional<Error> checkTuneSettings(const TuneSettings& settings);

// The tuner for `base`'s model on this machine: the families probed (seconds: it starts a worker),
// the default space for what is available, the space file over it. An error when the space file
// is bad or leaves no candidate.
struct TuneSetup {
    std::unique_ptr<Tuner> tuner;
    size_t candidates = 0;
};
Result<TuneSetup> makeTuner(const std::vector<BackendFamily*>& families, const TuneSettings& settings,
                            const RunRequest& base);

} // namespace fusescope
