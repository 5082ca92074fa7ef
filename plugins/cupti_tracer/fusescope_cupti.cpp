// The CUPTI-facing half of the tracer: subscription, activity kinds, buffers, and the C API.
// Records are converted by ActivityReader/RecordConverter as each buffer completes, so chunks
// reach the sink while the run goes on.

#include "fusescope_cupti.h"

#include "ActivityReader.h"
#include "CuptiCheck.h"
#include "RecordConverter.h"

#include <atomic>
#include <cstdlib>
#include <cupti.h>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <vector>

namespace fusescope::cupti {
namespace {

constexpr uint64_t kDefaultBufferBytes = 4ull << 20; // Kineto's size: few flushes, little memory
constexpr uint64_t kDefaultMaxTotalBytes = 256ull << 20;
constexpr size_t kRecordAlignment = 8; // CUPTI requires 8-byte aligned buffers

struct Kind {
    uint32_t bit;
    CUpti_ActivityKind cupti;
};
// CONCURRENT_KERNEL first: it instruments modules as they load, so it must be on before work starts.
constexpr Kind kKinds[] = {
    {FSCUPTI_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {FSCUPTI_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY},
    {FSCUPTI_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET},
    {FSCUPTI_KIND_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY2},
    {FSCUPTI_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME},
    {FSCUPTI_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER},
    {FSCUPTI_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD},
};

struct Tracer {
    std::mutex mutex; // guards converter, reader and sink calls; buffers complete on CUPTI's thread
    std::optional<RecordConverter> converter;
    std::optional<ActivityReader> reader;
    fscupti_sink sink = nullptr;
    void* sinkUser = nullptr;

    bool running = false; // changed only by start/stop, which the caller does not overlap
    CUpti_SubscriberHandle subscriber = nullptr;
    std::vector<CUpti_ActivityKind> enabled;
    uint64_t bufferBytes = kDefaultBufferBytes;
    uint64_t maxTotalBytes = kDefaultMaxTotalBytes;
    std::atomic<uint64_t> bytesHeld{0};
    std::atomic<uint64_t> dropped{0};
};

Tracer& tracer() {
    static Tracer* t = new Tracer; // never destroyed: CUPTI may call back during process exit
    return *t;
}

void emitLocked(Tracer& t, bool final) {
    const std::string chunk = t.converter->takeChunk(final);
    if (t.sink)
        t.sink(chunk.data(), chunk.size(), t.sinkUser);
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    Tracer& t = tracer();
    *maxNumRecords = 0; // fill the buffer
    *buffer = nullptr;
    *size = 0;
    // Past the cap, handing CUPTI no buffer makes it drop records and count them, which is
    // what fscupti_dropped() reports; better than growing without bound during a long run.
    if (t.bytesHeld.load() + t.bufferBytes > t.maxTotalBytes)
        return;
    void* memory = std::aligned_alloc(kRecordAlignment, t.bufferBytes);
    if (!memory)
        return;
    t.bytesHeld += t.bufferBytes;
    *buffer = static_cast<uint8_t*>(memory);
    *size = t.bufferBytes;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t size,
                              size_t validSize) {
    Tracer& t = tracer();
    {
        std::lock_guard lock(t.mutex);
        if (t.converter) {
            CUpti_Activity* record = nullptr;
            CUptiResult status;
            while ((status = cuptiActivityGetNextRecord(buffer, validSize, &record)) == CUPTI_SUCCESS)
                t.reader->read(record);
            // MAX_LIMIT_REACHED is how CUPTI says "no more records in this buffer".
            FSCUPTI_CHECK(status == CUPTI_ERROR_MAX_LIMIT_REACHED ? CUPTI_SUCCESS : status);
            size_t lost = 0;
            if (FSCUPTI_CHECK(cuptiActivityGetNumDroppedRecords(context, streamId, &lost)) && lost) {
                t.dropped += lost;
                t.converter->addDropped(lost);
            }
            if (t.converter->hasPending())
                emitLocked(t, false);
        }
    }
    std::free(buffer);
    t.bytesHeld -= size;
}

// CUPTI needs a callback to subscribe; the subscription is held only so that a second CUPTI
// client fails clearly instead of both silently stealing each other's records.
void CUPTIAPI ignoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
}

bool driverLoadable(std::string& why) {
    void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        why = err ? err : "libcuda.so.1 not found";
        return false;
    }
    dlclose(handle);
    return true;
}

void disableAll(Tracer& t) {
    for (auto it = t.enabled.rbegin(); it != t.enabled.rend(); ++it)
        FSCUPTI_CHECK(cuptiActivityDisable(*it));
    t.enabled.clear();
    if (t.subscriber) {
        FSCUPTI_CHECK(cuptiUnsubscribe(t.subscriber));
        t.subscriber = nullptr;
    }
}

} // namespace
} // namespace fusescope::cupti

