#include "QuantizationLines.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace fusescope {

namespace {

bool int8Dtype(const std::string& dtype) {
    return dtype == "int8" || dtype == "uint8";
}

bool int8Op(const std::string& op) {
    for (const char* marker : {"_int_mm", "qlinear", "qconv", "int8pack", "quantize_per_"})
        if (op.find(marker) != std::string::npos)
            return true;
    return false;
}

// The definition of kernel `name` in Inductor's output code: from `name = async_compile.` to the
// end of its source string; in an AOTInductor package's C++, its signature `void name(...)`;
// empty when it is not there.
std::string_view kernelSource(std::string_view code, const std::string& name) {
    const std::string head = name + " = async_compile.";
    size_t at = code.find(head);
    while (at != std::string_view::npos && at > 0 && code[at - 1] != '\n')
        at = code.find(head, at + 1);
    if (at == std::string_view::npos) {
        // `extern "C"  void  name(`: the name right after `void` and any spaces.
        const std::string call = name + "(";
        for (at = code.find(call); at != std::string_view::npos; at = code.find(call, at + 1)) {
            size_t before = at;
            while (before > 0 && (code[before - 1] == ' ' || code[before - 1] == '\t'))
                --before;
            if (before < at && before >= 4 && code.substr(before - 4, 4) == "void") {
                const size_t close = code.find(')', at);
                return code.substr(at, close == std::string_view::npos ? std::string_view::npos : close - at);
            }
        }
        return {};
    }
    // To the source string's closing quotes: `''')` for C++, `''', device_str='cuda')` for Triton.
    const size_t line = code.find('\n', at);
    for (std::string_view quotes : {std::string_view("'''"), std::string_view("\"\"\"")}) {
        const size_t open = code.find(quotes, at);
        if (open == std::string_view::npos || (line != std::string_view::npos && open > line))
            continue; // the source string opens on the definition's line
        const size_t close = code.find(quotes, open + 3);
        return code.substr(at, close == std::string_view::npos ? std::string_view::npos : close - at);
    }
    return code.substr(at, line == std::string_view::npos ? std::string_view::npos : line - at);
}

bool takesInt8Pointers(std::string_view source) {
    for (std::string_view marker :
         {"const int8_t*", "const uint8_t*", "'*i8'", "'*u8'", "\"*i8\"", "\"*u8\""})
        if (source.find(marker) != std::string_view::npos)
            return true;
    return false;
}

} // namespace

std::set<std::string> int8KernelGroups(const BackendRun& run, const StageGraph& stage) {
    std::map<std::string, const GraphNode*> byId;
    for (const auto& n : stage.nodes)
        byId[n.id] = &n;
    std::set<std::string> found;
    for (const auto& group : stage.groups) {
        if (!group.isKernel())
            continue;
        const bool byNode = std::any_of(group.nodes.begin(), group.nodes.end(), [&](const std::string& id) {
            auto it = byId.find(id);
            return it != byId.end() &&
                   (int8Op(it->second->op) ||
                    std::any_of(it->second->dtypes.begin(), it->second->dtypes.end(), int8Dtype));
        });
        bool byCode = false;
        if (!byNode && !group.code.empty())
            for (const auto& artifact : run.code)
                if (artifact.name == group.code &&
                    takesInt8Pointers(kernelSource(artifact.text, group.name))) {
                    byCode = true;
                    break;
                }
        if (byNode || byCode)
            found.insert(group.id);
    }
    return found;
}

std::vector<std::string> int8KernelNames(const BackendRun& run) {
    std::vector<std::string> names;
    for (const auto& stage : run.stages) {
        if (stage.fusion != "after")
            continue;
        const auto ids = int8KernelGroups(run, stage);
        for (const auto& group : stage.groups)
            if (ids.count(group.id))
                names.push_back(group.name);
    }
    return names;
}

std::vector<std::string> quantizationLines(const BackendRun& run) {
    if (!run.quantization)
        return {};
    const Quantization& q = *run.quantization;
    std::string head = quantizationText(q);
    const bool fused = std::any_of(run.stages.begin(), run.stages.end(), [](const StageGraph& s) {
        return s.fusion == "after" && s.status == StageStatus::Ok;
    });
    if (fused) {
        const auto kernels = int8KernelNames(run);
        head +=
            "; " + std::to_string(kernels.size()) + (kernels.size() == 1 ? " int8 kernel" : " int8 kernels");
        // Each name once, with how many kernels have it: "extern_kernels._int_mm x2".
        std::vector<std::pair<std::string, int>> named;
        for (const auto& k : kernels) {
            auto it = std::find_if(named.begin(), named.end(), [&](const auto& n) { return n.first == k; });
            if (it == named.end())
                named.emplace_back(k, 1);
            else
                ++it->second;
        }
        if (!named.empty()) {
            head += " (";
            for (size_t i = 0; i < named.size() && i < 3; ++i)
                head += (i ? ", " : "") + named[i].first +
                        (named[i].second > 1 ? " x" + std::to_string(named[i].second) : std::string());
            head += named.size() > 3 ? ", ...)" : ")";
        }
    }
    std::vector<std::string> lines = {head};
    if (!q.calibration.empty())
        lines.push_back("calibrated on " + q.calibration);
    for (const auto& s : q.skippedModules)
        lines.push_back("not quantized: " + s.module + ": " + s.reason);
    for (const auto& note : q.notes)
        lines.push_back(note);
    return lines;
}

} // namespace fusescope
