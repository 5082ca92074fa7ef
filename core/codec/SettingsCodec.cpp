#include "SettingsCodec.h"

#include "Json.h"
#include "model/JsonUtil.h"

namespace fusescope {

using jsonutil::orNull;
using nlohmann::json;

void to_json(json& j, const TensorSpec& input) {
    json shape = json::array();
    for (const auto& d : input.shape)
        shape.push_back(codec::sizeJson(d));
    j = {{"shape", std::move(shape)}};
    if (!input.dtype.empty())
        j["dtype"] = input.dtype;
}

void to_json(json& j, const MeasureSettings& m) {
    j = {{"warmup", m.warmup},    {"min_runs", m.minRuns},          {"min_time_s", m.minTimeSeconds},
         {"max_runs", m.maxRuns}, {"max_time_s", m.maxTimeSeconds}, {"confidence_pct", m.confidencePct},
         {"settle", m.settle}};
}

void to_json(json& j, const MeasureRecord& m) {
    j = json::object();
    const auto put = [&j](const char* key, const auto& value) {
        if (value)
            j[key] = *value;
    };
    put("warmup", m.warmup);
    put("min_runs", m.minRuns);
    put("min_time_s", m.minTimeSeconds);
    put("max_runs", m.maxRuns);
    put("max_time_s", m.maxTimeSeconds);
    put("confidence_pct", m.confidencePct);
    put("settle", m.settle);
}

void to_json(json& j, const Placement& p) {
    j = {{"threads", orNull(p.threads)}, {"pin", p.pin.empty() ? json(nullptr) : json(p.pin)}};
    if (!p.malloc.empty())
        j["malloc"] = p.malloc;
}

void to_json(json& j, const Workload& w) {
    json assignment = nullptr;
    if (!w.assign.empty()) {
        assignment = json::object();
        for (const auto& [module, backend] : w.assign)
            assignment[module] = backend;
    }
    j = {{"mode", w.mode},
         {"precision", w.precision},
         {"shapes", w.shapes.empty() ? json(nullptr) : json(w.shapes)},
         {"assign", std::move(assignment)}};
}

void to_json(json& j, const ImportSource& s) {
    j = {{"format", s.format}, {"source", s.source}};
    if (s.records)
        j["records"] = *s.records;
}

void to_json(json& j, const RunSettings& s) {
    j = s.unknown.is_object() ? s.unknown : json::object();
    if (s.measure)
        j["measure"] = *s.measure;
    if (s.timeoutSeconds)
        j["timeout_s"] = *s.timeoutSeconds;
    if (!s.cache.empty())
        j["cache"] = s.cache;
    j["options"] = s.options.is_object() ? s.options : json::object();
    if (s.placement)
        j["placement"] = *s.placement;
    if (s.workload)
        j["workload"] = *s.workload;
    if (s.bisectBudgetSeconds)
        j["bisect_budget_s"] = *s.bisectBudgetSeconds;
    if (s.import)
        j["import"] = *s.import;
}

} // namespace fusescope

namespace fusescope::codec {

namespace {

std::optional<int> optInt(const Reader& r, const char* key) {
    if (!r.has(key))
        return std::nullopt;
    const int v = r.integer(key);
    return r.failed() ? std::nullopt : std::optional<int>(v);
}

// Members that views read inside nested records are refused as null rather than dropped: an
// input with "shape": null is not an input.
void refuseNull(const Reader& r, const char* key, const char* expected) {
    if (r.value().is_object() && r.value().contains(key) && r.value()[key].is_null())
        r.failAt(key, std::string("expected ") + expected + ", got null");
}

// One input set: [{"shape": [4, "s0"], "dtype": "float32"}, ...].
InputSet readInputSet(const Reader& set) {
    InputSet out;
    set.elements([&](const Reader& input) {
        if (!input.expectObject())
            return;
        refuseNull(input, "shape", "an array of sizes");
        refuseNull(input, "dtype", "a dtype name");
        TensorSpec spec;
        input.each("shape", [&](const Reader& dim) {
            const json& v = dim.value();
            if (v.is_string())
                spec.shape.push_back(v.get<std::string>());
            else if (v.is_number_integer())
                spec.shape.push_back(v.dump());
            else
                dim.fail(std::string("expected an integer or a symbolic size, got ") + describeType(v));
        });
        spec.dtype = input.str("dtype");
        out.push_back(std::move(spec));
    });
    return out;
}

std::vector<std::pair<std::string, std::string>> readAssignment(const Reader& a) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [module, backend] : a.value().items()) {
        if (!backend.is_string()) {
            a.child(module.c_str(), backend)
                .fail(std::string("expected a backend name, got ") + describeType(backend));
            return {};
        }
        out.emplace_back(module, backend.get<std::string>());
    }
    return out;
}

MeasureRecord readMeasureRecord(const Reader& m) {
    MeasureRecord out;
    out.warmup = optInt(m, "warmup");
    out.minRuns = optInt(m, "min_runs");
    out.minTimeSeconds = m.optNumber("min_time_s");
    out.maxRuns = optInt(m, "max_runs");
    out.maxTimeSeconds = m.optNumber("max_time_s");
    out.confidencePct = m.optNumber("confidence_pct");
    out.settle = optInt(m, "settle");
    return out;
}

