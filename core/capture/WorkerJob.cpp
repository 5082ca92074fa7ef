#include "WorkerJob.h"

#include "codec/Json.h"
#include "codec/MessageCodec.h"
#include "model/ErrorCode.h"

#include <string_view>

namespace fusescope {

WorkerJob::WorkerJob(WorkerConfig config, RunRequest request, std::string family, QObject* parent,
                     QString runner)
    : BackendJob(parent)
    , m_config(std::move(config))
    , m_runner(std::move(runner))
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
    // Never leave an orphan worker, or a process the model forked, behind, whatever the owner does.
    m_process.disconnect(this);
    m_group.kill();
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(2000);
    }
}

void WorkerJob::start() {
    m_run.status = RunStatus::Running;
    m_clock.start();
    const std::string token = newChannelToken();
    m_stream.setChannelToken(token);
    if (m_runner.isEmpty())
        prepareWorkerProcess(m_process, m_config, token);
    else
        prepareRunnerProcess(m_process, m_config, m_runner, token);
    m_process.start();
    m_group.adopt(m_process);
    if (m_request.timeoutSeconds > 0)
        m_timeout.start(static_cast<int>(m_request.timeoutSeconds * 1000));
    const std::string line = codec::dumpJson(codec::encodeRunRequest(m_request, m_request.backend)) + "\n";
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
    // SIGTERM to the worker alone, so it can remove its scratch directory; one stuck in native
    // code may ignore it: SIGKILL to its whole group after a grace period.
    m_process.terminate();
    QTimer::singleShot(2000, this, [this] {
        if (m_process.state() != QProcess::NotRunning) {
            m_group.kill();
            m_process.kill();
        }
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
    m_stderrTail.append(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

void WorkerJob::emitEvents(const std::vector<StreamEvent>& events) {
    for (const auto& ev : events) {
        if (ev.kind == StreamEvent::Kind::Progress && !ev.message.empty())
            m_lastProgress = ev.message;
        emit streamEvent(ev);
    }
}

void WorkerJob::onProcessError(QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
        fail(ErrorCode::WorkerStartFailed, startFailure());
        finalize();
    }
}

std::string WorkerJob::startFailure() const {
    if (!m_runner.isEmpty())
        return "cannot start the LibTorch runner '" + m_runner.toStdString() +
               "': " + m_process.errorString().toStdString() + " (docs/libtorch.md, \"The runner\")";
    return "cannot start the capture worker with Python '" + m_config.python.toStdString() +
           "': " + m_process.errorString().toStdString() + ". Run scripts/setup.sh or set FUSESCOPE_PYTHON.";
}

void WorkerJob::onProcessFinished(int, QProcess::ExitStatus) {
    // Everything the worker wrote before it exited is read before its group is killed.
    readStdout();
    readStderr();
    finalize();
}

void WorkerJob::fail(ErrorCode code, const std::string& message) {
    m_run.status = RunStatus::Failed;
    if (!m_run.error)
        m_run.error = RunError{toString(code), message, {}, {}};
}

void WorkerJob::finalize() {
    if (m_finalized)
        return;
    m_finalized = true;
    m_timeout.stop();
    m_group.kill(); // what the model forked ends with the run, however the run ended
    emitEvents(m_stream.finish());
    m_run.wallSeconds = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0;
    m_run.log = m_stderrTail.text();
    const std::string backend = "backend " + m_request.backend;

    if (m_cancelled) {
        m_run.status = RunStatus::Cancelled;
        m_run.error = RunError{toString(ErrorCode::Cancelled), backend + ": cancelled by the user", {}, {}};
    } else if (m_timedOut && !m_stream.resultSeen()) {
        m_run.status = RunStatus::Failed;
        m_run.error =
            RunError{toString(ErrorCode::WorkerTimeout),
                     backend + ": no result within the " + std::to_string(int(m_request.timeoutSeconds)) +
                         " s timeout; the worker was stopped (raise it with --timeout)" +
                         (m_lastProgress.empty() ? "" : "; it was last at: " + m_lastProgress),
                     {},
                     {}};
    } else if (m_run.error && m_run.error->code == toString(ErrorCode::WorkerStartFailed)) {
        // already described
    } else if (m_stream.fatal() ||
               (!m_stream.handshakeSeen() && m_process.exitStatus() == QProcess::NormalExit &&
                m_process.exitCode() == 0)) {
        const auto& problems = m_stream.problems();
        fail(ErrorCode::ProtocolError,
             backend + ": the worker's output broke the protocol (" +
                 (problems.empty() ? std::string("no handshake") : problems.front()) + ")");
    } else if (!m_stream.resultSeen() && !m_stream.errorSeen()) {
        std::string how;
        const std::string who = m_runner.isEmpty() ? "the worker" : "the LibTorch runner";
        if (m_process.exitStatus() == QProcess::CrashExit) {
            // QProcess hides the signal number; the exit code of a crashed process is meaningless.
            how = who + " crashed (killed by a signal)";
        } else {
            how = who + " exited with code " + std::to_string(m_process.exitCode()) +
                  " before reporting a result";
        }
        const std::string tail = m_stderrTail.lastLines(3);
        fail(ErrorCode::WorkerCrashed,
             backend + ": " + how + (tail.empty() ? "" : "; its last words: " + tail));
    } else if (!m_stream.resultSeen() && m_run.status == RunStatus::Running) {
        m_run.status = RunStatus::Failed;
    }
    const bool protocolBroken = m_run.error && m_run.error->code == toString(ErrorCode::ProtocolError);
    if (!protocolBroken && !m_stream.problems().empty()) {
        // Lines refused without the channel token, most often model code writing into the
        // worker's descriptors: the run stands, and says so.
        const auto& problems = m_stream.problems();
        m_run.notes.push_back(
            std::to_string(m_stream.problemCount()) +
            " line(s) on the worker's protocol channel were refused; the first: " + problems.front());
    }
    if (m_run.status == RunStatus::Running)
        m_run.status = m_run.error ? RunStatus::Failed : RunStatus::Ok;
    emit finished();
}

WorkerQueryResult queryWorker(const WorkerConfig& config, const nlohmann::json& request, int timeoutMs,
                              const QString& runner) {
    WorkerQueryResult out;
    QProcess process;
    const std::string token = newChannelToken();
    if (runner.isEmpty())
        prepareWorkerProcess(process, config, token);
    else
        prepareRunnerProcess(process, config, runner, token);
    process.start();
    ProcessGroup group; // destroyed before the process: kills whatever the worker left
    group.adopt(process);
    if (!process.waitForStarted(timeoutMs)) {
        out.error = runner.isEmpty()
                        ? "cannot start the capture worker with Python '" + config.python.toStdString() +
                              "': " + process.errorString().toStdString()
                        : "cannot start the LibTorch runner '" + runner.toStdString() +
                              "': " + process.errorString().toStdString();
        return out;
    }
    const std::string line = codec::dumpJson(request) + "\n";
    process.write(line.data(), static_cast<qint64>(line.size()));
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        group.kill();
        process.kill();
        process.waitForFinished(2000);
        out.error = std::string(runner.isEmpty() ? "the capture worker" : "the LibTorch runner") +
                    " did not answer within " + std::to_string(timeoutMs / 1000) + " s";
        return out;
    }
    group.kill();
    BackendRun scratch;
    WorkerStream stream(scratch);
    stream.setChannelToken(token);
    const QByteArray bytes = process.readAllStandardOutput();
    stream.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    stream.finish();
    out.environment = stream.environment();
    const bool broken = stream.fatal() || !stream.handshakeSeen();
    if (!broken && scratch.error) {
        out.error = scratch.error->message;
        return out;
    }
    const bool exitedCleanly = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    if (!broken && (exitedCleanly || !stream.backendsList().empty())) {
        out.ok = true;
        out.backends = stream.backendsList();
        return out;
    }
    // What a user needs to act on a silent failure: which program, how it ended, what it said.
    const QByteArray err = process.readAllStandardError();
    const std::string tail =
        lastLinesOf(std::string_view(err.constData(), static_cast<size_t>(err.size())), 3);
    const std::string program = runner.isEmpty()
                                    ? "the capture worker (Python '" + config.python.toStdString() + "')"
                                    : "the LibTorch runner '" + runner.toStdString() + "'";
    const std::string ending = process.exitStatus() == QProcess::CrashExit
                                   ? "was killed by signal " + std::to_string(process.exitCode())
                                   : "exited with status " + std::to_string(process.exitCode());
    out.error = program + " " + ending;
    if (!stream.problems().empty())
        out.error += "; " + stream.problems().front();
    else if (!stream.handshakeSeen())
        out.error += bytes.isEmpty() ? " without writing anything on stdout" : " before its handshake";
    else
        out.error += " without listing its backends";
    out.error += tail.empty() ? "; nothing on stderr" : "; stderr: " + tail;
    return out;
}

} // namespace fusescope
