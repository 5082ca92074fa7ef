// fusescope-libtorch-runner: the LibTorch backends (torchscript, torchscript_nnc, aot_inductor)
// in a process of their own (docs/libtorch.md, "The runner"). It speaks the capture worker's
// protocol (docs/protocol.md): WorkerJob starts it as it starts the Python worker, writes one
// request line, and reads hello, progress, model, stage, code, samples, result or error, bye.
// A crash of LibTorch, of a TorchScript module or of an AOTInductor package ends this process
// only: the C++ side names it worker_crashed for that backend's row, and a timeout or cancel
// kills the process group mid-phase.
//
// The model is exported by the Python worker (export_torchscript / export_aoti), started here as
// a child in this process's group with FUSESCOPE_PYTHON (ExportWorker.h); its stage, code and
// model messages are relayed on this runner's channel, and it stays alive to make the eager calls
// that the runner interleaves with its compiled ones.

#include "AotInductorRunner.h"
#include "DeploymentProbe.h"
#include "ExportWorker.h"
#include "LibTorchUtil.h"
#include "TorchScriptRunner.h"
#include "capture/WorkerProcess.h"
#include "codec/Json.h"
#include "codec/Reader.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "model/ErrorCode.h"
#include "model/JsonUtil.h"
#include "model/Quantization.h"
#include "model/RunRequest.h"
#include "stream/WorkerStream.h"

#include <ATen/Parallel.h>
#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <iostream>
#include <malloc.h>
#include <sched.h>
#include <string>
#include <thread>
#include <torch/headeronly/version.h>
#include <unistd.h>

using nlohmann::json;
using namespace fusescope;

namespace {

constexpr const char* kRunnerName = "fusescope-libtorch-runner";
constexpr const char* kFaultVariable = "FUSESCOPE_LIBTORCH_RUNNER_FAULT"; // tests only, see docs
constexpr const char* kCpuOomText[] = {"DefaultCPUAllocator: can't allocate memory",
                                       "DefaultCPUAllocator: not enough memory"};

volatile sig_atomic_t g_terminate = 0;
volatile sig_atomic_t g_child = 0;

void onTerminate(int) {
    g_terminate = 1;
    if (g_child > 0)
        ::kill(static_cast<pid_t>(g_child), SIGTERM); // the export worker removes its scratch files
}

bool stopRequested() {
    return g_terminate != 0;
}

// The protocol channel: the original stdout, moved to a close-on-exec descriptor so that what
// LibTorch, a model or a child prints lands on stderr (docs/protocol.md, "The private channel").
class Channel {
public:
    Channel() {
        const char* token = std::getenv(kChannelTokenVariable);
        if (token)
            m_token = token;
        ::unsetenv(kChannelTokenVariable);
        m_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 100);
        if (m_fd < 0)
            m_fd = STDOUT_FILENO;
        else
            ::dup2(STDERR_FILENO, STDOUT_FILENO);
    }

    void send(const json& message) {
        std::string line = m_token.empty() ? std::string() : m_token + " ";
        line += codec::dumpJson(message);
        line += '\n';
        const char* data = line.data();
        size_t left = line.size();
        while (left > 0) {
            const ssize_t n = ::write(m_fd, data, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return; // the reader is gone; nothing to tell it
            data += n;
            left -= static_cast<size_t>(n);
        }
    }

    void progress(const std::string& phase, double fraction, const std::string& message) {
        send({{"type", "progress"}, {"phase", phase}, {"fraction", fraction}, {"message", message}});
    }

private:
    std::string m_token;
    int m_fd = STDOUT_FILENO;
};

json helloFor(const WorkerEnvironment* exporter) {
    json hello = {{"type", "hello"},
                  {"protocol", kWorkerProtocolName},
                  {"version", kWorkerProtocolVersion},
                  {"worker", kRunnerName},
                  {"python", ""},
                  {"torch", TORCH_VERSION},
                  {"devices", json::array({"cpu"})},
                  {"cuda", nullptr},
                  {"pid", static_cast<int64_t>(::getpid())}};
    if (exporter) { // the Python worker's view of the environment, as a worker run reports it
        hello["worker"] = exporter->worker + " + " + kRunnerName;
        hello["python"] = exporter->python;
        hello["torch"] = exporter->torch;
        hello["devices"] = exporter->devices;
        hello["cuda"] = exporter->cuda;
    }
    return hello;
}

json errorMessage(const std::string& id, const std::string& backend, const RunError& e) {
    return {{"type", "error"}, {"id", id},           {"code", e.code},          {"message", e.message},
            {"file", e.file},  {"backend", backend}, {"traceback", e.traceback}};
}

std::vector<int> affinityOfThisProcess() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                cpus.push_back(cpu);
    return cpus;
}

