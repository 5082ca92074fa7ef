#include "Advice.h"

#include "CompileTime.h"
#include "Format.h"
#include "codec/Json.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace fusescope {

namespace {

using json = nlohmann::json;

std::string pct(double part, double whole) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buffer;
}

std::string num(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    const auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The options the row ran with (the worker's echo: run-wide defaults with the entry on top).
const json& effective(const BackendRun& run, const char* key) {
    static const json null;
    return run.options.is_object() && run.options.contains(key) ? run.options[key] : null;
}

json inductorOption(const BackendRun& run, const std::string& key) {
    const auto& inductor = effective(run, "inductor");
    return inductor.is_object() && inductor.contains(key) ? inductor[key] : json();
}

std::string modeOf(const BackendRun& run) {
    const auto& mode = effective(run, "mode");
    if (mode.is_string())
        return mode.get<std::string>();
    const auto entry = parseBackendEntry(run.name);
    return entry ? entry.value().mode : std::string();
}

bool isTorchCompile(const BackendRun& run) {
    return run.family == "torch_compile" && !isMixedLabel(run.name);
}

// The row's own entry, for variants of it; nullopt for mixed rows and labels that do not parse.
std::optional<BackendEntry> entryOf(const BackendRun& run) {
    if (!isTorchCompile(run))
        return std::nullopt;
    auto entry = parseBackendEntry(run.name);
    if (!entry)
        return std::nullopt;
    return entry.value();
}

bool isInductor(const BackendRun& run) {
    const auto entry = entryOf(run);
    return entry && entry->backend == "inductor";
}

std::string canonical(const std::string& label) {
    const auto entry = parseBackendEntry(label);
    return entry ? formatBackendEntry(entry.value()) : label;
}

// The entry to offer, or empty when the report already has that row.
std::string offer(const Report& report, const BackendEntry& variant) {
    const std::string label = formatBackendEntry(variant);
    for (const auto& row : report.backends)
        if (canonical(row.name) == label)
            return {};
    return label;
}

void setInductor(BackendEntry& entry, const std::string& key, json value) {
    if (!entry.options.contains("inductor") || !entry.options["inductor"].is_object())
        entry.options["inductor"] = json::object();
    entry.options["inductor"][key] = std::move(value);
}

const CompilePhase* phase(const BackendRun& run, const std::string& name) {
    const auto it = std::find_if(run.compileBreakdown.begin(), run.compileBreakdown.end(),
                                 [&](const CompilePhase& p) { return p.name == name; });
    return it == run.compileBreakdown.end() ? nullptr : &*it;
}

// A phase taking kAdviceCompilePhaseShare of a compile of kAdviceCompileMinSeconds or more.
const CompilePhase* dominantPhase(const BackendRun& run, const std::string& name) {
    if (!run.compileSeconds || *run.compileSeconds < kAdviceCompileMinSeconds)
        return nullptr;
    const auto* p = phase(run, name);
    return p && p->seconds >= kAdviceCompilePhaseShare * *run.compileSeconds ? p : nullptr;
}

std::string phaseEvidence(const BackendRun& run, const CompilePhase& p) {
    return "compile_breakdown." + p.name + " " + format::seconds(p.seconds) + " s of compile_s " +
           format::seconds(run.compileSeconds) + " s (" + pct(p.seconds, *run.compileSeconds) +
           ", threshold " + pct(kAdviceCompilePhaseShare, 1) + " of a compile of " +
           format::seconds(kAdviceCompileMinSeconds) + " s or more)";
}

void compileKernelCompilation(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    const auto* p = dominantPhase(run, "kernel_compilation");
    if (!p)
        return;
    Advice a{"compile_kernel_compilation", run.name, {}, phaseEvidence(run, *p), {}, {}};
    a.message = "Most of this compile is C++/Triton compilation of the generated kernels. Inductor "
                "caches compiled kernels and graphs on disk, so a recompile of the same model skips most "
                "of it: keep the cache (--warm-cache, or a persistent TORCHINDUCTOR_CACHE_DIR) where a cold "
                "compile is not what you pay.";
    if (run.warmCompileSeconds)
        a.evidence += "; with warm caches the compile took " + format::seconds(run.warmCompileSeconds) + " s";
    const auto cache = inductorOption(run, "fx_graph_cache");
    auto entry = entryOf(run);
    if (entry && entry->backend == "inductor") {
        if (cache.is_boolean() && !cache.get<bool>()) {
            a.message += " This row turned the FX graph cache off (fx_graph_cache=false).";
            setInductor(*entry, "fx_graph_cache", true);
            a.tryEntry = offer(report, *entry);
        } else if (modeOf(run) != "lite") {
            a.message +=
                " Or trade kernel speed for compile time: mode lite (torch's list_mode_options) falls "
                "back to ATen kernels by default, so Inductor has far fewer kernels to compile.";
            entry->mode = "lite";
            a.tryEntry = offer(report, *entry);
        }
    }
    out.push_back(std::move(a));
}

void compileAutotuning(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    const auto* p = dominantPhase(run, "autotuning");
    if (!p)
        return;
    Advice a{"compile_autotuning", run.name, {}, phaseEvidence(run, *p), {}, {}};
    const std::string mode = modeOf(run);
    a.message =
        "Most of this compile is autotuning: Inductor benchmarks candidate kernels" +
        (mode.empty() ? std::string() : " (mode " + mode + ")") +
        ". The autotuning results are cached (--warm-cache keeps them); the default mode does not autotune.";
    if (run.warmCompileSeconds)
        a.evidence += "; with warm caches the compile took " + format::seconds(run.warmCompileSeconds) + " s";
    if (auto entry = entryOf(run); entry && entry->backend == "inductor") {
        bool changed = false;
        if (entry->mode.rfind("max-autotune", 0) == 0) {
            entry->mode.clear();
            changed = true;
        }
        if (entry->options.contains("inductor"))
            for (const char* key : {"max_autotune", "max_autotune_gemm", "coordinate_descent_tuning"})
                if (entry->options["inductor"].contains(key)) {
                    entry->options["inductor"].erase(key);
                    changed = true;
                }
        if (entry->options.contains("inductor") && entry->options["inductor"].empty())
            entry->options.erase("inductor");
        if (changed)
            a.tryEntry = offer(report, *entry);
    }
    out.push_back(std::move(a));
}

// "input 0 dim 0 (1, 8)" for each dimension whose size differs between the study's input sets.
std::vector<std::string> varyingDimensions(const ShapeStudy& study) {
    std::vector<std::string> out;
    if (study.sets.size() < 2)
        return out;
    std::map<std::pair<size_t, size_t>, std::vector<std::string>> sizes; // (input, dim) -> sizes seen
    for (const auto& set : study.sets)
        for (size_t i = 0; i < set.size(); ++i)
            for (size_t d = 0; d < set[i].shape.size(); ++d) {
                auto& seen = sizes[{i, d}];
                if (std::find(seen.begin(), seen.end(), set[i].shape[d]) == seen.end())
                    seen.push_back(set[i].shape[d]);
            }
    for (const auto& [key, seen] : sizes) {
        if (seen.size() < 2)
            continue;
        std::string list;
        for (const auto& s : seen)
            list += (list.empty() ? "" : ", ") + s;
        out.push_back("input " + std::to_string(key.first) + " dim " + std::to_string(key.second) + " (" +
                      list + ")");
    }
    return out;
}

void recompiles(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    if (!isTorchCompile(run))
        return;
    std::vector<std::string> evidence;
    bool limitHit = false;
    if (run.recompiles >= kAdviceRecompilesMin)
        evidence.push_back("recompiles " + std::to_string(run.recompiles) + " in the measured run");
    std::optional<int> dynamicRecompiles;
    if (run.shapes)
        for (const auto& r : run.shapes->runs) {
            if (r.dynamic) {
                dynamicRecompiles = r.recompiles;
                continue;
            }
            if (r.recompiles >= kAdviceRecompilesMin || r.limitHit)
                evidence.push_back(
                    "shape study, dynamic=false: " + std::to_string(r.recompiles) + " recompiles" +
                    (r.guardFailures >= 0 ? ", " + std::to_string(r.guardFailures) + " guard failures"
                                          : std::string()) +
                    (r.limitHit ? ", recompile limit " + std::to_string(r.recompileLimit) +
                                      " hit (Dynamo then ran eager)"
                                : std::string()));
            limitHit = limitHit || r.limitHit;
        }
    if (evidence.empty())
        return;
    Advice a{"recompiles", run.name, {}, {}, {}, {}};
    for (const auto& e : evidence)
        a.evidence += (a.evidence.empty() ? "" : "; ") + e;
    a.evidence += " (threshold " + std::to_string(kAdviceRecompilesMin) + " recompiles, or the limit hit)";
    if (dynamicRecompiles && *dynamicRecompiles >= 0)
        a.evidence += "; with dynamic=true: " + std::to_string(*dynamicRecompiles) + " recompiles";
    a.message =
        std::string(limitHit ? "Dynamo hit its recompile limit and fell back to eager for new shapes. "
                             : "Dynamo recompiled for new input shapes. ") +
        "Compile with dynamic=true (one graph with symbolic sizes)";
    const auto dims = run.shapes ? varyingDimensions(*run.shapes) : std::vector<std::string>{};
    if (!dims.empty()) {
        std::string list;
        for (const auto& d : dims)
            list += (list.empty() ? "" : "; ") + d;
        a.message += ", or mark only the dimension that varies dynamic before the first call with "
                     "torch._dynamo.mark_dynamic(tensor, dim): " +
                     list;
        a.evidence += "; sizes that vary between the input sets: " + list;
    }
    a.message += ".";
    const auto& dynamic = effective(run, "dynamic");
    if (auto entry = entryOf(run); entry && !(dynamic.is_boolean() && dynamic.get<bool>())) {
        entry->options["dynamic"] = true;
        a.tryEntry = offer(report, *entry);
    }
    out.push_back(std::move(a));
}

// torch's "Hint:" lines of a break's message (Dynamo's unimplemented_v2 format), without the
// boilerplate that is no hint about the break itself.
std::vector<std::string> breakHints(const GraphBreak& b) {
    std::vector<std::string> hints;
    std::string text = b.detail.empty() ? b.reason : b.detail;
    size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        const std::string line = trimmed(text.substr(start, end - start));
        if (line.rfind("Hint:", 0) == 0) {
            const std::string hint = trimmed(line.substr(5));
            if (!hint.empty() && hint != "Please report an issue to PyTorch." &&
                std::find(hints.begin(), hints.end(), hint) == hints.end())
                hints.push_back(hint);
        }
        start = end + 1;
    }
    return hints;
}

std::string breakPage(const GraphBreak& b) {
    const std::string marker = "please visit: ";
    const auto at = b.detail.find(marker);
    if (at == std::string::npos)
        return {};
    const auto from = at + marker.size();
    return trimmed(b.detail.substr(from, b.detail.find_first_of(" \n", from) - from));
}

// The Dynamo option a hint says to turn on (`torch._dynamo.config.NAME = True`), or "".
std::string dynamoOptionIn(const std::string& hint) {
    const std::string marker = "torch._dynamo.config.";
    const auto at = hint.find(marker);
    if (at == std::string::npos)
        return {};
    size_t end = at + marker.size();
    while (end < hint.size() && (std::isalnum(static_cast<unsigned char>(hint[end])) || hint[end] == '_'))
        ++end;
    const std::string name = hint.substr(at + marker.size(), end - at - marker.size());
    const auto rest = hint.find_first_not_of(' ', end);
    return !name.empty() && rest != std::string::npos && hint.compare(rest, 6, "= True") == 0 ? name : "";
}

// Graph breaks whose torch hint turns a Dynamo option on (`torch._dynamo.config.NAME = True`):
// one piece of advice per option and row, its try entry the row with `dynamo.NAME=true`.
void dynamoOptions(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    const auto entry = entryOf(run);
    if (!entry)
        return;
    std::vector<std::pair<std::string, std::vector<const GraphBreak*>>> options; // in order met
    for (const auto& b : run.breakReasons)
        for (const auto& hint : breakHints(b)) {
            const auto name = dynamoOptionIn(hint);
            if (name.empty() ||
                (entry->options.contains("dynamo") && entry->options["dynamo"].contains(name)))
                continue;
            auto it =
                std::find_if(options.begin(), options.end(), [&](const auto& o) { return o.first == name; });
            if (it == options.end())
                options.push_back({name, {&b}});
            else if (std::none_of(it->second.begin(), it->second.end(), [&](const GraphBreak* seen) {
                         return seen->file == b.file && seen->line == b.line;
                     }))
                it->second.push_back(&b);
        }
    for (const auto& [name, breaks] : options) {
        Advice a{"dynamo_option", run.name, {}, {}, {}, {}};
        a.message = "torch says these graph breaks go away with torch._dynamo.config." + name +
                    " = True: try the row with it (Dynamo then keeps those operations in the graph)";
        a.evidence = std::to_string(breaks.size()) + (breaks.size() == 1 ? " graph break" : " graph breaks");
        for (size_t i = 0; i < breaks.size() && i < 3; ++i)
            if (!breaks[i]->file.empty())
                a.evidence += (i ? ", " : " at ") + breaks[i]->file + ":" + std::to_string(breaks[i]->line);
        a.evidence += ": " + breaks.front()->reason;
        BackendEntry variant = *entry;
        variant.options["dynamo"][name] = true;
        a.tryEntry = offer(report, variant);
        out.push_back(std::move(a));
    }
}

void graphBreakHints(const BackendRun& run, std::vector<Advice>& out) {
    for (const auto& b : run.breakReasons) {
        const auto hints = breakHints(b);
        if (hints.empty())
            continue;
        Advice a{"graph_break_hint", run.name, {}, {}, {}, {}};
        a.evidence = "graph break";
        if (!b.file.empty())
            a.evidence += " at " + b.file + ":" + std::to_string(b.line);
        if (b.graph >= 0) // "before graph 0" for a break ahead of the first graph, never "after graph -1"
            a.evidence += " (" + format::breakPlacement(b.graph) + ")";
        a.evidence += ": " + b.reason;
        a.message = "torch's hint for this break: ";
        for (size_t i = 0; i < hints.size(); ++i)
            a.message += (i ? " / " : "") + hints[i];
        if (const auto page = breakPage(b); !page.empty())
            a.message += " (more: " + page + ")";
        out.push_back(std::move(a));
    }
}

const BackendRun* rowNamed(const Report& report, const std::string& label) {
    for (const auto& row : report.backends)
        if (canonical(row.name) == label)
            return &row;
    return nullptr;
}

// An int8 row outside the quantization rule: eager at the same precision tells the quantization's
// own error from the compiler's; a gentler mode is the next thing to try.
void quantizedAccuracyFailure(const Report& report, const BackendRun& run, const std::string& precision,
                              const std::optional<BackendEntry>& entry, Advice& a) {
    BackendEntry quantizedEager{"eager", {}, json::object()};
    quantizedEager.options["precision"] = precision;
    // The eager row at this precision: `eager{precision=...}`, or `eager` under a run-wide one.
    const BackendRun* eagerRow = nullptr;
    for (const auto& row : report.backends) {
        const auto e = entryOf(row);
        const std::string rowPrecision = row.workload   ? row.workload->precision
                                         : row.accuracy ? row.accuracy->precision
                                                        : std::string();
        if (e && e->backend == "eager" && e->mode.empty() && rowPrecision == precision)
            eagerRow = &row;
    }
    if (eagerRow && eagerRow->accuracy)
        a.evidence += "; eager{precision=" + precision +
                      "} (torchao's own kernels, no compiler): " + accuracyStatus(*eagerRow->accuracy);
    if (entry && entry->backend != "eager" && !eagerRow) {
        a.message =
            "Quantizing to " + precision +
            " moved the outputs beyond the quantization rule. Run eager at the same precision next to "
            "it: if it fails too, the quantization lost the accuracy, not " +
            entry->backend + ".";
        a.tryEntry = offer(report, quantizedEager);
    } else if (entry && precision != "int8_weight_only") {
        a.message = "Quantizing to " + precision +
                    " moved the outputs beyond the quantization rule. int8_weight_only keeps the activations "
                    "in floating point" +
                    std::string(precision == "int8_static"
                                    ? "; or give the model file calibration_inputs() that cover its data"
                                    : "") +
                    " (docs/quantization.md).";
        BackendEntry gentler = *entry;
        gentler.options["precision"] = "int8_weight_only";
        a.tryEntry = offer(report, gentler);
    } else {
        a.message = "Quantizing to " + precision +
                    " moved the outputs beyond the quantization rule: this model may need its sensitive "
                    "layers left in floating point (docs/quantization.md).";
    }
}

void accuracyFailure(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    if (!run.accuracy)
        return;
    const auto& acc = *run.accuracy;
    const std::string status = accuracyStatus(acc);
    if (status != "fail_accuracy" && status != "nonfinite")
        return;
    const std::string precision = acc.precision.empty() ? "fp32" : acc.precision;
    Advice a{"accuracy_failure", run.name, {}, {}, {}, {}};
    a.evidence = "accuracy " + status + " at " + precision + ": max abs " + num(acc.maxAbs) + ", max rel " +
                 num(acc.maxRel) + ", cosine " + num(acc.cosine) + ", " + acc.rule + " tolerance " +
                 num(acc.tolerance) + (acc.reason.empty() ? std::string() : " (" + acc.reason + ")");
    // The accuracy bisect's answer (--bisect, docs/accuracy.md), when the run asked for one.
    const FirstDivergence* bisect =
        acc.firstDivergence && !acc.firstDivergence->node.empty() ? &*acc.firstDivergence : nullptr;
    if (acc.firstDivergence)
        a.evidence += "; bisect: " + firstDivergenceText(*acc.firstDivergence);
    auto entry = entryOf(run);
    if (isQuantizedPrecision(precision)) {
        // An int8 row (docs/quantization.md): the quantization or the compiler may have lost it.
        quantizedAccuracyFailure(report, run, precision, entry, a);
        out.push_back(std::move(a));
        return;
    }
    const auto* reference = rowNamed(report, "aot_eager");
    if (reference && reference->accuracy && accuracyStatus(*reference->accuracy) == "pass")
        a.evidence += "; aot_eager (same Dynamo and AOTAutograd graphs, no Inductor code) passes";
    const bool lowPrecision = precision == "bf16" || precision == "fp16";
    if (entry && entry->backend == "inductor" && lowPrecision &&
        !(inductorOption(run, "emulate_precision_casts").is_boolean() &&
          inductorOption(run, "emulate_precision_casts").get<bool>())) {
        a.message = "At " + precision +
                    " Inductor keeps fused intermediates in fp32 where eager rounds each op's output to " +
                    precision + "; emulate_precision_casts=true makes Inductor round as eager does.";
        setInductor(*entry, "emulate_precision_casts", true);
        a.tryEntry = offer(report, *entry);
    } else if (entry && entry->backend != "aot_eager" && entry->backend != "eager" && !reference) {
        a.message = "Run aot_eager next to it: the same Dynamo and AOTAutograd graphs without " +
                    entry->backend +
                    "'s code generation. If aot_eager passes, the difference is in the generated kernels.";
        a.tryEntry = offer(report, BackendEntry{"aot_eager", {}, json::object()});
    } else {
        a.message = "The outputs differ from eager beyond the tolerance";
        a.message += reference ? "; compare this row's graphs with aot_eager's." : ".";
    }
    if (bisect) // where to look first, named by the bisect
        a.message =
            "Start at " + (bisect->kernel.empty() ? "node " + bisect->node : "kernel " + bisect->kernel) +
            (bisect->file.empty() ? std::string()
                                  : " (" + bisect->file + ":" + std::to_string(bisect->line) + ")") +
            ": its node " + bisect->node + " is the first whose value differs from eager. " + a.message;
    out.push_back(std::move(a));
}

bool cudagraphsOn(const BackendRun& run) {
    const auto option = inductorOption(run, "triton.cudagraphs");
    if (option.is_boolean())
        return option.get<bool>();
    const std::string mode = modeOf(run);
    return mode == "reduce-overhead" || mode == "max-autotune"; // torch's list_mode_options
}

void memoryAboveEager(const Report& report, const BackendRun& run, std::vector<Advice>& out) {
    if (!isInductor(run) || !run.peakMemoryBytes || !run.eagerPeakMemoryBytes ||
        *run.eagerPeakMemoryBytes <= 0)
        return;
    const double peak = static_cast<double>(*run.peakMemoryBytes);
    const double eager = static_cast<double>(*run.eagerPeakMemoryBytes);
    if (peak < eager * (1 + kAdviceMemoryAboveEager))
        return;
    Advice a{"memory_above_eager", run.name, {}, {}, {}, {}};
    a.evidence = "peak memory " + format::bytes(run.peakMemoryBytes) + " vs eager " +
                 format::bytes(run.eagerPeakMemoryBytes) + " (+" + pct(peak - eager, eager) +
                 ", threshold +" + pct(kAdviceMemoryAboveEager, 1) + ")" +
                 (run.memoryMethod.empty() ? std::string() : ", measured by " + run.memoryMethod);
    auto entry = *entryOf(run);
    const bool cuda = report.device.rfind("cuda", 0) == 0;
    if (cuda && cudagraphsOn(run)) {
        a.message = "CUDA graphs (triton.cudagraphs, on in this row's mode) keep a static memory pool for "
                    "every recorded graph; without them the peak drops, at the cost of launch overhead.";
        if (entry.mode == "max-autotune")
            entry.mode = "max-autotune-no-cudagraphs";
        else if (entry.mode == "reduce-overhead")
            entry.mode.clear();
        else
            setInductor(entry, "triton.cudagraphs", false);
    } else if (cuda) {
        a.message =
            "Inductor pads tensor strides and matmul shapes on GPUs (comprehensive_padding, shape_padding; "
            "both on by default) for aligned loads, which costs memory; turn both off.";
        setInductor(entry, "comprehensive_padding", false);
        setInductor(entry, "shape_padding", false);
    } else {
        const auto planning = inductorOption(run, "memory_planning");
        if (planning.is_boolean() && planning.get<bool>()) {
            a.message =
                "The peak stays above eager with memory_planning on; Inductor has no further memory option "
                "for CPU code that FuseScope can set.";
        } else {
            a.message =
                "Inductor's memory_planning (off by default) plans the buffers of the generated code into "
                "one pool with reuse; try it.";
            setInductor(entry, "memory_planning", true);
        }
    }
    if (formatBackendEntry(entry) != formatBackendEntry(*entryOf(run)))
        a.tryEntry = offer(report, entry);
    out.push_back(std::move(a));
}

// The piece an unavailable backend lacks, from its reason (docs/advice.md).
std::string missingPiece(const std::string& reason) {
    const auto has = [&](const char* s) { return reason.find(s) != std::string::npos; };
    if (has("import ") && has(" failed")) {
        const auto at = reason.find("import ") + 7;
        const auto end = reason.find(' ', at);
        return "the Python package that provides '" + reason.substr(at, end - at) + "' (its import fails)";
    }
    if (has("No module named")) {
        const auto at = reason.find("No module named");
        return "a Python package: " + trimmed(reason.substr(at, reason.find_first_of(";\n", at) - at));
    }
    if (has("compute capability") || has("sm_") || has("architecture"))
        return "a GPU architecture this backend supports";
    if (has("needs CUDA") || has("CUDA device") || has("cuda.is_available"))
        return "a CUDA device visible to torch";
    if (has("C++ compiler"))
        return "a working C++ compiler";
    if (has("device") && has("not supported"))
        return "a device this backend supports";
    if (has("is not registered"))
        return "a torch.compile backend of that name";
    return {};
}

void backendUnavailable(const BackendRun& run, std::vector<Advice>& out) {
    if (run.status != RunStatus::Unavailable || !run.error || run.error->message.empty())
        return;
    Advice a{"backend_unavailable", run.name, {}, {}, {}, {}};
    a.evidence = run.error->code + ": " + run.error->message;
    const std::string piece = missingPiece(run.error->message);
    a.message = piece.empty() ? "Missing, as the backend says: " + run.error->message
                              : "Missing: " + piece + ". " + run.error->message;
    out.push_back(std::move(a));
}

} // namespace

