#include "ReportCodec.h"

#include "RunCodec.h"
#include "SettingsCodec.h"
#include "model/JsonUtil.h"

namespace fusescope {

using jsonutil::orNull;
using nlohmann::json;

namespace {

json textOrNull(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

} // namespace

void to_json(json& j, const WorkerEnvironment& e) {
    j = {{"protocol", e.protocolVersion}, {"worker", e.worker}, {"python", e.python}, {"torch", e.torch},
         {"devices", e.devices},          {"cuda", e.cuda}};
    if (!e.torchGit.empty())
        j["torch_git"] = e.torchGit;
    if (!e.torchBuild.empty())
        j["torch_build"] = e.torchBuild;
}

void to_json(json& j, const Provenance& p) {
    j = {{"fusescope", p.fusescope},
         {"front_end", p.frontEnd},
         {"command_line", p.commandLine},
         {"torch", {{"version", p.torch}, {"git", p.torchGit}, {"build", p.torchBuild}}},
         {"python", p.python},
         {"environment", p.environment},
         {"cpu", p.cpu},
         {"cpu_count", p.cpuCount},
         {"gpus", p.gpus},
         {"os", p.os}};
}

void to_json(json& j, const SpeedupRecord& s) {
    j = {{"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"pairs", s.pairs}};
}

void to_json(json& j, const SearchCandidate& c) {
    j = {{"label", c.label},
         {"status", c.status},
         {"accuracy_pass", orNull(c.accuracyPass)},
         {"speedup", orNull(c.speedup)}};
}

void to_json(json& j, const SearchOutcome& s) {
    if (!s.error.empty()) {
        j = {{"error", s.error}};
        return;
    }
    j = {{"strategy", s.strategy},
         {"modules", s.modules},
         {"backends", s.backends},
         {"candidates", s.candidates},
         {"best_mixed", textOrNull(s.bestMixed)},
         {"best_mixed_speedup", orNull(s.bestMixedSpeedup)},
         {"best_single", textOrNull(s.bestSingle)},
         {"best_single_speedup", orNull(s.bestSingleSpeedup)},
         {"pick", textOrNull(s.pick)},
         {"gain_over_best_single", orNull(s.gainOverBestSingle)},
         {"verdict", s.verdict}};
}

namespace {

json intervalOrNull(const std::optional<SpeedupInterval>& ci) {
    return ci ? json::array({ci->first, ci->second}) : json(nullptr);
}

} // namespace

void to_json(json& j, const TuneOutcome& t) {
    json candidates = json::array();
    for (const auto& c : t.candidates)
        candidates.push_back({{"entry", c.entry},
                              {"origin", c.origin},
                              {"status", c.status},
                              {"speedup", orNull(c.speedup)},
                              {"speedup_ci95", intervalOrNull(c.speedupCi95)},
                              {"compile_s", orNull(c.compileSeconds)},
                              {"peak_memory_bytes", orNull(c.peakMemoryBytes)},
                              {"accuracy_status", textOrNull(c.accuracyStatus)},
                              {"dropped", orNull(c.dropped)},
                              {"rounds", c.rounds},
                              {"advice", textOrNull(c.advice)}});
    json best = nullptr;
    if (t.best)
        best = {{"entry", t.best->entry},
                {"speedup", t.best->speedup},
                {"speedup_ci95", intervalOrNull(t.best->speedupCi95)},
                {"snippet", t.best->snippet}};
    json advice = json::array();
    for (const auto& a : t.adviceOutcomes)
        advice.push_back({{"entry", a.entry},
                          {"rule", a.rule},
                          {"base", a.base},
                          {"outcome", textOrNull(a.outcome)},
                          {"reason", a.reason}});
    j = {{"budget_s", t.budgetSeconds},
         {"elapsed_s", t.elapsedSeconds},
         {"goal", t.goal},
         {"candidates", std::move(candidates)},
         {"best", std::move(best)},
         {"runners_up", t.runnersUp},
         {"pareto", t.pareto},
         {"advice_outcomes", std::move(advice)},
         {"stopped_by", t.stoppedBy},
         {"verdict", t.verdict},
         {"notes", t.notes}};
}

void to_json(json& j, const Report& r) {
    j = {{"format", kReportFormatName}, {"schema", r.schema},           {"created", r.created},
         {"generator", r.generator},    {"model_spec", r.modelSpec},    {"model", r.model},
         {"device", r.device},          {"environment", r.environment}, {"settings", r.settings},
         {"backends", r.backends},      {"search", orNull(r.search)},   {"warnings", r.warnings}};
    if (r.tuning) // `tune` reports only: a compare report writes back unchanged
        j["tuning"] = *r.tuning;
    if (r.provenance)
        j["provenance"] = *r.provenance;
}

} // namespace fusescope

namespace fusescope::codec {

namespace {

void readEnvironment(const Reader& r, WorkerEnvironment& e) {
    // A report stores the version as "protocol"; the handshake names the protocol there and
    // carries the version in "version".
    const json* protocol = r.has("protocol") ? &r.value()["protocol"] : nullptr;
    e.protocolVersion =
        protocol && protocol->is_number_integer() ? r.integer("protocol") : r.integer("version");
    e.worker = r.str("worker");
    e.python = r.str("python");
    e.torch = r.str("torch");
    e.torchGit = r.str("torch_git");
    e.torchBuild = r.str("torch_build");
    e.devices = r.strings("devices");
    if (r.has("cuda")) {
        (void)r.object("cuda");
        e.cuda = r.value()["cuda"];
    }
}

void readProvenance(const Reader& r, Provenance& p) {
    p.fusescope = r.str("fusescope");
    p.frontEnd = r.str("front_end");
    p.commandLine = r.strings("command_line");
    if (auto t = r.object("torch")) {
        p.torch = t->str("version");
        p.torchGit = t->str("git");
        p.torchBuild = t->str("build");
    }
    p.python = r.str("python");
    if (auto e = r.object("environment"))
        for (const auto& [key, value] : e->value().items()) {
            if (!value.is_string()) {
                e->failAt(key.c_str(), std::string("expected a string, got ") + describeType(value));
                return;
            }
            p.environment[key] = value.get<std::string>();
        }
    p.cpu = r.str("cpu");
    p.cpuCount = r.integer("cpu_count");
    p.gpus = r.strings("gpus");
    p.os = r.str("os");
}

std::optional<SpeedupRecord> readSpeedup(const Reader& r, const char* key) {
    auto s = r.object(key);
    if (!s)
        return std::nullopt;
    SpeedupRecord out;
    out.median = s->number("median");
    out.q1 = s->number("q1");
    out.q3 = s->number("q3");
    out.pairs = s->int64("pairs");
    return out;
}

std::optional<SpeedupInterval> readInterval(const Reader& r, const char* key) {
    if (!r.has(key))
        return std::nullopt;
    const auto values = r.numbers(key);
    if (values.size() != 2 || !(values[0] <= values[1])) {
        r.failAt(key, "expected [low, high] with low <= high");
        return std::nullopt;
    }
    return SpeedupInterval{values[0], values[1]};
}

bool oneOf(const std::string& value, std::initializer_list<const char*> allowed) {
    return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return value == a; });
}

std::optional<TuneOutcome> readTuneOutcome(const Reader& t) {
    if (t.isNull() || !t.expectObject())
        return std::nullopt;
    TuneOutcome out;
    out.budgetSeconds = t.number("budget_s");
    out.elapsedSeconds = t.number("elapsed_s");
    if (!(out.budgetSeconds >= 0) || !(out.elapsedSeconds >= 0))
        t.fail("budget_s and elapsed_s must be >= 0");
    out.goal = t.str("goal", "latency");
    if (!oneOf(out.goal, {"latency", "throughput", "memory", "compile"}))
        t.failAt("goal", "expected latency, throughput, memory or compile, got \"" + out.goal + "\"");
    t.each("candidates", [&](const Reader& c) {
        if (!c.expectObject())
            return;
        TuneCandidate cand;
        if (!c.has("entry"))
            c.fail("a candidate needs an \"entry\"");
        cand.entry = c.str("entry");
        cand.origin = c.str("origin", "space");
        if (!oneOf(cand.origin, {"space", "advice", "assignment"}))
            c.failAt("origin", "expected space, advice or assignment, got \"" + cand.origin + "\"");
        cand.status = c.str("status", "pending");
        cand.speedup = c.optNumber("speedup");
        cand.speedupCi95 = readInterval(c, "speedup_ci95");
        cand.compileSeconds = c.optNumber("compile_s");
        cand.peakMemoryBytes = c.optInt64("peak_memory_bytes");
        cand.accuracyStatus = c.str("accuracy_status");
        cand.dropped = c.optStr("dropped");
        cand.rounds = c.integer("rounds");
        if (cand.rounds < 0)
            c.failAt("rounds", "must be >= 0");
        cand.advice = c.str("advice");
        out.candidates.push_back(std::move(cand));
    });
    if (auto b = t.object("best")) {
        TuneBest best;
        best.entry = b->str("entry");
        best.speedup = b->number("speedup");
        best.speedupCi95 = readInterval(*b, "speedup_ci95");
        best.snippet = b->str("snippet");
        out.best = std::move(best);
    }
    out.runnersUp = t.strings("runners_up");
    out.pareto = t.strings("pareto");
    t.each("advice_outcomes", [&](const Reader& a) {
        if (!a.expectObject())
            return;
        AdviceOutcome o{a.str("entry"), a.str("rule"), a.str("base"), a.str("outcome"), a.str("reason")};
        if (!o.outcome.empty() && !oneOf(o.outcome, {"helped", "hurt", "no_difference"}))
            a.failAt("outcome", "expected helped, hurt, no_difference or null, got \"" + o.outcome + "\"");
        out.adviceOutcomes.push_back(std::move(o));
    });
    out.stoppedBy = t.str("stopped_by", "running");
    out.verdict = t.str("verdict");
    out.notes = t.strings("notes");
    return out;
}

std::optional<SearchOutcome> readSearchOutcome(const Reader& s) {
    if (s.isNull() || !s.expectObject())
        return std::nullopt;
    SearchOutcome out;
    out.error = s.str("error");
    out.strategy = s.str("strategy");
    out.modules = s.strings("modules");
    out.backends = s.strings("backends");
    s.each("candidates", [&](const Reader& c) {
        if (!c.expectObject())
            return;
        if (c.value().contains("status") && c.value()["status"].is_null())
            c.failAt("status", "expected a run status, got null");
        SearchCandidate candidate;
        candidate.label = c.str("label");
        candidate.status = c.str("status");
        candidate.accuracyPass = c.optBool("accuracy_pass");
        candidate.speedup = readSpeedup(c, "speedup");
        out.candidates.push_back(std::move(candidate));
    });
    out.bestMixed = s.str("best_mixed");
    out.bestMixedSpeedup = readSpeedup(s, "best_mixed_speedup");
    out.bestSingle = s.str("best_single");
    out.bestSingleSpeedup = readSpeedup(s, "best_single_speedup");
    out.pick = s.str("pick");
    out.gainOverBestSingle = s.optNumber("gain_over_best_single");
    out.verdict = s.str("verdict");
    return out;
}

} // namespace

Result<WorkerEnvironment> decodeEnvironment(const json& j, const std::string& origin) {
    return decodeWith<WorkerEnvironment>(j, origin, readEnvironment);
}

Result<std::optional<SearchOutcome>> decodeSearchOutcome(const json& j, const std::string& origin) {
    Reader r(j, origin);
    auto out = readSearchOutcome(r);
    if (auto err = r.error(kRecordCorrupt))
        return *err;
    return out;
}

Result<std::optional<TuneOutcome>> decodeTuneOutcome(const json& j, const std::string& origin) {
    Reader r(j, origin);
    auto out = readTuneOutcome(r);
    if (auto err = r.error(kRecordCorrupt))
        return *err;
    return out;
}

Result<Report> decodeReport(const json& j) {
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
        j["format"].get<std::string>() != kReportFormatName)
        return Error{"report_not_fscope", "not a FuseScope report (no \"format\": \"fusescope-report\")"};
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_number_integer())
        return Error{kRecordCorrupt, "schema: the manifest has no integer \"schema\" version"};
    // Compare as the integer that was written, never narrowed: 2^32+1 is not schema 1.
    uint64_t version = 0;
    if (schema->is_number_unsigned())
        version = schema->get<uint64_t>();
    else if (schema->get<int64_t>() > 0)
        version = static_cast<uint64_t>(schema->get<int64_t>());
    if (version < 1)
        return Error{kRecordCorrupt,
                     "schema: " + schema->dump() + " is not a report schema version (1 or more)"};
    if (version > static_cast<uint64_t>(kReportSchemaVersion))
        return Error{"report_newer_schema", "written with report schema " + std::to_string(version) +
                                                " by a newer FuseScope; this build reads schema " +
                                                std::to_string(kReportSchemaVersion) +
                                                " and older. Update FuseScope to open it."};
    Reader r(j);
    Report report;
    report.schema = static_cast<int>(version);
    report.created = r.str("created");
    report.generator = r.str("generator");
    report.modelSpec = r.str("model_spec");
    if (auto m = r.object("model"))
        readModelInfo(*m, report.model);
    report.device = r.str("device", "cpu");
    if (auto e = r.object("environment"))
        readEnvironment(*e, report.environment);
    if (auto s = r.object("settings"))
        readRunSettings(*s, report.settings);
    r.each("backends", [&](const Reader& b) {
        if (!b.expectObject())
            return;
        BackendRun run;
        readBackendRun(b, run);
        report.backends.push_back(std::move(run));
    });
    if (r.has("search"))
        report.search = readSearchOutcome(r.child("search", j["search"]));
    if (r.has("tuning")) // `tune` reports only
        report.tuning = readTuneOutcome(r.child("tuning", j["tuning"]));
    if (r.has("warnings")) // run-wide; reports written before them have none
        report.warnings = readWarnings(r);
    if (auto p = r.object("provenance")) { // reports written before it have none
        Provenance provenance;
        readProvenance(*p, provenance);
        report.provenance = std::move(provenance);
    }
    if (auto err = r.error(kRecordCorrupt))
        return *err;
    return report;
}

} // namespace fusescope::codec
