#include "LibTorchJob.h"

#include "AotInductorRunner.h"
#include "TorchScriptRunner.h"
#include "capture/StderrTail.h"
#include "capture/WorkerProcess.h"
#include "codec/Json.h"
#include "model/JsonUtil.h"
#include "stream/WorkerStream.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

namespace fusescope {

namespace {

bool isAotInductor(const std::string& backend) {
    return backend == "aot_inductor";
}

} // namespace

struct LibTorchJob::Export {
    QString dir;        // the temporary directory this job created for the export
    std::string method; // TorchScript: script or trace
    nlohmann::json reply;
};

LibTorchJob::LibTorchJob(WorkerConfig config, RunRequest request, QObject* parent)
    : BackendJob(parent)
    , m_config(std::move(config))
    , m_request(std::move(request)) {
    m_run.name = m_request.backend;
    m_run.family = "libtorch";
    m_run.options = m_request.options;
}

LibTorchJob::~LibTorchJob() {
    m_cancel = true;
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void LibTorchJob::start() {
    m_run.status = RunStatus::Running;
    m_clock.start();
    m_thread = QThread::create([this] { work(); });
    m_thread->start();
}

void LibTorchJob::cancel() {
    m_cancel = true;
}

bool LibTorchJob::stopRequested() const {
    return m_cancel || (m_request.timeoutSeconds > 0 && m_clock.elapsed() > m_request.timeoutSeconds * 1000);
}

void LibTorchJob::post(std::function<void()> apply) {
    QMetaObject::invokeMethod(this, std::move(apply), Qt::QueuedConnection);
}

void LibTorchJob::progress(const std::string& phase, double fraction, const std::string& message) {
    StreamEvent ev;
    ev.kind = StreamEvent::Kind::Progress;
    ev.phase = phase;
    ev.fraction = fraction;
    ev.message = message;
    post([this, ev] { emit event(ev); });
}

void LibTorchJob::work() {
    Export exported;
    if (!exportModel(exported))
        return;
    runLibTorch(exported);
}

// Step 1: the worker loads, scripts (TorchScript) or compiles and packages (AOTInductor, its
// stages stream from there) and saves the model, and times eager (docs/libtorch.md).
bool LibTorchJob::exportModel(Export& out) {
    QTemporaryDir dir; // kept only when the export succeeds; the run removes it at its end
    if (m_request.device != "cpu") {
        finish(RunError{"backend_unavailable",
                        "backend " + m_request.backend + ": runs on the CPU only, not on " + m_request.device,
                        {},
                        {}});
        return false;
    }
    // These backends run inference of one fixed input set (docs/libtorch.md): say so rather than
    // silently measuring something other than what the workload asked for.
    const auto& w = m_request.workload;
    std::string unsupported;
    if (w.mode != "inference")
        unsupported = "training mode (they run inference only)";
    else if (w.precision != "fp32")
        unsupported = "precision " + w.precision + " (no autocast in-process; fp32 only)";
    else if (!w.shapes.is_null())
        unsupported = "shape lists (the model is exported for its own example inputs only)";
    if (!unsupported.empty()) {
        finish(RunError{"backend_unavailable",
                        "backend " + m_request.backend +
                            ": the in-process LibTorch backends do not support " + unsupported,
                        {},
                        {}});
        return false;
    }
    const bool aoti = isAotInductor(m_request.backend);
    const std::string replyType = aoti ? "aoti_exported" : "torchscript_exported";
    const nlohmann::json request = {{"type", aoti ? "export_aoti" : "export_torchscript"},
                                    {"id", m_request.backend},
                                    {"model", m_request.model},
                                    {"device", "cpu"},
                                    {"inputs", m_request.inputs},
                                    {"out_dir", dir.path().toStdString()},
                                    {"measure",
                                     {{"warmup", m_request.measure.warmup},
                                      {"min_runs", m_request.measure.minRuns},
                                      {"min_time_s", m_request.measure.minTimeSeconds},
                                      {"max_runs", m_request.measure.maxRuns},
                                      {"max_time_s", m_request.measure.maxTimeSeconds}}}};
    QProcess process;
    const std::string token = newChannelToken();
    prepareWorkerProcess(process, m_config, token);
    process.start();
    ProcessGroup group; // destroyed before the process: what the model forked ends with the export
    group.adopt(process);
    if (!process.waitForStarted(30'000)) {
        finish(RunError{"worker_start_failed",
                        "cannot start the capture worker with Python '" + m_config.python.toStdString() +
                            "': " + process.errorString().toStdString() +
                            ". Run scripts/setup.sh or set FUSESCOPE_PYTHON.",
                        {},
                        {}});
        return false;
    }
    const std::string line = codec::dumpJson(request) + "\n";
    process.write(line.data(), static_cast<qint64>(line.size()));
    process.closeWriteChannel();

    BackendRun scratch;
    WorkerStream stream(scratch);
    stream.setChannelToken(token);
    StderrTail stderrTail;
    auto readStderr = [&] {
        const QByteArray bytes = process.readAllStandardError();
        stderrTail.append(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    };
    size_t stagesTaken = 0, codeTaken = 0;
    auto handle = [&](const std::vector<StreamEvent>& events) {
        for (const auto& ev : events) {
            if (ev.kind == StreamEvent::Kind::Hello) {
                post([this, env = stream.environment()] { m_environment = env; });
            } else if (ev.kind == StreamEvent::Kind::Model) {
                post([this, model = scratch.model, ev] {
                    m_run.model = model;
                    emit event(ev);
                });
            } else if (ev.kind == StreamEvent::Kind::Samples) {
                std::vector<double> ms;
                for (const auto& v : ev.payload.at("ms"))
                    ms.push_back(v.get<double>());
                post([this, ms, ev] {
                    m_run.eagerSamplesMs.insert(m_run.eagerSamplesMs.end(), ms.begin(), ms.end());
                    emit event(ev);
                });
            } else if (ev.kind == StreamEvent::Kind::Stage && stagesTaken < scratch.stages.size()) {
                // feed() applies a whole chunk before returning its events: take stages in order.
                post([this, stage = scratch.stages[stagesTaken++], ev] {
                    m_run.stages.push_back(stage);
                    emit event(ev);
                });
            } else if (ev.kind == StreamEvent::Kind::Code && codeTaken < scratch.code.size()) {
                post([this, code = scratch.code[codeTaken++], ev] {
                    m_run.code.push_back(code);
                    emit event(ev);
                });
            } else if (ev.kind == StreamEvent::Kind::Progress) {
                StreamEvent scaled = ev; // the export is the first 30 % of the run
                scaled.fraction = ev.fraction < 0 ? -1 : ev.fraction * 0.3;
                post([this, scaled] { emit event(scaled); });
            } else if (ev.kind == StreamEvent::Kind::Unknown &&
                       jsonutil::valueOr<std::string>(ev.payload, "type", "") == replyType) {
                out.reply = ev.payload;
            }
        }
    };
    bool stopped = false;
    while (process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(100);
        const QByteArray bytes = process.readAllStandardOutput();
        handle(stream.feed(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size()))));
        readStderr();
        if (stopRequested() && !stopped) {
            stopped = true;
            process.terminate();
            if (!process.waitForFinished(2000)) {
                group.kill();
                process.kill();
            }
        }
    }
    // The worker has exited: read all it wrote, then end whatever it left running.
    const QByteArray rest = process.readAllStandardOutput();
    handle(stream.feed(std::string_view(rest.constData(), static_cast<size_t>(rest.size()))));
    handle(stream.finish());
    readStderr();
    group.kill();
    m_log = stderrTail.text();

    const std::string backend = "backend " + m_request.backend;
    if (stopped) {
        finish(std::nullopt);
        return false;
    }
    if (scratch.error) {
        finish(scratch.error);
        return false;
    }
    if (stream.fatal() || !stream.handshakeSeen()) {
        const auto& problems = stream.problems();
        finish(RunError{"protocol_error",
                        backend + ": the worker's output broke the protocol (" +
                            (problems.empty() ? std::string("no handshake") : problems.front()) + ")",
                        {},
                        {}});
        return false;
    }
    if (out.reply.is_null()) {
        const std::string tail = stderrTail.lastLines(3);
        finish(RunError{"worker_crashed",
                        backend + ": the worker ended without exporting the model" +
                            (tail.empty() ? "" : "; its last words: " + tail),
                        {},
                        {}});
        return false;
    }
    out.method = jsonutil::valueOr<std::string>(out.reply, "method", "");
    out.dir = dir.path();
    dir.setAutoRemove(false);
    return true;
}

// Steps 2-4: load, optimize and capture the stages, time, check accuracy, all in this thread.
void LibTorchJob::runLibTorch(const Export& exported) {
    const bool aoti = isAotInductor(m_request.backend);
    const bool nnc = m_request.backend == "torchscript_nnc";
    auto removeExport = [&] {
        if (!exported.dir.isEmpty())
            QDir(exported.dir).removeRecursively();
    };
    nlohmann::json info = nlohmann::json::object();
    if (!exported.method.empty())
        info["export_method"] = exported.method;
    if (auto it = exported.reply.find("script_error"); it != exported.reply.end() && !it->is_null())
        info["script_error"] = *it;
    std::optional<RunError> failure;
    std::optional<Accuracy> accuracy;
    double compileSeconds = 0, firstCall = 0;
    std::optional<double> captureOverhead;
    PeakMemory peak;
    peak.reason = "the run ended before it"; // replaced by the measure below
    {
        std::unique_ptr<LibTorchRunner> runner;
        if (aoti)
            runner = std::make_unique<AotInductorRunner>();
        else
            runner = std::make_unique<TorchScriptRunner>(nnc ? TorchScriptRunner::Mode::Nnc
                                                             : TorchScriptRunner::Mode::Interpreter);
        progress("compile", 0.3,
                 aoti ? "reading the example inputs of the AOTInductor package"
                      : "loading " + exported.method + "ed TorchScript into LibTorch");
        failure = runner->load(exported.reply);
        if (!failure && !stopRequested()) {
            progress("compile", 0.35,
                     aoti ? "loading the AOTInductor package (AOTIModelPackageLoader), first call"
                          : (nnc ? "profiling runs until NNC fuses" : "first call"));
            failure = runner->compile();
            compileSeconds = runner->compileSeconds();
            firstCall = runner->firstCallSeconds();
            captureOverhead = runner->captureOverheadSeconds();
            for (const auto& stage : runner->stages()) {
                StreamEvent ev;
                ev.kind = StreamEvent::Kind::Stage;
                ev.message = stage.key();
                ev.payload = {{"type", "stage"}, {"key", stage.key()}};
                post([this, stage, ev] {
                    m_run.stages.push_back(stage);
                    emit event(ev);
                });
            }
        }
        if (!failure && !stopRequested()) {
            progress("measure", 0.5,
                     aoti ? "timing the AOTInductor package" : "timing the TorchScript module");
            failure = runner->measure(
                m_request.measure, [this] { return stopRequested(); },
                [this](std::vector<double> ms) {
                    StreamEvent ev;
                    ev.kind = StreamEvent::Kind::Samples;
                    ev.phase = "compiled";
                    ev.payload = {{"type", "samples"}, {"series", "compiled"}, {"ms", ms}};
                    post([this, ms = std::move(ms), ev] {
                        m_run.compiledSamplesMs.insert(m_run.compiledSamplesMs.end(), ms.begin(), ms.end());
                        emit event(ev);
                    });
                });
        }
        if (!failure && !stopRequested()) {
            // One more call, outside the samples: docs/measurement.md's CPU peak (docs/libtorch.md).
            progress("measure", 0.9, "peak memory: one call under LibTorch's memory profiler");
            peak = runner->measurePeakMemory();
            if (peak.bytes)
                info["peak_memory_events"] = peak.events;
        }
        if (!failure && !stopRequested()) {
            progress("accuracy", 0.95, "comparing with the eager reference outputs");
            failure = runner->checkAccuracy();
            accuracy = runner->accuracy();
        }
        info.update(runner->info());
    }
    removeExport();
    const double eagerFirst = jsonutil::valueOr<double>(exported.reply, "eager_first_call_s", 0.0);
    // Eager's peak is the worker's own measure when its export reply carries one.
    std::optional<int64_t> eagerPeak;
    if (auto it = exported.reply.find("eager_peak_memory_bytes");
        it != exported.reply.end() && it->is_number_integer())
        eagerPeak = it->get<int64_t>();
    m_memoryNote = peak.bytes
                       ? "peak memory: " + std::to_string(*peak.bytes) + " bytes (" + peak.method + ", " +
                             std::to_string(peak.events) + " allocator events, one call in-process)"
                       : "peak memory: not measured (" + peak.reason + ")";
    post([this, compileSeconds, firstCall, captureOverhead, accuracy, info, eagerFirst, peak, eagerPeak] {
        if (compileSeconds > 0)
            m_run.compileSeconds = compileSeconds;
        if (firstCall > 0)
            m_run.firstCallSeconds = firstCall;
        m_run.captureOverheadSeconds = captureOverhead;
        m_run.accuracy = accuracy;
        m_run.options["libtorch"] = info;
        m_run.options["libtorch"]["eager_first_call_s"] = eagerFirst;
        m_run.peakMemoryBytes = peak.bytes;
        m_run.memoryMethod = peak.bytes ? peak.method : "";
        if (eagerPeak)
            m_run.eagerPeakMemoryBytes = eagerPeak;
    });
    finish(failure);
}

void LibTorchJob::finish(std::optional<RunError> error) {
    const bool cancelled = m_cancel.load();
    const bool timedOut = !cancelled && stopRequested();
    post([this, error, cancelled, timedOut, log = m_log, note = m_memoryNote] {
        m_run.log = log + "\n[libtorch] " + note + "\n";
        m_run.wallSeconds = m_clock.elapsed() / 1000.0;
        const std::string backend = "backend " + m_request.backend;
        if (cancelled) {
            m_run.status = RunStatus::Cancelled;
            m_run.error = RunError{"cancelled", backend + ": cancelled by the user", {}, {}};
        } else if (timedOut) {
            m_run.status = RunStatus::Failed;
            m_run.error = RunError{"worker_timeout",
                                   backend + ": no result within the " +
                                       std::to_string(int(m_request.timeoutSeconds)) + " s timeout",
                                   {},
                                   {}};
        } else if (error) {
            m_run.error = error;
            m_run.status = error->code == "backend_unavailable" ? RunStatus::Unavailable : RunStatus::Failed;
        } else {
            m_run.status = RunStatus::Ok;
        }
        StreamEvent ev;
        ev.kind = m_run.error ? StreamEvent::Kind::Error : StreamEvent::Kind::Result;
        ev.message = m_run.error ? m_run.error->message : std::string();
        emit event(ev);
        emit finished();
    });
}

} // namespace fusescope
