// TORCH_TRACE records -> a Report in the usual schema (docs/import.md "What is mapped").
#include "FxText.h"
#include "TorchTraceLog.h"
#include "codec/Json.h"
#include "codec/Reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

namespace fusescope::import {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using CompileKey = std::tuple<int, int, int>; // compiled autograd id, frame id, frame compile id

std::string compileName(const CompileKey& key) {
    const auto& [ca, frame, compile] = key;
    std::string id = std::to_string(frame) + "/" + std::to_string(compile);
    return ca >= 0 ? "!" + std::to_string(ca) + "/" + id : id;
}

std::string artifactName(const TraceRecord& r) {
    if (r.kind != "artifact" || !r.metadata.is_object())
        return {};
    auto it = r.metadata.find("name");
    return it != r.metadata.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "Graph break in user code at /x/model.py:9\nGraph Break Reason: ...\n..." -> a GraphBreak.
GraphBreak breakFromPayload(const std::string& payload) {
    GraphBreak b;
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos <= payload.size()) {
        size_t end = payload.find('\n', pos);
        if (end == std::string::npos)
            end = payload.size();
        lines.push_back(payload.substr(pos, end - pos));
        pos = end + 1;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        static const std::string at = "Graph break in user code at ";
        static const std::string why = "Graph Break Reason: ";
        if (line.rfind(at, 0) == 0) {
            const std::string where = line.substr(at.size());
            const size_t colon = where.rfind(':');
            b.file = where.substr(0, colon);
            if (colon != std::string::npos) {
                int n = 0;
                for (char c : where.substr(colon + 1)) {
                    if (c < '0' || c > '9' || n > 100'000'000)
                        break;
                    n = n * 10 + (c - '0');
                }
                b.line = n;
            }
        } else if (line.rfind(why, 0) == 0 && b.reason.empty()) {
            b.reason = line.substr(why.size());
            // "Encountered graph break when attempting to trace CALL: ...:" is followed by the
            // break's type ("Failed to trace builtin operator") after a blank line.
            if (!b.reason.empty() && b.reason.back() == ':')
                for (size_t j = i + 1; j < lines.size() && j < i + 4; ++j)
                    if (!lines[j].empty()) {
                        b.reason += " " + lines[j];
                        break;
                    }
        }
    }
    if (b.reason.empty())
        b.reason = lines.empty() ? std::string() : lines.front();
    const size_t tb = payload.find("\nTraceback (most recent call last)");
    b.detail = payload.substr(0, std::min(tb, size_t(64 * 1024)));
    return b;
}

// recompile_reasons: a JSON list of strings, or plain lines.
std::vector<std::string> recompileReasons(const std::string& payload) {
    std::vector<std::string> out;
    auto parsed = codec::parseJson(payload);
    if (parsed && parsed.value().value.is_array()) {
        for (const auto& item : parsed.value().value)
            if (item.is_string())
                out.push_back(item.get<std::string>());
        return out;
    }
    size_t pos = 0;
    while (pos < payload.size()) {
        size_t end = payload.find('\n', pos);
        if (end == std::string::npos)
            end = payload.size();
        if (end > pos)
            out.push_back(payload.substr(pos, end - pos));
        pos = end + 1;
    }
    return out;
}

// compilation_metrics -> the phases of one compile. Torch's timers nest (entire frame >
// backend compile > inductor compile > code gen), so each phase is its timer less the one inside.
std::optional<GraphCompileTime> compileTime(const TraceRecord& r, const std::string& id) {
    codec::Reader m(r.metadata);
    const auto entire = m.optNumber("entire_frame_compile_time_s");
    if (m.failed() || !entire)
        return std::nullopt;
    const double backend = m.optNumber("backend_compile_time_s").value_or(0);
    const double inductor = m.optNumber("inductor_compile_time_s").value_or(0);
    const double codegen = m.optNumber("code_gen_time_s").value_or(0);
    if (m.failed())
        return std::nullopt;
    GraphCompileTime t;
    t.compileId = id;
    t.totalSeconds = *entire;
    auto add = [&](const char* name, double s) {
        if (s > 0)
            t.phases.push_back({name, s});
    };
    add("dynamo_tracing", *entire - backend);
    add("backend_compile", backend - inductor);
    add("inductor_compile", inductor - codegen);
    add("code_generation", codegen);
    return t;
}

struct BackendBuilder {
    BackendRun run;
    std::map<CompileKey, int> graphOf; // the compile's Dynamo graph index
    std::map<CompileKey, int> outputCodes;
    std::map<CompileKey, int> postGrads;
    std::map<CompileKey, std::vector<json>> provenance;         // inductor_provenance_tracking_node_mappings
    std::map<CompileKey, std::vector<std::string>> fusedStages; // post_fusion stage keys, in log order
    int nextGraph = 0;
    int recompileCount = 0;
    std::string device;
    std::string torch;