// `placement` as a report's settings record it: threads and CPU numbers are integers >= 0.
Placement readPlacement(const Reader& p) {
    Placement out;
    out.threads = optInt(p, "threads");
    if (out.threads && *out.threads < 0) {
        p.failAt("threads", "expected an integer >= 0");
        out.threads.reset();
    }
    p.each("pin", [&](const Reader& cpu) {
        const json& v = cpu.value();
        if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < (1 << 20))
            out.pin.push_back(v.get<int>());
        else
            cpu.fail(std::string("expected a CPU number (an integer >= 0), got ") + describeType(v));
    });
    out.malloc = p.str("malloc"); // reports before the option do not say
    return out;
}

} // namespace

void readRunSettings(const Reader& s, RunSettings& out) {
    static const char* const kKnown[] = {"measure",   "timeout_s", "cache",           "options",
                                         "placement", "workload",  "bisect_budget_s", "import"};
    if (auto m = s.object("measure"))
        out.measure = readMeasureRecord(*m);
    out.timeoutSeconds = s.optNumber("timeout_s");
    out.cache = s.str("cache");
    if (s.has("options"))
        out.options = checkedOptions(s.child("options", s.value()["options"]));
    if (auto p = s.object("placement"))
        out.placement = readPlacement(*p);
    if (auto w = s.object("workload")) {
        Workload workload;
        readWorkload(*w, workload);
        out.workload = std::move(workload);
    }
    out.bisectBudgetSeconds = s.optNumber("bisect_budget_s");
    if (auto i = s.object("import")) {
        ImportSource source;
        source.format = i->str("format");
        source.source = i->str("source");
        source.records = i->optInt64("records");
        out.import = std::move(source);
    }
    out.unknown = withoutNulls(s.value());
    for (const char* key : kKnown)
        out.unknown.erase(key);
}

void readWorkload(const Reader& w, Workload& out) {
    out.mode = w.str("mode", out.mode);
    out.precision = w.str("precision", out.precision);
    out.shapes.clear();
    if (w.has("shapes"))
        readInputSets(w.child("shapes", w.value()["shapes"]), out.shapes);
    out.assign.clear();
    if (auto a = w.object("assign"))
        out.assign = readAssignment(*a);
}

void readInputSets(const Reader& list, std::vector<InputSet>& out) {
    out.clear();
    list.elements([&](const Reader& set) { out.push_back(readInputSet(set)); });
}

json checkedOptions(const Reader& o) {
    if (o.isNull() || !o.expectObject())
        return json::object();
    (void)o.optStr("mode");
    (void)o.optBool("fullgraph");
    (void)o.optBool("dynamic"); // null is "auto": kept
    (void)o.object("inductor");
    (void)o.object("dynamo");
    json out = o.value();
    for (const char* key : {"mode", "fullgraph", "inductor", "dynamo"})
        if (out.contains(key) && out[key].is_null())
            out.erase(key);
    return out;
}

Result<RunSettings> decodeRunSettings(const json& j, const std::string& origin) {
    if (j.is_null())
        return RunSettings{};
    return decodeWith<RunSettings>(j, origin, readRunSettings);
}

Result<Workload> decodeWorkload(const json& j, const std::string& origin) {
    if (j.is_null())
        return Workload{};
    return decodeWith<Workload>(j, origin, readWorkload);
}

MeasureSettings measureSettingsFrom(const json& measure, const MeasureSettings& defaults) {
    if (!measure.is_object())
        return defaults;
    // A member of the wrong kind yields its default; the Reader reads on past it.
    const Reader r(measure);
    MeasureSettings m = defaults;
    m.warmup = r.integer("warmup", m.warmup);
    m.minRuns = r.integer("min_runs", m.minRuns);
    m.minTimeSeconds = r.number("min_time_s", m.minTimeSeconds);
    m.maxRuns = r.integer("max_runs", m.maxRuns);
    m.maxTimeSeconds = r.number("max_time_s", m.maxTimeSeconds);
    m.confidencePct = r.number("confidence_pct", m.confidencePct);
    m.settle = r.integer("settle", m.settle);
    return m;
}

Placement placementFrom(const json& placement) {
    Placement p;
    if (!placement.is_object())
        return p;
    if (const auto it = placement.find("threads"); it != placement.end() && it->is_number_integer())
        p.threads = it->get<int>();
    if (const auto it = placement.find("pin"); it != placement.end() && it->is_array())
        for (const auto& cpu : *it)
            if (cpu.is_number_integer() && cpu.get<int>() >= 0)
                p.pin.push_back(cpu.get<int>());
    if (const auto it = placement.find("malloc");
        it != placement.end() && it->is_string() && (*it == "steady" || *it == "system"))
        p.malloc = it->get<std::string>();
    return p;
}

} // namespace fusescope::codec
