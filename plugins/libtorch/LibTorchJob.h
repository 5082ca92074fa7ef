#pragma once

#include "capture/BackendFamily.h"
#include "capture/WorkerConfig.h"

#include <QElapsedTimer>
#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace fusescope {

// One torchscript / torchscript_nnc / aot_inductor run (docs/libtorch.md). The Python worker
// exports the model (export_torchscript; export_aoti, which also streams the stages) and times
// eager; a LibTorchRunner then loads, optimizes, times and checks it in-process. All of it runs on a thread
// of the job's own: results reach the owner's thread as queued calls that update run() and emit event(), then
// finished().
class LibTorchJob : public BackendJob {
    Q_OBJECT
public:
    LibTorchJob(WorkerConfig config, RunRequest request, QObject* parent = nullptr);
    ~LibTorchJob() override;

    void start() override;
    void cancel() override;
    const BackendRun& run() const override { return m_run; }
    BackendRun takeRun() override { return std::move(m_run); }
    WorkerEnvironment environment() const override { return m_environment; }

private:
    struct Export;
    void work();
    bool exportModel(Export& out);
    void runLibTorch(const Export& exported);
    // Runs `apply` on the owner's thread (queued); it may change m_run and emit signals.
    void post(std::function<void()> apply);
    void progress(const std::string& phase, double fraction, const std::string& message);
    void finish(std::optional<RunError> error);
    bool stopRequested() const;

    WorkerConfig m_config;
    RunRequest m_request;
    BackendRun m_run;
    WorkerEnvironment m_environment;
    QThread* m_thread = nullptr;
    QElapsedTimer m_clock;
    std::atomic<bool> m_cancel{false};
    std::string m_log; // written by the run's thread only, handed over in finish()
    std::string m_memoryNote = "peak memory: not measured (the run ended before it)"; // likewise
};

} // namespace fusescope
