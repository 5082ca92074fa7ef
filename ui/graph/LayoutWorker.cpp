#include "LayoutWorker.h"

namespace fusescope {

LayoutWorker::LayoutWorker(std::shared_ptr<layout::GraphvizLayout> engine)
    : m_engine(std::move(engine))
    , m_thread([this] { run(); }) {
}

LayoutWorker::~LayoutWorker() {
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        m_stop = true;
        m_pending.reset();
    }
    m_cancel = true;
    m_wake.notify_all();
    m_thread.join();
}

void LayoutWorker::request(uint64_t generation, std::vector<char> expanded, Done done) {
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        m_pending = Job{generation, std::move(expanded), std::move(done)};
        // Under the lock: the worker resets the flag when it takes a job, so the newest job
        // can never be cancelled by its own request.
        m_cancel = true;
    }
    m_wake.notify_one();
}

layout::StageLayout LayoutWorker::layoutNow(const std::vector<char>& expanded) {
    std::lock_guard<std::mutex> lock(m_engineMutex);
    return m_engine->layout(expanded);
}

void LayoutWorker::run() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_queueMutex);
            m_wake.wait(lock, [this] { return m_stop || m_pending.has_value(); });
            if (m_stop)
                return;
            job = std::move(*m_pending);
            m_pending.reset();
            m_cancel = false;
        }
        layout::StageLayout result;
        {
            std::lock_guard<std::mutex> lock(m_engineMutex);
            result = m_engine->layout(job.expanded, &m_cancel);
        }
        // A cancelled result is incomplete; the newer request that cancelled it will answer.
        if (!result.cancelled)
            job.done(job.generation, std::move(result));
    }
}

} // namespace fusescope