// Threads and placement as the Python worker applies them (placement.py, docs/measurement.md
// "Threads and placement"): pin every thread of this process, then set ATen's intra-op threads
// (default: one per pinned CPU, else one CPU fewer than this process may use, at least 1). The
// export worker has already refused a bad placement with bad_request.
json applyPlacement(const json& request) {
    const Placement placement = codec::placementFrom(request.value("placement", json()));
    const std::vector<int>& pin = placement.pin;
    if (!pin.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int cpu : pin)
            if (cpu >= 0 && cpu < CPU_SETSIZE)
                CPU_SET(cpu, &set);
        if (DIR* tasks = ::opendir("/proc/self/task")) {
            while (const dirent* entry = ::readdir(tasks))
                if (entry->d_name[0] != '.')
                    ::sched_setaffinity(static_cast<pid_t>(std::atoi(entry->d_name)), sizeof(set), &set);
            ::closedir(tasks);
        }
        ::sched_setaffinity(0, sizeof(set), &set);
    }
    const std::vector<int> affinity = affinityOfThisProcess();
    const int usable = static_cast<int>(affinity.size());
    at::set_num_threads(placement.threads ? *placement.threads
                                          : std::max(pin.empty() ? usable - 1 : usable, 1));
    // The allocator policy as placement.py's apply_malloc sets it: steady fixes glibc's mmap and
    // trim thresholds (32 MiB, 512 MiB), so a call's tensors reuse heap memory.
    std::string malloc = "system";
    if (placement.malloc == "steady")
        malloc = ::mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1 &&
                         ::mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024) == 1
                     ? "steady"
                     : "system (glibc refused mallopt)";
    RunPlacement applied; // echoed as the Python worker echoes it (BackendRun's to_json)
    applied.threads = at::get_num_threads();
    applied.threadsRequested = placement.threads;
    applied.affinity = affinity;
    applied.pin = pin;
    applied.malloc = malloc;
    return applied;
}

// Test hook (docs/libtorch.md, "Testing the process boundary"): FUSESCOPE_LIBTORCH_RUNNER_FAULT
// = abort or hang (every backend), or BACKEND=abort|hang,... makes the runner do that once the
// compiled samples begin, as a crash or a stuck call inside LibTorch would.
void injectFault(const std::string& backend) {
    const char* spec = std::getenv(kFaultVariable);
    if (!spec)
        return;
    std::string what;
    const std::string text = spec;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        const size_t eq = item.find('=');
        if (eq == std::string::npos)
            what = item;
        else if (item.substr(0, eq) == backend)
            what = item.substr(eq + 1);
        start = end + 1;
    }
    if (what == "abort") {
        std::cerr << kRunnerName << ": " << kFaultVariable << ": aborting in the measure phase of " << backend
                  << std::endl;
        std::abort();
    }
    if (what == "hang") {
        std::cerr << kRunnerName << ": " << kFaultVariable << ": hanging in the measure phase of " << backend
                  << std::endl;
        for (;;)
            std::this_thread::sleep_for(std::chrono::seconds(1));
    }
}

bool isCpuOom(const std::string& message) {
    for (const char* text : kCpuOomText)
        if (message.find(text) != std::string::npos)
            return true;
    return false;
}

