#pragma once

#include "model/StageGraph.h"

#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
}

namespace fusescope {

// TorchScript IR to StageGraph (docs/libtorch.md, "Stages"). Torch types are only forward
// declared here; only the LibTorch translation units include this header.

// The inlined forward graph as scripted: fusion "before".
// `sourceKeys` receives, per node, the op and source range that optimizedStage matches on.
StageGraph beforeFusionStage(const torch::jit::Graph& graph, std::vector<std::string>& sourceKeys);

// The graph the executor ran (lastExecutedOptimizedGraph). Each prim::TensorExprGroup /
// prim::FusionGroup becomes a FusionGroup of kind "kernel"; the nodes of its subgraph become
// nodes of this stage, linked to `before` nodes by source range and op kind (origins, ids).
// `fusion` is "after" for NNC, "none" for the plain interpreter.
StageGraph optimizedStage(const torch::jit::Graph& graph, const StageGraph& before,
                          std::vector<std::string> sourceKeys, const std::string& fusion);

} // namespace fusescope
