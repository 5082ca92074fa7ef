#pragma once

#include "model/BackendRun.h"
#include "trace/KernelLinks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// Why a kernel is fast or slow (docs/roofline.md): each traced kernel's measured time against
// the bytes and FLOPs the worker counted for it (group `cost`) and the machine's roofs (run
// `roofs`), and per backend the bytes its kernels move per call against the bytes the same eager
// ops moved.
//
// Per kernel (one row per linked group; unlinked kernels one row per name): time per call =
// the group's traced time / its calls; GB/s = bytes / time; GFLOP/s = flops / time; intensity =
// flops / bytes; the attainable rate min(peak[dtype], intensity x bandwidth); roof_fraction =
// achieved / attainable; bound = memory when intensity < peak / bandwidth, else compute. What
// cannot be computed stays absent, with unknownReason saying why: never estimated.
struct KernelRoofline {
    std::string name;             // the kernel group's name (extern_kernels.addmm), or the traced name
    std::string traceName;        // the name its traced events carry (aten::addmm on the CPU profiler)
    std::string stageKey;         // post_fusion, post_fusion#1, ...; empty when not linked
    std::string groupId;          // empty when not linked
    std::string kind;             // kernel, extern_kernel, template; empty when not linked
    int64_t calls = 0;            // over the traced iterations
    double timeMs = 0;            // per call
    std::optional<int64_t> bytes; // per call
    std::string bytesSource;
    std::optional<int64_t> flops;
    std::optional<int64_t> eagerBytes;
    std::string dtype;
    std::optional<double> gbs;
    std::optional<double> gflops;
    std::optional<double> intensity; // FLOPs per byte
    std::optional<double> roofFraction;
    std::string bound; // memory, compute, or empty
    std::string unknownReason;
    // How to read a fraction above 1 of the memory roof: the bandwidth roof is main memory's, and
    // a kernel whose bytes stay in the caches can beat it.
    std::string note;
};

struct BackendRoofline {
    std::string backend;
    std::vector<KernelRoofline> kernels; // by total time, largest first
    // Summed over the after-fusion stages' costs (every kernel once per call), and the eager ops
    // those kernels came from; absent with bytesUnknownReason when a stage or kernel lacks one.
    std::optional<int64_t> bytesPerCall;
    std::optional<int64_t> eagerBytesPerCall;
    std::optional<int64_t> flopsMatrixPerCall;
    std::optional<int64_t> flopsPointwisePerCall;
    std::string bytesUnknownReason;
    std::optional<double> speedup; // the run's median paired speedup
    int iterations = 0;            // traced iterations (0: unknown)
    bool traced = false;

    // bytesPerCall / eagerBytesPerCall, when both are known and eager's is > 0.
    std::optional<double> bytesRatio() const;
};

// Needs no trace for the per-call totals; kernels only when the run has a trace and `links`.
BackendRoofline computeRoofline(const BackendRun& run, const KernelLinks* links);

// One row per traced name (the kernel table's rows), its groups' calls summed: bytes and FLOPs
// per call are the call-weighted means, the rates and the fraction those of the sums. A name
// one of whose groups lacks a count has none, with that group's reason.
std::vector<KernelRoofline> rooflineByTraceName(const BackendRoofline& roofline, const Roofs* roofs);

// The roof a kernel of `dtype` is held to: the measured GFLOP/s of that dtype, absent when not
// measured (its unmeasured reason, or "no compute roof measured for DTYPE", goes to `why`).
std::optional<double> computeRoof(const Roofs& roofs, const std::string& dtype, std::string* why);

// Fills gbs .. bound of `k` from its bytes, flops and timeMs against `roofs` (nullptr: none).
void applyRoofs(KernelRoofline& k, const Roofs* roofs);
// Sets `note` when `k` is above the memory roof (data from the caches).
void noteAboveRoof(KernelRoofline& k, const Roofs& roofs);

} // namespace fusescope