    int graphFor(const CompileKey& key) {
        auto it = graphOf.find(key);
        if (it != graphOf.end())
            return it->second;
        return graphOf[key] = nextGraph++;
    }

    void addStage(StageGraph stage, const CompileKey& key, const char* name, const char* level,
                  const char* fusion, const char* label, bool backward) {
        stage.name = name;
        stage.graph = graphFor(key);
        stage.level = level;
        stage.fusion = fusion;
        stage.label = std::string(label) + " [" + compileName(key) + "]";
        if (backward)
            stage.pass = "backward";
        if (run.findStage(stage.key())) {
            run.notes.push_back("compile " + compileName(key) + ": a second " + name +
                                " graph in the log was not kept (one per compile)");
            return;
        }
        run.stages.push_back(std::move(stage));
    }

    void fx(const TraceRecord& r, const CompileKey& key, const char* name, const char* level,
            const char* label, bool backward) {
        auto parsed = parseFxText(r.payload);
        if (parsed.stage.nodes.empty()) {
            StageGraph failed;
            failed.status = StageStatus::Failed;
            failed.reason = r.file + ":" + std::to_string(r.line) + ": the " + r.kind +
                            " payload holds no FX graph FuseScope can read";
            addStage(std::move(failed), key, name, level, "before", label, backward);
            return;
        }
        if (device.empty())
            device = parsed.device;
        addStage(std::move(parsed.stage), key, name, level, "before", label, backward);
    }
};

// Inductor's own kernel -> post-grad node mapping, where the log has it: the i-th mapping of a
// compile belongs to its i-th output code. The group's provenance becomes those post-grad node
// names (as a captured run's); the source-node names stay in the kernel node's origins.
void applyProvenance(BackendBuilder& b) {
    for (const auto& [key, mappings] : b.provenance) {
        const auto stages = b.fusedStages.find(key);
        if (stages == b.fusedStages.end())
            continue;
        for (size_t i = 0; i < mappings.size() && i < stages->second.size(); ++i) {
            auto code = mappings[i].find("cppCodeToPost");
            if (code == mappings[i].end() || !code->is_object())
                continue;
            StageGraph* stage = nullptr;
            for (auto& s : b.run.stages)
                if (s.key() == stages->second[i])
                    stage = &s;
            if (!stage)
                continue;
            // Keys are kernel names, with ":N" debug handles appended in torch 2.13
            // ("extern_kernels.addmm:1", "cpp_fused_relu_0:2"): the j-th call of a name takes
            // the j-th of its keys by handle.
            std::map<std::string, std::vector<std::pair<long, const json*>>> byName;
            for (auto it = code->begin(); it != code->end(); ++it) {
                const std::string& k = it.key();
                const size_t colon = k.rfind(':');
                long handle = 0;
                std::string name = k;
                if (colon != std::string::npos && colon + 1 < k.size() &&
                    k.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                    k.size() - colon < 12) {
                    handle = std::stol(k.substr(colon + 1));
                    name = k.substr(0, colon);
                }
                byName[name].push_back({handle, &*it});
            }
            for (auto& [name, keys] : byName)
                std::sort(keys.begin(), keys.end(),
                          [](const auto& x, const auto& y) { return x.first < y.first; });
            std::map<std::string, size_t> seen;
            for (auto& group : stage->groups) {
                auto found = byName.find(group.name);
                if (found == byName.end())
                    continue;
                const size_t j = seen[group.name]++;
                if (j >= found->second.size() || !found->second[j].second->is_array())
                    continue;
                std::vector<std::string> post;
                for (const auto& n : *found->second[j].second)
                    if (n.is_string())
                        post.push_back(n.get<std::string>());
                if (!post.empty())
                    group.provenance = std::move(post);
            }
        }
    }
}

} // namespace