const std::vector<std::string>& adviceRuleIds() {
    static const std::vector<std::string> ids = {
        "compile_kernel_compilation", "compile_autotuning", "recompiles",
        "graph_break_hint",           "dynamo_option",      "accuracy_failure",
        "memory_above_eager",         "backend_unavailable"};
    return ids;
}

std::vector<Advice> adviceFor(const Report& report, const BackendRun& run) {
    std::vector<Advice> out;
    backendUnavailable(run, out);
    compileKernelCompilation(report, run, out);
    compileAutotuning(report, run, out);
    recompiles(report, run, out);
    graphBreakHints(run, out);
    dynamoOptions(report, run, out);
    accuracyFailure(report, run, out);
    memoryAboveEager(report, run, out);
    // The same break met again by a recompile gives the same advice: said once.
    std::vector<Advice> unique;
    for (auto& a : out) {
        a.backends = {run.name};
        if (std::find(unique.begin(), unique.end(), a) == unique.end())
            unique.push_back(std::move(a));
    }
    return unique;
}

std::vector<Advice> adviceFor(const Report& report) {
    // The same three graph breaks under three backends are three pieces of advice, not nine.
    const auto sameAdvice = [](const Advice& a, const Advice& b) {
        return a.rule == b.rule && a.message == b.message && a.evidence == b.evidence &&
               a.tryEntry == b.tryEntry;
    };
    std::vector<Advice> out;
    for (const auto& run : report.backends) {
        for (auto& a : adviceFor(report, run)) {
            const auto same =
                std::find_if(out.begin(), out.end(), [&](const Advice& o) { return sameAdvice(o, a); });
            if (same == out.end())
                out.push_back(std::move(a));
            else if (std::find(same->backends.begin(), same->backends.end(), run.name) ==
                     same->backends.end())
                same->backends.push_back(run.name);
        }
    }
    return out;
}

std::string adviceScope(const Advice& a) {
    if (a.backends.empty())
        return a.backend;
    std::string scope;
    for (const auto& b : a.backends)
        scope += (scope.empty() ? "" : ", ") + b;
    return scope;
}

json toJson(const std::vector<Advice>& advice) {
    json out = json::array();
    for (const auto& a : advice)
        out.push_back({{"rule", a.rule},
                       {"backend", a.backend},
                       {"backends", a.backends.empty() ? json::array({a.backend}) : json(a.backends)},
                       {"message", a.message},
                       {"evidence", a.evidence},
                       {"try", a.tryEntry.empty() ? json(nullptr) : json(a.tryEntry)}});
    return out;
}

std::string adviceLine(const Advice& a) {
    std::string line = adviceScope(a) + " [" + a.rule + "] " + a.message + " (evidence: " + a.evidence + ")";
    if (!a.tryEntry.empty())
        line += "; try --backends '" + a.tryEntry + "'";
    return line;
}

} // namespace fusescope
