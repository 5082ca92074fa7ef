#pragma once

#include "model/Result.h"

#include <QProcessEnvironment>
#include <QString>

namespace fusescope {

// Where the Python interpreter and the worker package are. The interpreter is, first found: the one
// this process chose (setChosenPython: fusescope-cli --python, fusescope --python or the GUI's
// Python setting), FUSESCOPE_PYTHON, then the build's default (the cached virtual environment set
// up by scripts/setup.sh; "python3" in a release build). The worker package is FUSESCOPE_WORKER_DIR,
// else an installed <prefix>/share/fusescope/worker next to the binary, else the source tree's; it
// goes first on the interpreter's PYTHONPATH, so any environment with torch can run it.
struct WorkerConfig {
    QString python;
    QString workerDir;
    QProcessEnvironment environment;

    static WorkerConfig fromEnvironment();

    // The interpreter for every worker this process starts from now on; empty: none chosen.
    static void setChosenPython(const QString& path);
    static QString chosenPython();
};

// A Python environment as inspectPython found it.
struct PythonEnvironment {
    QString path;             // as given
    std::string python;       // its version, "3.11.7"
    std::string torch;        // torch's distribution version, "2.13.0+cpu"
    std::string torchLib;     // torch's lib/ directory (libtorch*.so, for the LibTorch runner)
    bool torchTested = false; // torch inside kTorchTestedRange (docs/worker.md, "Supported torch")
};

// torch releases the worker is tested with, as "major.minor" bounds (docs/worker.md).
inline constexpr int kTorchTestedMin[2] = {2, 13};
inline constexpr int kTorchTestedMax[2] = {2, 14};
std::string torchTestedRange(); // "2.13 to 2.14"

// Checks that `path` is an executable Python interpreter (3.10 or newer) in which torch is
// installed, by running it once with a short script that reads torch's metadata without importing
// it (tens of milliseconds). Errors have code "python_invalid" and name the path and what is wrong:
// missing, a directory, not executable, not a Python, too old, no torch.
Result<PythonEnvironment> inspectPython(const QString& path, int timeoutMs = 30'000);

// One line for people: "/path/bin/python (Python 3.11.7, torch 2.13.0+cpu)".
std::string describe(const PythonEnvironment& env);

} // namespace fusescope
