#pragma once

#include "capture/PairedTiming.h"
#include "capture/StderrTail.h"
#include "model/BackendRun.h"
#include "stream/LineSplitter.h"

#include <QtGlobal>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

class QProcess; // not included here: Qt's keywords clash with torch headers in the runner

namespace fusescope::libtorch {

// What the export produced (docs/libtorch.md, "Flow of one run", step 1).
struct Exported {
    nlohmann::json reply;          // torchscript_exported / aoti_exported; null when it failed
    std::optional<RunError> error; // the export failed: relayed already when it came as a message
    bool relayedError = false;
};

// An eager call the export worker could not answer: its error, or why it is gone.
struct EagerCallFailed : std::runtime_error {
    explicit EagerCallFailed(RunError e)
        : std::runtime_error(e.message)
        , error(std::move(e)) {}
    RunError error;
};

// The Python worker the runner starts to export the model (export_torchscript / export_aoti), a
// child in the runner's process group. Until its reply, its hello, progress, model, stage, code
// and error messages are relayed on the runner's channel (`relay`); after it, it stays alive with
// eager PyTorch loaded and answers eager calls (fusescope_worker/eager_server.py), so that the
// runner interleaves eager and compiled calls (core/capture/PairedTiming.h). One object, one
// export, used from one thread.
class ExportWorker {
public:
    using Relay = std::function<void(const nlohmann::json&)>;
    // `onChild`: the worker's pid once started, 0 once it ended (the runner's SIGTERM handler
    // passes the signal on, so the worker removes its scratch files).
    ExportWorker(std::string backend, Relay relay, std::function<bool()> stopRequested,
                 std::function<void(qint64)> onChild);
    ~ExportWorker(); // shuts the worker down (and kills it when it does not go)
    ExportWorker(const ExportWorker&) = delete;
    ExportWorker& operator=(const ExportWorker&) = delete;

    // Starts the worker and sends the export request built from the runner's `run` request;
    // returns once the reply came, or the worker failed or ended. `helloSent`: the worker's hello
    // was relayed as the runner's.
    Exported exportModel(const nlohmann::json& runRequest, const std::string& outDir, bool& helloSent);

    // After a successful export: `untimed` eager calls, then a timed one when `timed` (the
    // worker's clock). Throws EagerCallFailed when the worker reports an error or ends.
    EagerSample eagerCall(int untimed, bool timed);

    // Asks the worker to exit and waits for it (a few seconds; killed after that).
    void shutdown();

    qint64 pid() const; // 0 when not running
    // Lines of the worker's channel that were refused (run notes), counted with the first.
    std::vector<std::string> notes() const;

private:
    void handle(std::string_view bytes);
    void readStderr();
    // Reads the worker until `done` holds, the worker ended or a stop was requested.
    void pump(const std::function<bool()>& done);
    void problem(const std::string& what);
    RunError endedError(const std::string& doing) const;

    std::string m_backend;
    std::string m_replyType;
    Relay m_relay;
    std::function<bool()> m_stop;
    std::function<void(qint64)> m_onChild;
    std::unique_ptr<QProcess> m_process;
    std::string m_token;
    LineSplitter m_lines;
    StderrTail m_stderr;
    bool m_handshake = false;
    bool* m_helloSent = nullptr;
    std::vector<std::string> m_problems;
    size_t m_problemCount = 0;
    Exported m_exported;
    std::optional<nlohmann::json> m_eagerAnswer; // eager_ms of the pending call
    std::optional<RunError> m_eagerError;        // an error message after the reply
};

} // namespace fusescope::libtorch
