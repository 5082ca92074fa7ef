#include "WorkerConfig.h"

#include "codec/Json.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMutex>
#include <QProcess>
#include <QStandardPaths>
#include <cstdio>

#ifndef FUSESCOPE_DEFAULT_PYTHON
#define FUSESCOPE_DEFAULT_PYTHON "python3"
#endif
#ifndef FUSESCOPE_SOURCE_WORKER_DIR
#define FUSESCOPE_SOURCE_WORKER_DIR ""
#endif

namespace fusescope {

namespace {

QMutex g_chosenMutex;
QString g_chosenPython;

QString installedWorkerDir() {
    // An installed FuseScope keeps the worker in <prefix>/share/fusescope/worker.
    const QString appDir = QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    if (appDir.isEmpty())
        return {};
    const QString candidate = QDir(appDir).filePath("../share/fusescope/worker");
    return QFileInfo::exists(candidate + "/fusescope_worker") ? QDir::cleanPath(candidate) : QString();
}

// Run by the interpreter under test: one JSON line after a marker. Reads torch's metadata and
// location without importing it (an import takes seconds); Python 2 fails at the f-string.
constexpr const char* kInspectScript = R"PY(
import sys, json
out = {"python": "%d.%d.%d" % sys.version_info[:3], "ok": sys.version_info >= (3, 10)}
try:
    import importlib.util, importlib.metadata, os
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        out["torch_error"] = "No module named 'torch'"
    else:
        root = os.path.dirname(spec.origin)
        out["torch_lib"] = os.path.join(root, "lib")
        try:
            out["torch"] = importlib.metadata.version("torch")
        except Exception:
            import re
            text = open(os.path.join(root, "version.py")).read()
            out["torch"] = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", text).group(1)
except Exception as exc:
    out["torch_error"] = f"{type(exc).__name__}: {exc}"
print("FUSESCOPE-INSPECT " + json.dumps(out))
)PY";

Error invalid(const QString& path, const std::string& what) {
    return {"python_invalid", "'" + path.toStdString() + "' " + what};
}

// "2.13.0+cpu" -> {2, 13}; {-1, -1} when it does not start with two numbers.
std::pair<int, int> majorMinor(const std::string& version) {
    int major = -1, minor = -1;
    if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2)
        return {-1, -1};
    return {major, minor};
}

} // namespace

void WorkerConfig::setChosenPython(const QString& path) {
    QMutexLocker lock(&g_chosenMutex);
    g_chosenPython = path;
}

QString WorkerConfig::chosenPython() {
    QMutexLocker lock(&g_chosenMutex);
    return g_chosenPython;
}

WorkerConfig WorkerConfig::fromEnvironment() {
    WorkerConfig config;
    config.environment = QProcessEnvironment::systemEnvironment();
    config.python = chosenPython();
    if (config.python.isEmpty())
        config.python =
            config.environment.value("FUSESCOPE_PYTHON", QStringLiteral(FUSESCOPE_DEFAULT_PYTHON));
    config.workerDir = config.environment.value("FUSESCOPE_WORKER_DIR");
    if (config.workerDir.isEmpty()) {
        // An installed binary uses the worker installed with it, even on the machine that built it.
        config.workerDir = installedWorkerDir();
        const QString source = QStringLiteral(FUSESCOPE_SOURCE_WORKER_DIR);
        if (config.workerDir.isEmpty() && !source.isEmpty() && QFileInfo::exists(source))
            config.workerDir = source;
    }
    QString path = config.workerDir;
    const QString existing = config.environment.value("PYTHONPATH");
    if (!existing.isEmpty())
        path += ':' + existing;
    config.environment.insert("PYTHONPATH", path);
    config.environment.insert("PYTHONUNBUFFERED", "1");
    return config;
}

std::string torchTestedRange() {
    return std::to_string(kTorchTestedMin[0]) + "." + std::to_string(kTorchTestedMin[1]) + " to " +
           std::to_string(kTorchTestedMax[0]) + "." + std::to_string(kTorchTestedMax[1]);
}

Result<PythonEnvironment> inspectPython(const QString& path, int timeoutMs) {
    if (path.isEmpty())
        return Error{"python_invalid", "no Python interpreter named (an empty path)"};
    QString program = path;
    if (!path.contains('/')) {
        program = QStandardPaths::findExecutable(path);
        if (program.isEmpty())
            return invalid(path, "is not found on PATH");
    }
    const QFileInfo info(program);
    if (!info.exists())
        return invalid(path, "does not exist");
    if (info.isDir())
        return invalid(path, "is a directory, not a Python interpreter (name its bin/python)");
    if (!info.isExecutable())
        return invalid(path, "is not executable");

    QProcess process;
    process.setProgram(program);
    process.setArguments({"-c", kInspectScript});
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start();
    if (!process.waitForStarted(timeoutMs))
        return invalid(path, "cannot be started: " + process.errorString().toStdString());
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        return invalid(path, "did not answer within " + std::to_string(timeoutMs / 1000) +
                                 " s when asked for its Python and torch versions");
    }
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const qsizetype at = out.lastIndexOf("FUSESCOPE-INSPECT ");
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0 || at < 0) {
        QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
        const qsizetype lastLine = err.lastIndexOf('\n');
        if (lastLine >= 0)
            err = err.mid(lastLine + 1);
        if (process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0)
            return invalid(
                path,
                "is not a Python 3 interpreter (run with -c and a Python script, it printed no answer)");
        return invalid(path,
                       "is not a Python 3 interpreter (running it with -c failed" +
                           (err.isEmpty() ? std::string(")") : ": " + err.left(200).toStdString() + ")"));
    }
    const QString line = out.mid(at + 18).section('\n', 0, 0);
    auto parsed = codec::parseJson(line.toStdString());
    if (!parsed || !parsed.value().value.is_object())
        return invalid(path, "is not a Python 3 interpreter (its answer was not the expected JSON)");
    const nlohmann::json& j = parsed.value().value;
    // Read without throwing: a field of another type reads as empty.
    auto text = [&j](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    PythonEnvironment env;
    env.path = path;
    env.python = text("python");
    const auto ok = j.find("ok");
    if (ok == j.end() || !ok->is_boolean() || !ok->get<bool>())
        return invalid(path, "is Python " + env.python + "; the worker needs Python 3.10 or newer");
    if (j.contains("torch_error"))
        return invalid(path, "(Python " + env.python + ") cannot import torch: " + text("torch_error") +
                                 "; install it there with '" + path.toStdString() + " -m pip install torch'");
    env.torch = text("torch");
    env.torchLib = text("torch_lib");
    const auto version = majorMinor(env.torch);
    const std::pair<int, int> lo{kTorchTestedMin[0], kTorchTestedMin[1]};
    const std::pair<int, int> hi{kTorchTestedMax[0], kTorchTestedMax[1]};
    env.torchTested = version >= lo && version <= hi;
    return env;
}

std::string describe(const PythonEnvironment& env) {
    return env.path.toStdString() + " (Python " + env.python + ", torch " + env.torch + ")";
}

} // namespace fusescope
