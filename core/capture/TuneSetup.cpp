#include "TuneSetup.h"

#include "model/ErrorCode.h"

namespace fusescope {

std::optional<Error> checkTuneSettings(const TuneSettings& settings) {
    if (!(settings.budgetSeconds > 0))
        return Error{toString(ErrorCode::BadOption), "the budget must be more than 0 s"};
    if (settings.spaceFile.empty())
        return std::nullopt;
    auto checked = applyTuneSpaceFile(TuneDimensions{}, settings.spaceFile);
    if (!checked)
        return checked.error();
    return std::nullopt;
}

Result<TuneSetup> makeTuner(const std::vector<BackendFamily*>& families, const TuneSettings& settings,
                            const RunRequest& base) {
    std::vector<BackendChoice> choices;
    for (auto* family : families)
        for (auto& b : family->probe())
            choices.push_back({b.name, b.family, b.available, b.reason, b.tags});
    auto dims = defaultTuneDimensions(choices, tuneMachineHere(base.device, base.workload.isTraining()));
    if (!settings.spaceFile.empty()) {
        auto applied = applyTuneSpaceFile(std::move(dims), settings.spaceFile);
        if (!applied)
            return applied.error();
        dims = std::move(applied).value();
    }
    const auto space = expandTuneSpace(dims);
    if (space.empty())
        return Error{toString(ErrorCode::BadOption), "the space has no candidates (no backend left to race)"};
    TuneSetup setup;
    setup.candidates = space.size();
    setup.tuner = std::make_unique<Tuner>(space, settings.goal, settings.budgetSeconds, dims.advice,
                                          dims.maxRounds, dims.notes);
    setup.tuner->setAssignments(dims.assignments);
    return setup;
}

} // namespace fusescope