Result<Report> reportFromTorchTrace(const TorchTraceLog& log, const std::string& source) {
    if (log.records.empty())
        return Error{"import_empty",
                     source + ": no structured-trace record" +
                         (log.notes.empty() ? std::string() : " (" + log.notes.front() + ")")};
    Report report;
    report.created = utcTimestamp();
    report.generator = "FuseScope " FUSESCOPE_VERSION " (import)";
    report.modelSpec = source;
    report.model.name = fs::path(source).filename().string();
    if (report.model.name.empty())
        report.model.name = fs::path(source).parent_path().filename().string();
    report.model.source = source;

    std::vector<std::string> fileOrder;
    std::map<std::string, BackendBuilder> builders;
    for (const TraceRecord& r : log.records) {
        if (!builders.count(r.file))
            fileOrder.push_back(r.file);
        BackendBuilder& b = builders[r.file];
        const CompileKey key{r.compiledAutogradId, r.frameId, r.frameCompileId};
        const bool inCompile = r.frameId >= 0 && r.frameCompileId >= 0;
        const std::string artifact = artifactName(r);
        if (artifact == "torch_version") {
            auto v = codec::parseJson(r.payload);
            // {"pytorch_version": "2.13.0+cpu", "commit": "...", "oss": true} (torch 2.13), or a string.
            if (v && v.value().value.is_object()) {
                codec::Reader version(v.value().value);
                b.torch = version.str("pytorch_version");
            } else if (v && v.value().value.is_string()) {
                b.torch = v.value().value.get<std::string>();
            } else if (!r.payload.empty() && r.payload.size() < 200)
                b.torch = r.payload;
            continue;
        }
        if (!inCompile)
            continue;
        if (r.kind == "dynamo_output_graph") {
            b.fx(r, key, "dynamo_fx", "fx", "Dynamo FX graph", false);
        } else if (r.kind == "aot_joint_graph") {
            b.fx(r, key, "aot_joint", "aten", "AOT joint graph", false);
        } else if (r.kind == "aot_forward_graph" || r.kind == "aot_inference_graph") {
            b.fx(r, key, "aot_forward", "aten", "AOT forward graph", false);
        } else if (r.kind == "aot_backward_graph") {
            b.fx(r, key, "aot_backward", "aten", "AOT backward graph", true);
        } else if (artifact == "inductor_post_grad_graph") {
            // Inductor compiles the forward, then (when it runs or is compiled eagerly) the backward.
            const bool backward = b.postGrads[key]++ > 0;
            b.fx(r, key, backward ? "post_grad_backward" : "post_grad", "aten", "Post-grad graph", backward);
        } else if (r.kind == "inductor_output_code") {
            const OutputCode code = parseOutputCode(r.payload);
            const bool backward = code.aotId.find("backward") != std::string::npos ||
                                  (code.aotId.empty() && b.outputCodes[key] > 0);
            ++b.outputCodes[key];
            CodeArtifact artifactCode;
            artifactCode.name = "output_code " + compileName(key) + (backward ? " backward" : "");
            artifactCode.language = "python";
            artifactCode.stage = backward ? "post_fusion_backward" : "post_fusion";
            artifactCode.text = r.payload;
            StageGraph stage = postFusionStage(code);
            for (auto& g : stage.groups)
                g.code = artifactCode.name;
            if (code.kernels.empty()) {
                stage.status = StageStatus::Failed;
                stage.reason =
                    r.file + ":" + std::to_string(r.line) + ": no kernel found in this output code";
            }
            const size_t before = b.run.stages.size();
            b.addStage(std::move(stage), key, backward ? "post_fusion_backward" : "post_fusion", "scheduler",
                       "after", "Inductor kernels", backward);
            if (b.run.stages.size() > before)
                b.fusedStages[key].push_back(b.run.stages.back().key());
            b.run.code.push_back(std::move(artifactCode));
        } else if (artifact == "inductor_provenance_tracking_node_mappings") {
            // Logged after each output code when INDUCTOR_PROVENANCE=1 (torch 2.13): cppCodeToPost
            // maps each kernel to the post-grad nodes it was generated from.
            auto parsed = codec::parseJson(r.payload);
            if (parsed && parsed.value().value.is_object())
                b.provenance[key].push_back(std::move(parsed.value().value));
            else
                b.run.notes.push_back(
                    r.file + ":" + std::to_string(r.line) +
                    ": inductor_provenance_tracking_node_mappings is not a JSON object; not used");
        } else if (artifact == "dynamo_graph_break_reason") {
            GraphBreak gb = breakFromPayload(r.payload);
            b.run.breakReasons.push_back(std::move(gb));
        } else if (artifact == "recompile_reasons") {
            ++b.recompileCount;
            for (const auto& reason : recompileReasons(r.payload))
                b.run.notes.push_back("recompile " + compileName(key) + ": " + reason);
        } else if (r.kind == "compilation_metrics") {
            if (auto t = compileTime(r, compileName(key)))
                b.run.graphCompileBreakdown.push_back(std::move(*t));
            codec::Reader m(r.metadata);
            const std::string failType = m.str("fail_type");
            if (!failType.empty())
                b.run.notes.push_back("compile " + compileName(key) + " failed: " + failType + ": " +
                                      m.str("fail_reason"));
        }
    }

    for (const std::string& file : fileOrder) {
        BackendBuilder& b = builders[file];
        BackendRun& run = b.run;
        applyProvenance(b);
        run.name = fileOrder.size() == 1 ? "torch_trace" : "torch_trace:" + fs::path(file).stem().string();
        run.family = "torch_trace";
        run.status = RunStatus::Ok;
        run.graphs = 0;
        for (const auto& s : run.stages)
            if (s.name == "dynamo_fx")
                ++run.graphs;
        run.graphBreaks = int(run.breakReasons.size());
        run.recompiles = b.recompileCount;
        if (!run.graphCompileBreakdown.empty()) {
            double total = 0;
            std::map<std::string, double> phases;
            for (const auto& g : run.graphCompileBreakdown) {
                total += g.totalSeconds;
                for (const auto& p : g.phases)
                    phases[p.name] += p.seconds;
            }
            run.compileSeconds = total;
            for (const auto& [name, seconds] : phases)
                run.compileBreakdown.push_back({name, seconds});
            run.compileBreakdown = orderedPhases(std::move(run.compileBreakdown));
        }
        run.notes.insert(
            run.notes.begin(),
            "imported from the TORCH_TRACE log " + file +
                ": graphs, breaks, recompiles and compile times as torch logged them; no latency, "
                "memory or accuracy (a log has none)");
        if (!b.device.empty() && report.device == "cpu")
            report.device = b.device.rfind("cuda", 0) == 0 ? "cuda" : b.device;
        if (!b.torch.empty() && report.environment.torch.empty())
            report.environment.torch = b.torch;
        report.backends.push_back(std::move(run));
    }
    if (!report.backends.empty() && (!log.notes.empty() || log.skippedLines)) {
        auto& notes = report.backends.front().notes;
        if (log.skippedLines)
            notes.push_back(std::to_string(log.skippedLines) + " line(s) of the log skipped as damaged");
        for (const auto& n : log.notes)
            notes.push_back(n);
    }
    report.settings.import = ImportSource{"torch_trace", source, static_cast<int64_t>(log.records.size())};
    return report;
}

} // namespace fusescope::import