using namespace fusescope::cupti;

extern "C" {

void fscupti_set_sink(fscupti_sink sink, void* user) {
    Tracer& t = tracer();
    std::lock_guard lock(t.mutex);
    t.sink = sink;
    t.sinkUser = user;
}

int fscupti_start(const fscupti_config* config) {
    Tracer& t = tracer();
    clearError();
    if (t.running) {
        setError("fscupti_start: the tracer is already running in this process");
        return FSCUPTI_ERROR;
    }
    // CUPTI without a driver fails with a generic error; say what is actually missing.
    std::string why;
    if (!driverLoadable(why)) {
        setError("no CUDA driver: " + why + " (CUPTI needs an NVIDIA driver and GPU)");
        return FSCUPTI_ERROR_NO_DRIVER;
    }
    const uint32_t kinds = config && config->kinds ? config->kinds : uint32_t(FSCUPTI_KIND_ALL);
    t.bufferBytes = config && config->buffer_bytes ? config->buffer_bytes : kDefaultBufferBytes;
    t.bufferBytes = (t.bufferBytes + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
    t.maxTotalBytes = config && config->max_total_bytes ? config->max_total_bytes : kDefaultMaxTotalBytes;
    t.dropped = 0;
    {
        std::lock_guard lock(t.mutex);
        t.converter.emplace();
        t.reader.emplace(*t.converter);
    }

    const CUptiResult subscribed = cuptiSubscribe(&t.subscriber, ignoreCallback, nullptr);
    if (!FSCUPTI_CHECK(subscribed)) {
        t.subscriber = nullptr;
        if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
            setError("CUPTI is already in use by another profiler in this process (the PyTorch profiler "
                     "tracing CUDA, Nsight Systems, ...): " +
                     lastError());
            return FSCUPTI_ERROR_IN_USE;
        }
        return subscribed == CUPTI_ERROR_INVALID_DEVICE || subscribed == CUPTI_ERROR_NOT_INITIALIZED
                   ? FSCUPTI_ERROR_NO_DRIVER
                   : FSCUPTI_ERROR;
    }
    if (!FSCUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted))) {
        disableAll(t);
        return FSCUPTI_ERROR;
    }
    for (const Kind& kind : kKinds) {
        if (!(kinds & kind.bit))
            continue;
        const CUptiResult result = cuptiActivityEnable(kind.cupti);
        if (!FSCUPTI_CHECK(result)) {
            const std::string error = lastError();
            disableAll(t);
            setError(error);
            return result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? FSCUPTI_ERROR_IN_USE
                                                                            : FSCUPTI_ERROR;
        }
        t.enabled.push_back(kind.cupti);
    }
    t.running = true;
    return FSCUPTI_OK;
}

int fscupti_begin_iteration(int iteration) {
    Tracer& t = tracer();
    if (!t.running) {
        setError("fscupti_begin_iteration: the tracer is not running");
        return FSCUPTI_ERROR;
    }
    uint64_t now = 0;
    if (!FSCUPTI_CHECK(cuptiGetTimestamp(&now)))
        return FSCUPTI_ERROR;
    std::lock_guard lock(t.mutex);
    t.converter->beginIteration(iteration, now);
    return FSCUPTI_OK;
}

int fscupti_flush(void) {
    if (!tracer().running) {
        setError("fscupti_flush: the tracer is not running");
        return FSCUPTI_ERROR;
    }
    return FSCUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) ? FSCUPTI_OK
                                                                                  : FSCUPTI_ERROR;
}

int fscupti_stop(void) {
    Tracer& t = tracer();
    if (!t.running) {
        setError("fscupti_stop: the tracer is not running");
        return FSCUPTI_ERROR;
    }
    // Disable first so no new records start, then force out the partly filled buffers.
    for (auto it = t.enabled.rbegin(); it != t.enabled.rend(); ++it)
        FSCUPTI_CHECK(cuptiActivityDisable(*it));
    t.enabled.clear();
    const bool flushed = FSCUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    {
        std::lock_guard lock(t.mutex);
        emitLocked(t, true);
    }
    disableAll(t);
    t.running = false;
    return flushed ? FSCUPTI_OK : FSCUPTI_ERROR;
}

uint64_t fscupti_dropped(void) {
    return tracer().dropped.load();
}

const char* fscupti_last_error(void) {
    // A copy per calling thread: the stored message may change under another thread.
    thread_local std::string copy;
    copy = lastError();
    return copy.c_str();
}

} // extern "C"
