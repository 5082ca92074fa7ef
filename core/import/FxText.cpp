#include "FxText.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fusescope::import {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

size_t indentOf(std::string_view s) {
    size_t n = 0;
    while (n < s.size() && s[n] == ' ')
        ++n;
    return n;
}

bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9');
}
bool isIdentifier(std::string_view s) {
    if (s.empty() || !isIdentStart(s.front()))
        return false;
    return std::all_of(s.begin(), s.end(), isIdentChar);
}

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

// Identifiers in an expression outside string literals, in order, each once.
std::vector<std::string> identifiers(std::string_view expr) {
    std::vector<std::string> out;
    std::unordered_set<std::string> seen;
    char quote = 0;
    for (size_t i = 0; i < expr.size();) {
        const char c = expr[i];
        if (quote) {
            if (c == '\\')
                i += 2;
            else {
                if (c == quote)
                    quote = 0;
                ++i;
            }
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
            ++i;
            continue;
        }
        if (isIdentStart(c) && (i == 0 || (!isIdentChar(expr[i - 1]) && expr[i - 1] != '.'))) {
            size_t j = i;
            while (j < expr.size() && isIdentChar(expr[j]))
                ++j;
            std::string id(expr.substr(i, j - i));
            if (seen.insert(id).second)
                out.push_back(std::move(id));
            i = j;
            continue;
        }
        ++i;
    }
    return out;
}

std::string dtypeName(std::string_view code) {
    static const std::map<std::string_view, const char*> names = {
        {"f32", "float32"}, {"f64", "float64"}, {"f16", "float16"},   {"bf16", "bfloat16"},
        {"i64", "int64"},   {"i32", "int32"},   {"i16", "int16"},     {"i8", "int8"},
        {"u8", "uint8"},    {"b8", "bool"},     {"c64", "complex64"}, {"c128", "complex128"}};
    auto it = names.find(code);
    return it == names.end() ? std::string(code) : std::string(it->second);
}

// The op's base name: aten.addmm.default -> addmm, torch._C._nn.linear -> linear.
std::string baseOp(const std::string& op) {
    static const std::set<std::string> overloads = {"default",    "Tensor",    "Scalar", "int",
                                                    "self",       "out",       "dim",    "dim_IntList",
                                                    "using_ints", "correction"};
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= op.size()) {
        size_t dot = op.find('.', start);
        if (dot == std::string::npos)
            dot = op.size();
        parts.push_back(op.substr(start, dot - start));
        start = dot + 1;
    }
    if (parts.size() >= 3 && parts[0] == "aten")
        return parts[1];
    if (parts.size() >= 2 && overloads.count(parts.back()))
        return parts[parts.size() - 2];
    return parts.empty() ? op : parts.back();
}

} // namespace

bool parseTensorType(std::string_view text, std::string& dtype, std::vector<std::string>& shape) {
    text = trim(text);
    if (text.substr(0, 4) == "Sym(") {
        dtype = "sym";
        shape.clear();
        return true;
    }
    const size_t open = text.find('[');
    if (open == std::string_view::npos || open == 0 || open > 6)
        return false;
    const size_t close = text.find(']', open);
    if (close == std::string_view::npos)
        return false;
    dtype = dtypeName(text.substr(0, open));
    shape.clear();
    std::string_view dims = text.substr(open + 1, close - open - 1);
    while (!dims.empty()) {
        const size_t comma = dims.find(',');
        const std::string_view dim = trim(dims.substr(0, comma));
        if (!dim.empty())
            shape.emplace_back(dim);
        if (comma == std::string_view::npos)
            break;
        dims.remove_prefix(comma + 1);
    }
    return true;
}

