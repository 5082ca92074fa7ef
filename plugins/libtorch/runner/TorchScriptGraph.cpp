#include "TorchScriptGraph.h"

#include <functional>
#include <map>
#include <torch/csrc/jit/ir/ir.h>
#include <unordered_map>
#include <unordered_set>

namespace fusescope {

namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool isFusionGroup(const std::string& op) {
    return op == "prim::TensorExprGroup" || op == "prim::FusionGroup" || op == "prim::CudaFusionGroup";
}

// Structural nodes that move values around without computing: not counted as compute nodes.
bool isStructural(const std::string& op) {
    static const std::unordered_set<std::string> ops = {"prim::ListConstruct",
                                                        "prim::ListUnpack",
                                                        "prim::TupleConstruct",
                                                        "prim::TupleUnpack",
                                                        "prim::TupleIndex",
                                                        "prim::DictConstruct",
                                                        "prim::TypeCheck",
                                                        "prim::TensorExprDynamicGuard",
                                                        "prim::RequiresGradCheck",
                                                        "prim::BailOut",
                                                        "prim::BailoutTemplate",
                                                        "prim::Guard",
                                                        "prim::profile",
                                                        "prim::profile_ivalue",
                                                        "prim::unchecked_cast",
                                                        "prim::If",
                                                        "prim::Loop",
                                                        "prim::RaiseException",
                                                        "prim::Uninitialized",
                                                        "prim::device",
                                                        "prim::dtype",
                                                        "prim::NumToTensor",
                                                        "aten::Int",
                                                        "aten::size",
                                                        "aten::__getitem__",
                                                        "aten::dim",
                                                        "aten::len",
                                                        "prim::FallbackGraph",
                                                        "aten::__isnot__",
                                                        "aten::__is__"};
    return ops.count(op) > 0;
}

std::string categoryOf(const std::string& op) {
    const std::string name = op.substr(op.find("::") == std::string::npos ? 0 : op.find("::") + 2);
    static const std::map<std::string, const char*> named = {{"linear", "matmul"},
                                                             {"matmul", "matmul"},
                                                             {"mm", "matmul"},
                                                             {"addmm", "matmul"},
                                                             {"bmm", "matmul"},
                                                             {"baddbmm", "matmul"},
                                                             {"einsum", "matmul"},
                                                             {"conv1d", "conv"},
                                                             {"conv2d", "conv"},
                                                             {"conv3d", "conv"},
                                                             {"_convolution", "conv"},
                                                             {"convolution", "conv"},
                                                             {"scaled_dot_product_attention", "attention"},
                                                             {"layer_norm", "norm"},
                                                             {"batch_norm", "norm"},
                                                             {"group_norm", "norm"},
                                                             {"instance_norm", "norm"},
                                                             {"softmax", "reduction"},
                                                             {"log_softmax", "reduction"},
                                                             {"sum", "reduction"},
                                                             {"mean", "reduction"},
                                                             {"max", "reduction"},
                                                             {"amax", "reduction"},
                                                             {"min", "reduction"},
                                                             {"view", "view"},
                                                             {"reshape", "view"},
                                                             {"transpose", "view"},
                                                             {"permute", "view"},
                                                             {"slice", "view"},
                                                             {"select", "view"},
                                                             {"split", "view"},
                                                             {"chunk", "view"},
                                                             {"unsqueeze", "view"},
                                                             {"squeeze", "view"},
                                                             {"contiguous", "view"},
                                                             {"expand", "view"},
                                                             {"flatten", "view"},
                                                             {"t", "view"},
                                                             {"embedding", "other"},
                                                             {"cat", "other"},
                                                             {"stack", "other"}};
    if (auto it = named.find(name); it != named.end())
        return it->second;
    if (startsWith(op, "aten::"))
        return "pointwise";
    return "other";
}

// Module path from the inlined call stack: the instance names of the modules whose methods were
// inlined into this node (blocks.0.attn...).
std::string modulePath(const Node* node) {
    std::string path;
    if (auto cs = node->callstack()) {
        for (const auto& entry : (*cs)->vec()) {
            const auto& info = std::get<2>(entry);
            if (info && !info->instance_name().empty())
                path += (path.empty() ? "" : ".") + info->instance_name();
        }
    }
    return path;
}

void describeOutputs(const Node* node, GraphNode& out) {
    for (const Value* v : node->outputs()) {
        auto tensor = v->type()->cast<c10::TensorType>();
        if (!tensor)
            continue;
        std::vector<std::string> dims;
        if (auto sizes = tensor->sizes().concrete_sizes()) {
            for (auto s : *sizes)
                dims.push_back(std::to_string(s));
            out.shapes.push_back(std::move(dims));
        }
        if (auto dtype = tensor->scalarType())
            out.dtypes.push_back(c10::toString(*dtype));
    }
}

// A key that survives the executor's passes: the op and where its source starts.
std::string sourceKey(const Node* node, const std::string& op) {
    const auto& range = node->sourceRange();
    if (!range.source())
        return {};
    return op + "@" + std::to_string(range.start()) + "-" + std::to_string(range.end());
}

GraphNode makeNode(const Node* node, std::string id) {
    GraphNode n;
    n.id = std::move(id);
    n.op = node->kind().toQualString();
    n.name = node->outputs().empty() ? n.op : node->output(0)->debugName();
    if (n.op == "prim::Constant" || n.op == "prim::GetAttr") {
        n.kind = "get_attr";
        n.category = "constant";
    } else if (isStructural(n.op)) {
        n.kind = "nop";
        n.category = "other";
    } else {
        n.kind = startsWith(n.op, "aten::") ? "aten" : "prim";
        n.category = categoryOf(n.op);
    }
    if (n.op == "prim::GetAttr")
        n.name = node->s(c10::Symbol::attr("name"));
    n.module = modulePath(node);
    if (auto flc = node->sourceRange().file_line_col()) {
        const auto& [file, line, col] = *flc;
        (void)col;
        n.source = SourceLocation{file, static_cast<int>(line), {}};
    }
    describeOutputs(node, n);
    return n;
}

// Walks a graph into a StageGraph. Values map to the id of the node that produced them; inputs
// of the module itself (self) and what only reads from it are left out of the edges.
class Converter {
public:
    explicit Converter(StageGraph& stage)
        : m_stage(stage) {}

