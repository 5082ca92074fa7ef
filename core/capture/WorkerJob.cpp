#include "WorkerJob.h"

#include <csignal>
#include <cstring>

namespace fusescope {

namespace {

constexpr size_t kStderrTailBytes = 64 * 1024;

std::string lastLines(const std::string& text, int count) {
    size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == '\r'))
        --pos;
    const size_t end = pos;
    for (int i = 0; i < count && pos > 0; ++i) {
        pos = text.rfind('\n', pos - 1);
        if (pos == std::string::npos) {
            pos = 0;
            break;
        }
    }
    return text.substr(pos == 0 ? 0 : pos + 1, end - (pos == 0 ? 0 : pos + 1));
}

} // namespace

WorkerJob::WorkerJob(WorkerConfig config, RunRequest request, std::string family, QObject* parent)
    : BackendJob(parent)
    , m_config(std::move(config))
    , m_request(std::move(request))
    , m_stream(m_run) {
    m_run.name = m_request.backend;
    m_run.family = std::move(family);
    m_run.options = m_request.options;
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &WorkerJob::onTimeout);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &WorkerJob::readStdout);
    connect(&m_process, &QProcess::readyReadStandardError, this, &WorkerJob::readStderr);
    connect(&m_process, &QProcess::finished, this, &WorkerJob::onProcessFinished);
    connect(&m_process, &QProcess::errorOccurred, this, &WorkerJob::onProcessError);
}

WorkerJob::~WorkerJob() {
    // Never leave an orphan worker behind, whatever the owner does.
    m_process.disconnect(this);
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(2000);
    }
}

void WorkerJob::start() {
    m_run.status = RunStatus::Running;
    m_clock.start();
    m_process.setProcessEnvironment(m_config.environment);
    m_process.setProgram(m_config.python);
    m_process.setArguments({"-m", "fusescope_worker"});
    m_process.start();
    if (m_request.timeoutSeconds > 0)
        m_timeout.start(static_cast<int>(m_request.timeoutSeconds * 1000));
    const std::string line = m_request.toProtocol(m_request.backend).dump() + "\n";
    m_process.write(line.data(), static_cast<qint64>(line.size()));
}

void WorkerJob::cancel() {
    if (m_finalized)
        return;
    m_cancelled = true;
    stopProcess();
}

void WorkerJob::stopProcess() {
    if (m_process.state() == QProcess::NotRunning) {
        finalize();
        return;
    }
    m_process.terminate();
    // A worker stuck in native code may ignore SIGTERM; SIGKILL after a grace period.
    QTimer::singleShot(2000, this, [this] {
        if (m_process.state() != QProcess::NotRunning)
            m_process.kill();
    });
}

void WorkerJob::onTimeout() {
    m_timedOut = true;
    stopProcess();
}

void WorkerJob::readStdout() {
    const QByteArray bytes = m_process.readAllStandardOutput();
    emitEvents(m_stream.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size()))));
}

void WorkerJob::readStderr() {
    const QByteArray bytes = m_process.readAllStandardError();
    m_stderrTail.append(bytes.constData(), static_cast<size_t>(bytes.size()));
    if (m_stderrTail.size() > kStderrTailBytes)
        m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
}

void WorkerJob::emitEvents(const std::vector<StreamEvent>& events) {
    for (const auto& ev : events)
        emit event(ev);
}

void WorkerJob::onProcessError(QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
        fail("worker_start_failed",
             "cannot start the capture worker with Python '" + m_config.python.toStdString() + "': " +
                 m_process.errorString().toStdString() + ". Run scripts/setup.sh or set FUSESCOPE_PYTHON.");
        finalize();
    }
}

void WorkerJob::onProcessFinished(int, QProcess::ExitStatus) {
    readStdout();
    readStderr();
    finalize();
}

void WorkerJob::fail(const std::string& code, const std::string& message) {
    m_run.status = RunStatus::Failed;
    if (!m_run.error)
        m_run.error = RunError{code, message, {}, {}};
}

void WorkerJob::finalize() {
    if (m_finalized)
        return;
    m_finalized = true;
    m_timeout.stop();
    emitEvents(m_stream.finish());
    m_run.wallSeconds = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0;
    m_run.log = m_stderrTail;
    const std::string backend = "backend " + m_request.backend;

    if (m_cancelled) {
        m_run.status = RunStatus::Cancelled;
        m_run.error = RunError{"cancelled", backend + ": cancelled by the user", {}, {}};
    } else if (m_timedOut && !m_stream.resultSeen()) {
        m_run.status = RunStatus::Failed;
        m_run.error =
            RunError{"worker_timeout",
                     backend + ": no result within the " + std::to_string(int(m_request.timeoutSeconds)) +
                         " s timeout; the worker was stopped (raise it with --timeout)",
                     {},
                     {}};
    } else if (m_run.error && m_run.error->code == "worker_start_failed") {
        // already described
    } else if (m_stream.fatal() ||
               (!m_stream.handshakeSeen() && m_process.exitStatus() == QProcess::NormalExit &&
                m_process.exitCode() == 0)) {
        const auto& problems = m_stream.problems();
        fail("protocol_error", backend + ": the worker's output broke the protocol (" +
                                   (problems.empty() ? std::string("no handshake") : problems.front()) + ")");
    } else if (!m_stream.resultSeen() && !m_stream.errorSeen()) {
        std::string how;
        if (m_process.exitStatus() == QProcess::CrashExit) {
            // QProcess hides the signal number; the exit code of a crashed process is meaningless.
            how = "the worker crashed (killed by a signal)";
        } else {
            how = "the worker exited with code " + std::to_string(m_process.exitCode()) +
                  " before reporting a result";
        }
        const std::string tail = lastLines(m_stderrTail, 3);
        fail("worker_crashed", backend + ": " + how + (tail.empty() ? "" : "; its last words: " + tail));
    } else if (!m_stream.resultSeen() && m_run.status == RunStatus::Running) {
        m_run.status = RunStatus::Failed;
    }
    if (m_run.status == RunStatus::Running)
        m_run.status = m_run.error ? RunStatus::Failed : RunStatus::Ok;
    emit finished();
}

WorkerQueryResult queryWorker(const WorkerConfig& config, const nlohmann::json& request, int timeoutMs) {
    WorkerQueryResult out;
    QProcess process;
    process.setProcessEnvironment(config.environment);
    process.start(config.python, {"-m", "fusescope_worker"});
    if (!process.waitForStarted(timeoutMs)) {
        out.error = "cannot start the capture worker with Python '" + config.python.toStdString() +
                    "': " + process.errorString().toStdString();
        return out;
    }
    const std::string line = request.dump() + "\n";
    process.write(line.data(), static_cast<qint64>(line.size()));
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        out.error = "the capture worker did not answer within " + std::to_string(timeoutMs / 1000) + " s";
        return out;
    }
    BackendRun scratch;
    WorkerStream stream(scratch);
    const QByteArray bytes = process.readAllStandardOutput();
    stream.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    stream.finish();
    out.environment = stream.environment();
    if (stream.fatal() || !stream.handshakeSeen()) {
        const QByteArray err = process.readAllStandardError();
        out.error = "the capture worker failed: " +
                    (stream.problems().empty() ? lastLines(err.toStdString(), 3) : stream.problems().front());
        return out;
    }
    if (scratch.error) {
        out.error = scratch.error->message;
        return out;
    }
    out.ok = true;
    out.backends = stream.backendsList();
    return out;
}

} // namespace fusescope
