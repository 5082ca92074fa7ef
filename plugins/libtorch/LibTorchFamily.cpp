#include "LibTorchFamily.h"

#include "capture/WorkerJob.h"
#include "model/JsonUtil.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#ifndef FUSESCOPE_LIBTORCH_RUNNER_BUILD_PATH
#define FUSESCOPE_LIBTORCH_RUNNER_BUILD_PATH ""
#endif
#ifndef FUSESCOPE_RUNNER_TORCH_VERSION
#define FUSESCOPE_RUNNER_TORCH_VERSION ""
#endif

namespace fusescope {

namespace {

constexpr const char* kRunnerVariable = "FUSESCOPE_LIBTORCH_RUNNER";
constexpr const char* kRunnerName = "fusescope-libtorch-runner";
const char* const kBackends[] = {"torchscript", "torchscript_nnc", "aot_inductor"};

bool isExecutableFile(const QString& path) {
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

LibTorchFamily::LibTorchFamily(WorkerConfig config)
    : m_config(std::move(config)) {
}

std::string LibTorchFamily::runnerTorchVersion() {
    return FUSESCOPE_RUNNER_TORCH_VERSION;
}

WorkerConfig LibTorchFamily::runnerConfig() {
    std::lock_guard lock(m_mutex);
    if (m_runnerConfig)
        return *m_runnerConfig;
    WorkerConfig config = m_config;
    const auto python = inspectPython(config.python);
    if (python) {
        const std::string& torch = python.value().torch;
        const std::string release = torch.substr(0, torch.find('+')); // "2.13.0+cpu" -> "2.13.0"
        // Another release's libtorch has another C++ ABI: then the runner keeps its own (its RPATH
        // in a build tree; a packaged one cannot start and says so in the probe).
        if (!python.value().torchLib.empty() && release == runnerTorchVersion()) {
            const QString existing = config.environment.value("LD_LIBRARY_PATH");
            const QString lib = QString::fromStdString(python.value().torchLib);
            config.environment.insert("LD_LIBRARY_PATH", existing.isEmpty() ? lib : lib + ':' + existing);
        }
    }
    m_runnerConfig = config;
    return config;
}

QString LibTorchFamily::locateRunner(const QProcessEnvironment& environment, std::string* why) {
    const QString chosen = environment.value(kRunnerVariable);
    if (!chosen.isEmpty()) {
        if (isExecutableFile(chosen))
            return chosen;
        if (why)
            *why = std::string(kRunnerVariable) + "=" + chosen.toStdString() + " is not an executable file";
        return {};
    }
    QStringList candidates;
    if (QCoreApplication::instance()) {
        const QDir app(QCoreApplication::applicationDirPath());
        candidates << app.filePath(kRunnerName)
                   << QDir::cleanPath(app.filePath("../lib/fusescope/") + kRunnerName);
    }
    if (const QString built = QStringLiteral(FUSESCOPE_LIBTORCH_RUNNER_BUILD_PATH); !built.isEmpty())
        candidates << built;
    for (const auto& candidate : candidates)
        if (isExecutableFile(candidate))
            return candidate;
    if (why)
        *why = std::string("the LibTorch runner ") + kRunnerName + " was not found (looked in " +
               candidates.join(", ").toStdString() + "); build it (target " + kRunnerName + ") or set " +
               kRunnerVariable;
    return {};
}

std::vector<BackendInfo> LibTorchFamily::probe() {
    std::vector<BackendInfo> out;
    std::string why;
    const QString runner = locateRunner(m_config.environment, &why);
    WorkerQueryResult answer;
    if (!runner.isEmpty()) {
        answer = queryWorker(runnerConfig(), {{"type", "list_backends"}, {"id", "probe"}}, 60'000, runner);
        why = answer.error;
    }
    if (runner.isEmpty() || !answer.ok) {
        for (const char* name : kBackends)
            out.push_back({name, id(), false, why, {"cpu", "libtorch"}});
        return out;
    }
    for (const auto& b : answer.backends) {
        BackendInfo info;
        info.name = jsonutil::valueOr<std::string>(b, "name", "");
        info.family = id();
        info.available = jsonutil::valueOr<bool>(b, "available", false);
        info.reason = jsonutil::valueOr<std::string>(b, "reason", "");
        if (!info.available && info.reason.empty())
            info.reason =
                "the LibTorch runner '" + runner.toStdString() + "' lists it unavailable without a reason";
        info.tags = jsonutil::valueOr<std::vector<std::string>>(b, "tags", {});
        out.push_back(std::move(info));
    }
    // A backend the runner did not list is unavailable, never silently gone from the list.
    for (const char* name : kBackends)
        if (std::none_of(out.begin(), out.end(), [&](const BackendInfo& b) { return b.name == name; }))
            out.push_back({name,
                           id(),
                           false,
                           "the LibTorch runner '" + runner.toStdString() + "' did not list it",
                           {"cpu", "libtorch"}});
    return out;
}

bool LibTorchFamily::handles(const std::string& backend) const {
    for (const char* name : kBackends)
        if (backend == name)
            return true;
    return false;
}

std::unique_ptr<BackendJob> LibTorchFamily::createJob(const RunRequest& request, QObject* parent) {
    std::string why;
    QString runner = locateRunner(m_config.environment, &why);
    if (runner.isEmpty()) // WorkerJob then fails to start it: worker_start_failed names the path
        runner = m_config.environment.value(kRunnerVariable, kRunnerName);
    return std::make_unique<WorkerJob>(runnerConfig(), request, id(), parent, runner);
}

} // namespace fusescope
