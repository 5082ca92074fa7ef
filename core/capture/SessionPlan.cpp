#include "SessionPlan.h"

#include "CompareSession.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

namespace fusescope {

const char* settingFlag(Setting setting) {
    switch (setting) {
    case Setting::Backends:
        return "--backends";
    case Setting::Dynamic:
        return "--dynamic";
    case Setting::InductorConfig:
        return "--inductor-config";
    case Setting::Inputs:
        return "--inputs";
    case Setting::Mode:
        return "--mode";
    case Setting::Precision:
        return "--precision";
    case Setting::Shapes:
        return "--shapes";
    case Setting::Assign:
        return "--assign";
    }
    return "";
}

Result<std::vector<std::string>> parseBackendList(const std::string& text) {
    auto entries = splitBackendList(text);
    if (entries.empty())
        return Error{"usage", "the list names no backend"};
    for (const auto& label : entries)
        if (auto request = requestFor(label, RunRequest{}); !request)
            return request.error();
    return entries;
}

Result<RunRequest> baseRequestFor(const CompareSettings& settings, Setting* bad) {
    auto fail = [bad](Setting setting, const Error& error) -> Result<RunRequest> {
        if (bad)
            *bad = setting;
        return error;
    };
    RunRequest base;
    base.model = settings.model;
    base.device = settings.device;
    base.measure = settings.measure;
    base.placement = settings.placement;
    base.timeoutSeconds = settings.timeoutSeconds;
    base.warmCache = settings.warmCache;
    base.captureStages = settings.captureStages;
    base.captureTrace = settings.captureTrace;
    base.roofs = settings.roofs;
    base.bisectBudgetSeconds = settings.bisectBudgetSeconds;
    if (!settings.compileMode.empty())
        base.options["mode"] = settings.compileMode;
    base.options["fullgraph"] = settings.fullgraph;
    if (settings.dynamic != "true" && settings.dynamic != "false" && settings.dynamic != "auto")
        return fail(Setting::Dynamic,
                    Error{"usage", "'" + settings.dynamic + "' is not one of true, false, auto"});
    base.options["dynamic"] =
        settings.dynamic == "auto" ? nlohmann::json(nullptr) : nlohmann::json(settings.dynamic == "true");
    auto inductor = parseInductorConfig(settings.inductorConfig);
    if (!inductor)
        return fail(Setting::InductorConfig, inductor.error());
    base.options["inductor"] = inductor.value();
    if (!settings.inputs.empty()) {
        auto spec = parseInputSpec(settings.inputs);
        if (!spec)
            return fail(Setting::Inputs, spec.error());
        base.inputs = spec.value();
    }
    if (auto problem = checkMode(settings.mode))
        return fail(Setting::Mode, *problem);
    base.workload.mode = settings.mode;
    if (auto problem = checkPrecision(settings.precision))
        return fail(Setting::Precision, *problem);
    base.workload.precision = settings.precision;
    if (!settings.shapes.empty()) {
        auto sets = parseShapeList(settings.shapes);
        if (!sets)
            return fail(Setting::Shapes, sets.error());
        base.workload.shapes = sets.value();
    }
    return base;
}

Result<SessionPlan> planSession(const CompareSettings& settings, Setting* bad) {
    auto fail = [bad](Setting setting, const Error& error) -> Result<SessionPlan> {
        if (bad)
            *bad = setting;
        return error;
    };
    if (settings.backends.empty())
        return fail(Setting::Backends, Error{"usage", "the list names no backend"});
    // The session reads each entry with requestFor (NAME[@MODE][{...}] or mixed[...]).
    for (const auto& label : settings.backends)
        if (auto request = requestFor(label, RunRequest{}); !request)
            return fail(Setting::Backends, request.error());
    auto base = baseRequestFor(settings, bad);
    if (!base)
        return base.error();
    SessionPlan plan;
    plan.backends = settings.backends;
    plan.base = std::move(base.value());
    plan.searchAssignments = settings.searchAssign;
    if (!settings.assign.empty()) {
        auto pairs = parseAssignment(settings.assign);
        if (!pairs)
            return fail(Setting::Assign, pairs.error());
        plan.backends.push_back(mixedLabel(pairs.value()));
    }
    return plan;
}

} // namespace fusescope
