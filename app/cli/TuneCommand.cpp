// `fusescope-cli tune` (docs/tuning.md): the space for this machine, the race, the answer.
#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "Registry.h"
#include "SessionLoop.h"
#include "analysis/Format.h"
#include "analysis/Tuner.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"

#include <QElapsedTimer>
#include <QFile>
#include <cstdio>
#include <iostream>

namespace fusescope::cli {

namespace {

bool cpuHasAvx512() {
    QFile cpuinfo("/proc/cpuinfo");
    if (!cpuinfo.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : cpuinfo.readAll().split('\n'))
        if (line.startsWith("flags"))
            return line.contains(" avx512f");
    return false;
}

} // namespace

int runTune(const TuneOptions& options) {
    QElapsedTimer clock;
    clock.start();
    auto budget = parseTuneBudget(options.budget);
    if (!budget) {
        std::fprintf(stderr, "error: --budget: %s\n", budget.error().message.c_str());
        return kExitUsage;
    }
    const auto goal = goalFromString(options.goal);
    if (!goal) {
        std::fprintf(stderr, "error: --goal: '%s' is not one of latency, throughput, memory, compile\n",
                     options.goal.c_str());
        return kExitUsage;
    }
    Setting bad = Setting::Backends;
    auto base = baseRequestFor(options.settings, &bad);
    if (!base) {
        std::fprintf(stderr, "error: %s: %s\n", settingFlag(bad), base.error().message.c_str());
        return kExitUsage;
    }
    // A space file is read before anything runs: a bad one is a usage error naming the key.
    TuneMachine machine{options.settings.device, options.settings.device == "cpu" && cpuHasAvx512(),
                        options.settings.mode == "training"};
    if (!options.space.empty()) {
        auto checked = applyTuneSpaceFile(TuneDimensions{}, options.space);
        if (!checked) {
            std::fprintf(stderr, "error: --space: %s\n", checked.error().message.c_str());
            return kExitUsage;
        }
    }

    // What runs here, from the families themselves (counted in the budget).
    if (!options.quiet && !options.progressJson)
        std::fprintf(stderr, "finding the backends available here...\n");
    auto families = createBackendFamilies();
    std::vector<BackendChoice> choices;
    for (auto& family : families)
        for (auto& b : family->probe())
            choices.push_back({b.name, b.family, b.available, b.reason, b.tags});
    auto dims = defaultTuneDimensions(choices, machine);
    if (!options.space.empty())
        dims = applyTuneSpaceFile(std::move(dims), options.space).value();
    const auto space = expandTuneSpace(dims);
    if (space.empty()) {
        std::fprintf(stderr, "error: --space: the space has no candidates (no backend left to race)\n");
        return kExitUsage;
    }

    CompareSession session(familyPointers(families));
    const double spent = clock.elapsed() / 1000.0;
    session.setTuner(
        std::make_unique<Tuner>(space, *goal, budget.value(), dims.advice, dims.maxRounds, dims.notes),
        budget.value(), spent);
    if (!options.quiet && !options.progressJson)
        std::fprintf(stderr,
                     "tuning %s for %s: %zu candidates in the space, %s s budget (%s s spent finding "
                     "backends)\n",
                     options.settings.model.c_str(), options.goal.c_str(), space.size(),
                     format::seconds(budget.value()).c_str(), format::seconds(spent).c_str());
    const bool saved =
        runSessionLoop(session, {}, base.value(), {options.out, options.quiet, options.progressJson});
    const Report& report = session.report();
    const TuneOutcome outcome = report.tuning.value_or(TuneOutcome{});
    if (options.json)
        std::cout << codec::dumpJson(nlohmann::json{{"tuning", outcome}}, 2) << std::endl;
    else
        std::cout << tuningTable(outcome);
    if (!saved) {
        std::fprintf(stderr, "error: the report was not saved to %s\n", options.out.c_str());
        return kExitError;
    }
    if (outcome.stoppedBy == "cancelled")
        return kExitCancelled;
    return outcome.best ? kExitOk : kExitAllFailed;
}

} // namespace fusescope::cli