    void inputs(const torch::jit::Graph& graph) {
        for (const Value* v : graph.inputs()) {
            if (v->type()->cast<c10::ClassType>())
                continue; // self
            GraphNode n;
            n.id = "input:" + v->debugName();
            n.name = v->debugName();
            n.op = "prim::Param";
            n.kind = "placeholder";
            n.category = "input";
            m_producer[v] = n.id;
            m_stage.nodes.push_back(std::move(n));
        }
    }

    void outputs(const torch::jit::Graph& graph) {
        GraphNode n;
        n.id = "output";
        n.name = "output";
        n.op = "prim::Return";
        n.kind = "output";
        n.category = "output";
        m_stage.nodes.push_back(n);
        for (const Value* v : graph.outputs())
            edgeFrom(v, n.id);
    }

    // Adds a node; `id` may be chosen by the caller (a matched before-stage id).
    GraphNode& add(const Node* node, const std::string& id, const std::string& group = {}) {
        GraphNode n = makeNode(node, id);
        n.group = group;
        for (const Value* v : node->inputs())
            edgeFrom(v, n.id);
        for (const Value* v : node->outputs())
            m_producer[v] = n.id;
        m_stage.nodes.push_back(std::move(n));
        return m_stage.nodes.back();
    }

    void alias(const Value* to, const Value* from) {
        if (auto it = m_producer.find(from); it != m_producer.end())
            m_producer[to] = it->second;
    }

    void edgeFrom(const Value* v, const std::string& dst) {
        auto it = m_producer.find(v);
        if (it == m_producer.end())
            return;
        const std::string key = it->second + "\n" + dst;
        if (m_edges.insert(key).second)
            m_stage.edges.push_back({it->second, dst});
    }

private:
    StageGraph& m_stage;
    std::unordered_map<const Value*, std::string> m_producer;
    std::unordered_set<std::string> m_edges;
};

std::string uniqueId(const Node* node, int counter) {
    std::string op = node->kind().toUnqualString();
    return op + "_" + std::to_string(counter);
}

// Claims before-stage nodes for after-stage nodes: same source range and op first, then the
// next unclaimed before node of the same op in topological order. Nothing matched, no origin.
class OriginMatcher {
public:
    explicit OriginMatcher(const StageGraph& before, const std::vector<std::string>& keys) {
        for (size_t i = 0; i < before.nodes.size(); ++i) {
            const auto& n = before.nodes[i];
            if (!n.isCompute())
                continue;
            m_byOp[n.op].push_back(n.id);
            if (!keys[i].empty())
                m_byKey[keys[i]].push_back(n.id);
        }
    }

    std::string claim(const Node* node, const std::string& op) {
        const std::string key = sourceKey(node, op);
        if (!key.empty()) {
            if (auto it = m_byKey.find(key); it != m_byKey.end())
                for (const auto& id : it->second)
                    if (m_claimed.insert(id).second)
                        return id;
        }
        if (auto it = m_byOp.find(op); it != m_byOp.end())
            for (const auto& id : it->second)
                if (m_claimed.insert(id).second)
                    return id;
        return {};
    }

private:
    std::map<std::string, std::vector<std::string>> m_byOp;
    std::map<std::string, std::vector<std::string>> m_byKey;
    std::unordered_set<std::string> m_claimed;
};

} // namespace

