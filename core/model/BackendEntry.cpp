#include "BackendEntry.h"

#include "model/ErrorCode.h"
#include "model/WorkloadText.h"

#include <algorithm>
#include <cctype>

namespace fusescope {

namespace {

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Error badEntry(const std::string& label, const std::string& why) {
    return Error{toString(ErrorCode::BadOption), "backend entry '" + label + "': " + why};
}

// An option value as typed again: strings bare unless they would read back as JSON.
// True when the braces and brackets of `text` close in order, outside double-quoted strings.
bool balanced(const std::string& text) {
    std::string open;
    bool quoted = false, escaped = false;
    for (char c : text) {
        if (quoted) {
            quoted = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            quoted = true;
        } else if (c == '{' || c == '[') {
            open += c;
        } else if (c == '}' || c == ']') {
            if (open.empty() || open.back() != (c == '}' ? '{' : '['))
                return false;
            open.pop_back();
        }
    }
    return open.empty() && !quoted;
}

} // namespace

std::string formatOptionValue(const nlohmann::json& value) {
    if (!value.is_string())
        return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const auto& s = value.get_ref<const std::string&>();
    const bool ambiguous = !nlohmann::json::parse(s, nullptr, false).is_discarded() ||
                           s.find_first_of(",{}[] \"\\") != std::string::npos || s.empty();
    return ambiguous ? value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : s;
}

std::string formatInductorOptions(const nlohmann::json& options) {
    std::string text;
    if (options.is_object())
        for (const auto& [key, value] : options.items())
            text += (text.empty() ? "" : ",") + key + "=" + formatOptionValue(value);
    return text;
}

Result<nlohmann::json> parseInductorConfig(const std::vector<std::string>& items) {
    nlohmann::json config = nlohmann::json::object();
    for (const auto& raw : items) {
        const std::string item = trimmed(raw);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return Error{toString(ErrorCode::BadOption), "Inductor option '" + item + "' is not KEY=VALUE"};
        const std::string value = trimmed(item.substr(eq + 1));
        auto parsed = nlohmann::json::parse(value, nullptr, false);
        config[trimmed(item.substr(0, eq))] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
    }
    return config;
}

std::vector<std::string> splitBackendList(const std::string& text) {
    std::vector<std::string> out;
    std::string item;
    int depth = 0;
    bool quoted = false, escaped = false;
    auto push = [&] {
        auto t = trimmed(item);
        if (!t.empty())
            out.push_back(t);
        item.clear();
    };
    for (char c : text) {
        if (quoted) {
            item += c;
            quoted = escaped || c != '"';
            escaped = !escaped && c == '\\';
            continue;
        }
        if (c == '"')
            quoted = true;
        else if (c == '{' || c == '[')
            ++depth;
        else if ((c == '}' || c == ']') && depth > 0)
            --depth;
        if (c == ',' && depth == 0)
            push();
        else
            item += c;
    }
    push();
    return out;
}

Result<nlohmann::json> parseEntryOptions(const std::string& body) {
    if (!balanced(body))
        return Error{toString(ErrorCode::BadOption), "unbalanced braces, brackets or quotes in the options"};
    nlohmann::json options = nlohmann::json::object();
    std::vector<std::string> inductorItems;
    for (const auto& option : splitBackendList(body)) {
        const auto eq = option.find('=');
        const std::string key = trimmed(option.substr(0, eq));
        const std::string value = eq == std::string::npos ? std::string() : trimmed(option.substr(eq + 1));
        if (key == "fullgraph") {
            if (eq != std::string::npos && value != "true" && value != "false")
                return Error{toString(ErrorCode::BadOption),
                             "fullgraph takes true or false, not '" + value + "'"};
            options["fullgraph"] = eq == std::string::npos || value == "true";
        } else if (key == "dynamic") {
            if (value != "true" && value != "false" && value != "auto")
                return Error{toString(ErrorCode::BadOption),
                             "dynamic takes true, false or auto, not '" + value + "'"};
            options["dynamic"] = value == "auto" ? nlohmann::json(nullptr) : nlohmann::json(value == "true");
        } else if (key == "precision") {
            if (auto problem = checkPrecision(value))
                return Error{toString(ErrorCode::BadOption), problem->message};
            options["precision"] = value;
        } else if (key == "mode") {
            return Error{toString(ErrorCode::BadOption),
                         "give the torch.compile mode as NAME@MODE, e.g. inductor@max-autotune"};
        } else if (key.rfind("dynamo.", 0) == 0) {
            // torch._dynamo.config for this entry (docs/cli.md): the worker checks the name against torch's.
            const std::string name = key.substr(7);
            const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                                    std::all_of(name.begin(), name.end(), [](char c) {
                                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                    });
            if (!identifier || eq == std::string::npos || value.empty())
                return Error{toString(ErrorCode::BadOption),
                             "'" + option +
                                 "' is not dynamo.NAME=VALUE (a torch._dynamo.config option, e.g. "
                                 "dynamo.capture_scalar_outputs=true)"};
            auto parsed = nlohmann::json::parse(value, nullptr, false);
            options["dynamo"][name] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
        } else {
            inductorItems.push_back(option);
        }
    }
    auto inductor = parseInductorConfig(inductorItems);
    if (!inductor)
        return Error{toString(ErrorCode::BadOption),
                     inductor.error().message +
                         " (options are fullgraph, dynamic=..., dynamo.NAME=VALUE, or Inductor KEY=VALUE)"};
    if (!inductor.value().empty())
        options["inductor"] = inductor.value();
    return options;
}

Result<BackendEntry> parseBackendEntry(const std::string& raw) {
    const std::string label = trimmed(raw);
    BackendEntry entry;
    std::string head = label;
    const auto brace = label.find('{');
    if (brace != std::string::npos) {
        if (label.back() != '}')
            return badEntry(label,
                            "options must close with '}' at the end, as in inductor{epilogue_fusion=false}");
        head = trimmed(label.substr(0, brace));
        auto options = parseEntryOptions(label.substr(brace + 1, label.size() - brace - 2));
        if (!options)
            return badEntry(label, options.error().message);
        entry.options = std::move(options.value());
    } else if (label.find('}') != std::string::npos) {
        return badEntry(label, "'}' without '{'");
    }
    const auto at = head.find('@');
    entry.backend = trimmed(head.substr(0, at));
    if (at != std::string::npos) {
        entry.mode = trimmed(head.substr(at + 1));
        if (entry.mode.empty())
            return badEntry(label, "nothing after '@' (a torch.compile mode such as max-autotune)");
    }
    if (entry.backend.empty())
        return badEntry(label, "no backend name");
    if (entry.backend.find_first_of(",[]= ") != std::string::npos)
        return badEntry(label, "'" + entry.backend + "' is not a backend name");
    // tvm's own options (docs/tvm.md, "Tuning"): tune=TRIALS, tune_time=SECONDS -> options.tvm.
    if (entry.backend == "tvm" && entry.options.contains("inductor")) {
        auto& items = entry.options["inductor"];
        for (const char* key : {"tune", "tune_time"}) {
            if (!items.contains(key))
                continue;
            const auto& v = items[key];
            const bool ok = std::string(key) == "tune" ? v.is_number_integer() && v.get<int64_t>() >= 1
                                                       : v.is_number() && v.get<double>() > 0;
            if (!ok)
                return badEntry(label, std::string(key) + (std::string(key) == "tune"
                                                               ? " takes a positive number of trials"
                                                               : " takes a positive number of seconds"));
            entry.options["tvm"][key] = v;
            items.erase(key);
        }
        if (items.empty())
            entry.options.erase("inductor");
    }
    return entry;
}

std::string entryPrecision(const BackendEntry& entry) {
    const auto it = entry.options.find("precision");
    return it != entry.options.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool isAssignableEntry(const std::string& label) {
    auto entry = parseBackendEntry(label);
    return entry && !entry.value().hasOptions();
}

std::string formatBackendEntry(const BackendEntry& entry) {
    std::string label = entry.backend;
    if (!entry.mode.empty())
        label += "@" + entry.mode;
    std::vector<std::string> options;
    if (entry.options.contains("precision"))
        options.push_back("precision=" + formatOptionValue(entry.options["precision"]));
    if (entry.options.contains("fullgraph"))
        options.push_back(entry.options["fullgraph"].get<bool>() ? "fullgraph" : "fullgraph=false");
    if (entry.options.contains("dynamic")) {
        const auto& d = entry.options["dynamic"];
        options.push_back(std::string("dynamic=") + (d.is_null()     ? "auto"
                                                     : d.get<bool>() ? "true"
                                                                     : "false"));
    }
    if (entry.options.contains("dynamo"))
        for (const auto& [key, value] : entry.options["dynamo"].items())
            options.push_back("dynamo." + key + "=" + formatOptionValue(value));
    if (entry.options.contains("inductor"))
        for (const auto& [key, value] : entry.options["inductor"].items())
            options.push_back(key + "=" + formatOptionValue(value));
    if (entry.options.contains("tvm"))
        for (const auto& [key, value] : entry.options["tvm"].items())
            options.push_back(key + "=" + formatOptionValue(value));
    if (!options.empty()) {
        label += "{";
        for (size_t i = 0; i < options.size(); ++i)
            label += (i ? "," : "") + options[i];
        label += "}";
    }
    return label;
}

nlohmann::json applyEntryOptions(nlohmann::json base, const BackendEntry& entry) {
    if (!base.is_object())
        base = nlohmann::json::object();
    if (!entry.mode.empty())
        base["mode"] = entry.mode;
    for (const auto& [key, value] : entry.options.items()) {
        if (key == "precision") // the workload's, not torch.compile's: entryPrecision
            continue;
        if (key == "inductor" || key == "dynamo") {
            if (!base.contains(key) || !base[key].is_object())
                base[key] = nlohmann::json::object();
            for (const auto& [k, v] : value.items())
                base[key][k] = v;
        } else {
            base[key] = value;
        }
    }
    return base;
}

} // namespace fusescope