std::string opCategory(const std::string& op, const std::string& kind) {
    if (kind == "placeholder")
        return "input";
    if (kind == "output")
        return "output";
    if (kind == "get_attr")
        return "constant";
    if (kind == "extern_kernel")
        return "extern";
    const std::string base = baseOp(op);
    auto any = [&](std::initializer_list<const char*> names) {
        return std::any_of(names.begin(), names.end(), [&](const char* n) { return base == n; });
    };
    auto has = [&](const char* part) { return base.find(part) != std::string::npos; };
    if (any({"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "einsum", "dot", "mv"}))
        return "matmul";
    if (has("conv"))
        return "conv";
    if (has("attention") || has("sdpa"))
        return "attention";
    if (has("norm"))
        return "norm";
    if (any({"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "var", "std",
             "logsumexp", "softmax", "_softmax", "log_softmax", "_log_softmax", "cumsum"}))
        return "reduction";
    if (any({"view",         "reshape",    "permute", "transpose",  "t",      "expand",
             "squeeze",      "unsqueeze",  "flatten", "contiguous", "clone",  "slice",
             "select",       "getitem",    "cat",     "stack",      "split",  "chunk",
             "_unsafe_view", "as_strided", "alias",   "detach",     "unbind", "narrow",
             "index_select", "copy_"}))
        return "view";
    if (any({"relu",     "gelu",       "silu",       "sigmoid",     "tanh",
             "exp",      "log",        "add",        "sub",         "mul",
             "div",      "neg",        "pow",        "sqrt",        "rsqrt",
             "abs",      "where",      "clamp",      "le",          "lt",
             "ge",       "gt",         "eq",         "ne",          "threshold_backward",
             "erf",      "sin",        "cos",        "maximum",     "minimum",
             "hardtanh", "leaky_relu", "dropout",    "masked_fill", "fill",
             "full",     "ones_like",  "zeros_like", "to",          "type_as",
             "_to_copy", "iadd",       "imul",       "floordiv",    "mod"}))
        return "pointwise";
    return "other";
}

FxTextGraph parseFxText(std::string_view text) {
    FxTextGraph out;
    StageGraph& stage = out.stage;
    const auto lines = splitLines(text);
    // The top-level forward: the `def forward(` with the least indentation (nested submodules'
    // forwards are deeper), the last one of those.
    size_t defLine = lines.size();
    size_t defIndent = SIZE_MAX;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view t = trim(lines[i]);
        if (t.substr(0, 12) == "def forward(" && indentOf(lines[i]) <= defIndent) {
            defIndent = indentOf(lines[i]);
            defLine = i;
        }
    }
    if (defLine == lines.size())
        return out;

    std::unordered_map<std::string, std::string> alias; // name in the text -> node id
    std::unordered_set<std::string> ids;
    std::set<std::pair<std::string, std::string>> edgeSet;
    auto resolve = [&](const std::string& name) -> const std::string* {
        auto it = alias.find(name);
        return it == alias.end() ? nullptr : &it->second;
    };
    auto addNode = [&](GraphNode node) {
        if (ids.count(node.id))
            return false;
        ids.insert(node.id);
        alias[node.name] = node.id;
        stage.nodes.push_back(std::move(node));
        return true;
    };
    auto addEdges = [&](std::string_view expr, const std::string& dst) {
        for (const auto& id : identifiers(expr))
            if (const std::string* src = resolve(id))
                if (*src != dst && edgeSet.emplace(*src, dst).second)
                    stage.edges.push_back({*src, dst});
    };
    auto placeholder = [&](std::string_view name, std::string_view type) {
        GraphNode node;
        node.id = node.name = std::string(name);
        node.op = "placeholder";
        node.kind = "placeholder";
        node.category = "input";
        std::string dtype;
        std::vector<std::string> shape;
        if (parseTensorType(type, dtype, shape)) {
            node.dtypes = {dtype};
            node.shapes = {shape};
            const size_t last = type.rfind(']');
            if (out.device.empty() && dtype != "sym" && last != std::string_view::npos)
                out.device = std::string(trim(type.substr(last + 1)));
        }
        addNode(std::move(node));
    };

    // The signature, possibly over several lines, up to the "):".
    std::string signature;
    size_t body = defLine;
    for (; body < lines.size(); ++body) {
        signature += std::string(trim(lines[body]));
        if (trim(lines[body]).size() >= 2 && trim(lines[body]).substr(trim(lines[body]).size() - 2) == "):")
            break;
        if (trim(lines[body]).size() >= 1 && trim(lines[body]).back() == ':' &&
            trim(lines[body]).find("->") != std::string_view::npos)
            break;
    }
    ++body;
    {
        const size_t open = signature.find('(');
        const size_t close = signature.rfind(')');
        if (open != std::string::npos && close != std::string::npos && close > open) {
            const std::string params = signature.substr(open + 1, close - open - 1);
            // Split at top-level commas (a type's brackets hold commas too; quotes guard them).
            std::vector<std::string> parts;
            std::string current;
            int depth = 0;
            char quote = 0;
            for (char c : params) {
                if (quote) {
                    if (c == quote)
                        quote = 0;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '[' || c == '(') {
                    ++depth;
                } else if (c == ']' || c == ')') {
                    --depth;
                } else if (c == ',' && depth == 0) {
                    parts.push_back(current);
                    current.clear();
                    continue;
                }
                current += c;
            }
            parts.push_back(current);
            for (const auto& part : parts) {
                std::string_view p = trim(part);
                const size_t colon = p.find(':');
                const std::string_view name = trim(p.substr(0, colon));
                if (name == "self" || !isIdentifier(name) || colon == std::string_view::npos)
                    continue; // unannotated (primals, tangents): their elements are declared in the body
                std::string_view type = trim(p.substr(colon + 1));
                if (type.size() >= 2 && (type.front() == '"' || type.front() == '\''))
                    type = type.substr(1, type.size() - 2);
                placeholder(name, type);
            }
        }
    }

    std::optional<SourceLocation> source;
    size_t bodyIndent = 0;
    int counter = 0;
    for (size_t i = body; i < lines.size(); ++i) {
        const std::string_view raw = lines[i];
        std::string_view t = trim(raw);
        if (t.empty())
            continue;
        const size_t indent = indentOf(raw);
        if (bodyIndent == 0)
            bodyIndent = indent;
        if (indent < bodyIndent)
            break; // the end of forward()
        if (indent > bodyIndent && t.front() != '#') {
            ++out.skipped; // a continuation line of a statement we did not take
            continue;
        }
        if (t.front() == '#') {
            // "# File: /x/model.py:8 in forward, code: y = torch.relu(self.a(x))"
            if (t.substr(0, 8) == "# File: ") {
                std::string_view rest = t.substr(8);
                const size_t in = rest.find(" in ");
                const size_t code = rest.find(", code: ");
                const std::string_view fileLine = rest.substr(0, in);
                const size_t colon = fileLine.rfind(':');
                SourceLocation loc;
                if (colon != std::string_view::npos) {
                    loc.file = std::string(fileLine.substr(0, colon));
                    int line = 0;
                    for (char c : fileLine.substr(colon + 1)) {
                        if (c < '0' || c > '9' || line > 100'000'000)
                            break;
                        line = line * 10 + (c - '0');
                    }
                    loc.line = line;
                } else {
                    loc.file = std::string(fileLine);
                }
                if (code != std::string_view::npos)
                    loc.code = std::string(rest.substr(code + 8));
                source = loc;
            } else if (t.substr(0, 3) == "# ") {
                // another comment: "# No stacktrace found for following nodes" ends the source
                if (t.find("No stacktrace") != std::string_view::npos)
                    source.reset();
            }
            continue;
        }
        // One statement: drop the "del" tail Inductor/FX appends ("; x = y = None").
        const size_t semi = t.find(";  ");
        if (semi != std::string_view::npos)
            t = trim(t.substr(0, semi));
        if (t.substr(0, 7) == "return ") {
            GraphNode node;
            node.id = node.name = "output";
            node.op = "output";
            node.kind = "output";
            node.category = "output";
            if (addNode(node))
                addEdges(t.substr(7), "output");
            continue;
        }
        const size_t eq = t.find(" = ");
        // "primals_1: "f32[8, 8][8, 1]cpu"  # PlainAOTInput(idx=0)": a placeholder in the body.
        if (eq == std::string_view::npos) {
            const size_t colon = t.find(": ");
            if (colon != std::string_view::npos && isIdentifier(t.substr(0, colon))) {
                std::string_view type = trim(t.substr(colon + 2));
                const size_t hash = type.find("  #");
                if (hash != std::string_view::npos)
                    type = trim(type.substr(0, hash));
                if (type.size() >= 2 && type.front() == '"')
                    type = type.substr(1, type.size() - 2);
                placeholder(t.substr(0, colon), type);
            } else {
                ++out.skipped;
            }
            continue;
        }
        std::string_view lhs = trim(t.substr(0, eq));
        const std::string_view expr = trim(t.substr(eq + 3));
        std::string_view type;
        const size_t colon = lhs.find(':');
        if (colon != std::string_view::npos) {
            type = trim(lhs.substr(colon + 1));
            if (type.size() >= 2 && type.front() == '"')
                type = type.substr(1, type.size() - 2);
            lhs = trim(lhs.substr(0, colon));
        }
        if (!isIdentifier(lhs)) {
            ++out.skipped; // a tuple unpacking ("a, b, = fx_pytree.tree_flatten_spec(...)")
            continue;
        }
        if (type.empty() && isIdentifier(expr)) {
            if (const std::string* target = resolve(std::string(expr))) {
                alias[std::string(lhs)] = *target; // "l_x_ = L_x_"
                continue;
            }
        }
        GraphNode node;
        node.name = std::string(lhs);
        node.id = ids.count(node.name) ? node.name + "_" + std::to_string(++counter) : node.name;
        const size_t paren = expr.find('(');
        const std::string_view head =
            paren == std::string_view::npos ? std::string_view() : trim(expr.substr(0, paren));
        if (!head.empty() &&
            std::all_of(head.begin(), head.end(), [](char c) { return isIdentChar(c) || c == '.'; })) {
            std::string target(head);
            const size_t firstDot = target.find('.');
            const std::string first = target.substr(0, firstDot);
            if (first == "self") {
                node.kind = "call_module";
                node.op = target.substr(firstDot == std::string::npos ? 0 : firstDot + 1);
            } else if (firstDot != std::string::npos && resolve(first)) {
                node.kind = "call_method";
                node.op = target.substr(firstDot + 1);
            } else {
                node.kind = "call_function";
                if (target.rfind("torch.ops.", 0) == 0)
                    target = target.substr(10);
                node.op = target;
            }
        } else if (expr.substr(0, 5) == "self.") {
            node.kind = "get_attr";
            node.op = std::string(expr.substr(5));
        } else {
            node.kind = "call_function";
            if (expr.find('[') != std::string_view::npos && expr.back() == ']')
                node.op = "getitem";
            else if (expr.find(" * ") != std::string_view::npos)
                node.op = "mul";
            else if (expr.find(" + ") != std::string_view::npos)
                node.op = "add";
            else if (expr.find(" - ") != std::string_view::npos)
                node.op = "sub";
            else if (expr.find(" / ") != std::string_view::npos)
                node.op = "truediv";
            else
                node.op = std::string(expr.substr(0, 60));
        }
        std::string dtype;
        std::vector<std::string> shape;
        if (!type.empty() && parseTensorType(type, dtype, shape)) {
            node.dtypes = {dtype};
            node.shapes = {shape};
        }
        node.category = opCategory(node.op, node.kind);
        node.source = source;
        const std::string id = node.id;
        addEdges(expr, id);
        ids.insert(id);
        alias[node.name] = id;
        stage.nodes.push_back(std::move(node));
    }
    return out;
}

namespace {

// "[linear, y]" -> {"linear", "y"}
std::vector<std::string> bracketList(std::string_view s) {
    std::vector<std::string> out;
    const size_t open = s.find('[');
    const size_t close = s.find(']', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos)
        return out;
    std::string_view items = s.substr(open + 1, close - open - 1);
    while (!items.empty()) {
        const size_t comma = items.find(',');
        const std::string_view item = trim(items.substr(0, comma));
        if (!item.empty())
            out.emplace_back(item);
        if (comma == std::string_view::npos)
            break;
        items.remove_prefix(comma + 1);
    }
    return out;
}

} // namespace

OutputCode parseOutputCode(std::string_view text) {
    OutputCode code;
    const auto lines = splitLines(text);
    std::vector<std::string> pendingSources, pendingAten;
    std::unordered_map<std::string, size_t> defined; // kernel name -> index in `defs`
    std::vector<OutputKernel> defs;
    bool inCall = false;
    size_t callIndent = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view raw = lines[i];
        const std::string_view t = trim(raw);
        if (t.substr(0, 10) == "# AOT ID: ") {
            auto ids = bracketList(t);
            if (!ids.empty() && ids.front().size() >= 2)
                code.aotId = ids.front().substr(1, ids.front().size() - 2);
            continue;
        }
        if (t.rfind("# Topologically Sorted Source Nodes: ", 0) == 0) {
            pendingSources = bracketList(t.substr(0, t.find("Original ATen")));
            const size_t aten = t.find("Original ATen: ");
            pendingAten =
                aten == std::string_view::npos ? std::vector<std::string>{} : bracketList(t.substr(aten));
            continue;
        }
        if (!inCall) {
            // "cpp_fused_relu_0 = async_compile.cpp_pybinding(...", "triton_poi_fused_0 =
            // async_compile.triton(..."
            if (indentOf(raw) == 0) {
                const size_t eq = t.find(" = async_compile.");
                if (eq != std::string_view::npos && isIdentifier(t.substr(0, eq))) {
                    OutputKernel k;
                    k.name = std::string(t.substr(0, eq));
                    k.kind = "kernel";
                    k.sourceNodes = pendingSources;
                    k.atenOps = pendingAten;
                    defined[k.name] = defs.size();
                    defs.push_back(std::move(k));
                    pendingSources.clear();
                    pendingAten.clear();
                    continue;
                }
            }
            if (t.substr(0, 15) == "def call(self, " || t.substr(0, 10) == "def call(a") {
                inCall = true;
                callIndent = indentOf(raw);
                pendingSources.clear();
                pendingAten.clear();
            }
            continue;
        }
        if (indentOf(raw) <= callIndent) {
            inCall = false;
            continue;
        }
        if (code.inputs.empty() && t.find(" = args") != std::string_view::npos) {
            std::string_view names = t.substr(0, t.find(" = args"));
            while (!names.empty()) {
                const size_t comma = names.find(',');
                const std::string_view n = trim(names.substr(0, comma));
                if (isIdentifier(n))
                    code.inputs.emplace_back(n);
                if (comma == std::string_view::npos)
                    break;
                names.remove_prefix(comma + 1);
            }
            continue;
        }
        if (t.substr(0, 7) == "return ") {
            for (const auto& id : identifiers(t.substr(7)))
                code.outputs.push_back(id);
            continue;
        }
        const size_t paren = t.find('(');
        if (paren == std::string_view::npos) {
            // "buf1 = buf0; del buf0  # reuse": the same memory under a new name.
            const size_t eqAlias = t.find(" = ");
            const size_t semiAlias = t.find(';');
            if (eqAlias != std::string_view::npos && semiAlias != std::string_view::npos &&
                semiAlias > eqAlias) {
                const std::string_view to = trim(t.substr(0, eqAlias));
                const std::string_view from = trim(t.substr(eqAlias + 3, semiAlias - eqAlias - 3));
                if (isIdentifier(to) && isIdentifier(from)) {
                    OutputKernel a;
                    a.kind = "alias";
                    a.buffers = {std::string(to), std::string(from)};
                    code.kernels.push_back(std::move(a));
                }
            }
            continue;
        }
        std::string_view callee = trim(t.substr(0, paren));
        // "buf3 = extern_kernels.mm(...)" or "extern_kernels.addmm(..., out=buf0)" or "kernel(...)"
        const size_t eq = callee.find(" = ");
        std::string_view assigned;
        if (eq != std::string_view::npos) {
            assigned = trim(callee.substr(0, eq));
            callee = trim(callee.substr(eq + 3));
        }
        OutputKernel k;
        bool found = false;
        if (callee.rfind("extern_kernels.", 0) == 0) {
            k.name = std::string(callee);
            k.kind = "extern_kernel";
            k.sourceNodes = pendingSources;
            k.atenOps = pendingAten;
            found = true;
        } else if (auto it = defined.find(std::string(callee.substr(0, callee.find('.'))));
                   it != defined.end()) {
            k = defs[it->second];
            if (k.sourceNodes.empty())
                k.sourceNodes = pendingSources;
            defs[it->second].called = true;
            found = true;
        }
        if (!found)
            continue;
        k.called = true;
        if (!assigned.empty() && isIdentifier(assigned))
            k.buffers.emplace_back(assigned);
        for (const auto& id : identifiers(t.substr(paren)))
            if (id != "reinterpret_tensor" && id != "alpha" && id != "beta" && id != "out" &&
                id != "stream" && id != "grid" && id.rfind("stream", 0) != 0 && id != "None" &&
                id != "True" && id != "False")
                k.buffers.push_back(id);
        code.kernels.push_back(std::move(k));
        pendingSources.clear();
        pendingAten.clear();
    }
    for (auto& d : defs)
        if (!d.called)
            code.kernels.push_back(d);
    return code;
}

StageGraph postFusionStage(const OutputCode& code) {
    StageGraph stage;
    std::unordered_map<std::string, std::string> lastWriter; // buffer -> node id that last used it
    std::unordered_set<std::string> inputs(code.inputs.begin(), code.inputs.end());
    std::set<std::pair<std::string, std::string>> edgeSet;
    for (const auto& in : code.inputs) {
        GraphNode node;
        node.id = node.name = in;
        node.op = node.kind = "placeholder";
        node.category = "input";
        stage.nodes.push_back(node);
        lastWriter[in] = in;
    }
    std::unordered_map<std::string, int> uses;
    for (size_t i = 0; i < code.kernels.size(); ++i) {
        const OutputKernel& k = code.kernels[i];
        if (k.kind == "alias") {
            auto it = lastWriter.find(k.buffers[1]);
            if (it != lastWriter.end())
                lastWriter[k.buffers[0]] = it->second;
            continue;
        }
        GraphNode node;
        const int n = uses[k.name]++;
        node.id = k.name + (n ? "#" + std::to_string(n) : std::string());
        node.name = k.name;
        node.op = k.name;
        node.kind = k.kind == "extern_kernel" ? "extern_kernel" : "scheduler_node";
        node.category = k.kind == "extern_kernel" ? "extern" : "pointwise";
        if (k.kind != "extern_kernel" && !k.atenOps.empty()) {
            std::string best = "pointwise";
            for (const auto& op : k.atenOps) {
                const std::string c = opCategory(op, "call_function");
                if (c == "reduction" || c == "matmul" || c == "conv" || c == "norm" || c == "attention")
                    best = c;
            }
            node.category = best;
        }
        node.origins = k.sourceNodes;
        node.group = "k" + std::to_string(i);
        for (const auto& buffer : k.buffers) {
            auto it = lastWriter.find(buffer);
            if (it != lastWriter.end() && it->second != node.id &&
                edgeSet.emplace(it->second, node.id).second)
                stage.edges.push_back({it->second, node.id});
            lastWriter[buffer] = node.id;
        }
        FusionGroup group;
        group.id = node.group;
        group.name = k.name;
        group.kind = k.kind;
        group.nodes = {node.id};
        group.provenance = k.sourceNodes;
        stage.groups.push_back(std::move(group));
        stage.nodes.push_back(std::move(node));
    }
    if (!code.outputs.empty()) {
        GraphNode out;
        out.id = out.name = "output";
        out.op = out.kind = "output";
        out.category = "output";
        for (const auto& o : code.outputs) {
            auto it = lastWriter.find(o);
            if (it != lastWriter.end() && edgeSet.emplace(it->second, "output").second)
                stage.edges.push_back({it->second, "output"});
        }
        stage.nodes.push_back(std::move(out));
    }
    return stage;
}

} // namespace fusescope::import
