#ifndef FUSESCOPE_CUPTI_H
#define FUSESCOPE_CUPTI_H

/* FuseScope's CUPTI tracer: a C API so the Python worker can load it with ctypes.
 * One tracer per process (CUPTI allows one subscriber). docs/cupti-tracer.md describes it. */

#include <stddef.h>
#include <stdint.h>

/* The library hides everything else, so the only exported symbols are these. */
#define FSCUPTI_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* Activity kinds, as bits of fscupti_config.kinds. */
enum {
    FSCUPTI_KIND_KERNEL = 1 << 0,   /* CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL */
    FSCUPTI_KIND_MEMCPY = 1 << 1,   /* CUPTI_ACTIVITY_KIND_MEMCPY */
    FSCUPTI_KIND_MEMSET = 1 << 2,   /* CUPTI_ACTIVITY_KIND_MEMSET */
    FSCUPTI_KIND_MEMORY = 1 << 3,   /* CUPTI_ACTIVITY_KIND_MEMORY2: allocations and frees */
    FSCUPTI_KIND_RUNTIME = 1 << 4,  /* CUPTI_ACTIVITY_KIND_RUNTIME */
    FSCUPTI_KIND_DRIVER = 1 << 5,   /* CUPTI_ACTIVITY_KIND_DRIVER */
    FSCUPTI_KIND_OVERHEAD = 1 << 6, /* CUPTI_ACTIVITY_KIND_OVERHEAD */
    FSCUPTI_KIND_ALL = (1 << 7) - 1
};

/* Return codes. */
enum {
    FSCUPTI_OK = 0,
    FSCUPTI_ERROR = 1,          /* see fscupti_last_error() */
    FSCUPTI_ERROR_IN_USE = 2,   /* another CUPTI client (e.g. the PyTorch profiler) is subscribed */
    FSCUPTI_ERROR_NO_DRIVER = 3 /* no CUDA driver / device: CUPTI cannot run here */
};

typedef struct fscupti_config {
    uint32_t kinds;           /* FSCUPTI_KIND_* bits; 0 means FSCUPTI_KIND_ALL */
    uint64_t buffer_bytes;    /* size of one CUPTI activity buffer; 0 means 4 MiB */
    uint64_t max_total_bytes; /* cap on buffers held at once; 0 means 256 MiB. Past it, CUPTI
                                 drops records and fscupti_dropped() counts them. */
} fscupti_config;

/* Receives each completed trace chunk: UTF-8 JSON in the `trace` message format of
 * docs/protocol.md without "type"/"id". Called from a CUPTI thread or from the thread that calls
 * fscupti_flush/fscupti_stop; calls never overlap. `chunk` is valid only during the call. */
typedef void (*fscupti_sink)(const char* chunk, size_t length, void* user);

/* Set before fscupti_start. Without a sink, chunks are discarded. */
FSCUPTI_API void fscupti_set_sink(fscupti_sink sink, void* user);
/* Subscribes to CUPTI and enables the activity kinds. config may be NULL (defaults). */
FSCUPTI_API int fscupti_start(const fscupti_config* config);
/* Events starting at or after now belong to `iteration`. Synchronise the device first. */
FSCUPTI_API int fscupti_begin_iteration(int iteration);
/* Forces CUPTI to hand over every buffer now; their chunks reach the sink before it returns. */
FSCUPTI_API int fscupti_flush(void);
/* Disables the kinds, flushes, sends the chunk with "final": true, unsubscribes. */
FSCUPTI_API int fscupti_stop(void);
/* Records CUPTI reported lost since fscupti_start (buffers full or capped). */
FSCUPTI_API uint64_t fscupti_dropped(void);
/* The last error as "file:line: call: CUPTI message", or "" when none. */
FSCUPTI_API const char* fscupti_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
