#include "WorkerConfig.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#ifndef FUSESCOPE_DEFAULT_PYTHON
#define FUSESCOPE_DEFAULT_PYTHON "python3"
#endif
#ifndef FUSESCOPE_SOURCE_WORKER_DIR
#define FUSESCOPE_SOURCE_WORKER_DIR ""
#endif

namespace fusescope {

namespace {

QString installedWorkerDir() {
    // An installed FuseScope keeps the worker in <prefix>/share/fusescope/worker.
    const QString appDir = QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    if (appDir.isEmpty())
        return {};
    const QString candidate = QDir(appDir).filePath("../share/fusescope/worker");
    return QFileInfo::exists(candidate + "/fusescope_worker") ? QDir::cleanPath(candidate) : QString();
}

} // namespace

WorkerConfig WorkerConfig::fromEnvironment() {
    WorkerConfig config;
    config.environment = QProcessEnvironment::systemEnvironment();
    config.python = config.environment.value("FUSESCOPE_PYTHON", QStringLiteral(FUSESCOPE_DEFAULT_PYTHON));
    config.workerDir = config.environment.value("FUSESCOPE_WORKER_DIR");
    if (config.workerDir.isEmpty()) {
        const QString source = QStringLiteral(FUSESCOPE_SOURCE_WORKER_DIR);
        config.workerDir = !source.isEmpty() && QFileInfo::exists(source) ? source : installedWorkerDir();
    }
    QString path = config.workerDir;
    const QString existing = config.environment.value("PYTHONPATH");
    if (!existing.isEmpty())
        path += ':' + existing;
    config.environment.insert("PYTHONPATH", path);
    config.environment.insert("PYTHONUNBUFFERED", "1");
    return config;
}

} // namespace fusescope
