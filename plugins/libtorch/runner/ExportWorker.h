#pragma once

#include "capture/ExportStream.h"
#include "capture/PairedTiming.h"
#include "capture/StderrTail.h"
#include "model/BackendRun.h"

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
// child in the runner's process group. Its output is read by an ExportStream (core/capture): its
// hello, decoded once, and until its reply its progress, model, stage, code and error messages go
// to the runner (`handlers`); after the reply it stays alive with eager PyTorch loaded and answers
// eager calls (fusescope_worker/eager_server.py), so that the runner interleaves eager and
// compiled calls (core/capture/PairedTiming.h). One object, one export, used from one thread.
class ExportWorker {
public:
    // `onChild`: the worker's pid once started, 0 once it ended (the runner's SIGTERM handler
    // passes the signal on, so the worker removes its scratch files).
    ExportWorker(std::string backend, ExportStream::Handlers handlers, std::function<bool()> stopRequested,
                 std::function<void(qint64)> onChild);
    ~ExportWorker(); // shuts the worker down (and kills it when it does not go)
    ExportWorker(const ExportWorker&) = delete;
    ExportWorker& operator=(const ExportWorker&) = delete;

    // Starts the worker and sends the export request built from the runner's `run` request;
    // returns once the reply came, or the worker failed or ended.
    Exported exportModel(const nlohmann::json& runRequest, const std::string& outDir);
    // The worker's hello came (and went to the handlers' `hello`).
    bool handshakeDone() const { return m_stream.handshakeDone(); }

    // After a successful export: `untimed` eager calls, then a timed one when `timed` (the
    // worker's clock). Throws EagerCallFailed when the worker reports an error or ends.
    EagerSample eagerCall(int untimed, bool timed);

    // Asks the worker to exit and waits for it (a few seconds; killed after that).
    void shutdown();

    qint64 pid() const; // 0 when not running
    // Lines of the worker's channel that were refused (run notes), counted with the first.
    std::vector<std::string> notes() const;

private:
    void readStdout();
    void readStderr();
    // Reads the worker until `done` holds, the worker ended or a stop was requested.
    void pump(const std::function<bool()>& done);
    RunError endedError(const std::string& doing) const;

    std::string m_backend;
    std::function<bool()> m_stop;
    std::function<void(qint64)> m_onChild;
    std::unique_ptr<QProcess> m_process;
    std::string m_token;
    ExportStream m_stream;
    StderrTail m_stderr;
};

} // namespace fusescope::libtorch
