#include "TuneSpace.h"

#include "model/BackendEntry.h"
#include "model/ErrorCode.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

namespace fusescope {

using nlohmann::json;

namespace {

bool hasTag(const BackendChoice& b, const char* tag) {
    return std::find(b.tags.begin(), b.tags.end(), tag) != b.tags.end();
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

} // namespace

TuneMachine tuneMachineHere(const std::string& device, bool training) {
    TuneMachine m{device, false, training};
    if (device != "cpu")
        return m;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (line.rfind("flags", 0) == 0) {
            m.avx512 = (line + " ").find(" avx512f ") != std::string::npos;
            break;
        }
    return m;
}

TuneDimensions defaultTuneDimensions(const std::vector<BackendChoice>& backends, const TuneMachine& machine) {
    TuneDimensions d;
    const bool cuda = machine.device.rfind("cuda", 0) == 0;
    // The base first (the default a user would write). The uncompiled model is no candidate: it is
    // every candidate's baseline, speedup 1 (the verdict says when nothing beats it).
    std::vector<std::string> left, debug;
    for (const auto& b : backends) {
        if (hasTag(b, "debug") || hasTag(b, "experimental")) {
            debug.push_back(b.name);
        } else if (!b.available) {
            d.notes.push_back(b.name + " is not in the space: unavailable here (" + b.reason + ")");
        } else if (b.name != d.base) {
            left.push_back(b.name);
        }
    }
    const auto available = [&](const std::string& name) {
        return std::any_of(backends.begin(), backends.end(),
                           [&](const BackendChoice& b) { return b.name == name && b.available; });
    };
    if (available(d.base))
        d.backends.push_back(d.base);
    d.backends.insert(d.backends.end(), left.begin(), left.end());
    if (!debug.empty())
        d.notes.push_back(
            std::to_string(debug.size()) +
            " debugging and experimental backends (eager, aot_eager, ...) are not in the space: they "
            "check torch.compile, they are not meant to be fast; list them under `backends` in a "
            "space file to race them");
    if (cuda) {
        d.modes = {"max-autotune", "max-autotune-no-cudagraphs", "reduce-overhead"};
    } else {
        d.modes = {"max-autotune"};
        d.notes.push_back("modes: max-autotune-no-cudagraphs is max-autotune on a CPU (no CUDA graphs to "
                          "leave out) and reduce-overhead needs CUDA graphs, so only max-autotune is raced");
    }
    d.dynamic = {"false", "true"};
    d.fullgraph = true;
    if (!machine.training)
        d.inductorOptions.push_back({"freezing", {true}});
    else
        d.notes.push_back("freezing is not in the space: it folds parameters as constants, inference only");
    d.inductorOptions.push_back({"cpp_wrapper", {true}});
    d.inductorOptions.push_back({"max_fusion_size", {128}});
    d.inductorOptions.push_back({"aggressive_fusion", {true}});
    if (cuda) {
        d.inductorOptions.push_back({"shape_padding", {false}});
        d.inductorOptions.push_back({"epilogue_fusion", {false}});
        d.inductorOptions.push_back({"coordinate_descent_tuning", {true}});
        d.inductorOptions.push_back({"triton.cudagraphs", {true}});
    } else {
        if (machine.avx512)
            d.inductorOptions.push_back({"cpp.simdlen", {256}});
        else
            d.notes.push_back("cpp.simdlen is not in the space: without AVX-512, 256 bits is the default");
        d.notes.push_back(
            "shape_padding, epilogue_fusion, coordinate_descent_tuning and triton.cudagraphs are "
            "not in the space: on a CPU they change nothing (GPU matmul padding, Triton "
            "templates and tuning, CUDA graphs)");
    }
    d.notes.push_back("precision is not in the space: a bf16 row times against eager at bf16, so its speedup "
                      "is not comparable with the fp32 rows'; compare precisions with `compare`");
    d.notes.push_back("threads are not in the space: every candidate runs with this run's threads and "
                      "pinning (--threads), the eager baseline's too");
    d.notes.push_back("Dynamo options enter through advice: a graph break whose torch hint turns one on "
                      "(capture_scalar_outputs, capture_dynamic_output_shape_ops) adds the row with it "
                      "(dynamo.NAME=true); a space file's `entries` can list them too");
    return d;
}

const std::vector<std::string>& tuneSpaceKeys() {
    static const std::vector<std::string> keys = {
        "backends",         "base",    "modes",  "dynamic",     "fullgraph",
        "inductor_options", "entries", "advice", "assignments", "max_rounds"};
    return keys;
}

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

// A TOML scalar as the JSON an Inductor option takes, or null when it is not a scalar.
json scalar(const toml::node& node) {
    if (auto v = node.as_boolean())
        return v->get();
    if (auto v = node.as_integer())
        return v->get();
    if (auto v = node.as_floating_point())
        return v->get();
    if (auto v = node.as_string())
        return v->get();
    return nullptr;
}

} // namespace

Result<TuneDimensions> applyTuneSpaceText(TuneDimensions dims, const std::string& text,
                                          const std::string& fileName) {
    const auto bad = [&](const std::string& key, const std::string& what) {
        return Error{toString(ErrorCode::BadOption), fileName + ": " + key + ": " + what};
    };
    toml::table table;
    try {
        table = toml::parse(text, fileName);
    } catch (const toml::parse_error& e) {
        std::ostringstream where;
        where << e.source().begin;
        return Error{toString(ErrorCode::BadOption),
                     fileName + ": not TOML (" + std::string(e.description()) + " at " + where.str() + ")"};
    }
    // Every key first: an unknown one is refused before anything is applied.
    for (const auto& [key, node] : table) {
        const std::string name(key.str());
        if (!contains(tuneSpaceKeys(), name))
            return Error{toString(ErrorCode::BadOption), fileName + ": unknown key '" + name +
                                                             "' (a space file sets " +
                                                             joined(tuneSpaceKeys()) + ")"};
    }
    const auto strings = [&](const char* key, std::vector<std::string>& out) -> std::optional<Error> {
        const auto* node = table.get(key);
        if (!node)
            return std::nullopt;
        const auto* array = node->as_array();
        if (!array)
            return bad(key, "expected an array of strings");
        std::vector<std::string> values;
        for (const auto& item : *array) {
            if (item.is_string())
                values.push_back(item.as_string()->get());
            else if (item.is_boolean() && std::string(key) == "dynamic")
                values.push_back(item.as_boolean()->get() ? "true" : "false");
            else
                return bad(key, "expected an array of strings");
        }
        out = std::move(values);
        return std::nullopt;
    };
    if (auto err = strings("backends", dims.backends))
        return *err;
    if (auto err = strings("modes", dims.modes))
        return *err;
    if (auto err = strings("dynamic", dims.dynamic))
        return *err;
    for (const auto& value : dims.dynamic)
        if (value != "true" && value != "false" && value != "auto")
            return bad("dynamic", "'" + value + "' is not true, false or auto");
    if (const auto* node = table.get("base")) {
        if (!node->is_string())
            return bad("base", "expected a backend name");
        dims.base = node->as_string()->get();
    }
    if (const auto* node = table.get("fullgraph")) {
        if (!node->is_boolean())
            return bad("fullgraph", "expected true or false");
        dims.fullgraph = node->as_boolean()->get();
    }
    if (const auto* node = table.get("advice")) {
        if (!node->is_boolean())
            return bad("advice", "expected true or false");
        dims.advice = node->as_boolean()->get();
    }
    if (const auto* node = table.get("assignments")) {
        if (!node->is_boolean())
            return bad("assignments", "expected true or false");
        dims.assignments = node->as_boolean()->get();
    }
    if (const auto* node = table.get("max_rounds")) {
        const auto* v = node->as_integer();
        if (!v || v->get() < 1 || v->get() > 50)
            return bad("max_rounds", "expected a number of worker processes from 1 to 50");
        dims.maxRounds = static_cast<int>(v->get());
    }
    if (const auto* node = table.get("inductor_options")) {
        const auto* options = node->as_table();
        if (!options)
            return bad("inductor_options", "expected a table of option = [values]");
        dims.inductorOptions.clear();
        for (const auto& [key, value] : *options) {
            const std::string name(key.str());
            std::vector<json> values;
            const auto* array = value.as_array();
            if (!array)
                values.push_back(scalar(value));
            else
                for (const auto& item : *array)
                    values.push_back(scalar(item));
            if (values.empty() ||
                std::any_of(values.begin(), values.end(), [](const json& v) { return v.is_null(); }))
                return bad("inductor_options." + name,
                           "expected a value or an array of values (true, 128, 0.5, \"text\")");
            dims.inductorOptions.push_back({name, std::move(values)});
        }
    }
    std::vector<std::string> entries;
    if (auto err = strings("entries", entries))
        return *err;
    for (const auto& entry : entries) {
        auto parsed = parseBackendEntry(entry);
        if (!parsed)
            return bad("entries", parsed.error().message);
        dims.entries.push_back(formatBackendEntry(parsed.value()));
    }
    for (const auto& mode : dims.modes)
        if (auto parsed = parseBackendEntry(dims.base + "@" + mode); !parsed)
            return bad("modes", parsed.error().message);
    return dims;
}

Result<TuneDimensions> applyTuneSpaceFile(TuneDimensions dims, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{toString(ErrorCode::BadOption), path + ": cannot read the space file"};
    std::ostringstream text;
    text << in.rdbuf();
    return applyTuneSpaceText(std::move(dims), text.str(), path);
}

std::vector<TuneSpaceEntry> expandTuneSpace(const TuneDimensions& dims) {
    std::vector<TuneSpaceEntry> out;
    const auto add = [&](BackendEntry entry, const std::string& why) {
        const std::string label = formatBackendEntry(entry);
        if (std::none_of(out.begin(), out.end(), [&](const TuneSpaceEntry& e) { return e.entry == label; }))
            out.push_back({label, "space", why});
    };
    const auto base = [&] { return BackendEntry{dims.base, {}, json::object()}; };
    for (const auto& backend : dims.backends)
        add(BackendEntry{backend, {}, json::object()}, "backend");
    // The variants change the base only when it is raced.
    if (contains(dims.backends, dims.base)) {
        for (const auto& mode : dims.modes) {
            auto e = base();
            e.mode = mode == "default" ? std::string() : mode;
            add(e, "mode");
        }
        for (const auto& value : dims.dynamic) {
            auto e = base();
            if (value != "auto")
                e.options["dynamic"] = value == "true";
            add(e, "dynamic");
        }
        if (dims.fullgraph) {
            auto e = base();
            e.options["fullgraph"] = true;
            add(e, "fullgraph");
        }
        for (const auto& [key, values] : dims.inductorOptions)
            for (const auto& value : values) {
                auto e = base();
                e.options["inductor"] = json::object({{key, value}});
                add(e, "inductor option " + key);
            }
    }
    for (const auto& entry : dims.entries)
        if (auto parsed = parseBackendEntry(entry))
            add(parsed.value(), "space file entry");
    return out;
}

Result<double> parseTuneBudget(const std::string& text) {
    const auto bad = [&] {
        return Error{toString(ErrorCode::BadOption),
                     "budget '" + text + "': expected seconds (300) or a number with a unit (90s, 5m, 1h)"};
    };
    if (text.empty())
        return bad();
    double scale = 1;
    std::string number = text;
    switch (text.back()) {
    case 's':
        number.pop_back();
        break;
    case 'm':
        scale = 60;
        number.pop_back();
        break;
    case 'h':
        scale = 3600;
        number.pop_back();
        break;
    default:
        break;
    }
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos)
        return bad();
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value) || value <= 0)
        return bad();
    return value * scale;
}

} // namespace fusescope
