#pragma once

#include <QProcessEnvironment>
#include <QString>

namespace fusescope {

// Where the Python interpreter and the worker package are. Build-time defaults (the cached virtual
// environment set up by scripts/setup.sh and the source tree) can be overridden with
// FUSESCOPE_PYTHON and FUSESCOPE_WORKER_DIR.
struct WorkerConfig {
    QString python;
    QString workerDir;
    QProcessEnvironment environment;

    static WorkerConfig fromEnvironment();
};

} // namespace fusescope
