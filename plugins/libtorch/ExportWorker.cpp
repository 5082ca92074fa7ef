#include "ExportWorker.h"

#include "capture/WorkerProcess.h"
#include "codec/Json.h"
#include "codec/Records.h"
#include "model/ErrorCode.h"
#include "model/JsonUtil.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <csignal>
#include <iostream>
#include <sys/prctl.h>

using nlohmann::json;

namespace fusescope::libtorch {

ExportWorker::ExportWorker(std::string backend, Relay relay, std::function<bool()> stopRequested,
                           std::function<void(qint64)> onChild)
    : m_backend(std::move(backend))
    , m_replyType(m_backend == "aot_inductor" ? "aoti_exported" : "torchscript_exported")
    , m_relay(std::move(relay))
    , m_stop(std::move(stopRequested))
    , m_onChild(std::move(onChild))
    , m_process(std::make_unique<QProcess>()) {
}

ExportWorker::~ExportWorker() {
    shutdown();
}

qint64 ExportWorker::pid() const {
    return m_process->state() == QProcess::NotRunning ? 0 : m_process->processId();
}

void ExportWorker::problem(const std::string& what) {
    if (m_problems.size() < 100)
        m_problems.push_back(what);
    ++m_problemCount;
}

std::vector<std::string> ExportWorker::notes() const {
    if (m_problemCount == 0 || !m_handshake)
        return {};
    return {
        std::to_string(m_problemCount) +
        " line(s) on the export worker's protocol channel were refused; the first: " + m_problems.front()};
}

void ExportWorker::readStderr() {
    const QByteArray bytes = m_process->readAllStandardError();
    if (bytes.isEmpty())
        return;
    m_stderr.append(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    std::cerr.write(bytes.constData(), bytes.size()); // the run's log shows the export's too
    std::cerr.flush();
}

// The worker's lines, read here rather than by a WorkerStream: each message is relayed as it came
// (the C++ side's WorkerStream decodes it once, there).
void ExportWorker::handle(std::string_view bytes) {
    for (const auto& line : m_lines.feed(bytes)) {
        if (line.empty())
            continue;
        if (line.size() <= m_token.size() || line.compare(0, m_token.size(), m_token) != 0 ||
            line[m_token.size()] != ' ') {
            problem("a line without the channel token; ignored");
            continue;
        }
        auto parsed = codec::parseJson(std::string_view(line).substr(m_token.size() + 1));
        if (!parsed || !parsed.value().value.is_object()) {
            problem(parsed ? "a line that is not a JSON object"
                           : "not JSON (" + parsed.error().message + ")");
            continue;
        }
        json message = std::move(parsed.value().value);
        const std::string type = jsonutil::valueOr<std::string>(message, "type", "");
        const bool exported = !m_exported.reply.is_null();
        if (!m_handshake) {
            if (type != "hello") {
                problem("expected the \"hello\" handshake first, got \"" + type + "\"");
                continue;
            }
            auto env = codec::decodeEnvironment(message);
            if (!env) {
                problem("hello: " + env.error().message);
                continue;
            }
            m_handshake = true;
            m_relay(message); // the runner turns it into its own hello (RunnerMain.cpp)
            if (m_helloSent)
                *m_helloSent = true;
        } else if (type == "error") {
            auto error = codec::decodeRunError(message);
            if (!error) {
                problem("error: " + error.error().message);
                continue;
            }
            if (exported) { // an eager call failed: the runner's row says so, with what it has
                if (!m_eagerError)
                    m_eagerError = std::move(error).value();
                continue;
            }
            if (!m_exported.error)
                m_exported.error = std::move(error).value();
            m_relay(message);
            m_exported.relayedError = true;
        } else if (exported) {
            if (type == "eager_ms")
                m_eagerAnswer = std::move(message);
            else if (type != "bye")
                problem("\"" + type + "\" after the export's reply");
        } else if (type == "progress" || type == "model" || type == "stage" || type == "code" ||
                   type == "samples") {
            m_relay(message);
        } else if (type == m_replyType) {
            m_exported.reply = std::move(message);
        }
    }
}

void ExportWorker::pump(const std::function<bool()>& done) {
    while (m_process->state() != QProcess::NotRunning && !done() && !m_stop()) {
        m_process->waitForReadyRead(100);
        const QByteArray bytes = m_process->readAllStandardOutput();
        handle(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
        readStderr();
    }
    if (m_process->state() == QProcess::NotRunning) {
        m_onChild(0);
        const QByteArray rest = m_process->readAllStandardOutput();
        handle(std::string_view(rest.constData(), static_cast<size_t>(rest.size())));
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

Exported ExportWorker::exportModel(const json& request, const std::string& outDir, bool& helloSent) {
    m_helloSent = &helloSent;
    const json exportRequest = {{"type", m_backend == "aot_inductor" ? "export_aoti" : "export_torchscript"},
                                {"id", m_backend},
                                {"model", request.value("model", json())},
                                {"device", "cpu"},
                                {"inputs", request.value("inputs", json())},
                                {"out_dir", outDir},
                                {"placement", request.value("placement", json::object())}};
    const QString python = qEnvironmentVariable("FUSESCOPE_PYTHON", QStringLiteral("python3"));
    m_token = newChannelToken();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(kChannelTokenVariable, QString::fromStdString(m_token));
    m_process->setProcessEnvironment(environment);
    m_process->setProgram(python);
    m_process->setArguments({"-m", "fusescope_worker"});
    // In the runner's process group (the C++ side kills the group when the run ends), and killed
    // if the runner dies first.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_process->start();
    if (!m_process->waitForStarted(30'000)) {
        m_exported.error = RunError{
            toString(ErrorCode::WorkerStartFailed),
            "backend " + m_backend + ": cannot start the capture worker with Python '" +
                python.toStdString() + "' for the export: " + m_process->errorString().toStdString() +
                ". Run scripts/setup.sh or set FUSESCOPE_PYTHON.",
            {},
            {}};
        return m_exported;
    }
    m_onChild(m_process->processId());
    const std::string line = codec::dumpJson(exportRequest) + "\n";
    m_process->write(line.data(), static_cast<qint64>(line.size()));

    pump([&] { return !m_exported.reply.is_null() || m_exported.error.has_value(); });
    const bool ended = m_process->state() == QProcess::NotRunning;
    if (ended && !m_lines.pending().empty())
        problem("the stream ended inside a line (truncated output)");
    const std::string who = "backend " + m_backend + ": the export worker (Python)";
    if (m_exported.error || m_stop()) {
        // the worker said what went wrong, or the run is being stopped
    } else if (!m_handshake) {
        const bool crashed = m_process->exitStatus() == QProcess::CrashExit || m_process->exitCode() != 0;
        if (!m_problems.empty() || !crashed)
            m_exported.error =
                RunError{toString(ErrorCode::ProtocolError),
                         who + "'s output broke the protocol (" +
                             (m_problems.empty() ? std::string("no handshake") : m_problems.front()) + ")",
                         {},
                         {}};
        else
            m_exported.error = endedError("before its handshake");
    } else if (m_exported.reply.is_null()) {
        m_exported.error = endedError("without exporting the model");
    }
    if (m_exported.error)
        shutdown();
    return m_exported;
}

EagerSample ExportWorker::eagerCall(int untimed, bool timed) {
    if (m_process->state() == QProcess::NotRunning)
        throw EagerCallFailed(endedError("before an eager call"));
    m_eagerAnswer.reset();
    const std::string line =
        codec::dumpJson(json{{"type", "eager_call"}, {"untimed", untimed}, {"timed", timed}}) + "\n";
    m_process->write(line.data(), static_cast<qint64>(line.size()));
    m_process->waitForBytesWritten(1000);
    pump([&] { return m_eagerAnswer.has_value() || m_eagerError.has_value(); });
    if (m_eagerError)
        throw EagerCallFailed(*m_eagerError);
    if (!m_eagerAnswer) {
        if (m_stop())
            throw EagerCallFailed(RunError{toString(ErrorCode::Cancelled), "stopped", {}, {}});
        throw EagerCallFailed(
            endedError("during an eager call, while eager was timed beside the compiled model"));
    }
    EagerSample sample;
    if (auto ms = m_eagerAnswer->find("ms");
        ms != m_eagerAnswer->end() && ms->is_number() && ms->get<double>() > 0)
        sample.ms = ms->get<double>();
    if (auto faults = m_eagerAnswer->find("faults");
        faults != m_eagerAnswer->end() && faults->is_number_integer())
        sample.faults = faults->get<int64_t>();
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
    const QByteArray rest = m_process->readAllStandardOutput();
    handle(std::string_view(rest.constData(), static_cast<size_t>(rest.size())));
    readStderr();
    m_onChild(0);
}

} // namespace fusescope::libtorch
