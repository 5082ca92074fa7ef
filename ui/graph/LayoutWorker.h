#pragma once

#include "GraphvizLayout.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace fusescope {

// The one thread that lays out a scene's stage. A new request replaces a queued one and
// cancels the running one (RenderDoc's tagged requests, hotspot's JobTracker): expanding
// three groups quickly lays out once, for the last state.
class LayoutWorker {
public:
    using Done = std::function<void(uint64_t generation, layout::StageLayout result)>;

    explicit LayoutWorker(std::shared_ptr<layout::GraphvizLayout> engine);
    ~LayoutWorker(); // cancels and joins: `done` never runs after this returns

    // `done` runs on the worker thread; post to the UI thread from it.
    void request(uint64_t generation, std::vector<char> expanded, Done done);
    // Lays out on the calling thread, after any running job (export, tests).
    layout::StageLayout layoutNow(const std::vector<char>& expanded);

private:
    struct Job {
        uint64_t generation = 0;
        std::vector<char> expanded;
        Done done;
    };
    void run();

    std::shared_ptr<layout::GraphvizLayout> m_engine;
    std::mutex m_queueMutex;
    std::mutex m_engineMutex; // held while the engine (and its cache) is in use
    std::condition_variable m_wake;
    std::optional<Job> m_pending;
    bool m_stop = false;
    std::atomic<bool> m_cancel{false};
    std::thread m_thread;
};

} // namespace fusescope
