#pragma once

#include "model/KernelTrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusescope {

// One row of the kernel table: every event of one name, summed.
struct KernelStat {
    int32_t name = 0; // index into KernelTrace::names
    std::string label;
    int64_t calls = 0;
    int64_t totalNs = 0;
    double meanNs = 0;
    int64_t minNs = 0;
    int64_t maxNs = 0;
    // Fraction (0..1) of the traced step time this kernel takes. Over the traced iterations when
    // events carry an iteration, over the whole trace span otherwise.
    double share = 0;
    // Time per traced iteration (total / iterations), or the total when iterations are unknown.
    double perIterationNs = 0;
};

struct KernelStatsTable {
    std::vector<KernelStat> rows; // sorted by totalNs, largest first
    int64_t stepTimeNs = 0;       // the denominator of `share`
    int iterations = 0;           // distinct iterations seen on events (0 when none set)
};

// Which event kinds count as "kernels". The default leaves out CPU ops, runtime and driver calls:
// those nest around the kernels they launch, so their time would be counted twice.
struct KernelStatsOptions {
    std::vector<EventKind> kinds{EventKind::Kernel, EventKind::Memcpy, EventKind::Memset};

    // What counts as a kernel for a trace's source. On CUDA, CPU ops and API calls wrap the
    // kernels they launch and would count twice. The CPU profiler path keeps only top-level ops
    // (docs/measurement.md), where an ATen call such as aten::addmm is itself the library
    // kernel Inductor calls (extern_kernels.addmm): it counts beside the cpp_fused_* kernels.
    static KernelStatsOptions forTrace(const KernelTrace& trace);
};

KernelStatsTable computeKernelStats(const KernelTrace& trace, const KernelStatsOptions& options = {});

} // namespace fusescope
