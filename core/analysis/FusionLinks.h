#pragma once

#include "model/BackendRun.h"
#include "model/StageGraph.h"

#include <vector>

namespace fusescope {

// Which nodes of a before-fusion stage each kernel of an after-fusion stage came from: scheduler
// stages share node ids; FX stages are reached through the kernel's provenance (post-grad node
// names) and the origins of its nodes (docs/graph-view.md). The graph views and the HTML report
// both link kernels to nodes with it.
//
// One entry per group of `after` (same index as after.groups): indices into before.nodes, in node
// order; empty for a group that is not a kernel.
std::vector<std::vector<int>> kernelOrigins(const StageGraph& after, const StageGraph& before);

// The stages a backend's graph `graph` is shown with by default: the last stage captured before
// fusion and the first one after it (Inductor's pre_fusion/post_fusion, TVM's
// relax_folded/relax_fused), both captured; `before` alone (the first captured stage) when the
// backend does not fuse. Both null when the graph has no captured stage.
struct FusionPair {
    const StageGraph* before = nullptr;
    const StageGraph* after = nullptr;
};
FusionPair fusionPair(const BackendRun& run, int graph = 0);

} // namespace fusescope
