#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusescope {

// Where a node came from in the user's source.
struct SourceLocation {
    std::string file;
    int line = 0;
    std::string code;
};

// One node of one IR stage (an FX node, an Inductor scheduler node, a Relax call...).
// The schema is docs/graph-schema.json; every stage of every backend uses it.
struct GraphNode {
    std::string id;
    std::string name;
    std::string op;
    std::string kind;
    std::string category;
    std::vector<std::vector<std::string>> shapes; // symbolic sizes stay strings
    std::vector<std::string> dtypes;
    std::string module;
    std::string moduleType;
    std::optional<SourceLocation> source;
    std::string group; // id of the FusionGroup on post-fusion stages, empty otherwise
    std::vector<std::string> origins;

    // Placeholders, constants and outputs carry no computation.
    bool isCompute() const;
};

// "float32[32, 256] int64[8]": each output's dtype and shape, as the graph views' second line.
std::string shapeText(const GraphNode& node);

struct GraphEdge {
    std::string src;
    std::string dst;
};

// Bytes and FLOPs of one kernel per call, and the bytes the eager ops it came from moved (group
// `cost`, docs/roofline.md "Accounting"); on a stage, the same totals over its kernels. A count
// the worker could not make is absent, with `unknownReason`.
struct KernelCost {
    std::optional<int64_t> bytes; // read + written
    std::optional<int64_t> bytesRead;
    std::optional<int64_t> bytesWritten;
    std::string bytesSource;      // inductor_buffers
    std::optional<int64_t> flops; // matrix + pointwise
    std::optional<int64_t> flopsMatrix;
    std::optional<int64_t> flopsPointwise;
    std::optional<int64_t> eagerBytes;
    std::string dtype; // of the arithmetic: picks the compute roof
    std::string unknownReason;

    bool operator==(const KernelCost&) const = default;
};

// A set of nodes that became one kernel (or one module group in views).
struct FusionGroup {
    std::string id;
    std::string name;
    std::string kind; // kernel, extern_kernel, template, module
    std::vector<std::string> nodes;
    std::vector<std::string> provenance;
    std::string code;
    std::optional<KernelCost> cost; // after-fusion kernels of newer workers only

    bool isKernel() const { return kind == "kernel" || kind == "extern_kernel" || kind == "template"; }
};

enum class StageStatus { Ok, Unsupported, Failed };

struct StageGraph {
    std::string name; // dynamo_fx, aot_forward, post_grad, pre_fusion, post_fusion, ...
    int graph = 0;    // Dynamo graph index
    std::string label;
    std::string level;
    std::string fusion;  // before, after, none
    std::string pass;    // "backward" on the backward graph's stages (training mode), else empty
    std::string module;  // mixed runs: the assigned submodule this graph belongs to
    std::string backend; // mixed runs: the backend that compiled that part
    StageStatus status = StageStatus::Ok;
    std::string reason;
    std::vector<GraphNode> nodes;
    std::vector<GraphEdge> edges;
    std::vector<FusionGroup> groups;
    std::optional<KernelCost> cost; // after fusion: the totals per call over its kernels
    // A graph the compile cache served within one compile gets the stages of the identical graph
    // it was copied from (docs/graph-schema.json `copied_from_graph`); absent otherwise.
    std::optional<int> copiedFromGraph;

    int computeNodeCount() const;
    int kernelCount() const;
    // "dynamo_fx" for graph 0, "dynamo_fx#2" for graph 2: unique within a backend.
    std::string key() const;
    const GraphNode* findNode(const std::string& id) const;
};

const char* toString(StageStatus status);
StageStatus stageStatusFromString(const std::string& text);

// Encoder and decoder: codec/StageCodec.h.

} // namespace fusescope
