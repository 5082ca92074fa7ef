#pragma once

#include "BackendFamily.h"
#include "StderrTail.h"
#include "WorkerConfig.h"
#include "WorkerProcess.h"
#include "model/ErrorCode.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTimer>
#include <memory>

namespace fusescope {

// Runs one request in a fresh Python capture worker process (docs/protocol.md) and turns whatever
// happens to it (a result, an error line, a crash, a hang past the timeout, a cancel) into a
// finished BackendRun with a named error. One process per backend run, in a process group of its
// own that is killed when the run ends: a backend that crashes, leaks or forks never reaches the
// next one. `runner`, when given, is an executable that speaks the same protocol in place of the
// Python worker (the LibTorch runner, docs/libtorch.md).
class WorkerJob : public BackendJob {
    Q_OBJECT
public:
    WorkerJob(WorkerConfig config, RunRequest request, std::string family, QObject* parent = nullptr,
              QString runner = {});
    ~WorkerJob() override;

    void start() override;
    void cancel() override;
    const BackendRun& run() const override { return m_run; }
    BackendRun takeRun() override { return std::move(m_run); }
    WorkerEnvironment environment() const override { return m_stream.environment(); }

private:
    void readStdout();
    void readStderr();
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void onTimeout();
    void stopProcess();
    void finalize();
    void fail(ErrorCode code, const std::string& message);
    void emitEvents(const std::vector<StreamEvent>& events);
    std::string startFailure() const; // worker_start_failed's message

    WorkerConfig m_config;
    QString m_runner;
    RunRequest m_request;
    BackendRun m_run;
    WorkerStream m_stream;
    QProcess m_process;
    ProcessGroup m_group;
    QTimer m_timeout;
    QElapsedTimer m_clock;
    StderrTail m_stderrTail;
    std::string m_lastProgress; // where a run that timed out was
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_finalized = false;
};

// Runs a short request (list_backends) to completion and returns the worker's stream for reading.
// Blocks: for CLI use and background threads only. `runner` as for WorkerJob.
struct WorkerQueryResult {
    bool ok = false;
    std::string error;
    WorkerEnvironment environment;
    nlohmann::json backends;
};
WorkerQueryResult queryWorker(const WorkerConfig& config, const nlohmann::json& request, int timeoutMs,
                              const QString& runner = {});

} // namespace fusescope