// Step 1 (docs/libtorch.md): the export worker's messages on this runner's channel (its hello,
// decoded by the ExportStream, becomes this runner's through helloFor); its progress is scaled
// into the first 30 % of the run.
void relayExport(Channel& channel, json message) {
    const std::string type = jsonutil::valueOr<std::string>(message, "type", "");
    if (type == "progress")
        scaleExportProgress(message, 0.3);
    channel.send(message);
}

// The verdict when the compiled model did not compile or run (accuracy.py failed_to_run).
Accuracy failedToRun(const RunError& error, const std::string& precision) {
    Accuracy acc;
    acc.status = isCpuOom(error.message) ? "OOM" : "fail_to_run";
    acc.reason = error.message;
    acc.precision = precision;
    return acc;
}

int runBackend(Channel& channel, const json& request) {
    const std::string id = jsonutil::valueOr<std::string>(request, "id", "");
    const std::string backend = jsonutil::valueOr<std::string>(request, "backend", "");
    const bool aoti = backend == "aot_inductor";
    const bool nnc = backend == "torchscript_nnc";
    auto refuse = [&](ErrorCode code, const std::string& message) {
        channel.send(errorMessage(id, backend, RunError{toString(code), message, {}, {}}));
        channel.send({{"type", "bye"}});
        return 0;
    };
    if (backend != "torchscript" && !nnc && !aoti) {
        channel.send(helloFor(nullptr));
        return refuse(ErrorCode::BackendUnavailable, "backend " + backend +
                                                         ": not a LibTorch backend (torchscript, "
                                                         "torchscript_nnc, aot_inductor)");
    }
    const std::string device = jsonutil::valueOr<std::string>(request, "device", "cpu");
    const json workload = request.value("workload", json::object());
    std::string unsupported;
    if (device != "cpu")
        unsupported = "the device " + device + " (they run on the CPU only)";
    else if (jsonutil::valueOr<std::string>(workload, "mode", "inference") != "inference")
        unsupported = "training mode (they run inference only)";
    else if (const auto precision = jsonutil::valueOr<std::string>(workload, "precision", "fp32");
             precision != "fp32" && !(aoti && isQuantizedPrecision(precision)))
        // aot_inductor exports torchao's quantized copy (export_aoti.py, docs/quantization.md).
        unsupported = "precision " + precision +
                      (isQuantizedPrecision(precision)
                           ? " (TorchScript scripts the fp32 model; the int8 precisions run through the "
                             "torch.compile backends and aot_inductor, docs/quantization.md)"
                           : " (no autocast; fp32 only)");
    else if (workload.contains("shapes") && !workload["shapes"].is_null())
        unsupported = "shape lists (the model is exported for its own example inputs only)";
    if (!unsupported.empty()) {
        channel.send(helloFor(nullptr));
        return refuse(ErrorCode::BackendUnavailable,
                      "backend " + backend + ": the LibTorch backends do not support " + unsupported);
    }

    QTemporaryDir dir; // the export's files; removed as soon as LibTorch has loaded them
    ExportStream::Handlers handlers;
    handlers.hello = [&](const WorkerEnvironment& env) { channel.send(helloFor(&env)); };
    handlers.relay = [&](const json& message) { relayExport(channel, message); };
    libtorch::ExportWorker exporter(backend, std::move(handlers), stopRequested,
                                    [](qint64 pid) { g_child = static_cast<sig_atomic_t>(pid); });
    const libtorch::Exported exported = exporter.exportModel(request, dir.path().toStdString());
    if (!exporter.handshakeDone())
        channel.send(helloFor(nullptr));
    if (stopRequested())
        return 143;
    if (exported.error) {
        if (!exported.relayedError)
            channel.send(errorMessage(id, backend, *exported.error));
        channel.send({{"type", "bye"}});
        return 0;
    }

    // Steps 2-5: load, optimize (stages), time, peak memory, accuracy, in this process.
    const json placement = applyPlacement(request);
    const json& reply = exported.reply;
    json info = json::object();
    if (auto method = jsonutil::valueOr<std::string>(reply, "method", ""); !method.empty())
        info["export_method"] = method;
    if (auto it = reply.find("script_error"); it != reply.end() && !it->is_null())
        info["script_error"] = *it;
    std::optional<RunError> failure;
    std::optional<Accuracy> accuracy;
    std::optional<double> compileSeconds, firstCall, captureOverhead;
    PeakMemory peak;
    peak.reason = "the run ended before it";
    json deployment; // null until measured: the artifact loaded in fresh processes (DeploymentProbe)
    std::optional<PairedTimingResult> timing;
    const MeasureSettings measure = codec::measureSettingsFrom(request.value("measure", json()));
    {
        std::unique_ptr<LibTorchRunner> runner;
        if (aoti)
            runner = std::make_unique<AotInductorRunner>();
        else
            runner = std::make_unique<TorchScriptRunner>(nnc ? TorchScriptRunner::Mode::Nnc
                                                             : TorchScriptRunner::Mode::Interpreter);
        const std::string method = jsonutil::valueOr<std::string>(reply, "method", "");
        channel.progress("compile", 0.3,
                         aoti ? "reading the example inputs of the AOTInductor package"
                              : "loading " + method + "ed TorchScript into LibTorch");
        failure = runner->load(reply);
        if (!failure && !stopRequested()) {
            channel.progress("compile", 0.35,
                             aoti ? "loading the AOTInductor package (AOTIModelPackageLoader), first call"
                                  : (nnc ? "profiling runs until NNC fuses" : "first call"));
            failure = runner->compile();
            if (runner->compileSeconds() > 0)
                compileSeconds = runner->compileSeconds();
            if (runner->firstCallSeconds() > 0)
                firstCall = runner->firstCallSeconds();
            captureOverhead = runner->captureOverheadSeconds();
            for (const auto& stage : runner->stages())
                channel.send({{"type", "stage"}, {"id", id}, {"stage", stage}});
        }
        if (!failure && !stopRequested()) {
            // While the export's files exist: the artifact's size and its load in fresh processes.
            channel.progress("compile", 0.45,
                             "deployment: loading the artifact in " +
                                 std::to_string(libtorch::kDeployFreshProcesses) + " fresh runner processes");
            deployment = libtorch::measureDeployment(backend, reply, at::get_num_threads(), stopRequested);
        }
        dir.remove(); // loaded (AOTInductor: extracted by its loader); nothing reads the files again
        if (!failure && !stopRequested()) {
            // Eager (the export worker) and compiled (here) interleaved, the worker's protocol and
            // stopping rule (docs/libtorch.md, "Interleaved timing"; core/capture/PairedTiming.h).
            channel.progress("measure", 0.5,
                             std::string("timing eager PyTorch and ") +
                                 (aoti ? "the AOTInductor package" : "the TorchScript module") +
                                 ", interleaved");
            bool first = true;
            PairedCalls calls;
            calls.eager = [&](int untimed, bool timed) { return exporter.eagerCall(untimed, timed); };
            calls.compiled = [&] { runner->call(); };
            calls.cancelled = stopRequested;
            calls.onSamples = [&](const std::string& series, std::vector<double> ms) {
                channel.send({{"type", "samples"}, {"id", id}, {"series", series}, {"ms", ms}});
                if (first && series == "compiled") {
                    first = false;
                    injectFault(backend);
                }
            };
            calls.onProgress = [&](double fraction, const std::string& message) {
                channel.progress("measure", 0.5 + 0.4 * fraction, message);
            };
            // The export worker's CPU time is this run's, not another process's.
            calls.snapshot = [&] { return readMachineSnapshot({static_cast<int>(exporter.pid())}); };
            calls.window = "while the LibTorch runner took samples";
            try {
                timing = timePairs(measure, calls);
                info["runs"] = {{"eager", timing->pairs},
                                {"compiled", timing->pairs},
                                {"warmup", timing->warmup},
                                {"elapsed_s", timing->elapsedSeconds}};
            } catch (const libtorch::EagerCallFailed& e) {
                failure = e.error;
            } catch (const std::exception& e) {
                failure = RunError{toString(ErrorCode::RunFailed),
                                   runner->callee() + " raised when timed: " + e.what(),
                                   {},
                                   {}};
            }
        }
        exporter.shutdown(); // eager is not called again; its memory goes back before the peak call
        if (!failure && !stopRequested()) {
            // One more call, outside the samples: docs/measurement.md's CPU peak (docs/libtorch.md).
            channel.progress("memory", 0.9, "peak memory: one call under LibTorch's memory profiler");
            peak = runner->measurePeakMemory();
            if (peak.bytes)
                info["peak_memory_events"] = peak.events;
        }
        if (!failure && !stopRequested()) {
            channel.progress("accuracy", 0.95, "comparing with the eager reference outputs");
            failure = runner->checkAccuracy();
            accuracy = runner->accuracy();
        }
        info.update(runner->info());
    }
    if (stopRequested())
        return 143;
    if (failure && !accuracy &&
        (failure->code == toString(ErrorCode::CompileFailed) ||
         failure->code == toString(ErrorCode::RunFailed)))
        accuracy = failedToRun(*failure, jsonutil::valueOr<std::string>(workload, "precision", "fp32"));
    if (auto it = reply.find("eager_runs_differ"); accuracy && it != reply.end() && it->is_string() &&
                                                   accuracy->status != "fail_to_run" &&
                                                   accuracy->status != "OOM") {
        // Eager run twice disagreed in the export: nothing can be judged against it (accuracy.py).
        Accuracy differs;
        differs.status = "eager_two_runs_differ";
        differs.precision = "fp32";
        differs.reason =
            "eager run twice on the same inputs gives different outputs: " + it->get<std::string>() +
            ". The forward is not deterministic (random numbers, uninitialised memory or state a "
            "call changes), so no backend can be judged against it";
        accuracy = differs;
    }
    info["eager_first_call_s"] = jsonutil::valueOr<double>(reply, "eager_first_call_s", 0.0);
    std::cerr << "[libtorch] "
              << (peak.bytes
                      ? "peak memory: " + std::to_string(*peak.bytes) + " bytes (" + peak.method + ", " +
                            std::to_string(peak.events) + " allocator events, one call in the runner)"
                      : "peak memory: not measured (" + peak.reason + ")")
              << std::endl;

    json options = request.value("options", json::object());
    if (!options.is_object())
        options = json::object();
    options["libtorch"] = info;
    json result = {{"type", "result"},
                   {"id", id},
                   {"backend", backend},
                   {"status", failure ? "failed" : "ok"},
                   {"compile_s", compileSeconds ? json(*compileSeconds) : json(nullptr)},
                   {"compile_capture_overhead_s", captureOverhead ? json(*captureOverhead) : json(nullptr)},
                   {"first_call_s", firstCall ? json(*firstCall) : json(nullptr)},
                   {"peak_memory_bytes", peak.bytes ? json(*peak.bytes) : json(nullptr)},
                   {"memory_method", peak.bytes ? peak.method : std::string()},
                   {"accuracy", accuracy ? json(*accuracy) : json(nullptr)},
                   {"graphs", -1},
                   {"graph_breaks", -1},
                   {"recompiles", -1},
                   {"notes", exporter.notes()},
                   {"placement", placement},
                   {"options", options}};
    if (timing) {
        // machine_busy / cpu_steal of the timing window, and what stopped it, as the worker's rows.
        result["warnings"] = timing->machineWarnings;
        // NNC without LLVM runs its fused kernels on the IR interpreter (TorchScriptRunner): the
        // samples are the interpreter's, not NNC's compiled code's; the recommendation leaves the
        // row out on this warning (analysis/Recommendation.cpp, docs/measurement.md).
        if (nnc && TorchScriptRunner::nncCpuCodegen() != "llvm")
            result["warnings"].push_back(
                {{"code", "nnc_interpreter"},
                 {"message", "this LibTorch has no LLVM, so NNC's fused kernels ran on its IR interpreter "
                             "(nnc_cpu_codegen ir_eval): this row's latency is the interpreter's, not the "
                             "speed of NNC's compiled code; measure NNC with a LibTorch built with LLVM"}});
        result["measure"] = timing->measure;
    }
    // Eager's peak is the worker's own measure when its export reply carries one.
    if (auto it = reply.find("eager_peak_memory_bytes"); it != reply.end() && it->is_number_integer())
        result["eager_peak_memory_bytes"] = *it;
    if (!deployment.is_null())
        result["deployment"] = deployment;
    // An int8 package: what torchao quantized (export_aoti.py), and the row's workload.
    if (auto it = reply.find("quantization"); it != reply.end() && it->is_object())
        result["quantization"] = *it;
    if (workload.is_object() && !workload.empty())
        result["workload"] = workload;
    if (failure)
        result["error"] = {{"code", failure->code},
                           {"message", failure->message},
                           {"file", failure->file},
                           {"traceback", failure->traceback}};
    channel.send(result);
    channel.send({{"type", "bye"}});
    return 0;
}

