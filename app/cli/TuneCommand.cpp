// `fusescope-cli tune` (docs/tuning.md): the space for this machine, the race, the answer.
#include "Commands.h"
#include "ComparisonTable.h"
#include "ExitCodes.h"
#include "Registry.h"
#include "SessionLoop.h"
#include "analysis/Format.h"
#include "capture/TuneSetup.h"
#include "codec/Json.h"
#include "codec/ReportCodec.h"

#include <QElapsedTimer>
#include <cstdio>
#include <iostream>

namespace fusescope::cli {

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
    TuneSettings settings{budget.value(), *goal, options.space};
    // A space file is read before anything runs: a bad one is a usage error naming the key.
    if (auto problem = checkTuneSettings(settings)) {
        std::fprintf(stderr, "error: --space: %s\n", problem->message.c_str());
        return kExitUsage;
    }
    // What runs here, from the families themselves (counted in the budget).
    if (!options.quiet && !options.progressJson)
        std::fprintf(stderr, "finding the backends available here...\n");
    auto families = createBackendFamilies();
    auto setup = makeTuner(familyPointers(families), settings, base.value());
    if (!setup) {
        std::fprintf(stderr, "error: --space: %s\n", setup.error().message.c_str());
        return kExitUsage;
    }
    CompareSession session(familyPointers(families));
    const double spent = clock.elapsed() / 1000.0;
    session.setTuner(std::move(setup.value().tuner), settings.budgetSeconds, spent);
    if (!options.quiet && !options.progressJson)
        std::fprintf(stderr,
                     "tuning %s for %s: %zu candidates in the space, %s s budget (%s s spent finding "
                     "backends)\n",
                     options.settings.model.c_str(), options.goal.c_str(), setup.value().candidates,
                     format::seconds(settings.budgetSeconds).c_str(), format::seconds(spent).c_str());
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
