#pragma once

#include "model/KernelTrace.h"

#include <cstdint>
#include <random>

namespace fusescope::synthetic {

// A trace shaped like a real one: a CPU thread with nested ops (a long step op around many
// short ones) and a CUDA stream of back-to-back kernels, plus memory events. Deterministic.
inline KernelTrace syntheticTrace(int kernels, int iterations = 4, unsigned seed = 7) {
    KernelTrace t;
    t.source = "synthetic";
    t.iterations = iterations;
    t.tracks = {{1, "thread 100", TrackKind::CpuThread}, {7, "stream 7 (device 0)", TrackKind::CudaStream}};
    const int32_t names[] = {t.internName("triton_poi_fused_add_0"), t.internName("triton_red_fused_sum_1"),
                             t.internName("sm80_gemm"), t.internName("triton_per_fused_softmax_2")};
    const int32_t step = t.internName("ProfilerStep");
    const int32_t launch = t.internName("cudaLaunchKernel");
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> dur(200, 30'000);
    std::uniform_int_distribution<int64_t> gap(0, 2'000);
    int64_t now = 1'000'000'000;
    int64_t memory = int64_t{512} << 20; // a resident model, then activations come and go
    const int perIteration = std::max(1, kernels / iterations);
    for (int it = 0; it < iterations; ++it) {
        const int64_t stepStart = now;
        for (int k = 0; k < perIteration; ++k) {
            const int64_t d = dur(rng);
            t.events.push_back({now, 100, 1, launch, EventKind::Runtime, k + 1, it});
            t.events.push_back({now + 500, d, 7, names[k % 4], EventKind::Kernel, k + 1, it});
            // Allocate on even kernels, free a bit less on odd ones: in use creeps up and down.
            const int64_t delta =
                (k % 2 == 0 ? 1 : -1) * (int64_t{1} << 20) * (1 + k % 5) + (k % 64 == 0 ? 4096 : 0);
            memory += delta;
            t.memory.push_back({now + 500, delta, memory, 0});
            now += 500 + d + gap(rng);
        }
        t.events.push_back({stepStart - 10, now - stepStart + 20, 1, step, EventKind::CpuOp, 0, it});
        now += 5'000;
    }
    t.finalize();
    return t;
}

} // namespace fusescope::synthetic
