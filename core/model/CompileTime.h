#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace fusescope {

// One phase of a compile and the seconds it took (result `compile_breakdown`,
// docs/measurement.md "Compile time by phase").
struct CompilePhase {
    std::string name; // dynamo_tracing, kernel_compilation, ..., first_run, unaccounted
    double seconds = 0;
    bool operator==(const CompilePhase&) const = default;
};

// The phases of one Dynamo compile (`compile_breakdown_graphs`), keyed by Dynamo's compile id
// ("0/0": frame 0, its first compile), as tlparse names them.
struct GraphCompileTime {
    std::string compileId;
    std::vector<CompilePhase> phases;
    double totalSeconds = 0;
    bool operator==(const GraphCompileTime&) const = default;
};

// The documented phases in report order; a phase a newer worker adds sorts after them.
inline const std::vector<std::string>& compilePhaseOrder() {
    static const std::vector<std::string> order = {"dynamo_tracing",
                                                   "dynamo_guards",
                                                   "aot_autograd",
                                                   "backend_compile",
                                                   "inductor_graph_passes",
                                                   "inductor_lowering",
                                                   "inductor_scheduling",
                                                   "code_generation",
                                                   "kernel_compilation",
                                                   "autotuning",
                                                   "compile_cache",
                                                   "other_timers",
                                                   "first_run",
                                                   "unaccounted"};
    return order;
}

// `phases` in compilePhaseOrder(), unknown names after the known ones (JSON objects come back
// sorted by name).
inline std::vector<CompilePhase> orderedPhases(std::vector<CompilePhase> phases) {
    const auto& order = compilePhaseOrder();
    const auto rank = [&](const CompilePhase& p) {
        return std::find(order.begin(), order.end(), p.name) - order.begin();
    };
    std::stable_sort(phases.begin(), phases.end(),
                     [&](const CompilePhase& a, const CompilePhase& b) { return rank(a) < rank(b); });
    return phases;
}

} // namespace fusescope
