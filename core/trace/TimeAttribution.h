#pragma once

#include "model/BackendRun.h"
#include "trace/KernelLinks.h"

#include <map>
#include <string>
#include <vector>

namespace fusescope {

// Measured kernel time joined back to the graph (docs/trace-view.md, "Time on the graph").
//
// Rule: each counted trace event (the kernel table's kinds: kernels, memcpy/memset, and on the
// CPU profiler the top-level ops) that KernelLinks ties to a fused group gives its duration to
// that group; a group's time is split evenly over its compute nodes (all its nodes when none
// computes). A node's time then goes to its module (`nn_module_stack` path) and its source line.
// Events tied to no group stay in an explicit "not linked to a graph node" row, so the rows of
// one backend always add up to the traced kernel time. Times are per traced iteration.

// One node of an after-fusion stage with the time attributed to it.
struct NodeTime {
    const StageGraph* stage = nullptr;
    std::string node; // GraphNode::id
    double ns = 0;
    std::vector<std::string> kernels; // kernel names that ran it, sorted
};

enum class TimeGrouping { Module, Line };

struct TimeRow {
    std::string key;                  // module path, "file:line", or one of the placeholders below
    std::string code;                 // the source line's text (Line rows), else empty
    double ns = 0;                    // per traced iteration
    double share = 0;                 // of the traced kernel time, 0..1
    std::vector<std::string> kernels; // distinct kernel names contributing, sorted
    std::vector<std::pair<const StageGraph*, std::string>> nodes; // (stage, node id) to highlight
    bool unattributed = false;                                    // the "not linked" row
};

struct TimeAttribution {
    double tracedNs = 0;       // per iteration, sum of every counted event
    double unattributedNs = 0; // the part tied to no graph node
    int iterations = 0;
    std::vector<NodeTime> nodes;       // sorted by time, largest first
    std::vector<std::string> unlinked; // names of the events tied to no node, sorted

    // Rows sorted by time, largest first; the "not linked" row (if any) last.
    std::vector<TimeRow> rows(TimeGrouping grouping) const;
    // Share of the traced time per node id of `stage` (after fusion), 0..1.
    std::map<std::string, double> shareOfNodes(const StageGraph& stage) const;
    // The same shares carried to a before-fusion stage through provenance: a fused group's
    // provenance names the FX nodes it came from; each node of `before` named so (or, on a stage
    // of scheduler nodes, listing one in its origins) gets an even part of the group's time.
    std::map<std::string, double> shareOfBeforeFusionNodes(const StageGraph& before) const;

    // Held for shareOfBeforeFusionNodes: group (stage, id) -> its time.
    std::vector<std::pair<GroupRef, double>> groups;
};

inline constexpr const char* kTopLevelModule = "(top level)";
inline constexpr const char* kNoSourceLine = "(no source line)";
inline constexpr const char* kNotLinked = "(not linked to a graph node)";

// Empty (tracedNs 0) when the run has no trace.
TimeAttribution attributeKernelTime(const BackendRun& run);
// The same with the run's kernel links already computed (linkKernelsToGroups over
// afterFusionStages(run)): the engine derives both once per snapshot (engine/RunView.h).
TimeAttribution attributeKernelTime(const BackendRun& run, const KernelLinks& links);

const char* toString(TimeGrouping grouping);

} // namespace fusescope
