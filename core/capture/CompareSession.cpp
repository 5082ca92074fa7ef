#include "CompareSession.h"

#include "MachineCheck.h"
#include "ProvenanceCollect.h"
#include "model/ErrorCode.h"
#include "model/WorkloadText.h"

#include <QTimer>
#include <cmath>
#include <memory>

namespace fusescope {

CompareSession::CompareSession(std::vector<BackendFamily*> families, QObject* parent)
    : QObject(parent)
    , m_families(std::move(families)) {
    qRegisterMetaType<fusescope::StreamEvent>();
    m_budgetTimer.setSingleShot(true);
    connect(&m_budgetTimer, &QTimer::timeout, this, &CompareSession::onBudgetEnded);
}

void CompareSession::setTuner(std::unique_ptr<Tuner> tuner, double budgetSeconds, double spentSeconds) {
    m_tuner = std::move(tuner);
    m_budgetSeconds = budgetSeconds;
    m_spentSeconds = spentSeconds;
}

double CompareSession::elapsedSeconds() const {
    return m_spentSeconds + (m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0);
}

void CompareSession::recordTuning() {
    if (!m_tuner)
        return;
    std::string stopped;
    if (!m_running)
        stopped = m_cancelled && !m_budgetEnded ? "cancelled"
                  : m_budgetEnded               ? "budget"
                  : m_modelBroken               ? "model_error"
                                                : m_tuner->stoppedBy();
    m_report.tuning = m_tuner->outcome(m_report, elapsedSeconds(), m_running ? "running" : stopped);
}

void CompareSession::onBudgetEnded() {
    if (!m_running)
        return;
    // The budget is a promise (docs/tuning.md): the run in progress stops now and is kept as stopped.
    m_budgetEnded = true;
    m_cancelled = true;
    if (m_job)
        m_job->cancel();
}

bool CompareSession::stepTuner(int* index, bool* rerun) {
    if (m_modelBroken)
        return false;
    auto step = m_tuner->next(m_report, elapsedSeconds());
    if (!step)
        return false;
    if (step->row >= 0 && step->row < static_cast<int>(m_report.backends.size())) {
        *index = step->row;
        *rerun = true;
        return true;
    }
    appendRow(step->entry);
    *index = m_nextRow++;
    return true;
}

CompareSession::~CompareSession() = default;

BackendFamily* CompareSession::familyFor(const std::string& backend) const {
    for (auto* family : m_families)
        if (family->handles(backend))
            return family;
    return nullptr;
}

void CompareSession::start(const std::vector<std::string>& backends, const RunRequest& base) {
    m_backends = backends;
    m_base = base;
    m_cancelled = false;
    m_report = Report{};
    m_report.created = utcTimestamp();
    m_report.generator = "FuseScope " FUSESCOPE_VERSION;
    m_report.provenance = collectProvenance();
    m_report.modelSpec = base.model;
    m_report.device = base.device;
    m_report.settings.measure = MeasureRecord::of(base.measure);
    m_report.settings.timeoutSeconds = base.timeoutSeconds;
    m_report.settings.cache = base.warmCache ? "warm" : "cold";
    m_report.settings.options = base.options;
    m_report.settings.placement = base.placement;
    if (!base.workload.isDefault())
        m_report.settings.workload = base.workload;
    m_report.settings.bisectBudgetSeconds = base.bisectBudgetSeconds; // --bisect (docs/accuracy.md)
    m_search.reset();
    m_budgetEnded = false;
    m_modelBroken = false;
    m_nextRow = 0;
    m_clock.start();
    if (m_tuner) {
        m_budgetTimer.start(static_cast<int>(std::max(0.0, m_budgetSeconds - m_spentSeconds) * 1000));
        m_report.settings.cache = "cold, then warm on each revisit"; // docs/tuning.md
    }
    for (const auto& name : backends) {
        BackendRun run;
        run.name = name;
        m_report.backends.push_back(std::move(run));
    }
    m_running = true;
    m_current = -1;
    // Run-wide machine check (MachineCheck.h): /proc now and after a short wait in the event loop,
    // before the first worker starts. Then the first backend, from the event loop, so callers can
    // connect to signals first.
    const auto before = std::make_shared<MachineSnapshot>(readMachineSnapshot());
    const std::vector<int> cpus = base.placement.pin.empty() ? ownAffinity() : base.placement.pin;
    QTimer::singleShot(static_cast<int>(kPreRunWindowSeconds * 1000), this, [this, before, cpus] {
        if (!m_cancelled)
            m_report.warnings = assessWindow(*before, readMachineSnapshot(), cpus,
                                             "in the 0.5 s before the first backend started");
        startNext();
    });
}

const BackendRun* CompareSession::liveRun() const {
    return m_job ? &m_job->run() : nullptr;
}

void CompareSession::startNext() {
    int index = -1;
    bool rerun = false;
    if (!m_cancelled) {
        if (m_nextRow < static_cast<int>(m_backends.size()))
            index = m_nextRow++;
        else if (m_searchWanted && extendWithSearch()) // appended rows: run the first of them
            index = m_nextRow++;
        else if (m_tuner && !stepTuner(&index, &rerun))
            index = -1;
    }
    if (index < 0) {
        for (auto& run : m_report.backends) {
            if (!run.finished()) {
                run.status = RunStatus::Cancelled;
                run.error = RunError{toString(ErrorCode::Cancelled),
                                     "backend " + run.name + ": cancelled before it started",
                                     {},
                                     {}};
            }
        }
        m_current = -1;
        m_currentRound = 0;
        m_running = false;
        m_budgetTimer.stop();
        recordTuning();
        emit finished();
        return;
    }
    m_current = index;
    m_currentRound =
        rerun ? static_cast<int>(std::max<size_t>(1, m_report.backends[index].rounds.size())) + 1 : 1;
    auto parsed = requestFor(m_backends[index], m_base);
    if (parsed && rerun) {
        // Another round of a finished row: a fresh process on warm caches, timing only.
        parsed.value().warmCache = true;
        parsed.value().captureStages = false;
        parsed.value().captureCode = false;
        parsed.value().captureTrace = false;
        parsed.value().bisectBudgetSeconds.reset();
    }
    emit backendStarted(index);
    if (m_cancelled && rerun) {
        // Cancelled by a receiver of backendStarted before the revisit started: the row stays as it was.
        QTimer::singleShot(0, this, &CompareSession::startNext);
        return;
    }
    if (m_cancelled) {
        // Cancelled by a receiver of backendStarted, before its job existed.
        auto& run = m_report.backends[index];
        run.status = RunStatus::Cancelled;
        run.error = RunError{
            toString(ErrorCode::Cancelled), "backend " + run.name + ": cancelled by the user", {}, {}};
        emit backendFinished(index);
        QTimer::singleShot(0, this, &CompareSession::startNext);
        return;
    }
    if (!parsed) {
        auto& run = m_report.backends[index];
        run.status = RunStatus::Failed;
        run.error = RunError{parsed.error().code, parsed.error().message, {}, {}};
        emit backendFinished(index);
        QTimer::singleShot(0, this, &CompareSession::startNext);
        return;
    }
    const RunRequest& request = parsed.value();
    auto* family = familyFor(request.backend);
    if (!family) {
        auto& run = m_report.backends[index];
        run.status = RunStatus::Unavailable;
        run.error = RunError{toString(ErrorCode::BackendUnavailable),
                             "backend " + request.backend + ": no backend family handles it",
                             {},
                             {}};
        emit backendFinished(index);
        QTimer::singleShot(0, this, &CompareSession::startNext);
        return;
    }
    if (auto why = entryOptionsRefused(m_backends[index], *family)) {
        auto& run = m_report.backends[index];
        run.status = RunStatus::Failed;
        run.error = RunError{toString(ErrorCode::BadOption), *why, {}, {}};
        emit backendFinished(index);
        QTimer::singleShot(0, this, &CompareSession::startNext);
        return;
    }
    m_job = family->createJob(request, nullptr);
    connect(m_job.get(), &BackendJob::streamEvent, this,
            [this, index](const StreamEvent& ev) { emit backendEvent(index, ev); });
    connect(m_job.get(), &BackendJob::finished, this, &CompareSession::onJobFinished, Qt::QueuedConnection);
    if (!rerun)
        m_report.backends[index].status = RunStatus::Running;
    m_job->start();
}

void CompareSession::onJobFinished() {
    if (!m_job)
        return;
    const int index = m_current;
    const auto env = m_job->environment();
    if (env.protocolVersion > 0 && m_report.environment.protocolVersion == 0) {
        m_report.environment = env;
        if (m_report.provenance)
            addWorkerEnvironment(*m_report.provenance, env);
    }
    BackendRun run = m_job->takeRun();
    m_job.reset();
    if (m_budgetEnded && run.status == RunStatus::Cancelled && run.error)
        run.error->message = "backend " + m_backends[index] + ": stopped, the tuning budget of " +
                             std::to_string(static_cast<int>(std::lround(m_budgetSeconds))) + " s ended";
    if (m_currentRound > 1) {
        appendRound(m_report.backends[index], run, "warm");
        recordTuning();
        emit backendFinished(index);
        startNext();
        return;
    }
    // The row keeps the label the user asked for (inductor@max-autotune), not the bare backend.
    run.name = m_backends[index];
    if (run.model && m_report.model.name.empty())
        m_report.model = *run.model;
    const bool modelBroken = run.error && isModelError(run.error->code);
    m_report.backends[index] = std::move(run);
    if (m_search)
        m_report.search = m_search->outcome(m_report);
    recordTuning();
    emit backendFinished(index);
    if (modelBroken)
        skipRemainingAfterModelError(index);
    startNext();
}

void CompareSession::appendRow(const std::string& label) {
    m_backends.push_back(label);
    BackendRun run;
    run.name = label;
    m_report.backends.push_back(std::move(run));
    emit backendAdded(static_cast<int>(m_report.backends.size()) - 1);
}

bool CompareSession::extendWithSearch() {
    if (!m_search) {
        // Search over the top-level submodules, with the torch.compile backends the user listed.
        std::vector<std::string> modules, backends, singles;
        for (const auto& mod : m_report.model.modules)
            if (mod.depth == 1)
                modules.push_back(mod.name);
        for (const auto& label : m_backends) {
            // Submodules take NAME or NAME@MODE (docs/workloads.md): entries with {options} stay out.
            if (isMixedLabel(label) || !isAssignableEntry(label))
                continue;
            auto* family = familyFor(parseBackendEntry(label).value().backend);
            if (family && family->id() == "torch_compile") {
                singles.push_back(label);
                if (std::find(backends.begin(), backends.end(), label) == backends.end())
                    backends.push_back(label);
            }
        }
        std::string why;
        if (m_report.model.name.empty())
            why = "the model never loaded, so its submodules are unknown";
        else if (modules.empty())
            why = "model " + m_report.model.name + " has no submodules to assign backends to";
        else if (backends.size() < 2)
            why = "the search needs at least two torch.compile backends in --backends";
        if (!why.empty()) {
            m_report.search.emplace().error = why;
            m_searchWanted = false;
            return false;
        }
        m_search = std::make_unique<AssignmentSearch>(modules, backends, singles);
    }
    const auto labels = m_search->next(m_report);
    m_report.search = m_search->outcome(m_report);
    for (const auto& label : labels)
        appendRow(label);
    return !labels.empty();
}

Result<RunRequest> requestFor(const std::string& label, const RunRequest& base) {
    RunRequest request = base;
    if (isMixedLabel(label)) {
        request.backend = kMixedBackend;
        const auto inner = label.substr(std::string(kMixedBackend).size() + 1,
                                        label.size() - std::string(kMixedBackend).size() - 2);
        auto assign = parseAssignment(inner);
        if (!assign)
            return assign.error();
        request.workload.assign = assign.value();
        return request;
    }
    auto entry = parseBackendEntry(label);
    if (!entry)
        return entry.error();
    request.backend = entry.value().backend;
    request.options = applyEntryOptions(request.options, entry.value());
    if (auto precision = entryPrecision(entry.value()); !precision.empty())
        request.workload.precision = precision;
    return request;
}

std::optional<std::string> entryOptionsRefused(const std::string& label, const BackendFamily& family) {
    if (family.id() == "torch_compile" || isMixedLabel(label))
        return std::nullopt;
    auto entry = parseBackendEntry(label);
    if (!entry)
        return std::nullopt;
    // A precision is the workload's: every family takes it (and refuses one it cannot run itself).
    entry.value().options.erase("precision");
    if (entry.value().mode.empty() && !entry.value().hasOptions())
        return std::nullopt;
    // tvm takes its own options only (tune=TRIALS, tune_time=SECONDS: docs/tvm.md, "Tuning").
    if (family.id() == "tvm" && entry.value().mode.empty() && entry.value().options.size() == 1 &&
        entry.value().options.contains("tvm"))
        return std::nullopt;
    return "backend entry '" + label + "': " + entry.value().backend + " (" + family.id() +
           " family) is not a torch.compile backend and takes no mode or {options}; use '" +
           entry.value().backend + "'";
}

bool isModelError(const std::string& code) {
    const auto known = errorCodeFromString(code);
    return known && isModelError(*known);
}

void CompareSession::skipRemainingAfterModelError(int failedIndex) {
    // The model is loaded the same way for every backend: once it failed to load, every other
    // backend would fail identically, each after a Python start-up. Record that instead.
    const auto& cause = *m_report.backends[failedIndex].error;
    for (size_t i = failedIndex + 1; i < m_report.backends.size(); ++i) {
        auto& run = m_report.backends[i];
        run.status = RunStatus::Failed;
        run.error = RunError{cause.code,
                             "backend " + run.name + ": not run, the model failed in backend " +
                                 m_report.backends[failedIndex].name + "'s run: " + cause.message,
                             cause.file,
                             {}};
        emit backendFinished(static_cast<int>(i));
    }
    m_nextRow = static_cast<int>(m_report.backends.size());
    m_modelBroken = true; // the tuner would only meet the same error again
}

void CompareSession::cancel() {
    if (!m_running)
        return;
    m_cancelled = true;
    if (m_job)
        m_job->cancel();
}

} // namespace fusescope
