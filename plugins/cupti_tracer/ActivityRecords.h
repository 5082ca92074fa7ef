#pragma once

// Plain copies of the fields FuseScope reads from CUPTI activity records. The CUPTI-facing code
// (CuptiTracer.cpp) fills them; RecordConverter turns them into trace chunks. Keeping CUPTI's
// types out of the converter lets it build and be tested on machines without CUDA.

#include <cstdint>
#include <string>

namespace fusescope::cupti {

// Work that runs on a GPU stream: CUpti_ActivityKernel*, Memcpy*, Memset*.
struct GpuActivity {
    enum class Kind { Kernel, Memcpy, Memset };
    Kind kind = Kind::Kernel;
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint32_t deviceId = 0;
    uint32_t streamId = 0;
    uint32_t correlationId = 0;
    std::string name;   // kernel name as CUPTI reports it (maybe mangled); for copies, the copy kind
    uint64_t bytes = 0; // memcpy / memset size, 0 for kernels
};

// A CUDA runtime or driver API call on a CPU thread: CUpti_ActivityAPI.
struct ApiActivity {
    bool driver = false; // CUPTI_ACTIVITY_KIND_DRIVER rather than RUNTIME
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint32_t threadId = 0;
    uint32_t correlationId = 0;
    std::string name; // "cudaLaunchKernel", "cuMemAlloc_v2", ...
};

// A device allocation or free: CUpti_ActivityMemory2/3/4 (CUPTI_ACTIVITY_KIND_MEMORY2).
struct MemoryActivity {
    enum class Operation { Allocation, Release };
    Operation operation = Operation::Allocation;
    uint64_t timestampNs = 0;
    uint64_t address = 0;
    uint64_t bytes = 0;
    uint32_t deviceId = 0;
    bool hostMemory = false; // pinned/pageable host memory is reported as device -1
    uint32_t correlationId = 0;
};

// Time CUPTI itself spent (buffer flush, instrumentation): CUpti_ActivityOverhead*.
struct OverheadActivity {
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    uint32_t threadId = 0; // 0 when CUPTI attributes it to the process, not a thread
    std::string name;      // "overhead: CUPTI buffer flush", ...
};

} // namespace fusescope::cupti
