#include "ActivityReader.h"

#include "CuptiCheck.h"

#include <cstddef>

namespace fusescope::cupti {

namespace {

// The newest record of each kind for the headers we build against. The fields read here sit at
// the same offsets in the older versions (checked below), so a build against CUDA 12 headers
// reads CUDA 12 records the same way.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemoryRecord = CUpti_ActivityMemory4;
using OverheadRecord = CUpti_ActivityOverhead3;
static_assert(offsetof(CUpti_ActivityKernel10, name) == offsetof(CUpti_ActivityKernel9, name));
static_assert(offsetof(CUpti_ActivityKernel10, correlationId) ==
              offsetof(CUpti_ActivityKernel9, correlationId));
static_assert(offsetof(CUpti_ActivityMemcpy6, correlationId) ==
              offsetof(CUpti_ActivityMemcpy5, correlationId));
static_assert(offsetof(CUpti_ActivityMemory4, deviceId) == offsetof(CUpti_ActivityMemory3, deviceId));
static_assert(offsetof(CUpti_ActivityOverhead3, objectId) == offsetof(CUpti_ActivityOverhead, objectId));
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
using MemoryRecord = CUpti_ActivityMemory3;
using OverheadRecord = CUpti_ActivityOverhead;
#endif
using MemsetRecord = CUpti_ActivityMemset4;

const char* copyName(uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "Memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "Memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "Memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "Memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "Memcpy PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "Memcpy (array)";
    default:
        return "Memcpy";
    }
}

const char* overheadName(uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
        return "overhead: driver JIT compile";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
        return "overhead: CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
        return "overhead: CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
        return "overhead: CUPTI resource";
    default:
        return "overhead: CUPTI";
    }
}

} // namespace

const std::string& ActivityReader::apiName(CUpti_CallbackDomain domain, uint32_t cbid) {
    auto [it, inserted] = m_apiNames.emplace(std::make_pair(static_cast<int>(domain), cbid), std::string());
    if (inserted) {
        const char* name = nullptr;
        if (FSCUPTI_CHECK(cuptiGetCallbackName(domain, cbid, &name)) && name)
            it->second = name;
        else
            it->second = (domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver call " : "runtime call ") +
                         std::to_string(cbid);
    }
    return it->second;
}

bool ActivityReader::read(const CUpti_Activity* record) {
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const KernelRecord*>(record);
        m_converter.add(GpuActivity{GpuActivity::Kind::Kernel, k->start, k->end, k->deviceId, k->streamId,
                                    k->correlationId, k->name ? k->name : "(unnamed kernel)", 0});
        return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const MemcpyRecord*>(record);
        m_converter.add(GpuActivity{GpuActivity::Kind::Memcpy, m->start, m->end, m->deviceId, m->streamId,
                                    m->correlationId, copyName(m->copyKind), m->bytes});
        return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const MemsetRecord*>(record);
        m_converter.add(GpuActivity{GpuActivity::Kind::Memset, m->start, m->end, m->deviceId, m->streamId,
                                    m->correlationId, "Memset", m->bytes});
        return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const MemoryRecord*>(record);
        if (m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
            m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
            return false;
        const bool host = m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                          m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
        m_converter.add(
            MemoryActivity{m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                               ? MemoryActivity::Operation::Allocation
                               : MemoryActivity::Operation::Release,
                           m->timestamp, m->address, m->bytes, m->deviceId, host, m->correlationId});
        return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        m_converter.add(
            ApiActivity{driver, a->start, a->end, a->threadId, a->correlationId,
                        apiName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid)});
        return true;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto* o = reinterpret_cast<const OverheadRecord*>(record);
        const uint32_t thread = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0;
        m_converter.add(OverheadActivity{o->start, o->end, thread, overheadName(o->overheadKind)});
        return true;
    }
    default:
        return false;
    }
}

} // namespace fusescope::cupti
