#include "ExportWorker.h"

#include "capture/WorkerProcess.h"
#include "codec/Json.h"
#include "model/ErrorCode.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <csignal>
#include <iostream>
#include <sys/prctl.h>

using nlohmann::json;

namespace fusescope::libtorch {

ExportWorker::ExportWorker(std::string backend, ExportStream::Handlers handlers,
                           std::function<bool()> stopRequested, std::function<void(qint64)> onChild)
    : m_backend(std::move(backend))
    , m_stop(std::move(stopRequested))
    , m_onChild(std::move(onChild))
    , m_process(std::make_unique<QProcess>())
    , m_token(newChannelToken())
    , m_stream(m_token, m_backend == "aot_inductor" ? "aoti_exported" : "torchscript_exported",
               std::move(handlers)) {
}

ExportWorker::~ExportWorker() {
    shutdown();
}

qint64 ExportWorker::pid() const {
    return m_process->state() == QProcess::NotRunning ? 0 : m_process->processId();
}

std::vector<std::string> ExportWorker::notes() const {
    return m_stream.notes();
}

void ExportWorker::readStderr() {
    const QByteArray bytes = m_process->readAllStandardError();
    if (bytes.isEmpty())
        return;
    m_stderr.append(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    std::cerr.write(bytes.constData(), bytes.size()); // the run's log shows the export's too
    std::cerr.flush();
}

// The worker's lines go to an ExportStream rather than a WorkerStream: each message is relayed
// as it came (the C++ side's WorkerStream decodes it once, there).
void ExportWorker::readStdout() {
    const QByteArray bytes = m_process->readAllStandardOutput();
    m_stream.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

void ExportWorker::pump(const std::function<bool()>& done) {
    while (m_process->state() != QProcess::NotRunning && !done() && !m_stop()) {
        m_process->waitForReadyRead(100);
        readStdout();
        readStderr();
    }
    if (m_process->state() == QProcess::NotRunning) {
        m_onChild(0);
        readStdout();
        readStderr();
    }
}

RunError ExportWorker::endedError(const std::string& doing) const {
    const std::string tail = m_stderr.lastLines(3);
    return RunError{toString(ErrorCode::WorkerCrashed),
                    "backend " + m_backend + ": the export worker (Python) ended " + doing +
                        (tail.empty() ? "" : "; its last words: " + tail),
                    {},
                    {}};
}

Exported ExportWorker::exportModel(const json& request, const std::string& outDir) {
    const json exportRequest = {{"type", m_backend == "aot_inductor" ? "export_aoti" : "export_torchscript"},
                                {"id", m_backend},
                                {"model", request.value("model", json())},
                                {"device", "cpu"},
                                {"inputs", request.value("inputs", json())},
                                {"out_dir", outDir},
                                {"placement", request.value("placement", json::object())},
                                {"workload", request.value("workload", json::object())}};
    const QString python = qEnvironmentVariable("FUSESCOPE_PYTHON", QStringLiteral("python3"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(kChannelTokenVariable, QString::fromStdString(m_token));
    m_process->setProcessEnvironment(environment);
    m_process->setProgram(python);
    m_process->setArguments({"-m", "fusescope_worker"});
    // In the runner's process group (the C++ side kills the group when the run ends), and killed
    // if the runner dies first.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_process->start();
    Exported exported;
    if (!m_process->waitForStarted(30'000)) {
        exported.error = RunError{toString(ErrorCode::WorkerStartFailed),
                                  "backend " + m_backend + ": cannot start the capture worker with Python '" +
                                      python.toStdString() +
                                      "' for the export: " + m_process->errorString().toStdString() +
                                      ". Run scripts/setup.sh or set FUSESCOPE_PYTHON.",
                                  {},
                                  {}};
        return exported;
    }
    m_onChild(m_process->processId());
    const std::string line = codec::dumpJson(exportRequest) + "\n";
    m_process->write(line.data(), static_cast<qint64>(line.size()));

    pump([&] { return !m_stream.reply().is_null() || m_stream.exportError().has_value(); });
    if (m_process->state() == QProcess::NotRunning)
        m_stream.finish();
    exported.reply = m_stream.reply();
    if (m_stream.exportError()) { // relayed as it came
        exported.error = m_stream.exportError();
        exported.relayedError = true;
    }
    const std::string who = "backend " + m_backend + ": the export worker (Python)";
    if (exported.error || m_stop()) {
        // the worker said what went wrong, or the run is being stopped
    } else if (!m_stream.handshakeDone()) {
        const auto& problems = m_stream.problems();
        const bool crashed = m_process->exitStatus() == QProcess::CrashExit || m_process->exitCode() != 0;
        if (!problems.empty() || !crashed)
            exported.error =
                RunError{toString(ErrorCode::ProtocolError),
                         who + "'s output broke the protocol (" +
                             (problems.empty() ? std::string("no handshake") : problems.front()) + ")",
                         {},
                         {}};
        else
            exported.error = endedError("before its handshake");
    } else if (exported.reply.is_null()) {
        exported.error = endedError("without exporting the model");
    }
    if (exported.error)
        shutdown();
    return exported;
}

EagerSample ExportWorker::eagerCall(int untimed, bool timed) {
    if (m_process->state() == QProcess::NotRunning)
        throw EagerCallFailed(endedError("before an eager call"));
    (void)m_stream.takeEagerAnswer(); // none is pending; a stray one is not this call's
    const std::string line =
        codec::dumpJson(json{{"type", "eager_call"}, {"untimed", untimed}, {"timed", timed}}) + "\n";
    m_process->write(line.data(), static_cast<qint64>(line.size()));
    m_process->waitForBytesWritten(1000);
    std::optional<EagerSample> answer;
    pump([&] {
        if (!answer)
            answer = m_stream.takeEagerAnswer();
        return answer.has_value() || m_stream.eagerError().has_value();
    });
    if (!answer)
        answer = m_stream.takeEagerAnswer(); // read after the worker ended
    if (m_stream.eagerError())
        throw EagerCallFailed(*m_stream.eagerError());
    if (!answer) {
        if (m_stop())
            throw EagerCallFailed(RunError{toString(ErrorCode::Cancelled), "stopped", {}, {}});
        throw EagerCallFailed(
            endedError("during an eager call, while eager was timed beside the compiled model"));
    }
    const EagerSample sample = *answer;
    if (timed && !sample.ms)
        throw EagerCallFailed(RunError{
            toString(ErrorCode::ProtocolError),
            "backend " + m_backend + ": the export worker answered an eager call without a time (\"ms\")",
            {},
            {}});
    return sample;
}

void ExportWorker::shutdown() {
    if (m_process->state() == QProcess::NotRunning)
        return;
    const std::string line = codec::dumpJson(json{{"type", "shutdown"}}) + "\n";
    m_process->write(line.data(), static_cast<qint64>(line.size()));
    m_process->closeWriteChannel();
    if (!m_process->waitForFinished(10'000)) {
        m_process->kill();
        m_process->waitForFinished(2'000);
    }
    readStdout();
    readStderr();
    m_onChild(0);
}

} // namespace fusescope::libtorch