StageGraph beforeFusionStage(const torch::jit::Graph& graph, std::vector<std::string>& keys) {
    StageGraph stage;
    stage.name = "torchscript_graph";
    stage.label = "TorchScript graph (inlined forward)";
    stage.level = "torchscript";
    stage.fusion = "before";
    Converter convert(stage);
    convert.inputs(graph);
    keys.assign(stage.nodes.size(), {});
    int counter = 0;
    // Control flow (prim::If, prim::Loop) is a nop node followed by the nodes of its blocks, so
    // ops under a condition count as they do once the executor has folded the condition away.
    std::function<void(const Block*)> walk = [&](const Block* block) {
        for (const Node* node : block->nodes()) {
            auto& n = convert.add(node, uniqueId(node, counter++));
            keys.push_back(n.isCompute() ? sourceKey(node, n.op) : std::string());
            for (const Block* inner : node->blocks())
                walk(inner);
        }
    };
    walk(graph.block());
    convert.outputs(graph);
    keys.push_back({});
    return stage;
}

StageGraph optimizedStage(const torch::jit::Graph& graph, const StageGraph& before,
                          std::vector<std::string> keys, const std::string& fusion) {
    StageGraph stage;
    stage.name = "torchscript_optimized";
    stage.label =
        fusion == "after" ? "TorchScript optimized graph (NNC fusion)" : "TorchScript executed graph";
    stage.level = "torchscript";
    stage.fusion = fusion;
    keys.resize(before.nodes.size());
    OriginMatcher matcher(before, keys);
    Converter convert(stage);
    convert.inputs(graph);
    int counter = 0;
    int groups = 0;
    std::unordered_set<std::string> used;

    auto nodeId = [&](const Node* node, const std::string& op) {
        const std::string origin = matcher.claim(node, op);
        std::string id = origin.empty() || used.count(origin) ? "opt:" + uniqueId(node, counter++) : origin;
        used.insert(id);
        return std::make_pair(id, origin);
    };

    std::function<void(const Block*)> walk = [&](const Block* block) {
        for (const Node* node : block->nodes()) {
            const std::string op = node->kind().toQualString();
            const bool guardedIf = op == "prim::If" && node->input(0)->node()->kind().toQualString() ==
                                                           std::string("prim::TypeCheck");
            const bool guardedIfDynamic = op == "prim::If" && node->input(0)->node()->kind().toQualString() ==
                                                                  std::string("prim::TensorExprDynamicGuard");
            if (guardedIf || guardedIfDynamic) {
                // The specialised path the type check guards; the fallback block (unfused copy
                // of the same region, run only when the check fails) is left out.
                const Block* fast = node->blocks()[0];
                walk(fast);
                for (size_t i = 0; i < node->outputs().size(); ++i)
                    convert.alias(node->output(i), fast->outputs()[i]);
                continue;
            }
            if (isFusionGroup(op) && node->hasAttribute(torch::jit::attr::Subgraph)) {
                FusionGroup group;
                group.id = "kernel_" + std::to_string(groups++);
                group.name = op + " #" + std::to_string(groups - 1);
                group.kind = "kernel";
                const auto subgraph = node->g(torch::jit::attr::Subgraph);
                for (size_t i = 0; i < subgraph->inputs().size() && i < node->inputs().size(); ++i)
                    convert.alias(subgraph->inputs()[i], node->input(i));
                for (const Node* inner : subgraph->nodes()) {
                    const std::string innerOp = inner->kind().toQualString();
                    const bool compute = innerOp != "prim::Constant" && !isStructural(innerOp);
                    auto [id, origin] =
                        compute ? nodeId(inner, innerOp)
                                : std::make_pair("opt:" + uniqueId(inner, counter++), std::string());
                    auto& n = convert.add(inner, id, group.id);
                    if (!origin.empty())
                        n.origins.push_back(origin);
                    group.nodes.push_back(n.id);
                }
                for (size_t i = 0; i < subgraph->outputs().size() && i < node->outputs().size(); ++i)
                    convert.alias(node->output(i), subgraph->outputs()[i]);
                stage.groups.push_back(std::move(group));
                continue;
            }
            const bool compute = op != "prim::Constant" && op != "prim::GetAttr" && !isStructural(op);
            auto [id, origin] = compute ? nodeId(node, op)
                                        : std::make_pair("opt:" + uniqueId(node, counter++), std::string());
            auto& n = convert.add(node, id);
            if (!origin.empty())
                n.origins.push_back(origin);
            for (const Block* inner : node->blocks()) // user control flow the executor kept
                walk(inner);
        }
    };
    walk(graph.block());
    convert.outputs(graph);
    return stage;
}

} // namespace fusescope
