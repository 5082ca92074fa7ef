#pragma once

#include "model/StageGraph.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusescope::import {

// An FX graph as torch prints it (GraphModule.print_readable: what TORCH_TRACE logs for Dynamo's
// output graph, AOTAutograd's graphs and Inductor's post-grad graph) read back into a stage:
// placeholders from forward()'s parameters (or annotated lines in its body), one node per
// assignment, edges from the node names each expression mentions, `# File: F:L in FN, code: C`
// comments as the source of the nodes that follow. Lines it does not understand are skipped and
// counted in `skipped`; it never throws.
struct FxTextGraph {
    StageGraph stage;
    size_t skipped = 0;
    std::string device; // of the first tensor type ("f32[2, 8][8, 1]cpu" -> cpu), or empty
};

FxTextGraph parseFxText(std::string_view text);

// The coarse family of an op for colouring (docs/graph-schema.json `category`).
std::string opCategory(const std::string& op, const std::string& kind);

// "f32[2, 8][8, 1]cpu" -> dtype float32, shape {"2","8"}; "Sym(s0)" -> dtype sym. False when
// the text is neither.
bool parseTensorType(std::string_view text, std::string& dtype, std::vector<std::string>& shape);

// An Inductor output_code.py: its kernels (definitions `NAME = async_compile.KIND(...)` and
// `extern_kernels.NAME(...)` calls in call()), each with the FX node names of its
// "# Topologically Sorted Source Nodes: [...]" comment and the buffers it is called with.
struct OutputKernel {
    std::string name;
    std::string kind; // kernel, extern_kernel, or alias (buffers = {new name, old name}: no call)
    std::vector<std::string> sourceNodes;
    std::vector<std::string> atenOps;
    std::vector<std::string> buffers; // names the call() line mentions (buf0, primals_1, ...)
    bool called = false;
};
struct OutputCode {
    std::string aotId;                 // "0_forward", "0_backward", ... from "# AOT ID: ['0_forward']"
    std::vector<OutputKernel> kernels; // in call() order; defined-but-uncalled ones at the end
    std::vector<std::string> inputs;   // call()'s args unpacked: primals_1, ...
    std::vector<std::string> outputs;  // names in call()'s return tuple
};
OutputCode parseOutputCode(std::string_view text);

// The post-fusion stage of an output code: one node per kernel call (a group each, with the
// source nodes as provenance), the graph inputs and outputs, and edges where a call mentions a
// buffer an earlier call mentioned (Inductor reuses buffers: `buf1 = buf0; del buf0  # reuse`
// is followed).
StageGraph postFusionStage(const OutputCode& code);

} // namespace fusescope::import