json listBackends() {
    const std::string codegen = TorchScriptRunner::nncCpuCodegen();
    json nnc = {{"name", "torchscript_nnc"},
                {"family", "libtorch"},
                {"available", true},
                {"reason", ""},
                {"tags", {"cpu", "libtorch", "fusion"}}};
    if (codegen != "llvm")
        nnc["reason"] = "this LibTorch has no LLVM: NNC's fused kernels run on its IR interpreter (slow)";
    const std::string aotiMissing = AotInductorRunner::unavailableReason();
    return json::array({{{"name", "torchscript"},
                         {"family", "libtorch"},
                         {"available", true},
                         {"reason", ""},
                         {"tags", {"cpu", "libtorch"}}},
                        nnc,
                        {{"name", "aot_inductor"},
                         {"family", "libtorch"},
                         {"available", aotiMissing.empty()},
                         {"reason", aotiMissing},
                         {"tags", {"cpu", "libtorch", "fusion"}}}});
}

} // namespace

int main(int argc, char** argv) {
    Channel channel; // first: before LibTorch or anything else can print
    // A fresh process of the deployment view (DeploymentProbe.h): load the artifact, one call, exit.
    if (argc > 1 && std::string(argv[1]) == libtorch::kDeployLoadFlag)
        return libtorch::runDeployLoad(argc, argv, [&](const json& message) { channel.send(message); });
    QCoreApplication app(argc, argv);
    struct sigaction action = {};
    action.sa_handler = onTerminate;
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &action, nullptr);

    std::string line;
    if (!std::getline(std::cin, line)) {
        channel.send(helloFor(nullptr));
        return 0; // stdin closed before a request: nothing to do (docs/protocol.md, shutdown)
    }
    auto parsed = codec::parseJson(line);
    const json request = parsed ? parsed.value().value : json();
    const std::string type = request.is_object() ? jsonutil::valueOr<std::string>(request, "type", "") : "";
    try {
        if (type == "run")
            return runBackend(channel, request);
        channel.send(helloFor(nullptr));
        if (type == "list_backends") {
            channel.send(
                {{"type", "backends"}, {"id", request.value("id", json())}, {"backends", listBackends()}});
        } else if (type != "shutdown") {
            channel.send(errorMessage(
                "", "",
                RunError{toString(ErrorCode::BadRequest),
                         parsed
                             ? "the LibTorch runner takes run, list_backends or shutdown, not '" + type + "'"
                             : "request line is not valid JSON: " + parsed.error().message,
                         {},
                         {}}));
        }
        channel.send({{"type", "bye"}});
    } catch (const std::exception& e) {
        // A bug here, not in the model (those are run errors): the row says so.
        channel.send(errorMessage(
            jsonutil::valueOr<std::string>(request, "id", ""), "",
            RunError{toString(ErrorCode::Internal), std::string(kRunnerName) + ": " + e.what(), {}, {}}));
        return 1;
    }
    return 0;
}
