#include "WorkloadText.h"

#include "model/Quantization.h"

#include <set>
#include <sstream>

namespace fusescope {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, sep)) {
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(item.substr(first, last - first + 1));
    }
    return out;
}

Error bad(const std::string& message) {
    return Error{"usage", message};
}

const std::set<std::string> kDtypes = {"float32", "float16", "bfloat16", "float64", "int64",
                                       "int32",   "int16",   "int8",     "uint8",   "bool"};

} // namespace

Result<InputSet> parseInputSpec(const std::string& text) {
    InputSet spec;
    const auto items = split(text, ',');
    if (items.empty())
        return bad("'" + text + "' names no input; write shapes like 4x16:float32,4:int64");
    for (const auto& item : items) {
        const auto colon = item.find(':');
        const std::string dims = item.substr(0, colon);
        const std::string dtype = colon == std::string::npos ? "float32" : item.substr(colon + 1);
        if (!kDtypes.count(dtype))
            return bad("'" + item + "': unknown dtype '" + dtype +
                       "' (float32, float16, bfloat16, float64, int64, "
                       "int32, int16, int8, uint8, bool)");
        std::vector<std::string> shape;
        std::vector<std::string> parts;
        for (size_t from = 0; !dims.empty();) {
            const auto x = dims.find('x', from);
            parts.push_back(dims.substr(from, x == std::string::npos ? std::string::npos : x - from));
            if (x == std::string::npos)
                break;
            from = x + 1;
        }
        for (const auto& d : parts) {
            size_t used = 0;
            long long value = -1;
            try {
                value = std::stoll(d, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != d.size() || value < 0)
                return bad("'" + item + "' is not a shape like 4x16:float32");
            shape.push_back(std::to_string(value));
        }
        if (shape.empty() && !dims.empty())
            return bad("'" + item + "' is not a shape like 4x16:float32");
        spec.push_back({std::move(shape), dtype});
    }
    return spec;
}

Result<std::vector<InputSet>> parseShapeList(const std::string& text) {
    std::vector<InputSet> sets;
    for (const auto& set : split(text, ';')) {
        auto spec = parseInputSpec(set);
        if (!spec)
            return spec.error();
        sets.push_back(spec.value());
    }
    if (sets.empty())
        return bad("the shape list '" + text + "' names no input set; write e.g. 1x8:int64;4x8:int64");
    return sets;
}

Result<std::vector<std::pair<std::string, std::string>>> parseAssignment(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::set<std::string> seen;
    for (const auto& item : split(text, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            return bad("'" + item + "' is not SUBMODULE=BACKEND (e.g. encoder=inductor)");
        std::string module = item.substr(0, eq);
        std::string backend = item.substr(eq + 1);
        if (!seen.insert(module).second)
            return bad("submodule '" + module + "' is assigned twice");
        out.emplace_back(std::move(module), std::move(backend));
    }
    if (out.empty())
        return bad("the assignment '" + text +
                   "' names no submodule; write e.g. encoder=inductor,decoder=aot_eager");
    return out;
}

std::string mixedLabel(const std::vector<std::pair<std::string, std::string>>& assign) {
    std::string label = std::string(kMixedBackend) + "[";
    for (size_t i = 0; i < assign.size(); ++i)
        label += (i ? "," : "") + assign[i].first + "=" + assign[i].second;
    return label + "]";
}

bool isMixedLabel(const std::string& label) {
    const std::string prefix = std::string(kMixedBackend) + "[";
    return label.size() > prefix.size() && label.compare(0, prefix.size(), prefix) == 0 &&
           label.back() == ']';
}

Status checkMode(const std::string& mode) {
    if (mode == "inference" || mode == "training")
        return std::nullopt;
    if (mode == "default" || mode == "reduce-overhead" || mode == "max-autotune" ||
        mode == "max-autotune-no-cudagraphs")
        return bad("'" + mode + "' is a torch.compile mode: use --compile-mode " + mode + " or inductor@" +
                   mode + "; --mode is inference or training");
    return bad("mode '" + mode + "' is neither inference nor training");
}

Status checkPrecision(const std::string& precision) {
    std::string all;
    for (const auto& p : workloadPrecisions()) {
        if (p == precision)
            return std::nullopt;
        all += (all.empty() ? "" : ", ") + p;
    }
    return bad("precision '" + precision + "' is not one of " + all);
}

} // namespace fusescope
