// fusescope-cli: everything the GUI does, headless (docs/cli.md).
#include "Commands.h"
#include "ExitCodes.h"
#include "OptionChecks.h"
#include "SweepCommands.h"
#include "capture/CompareSession.h"
#include "capture/ProvenanceCollect.h"
#include "capture/SessionPlan.h"
#include "capture/WorkerConfig.h"
#include "codec/Utf8.h"
#include "files/PathChecks.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
using namespace fusescope;
using namespace fusescope::cli;

namespace {

// Every limit a setting takes (docs/cli.md): a week bounds any duration, and the counts are far
// past what a measurement needs, but finite.
constexpr double kWeekSeconds = 7 * 24 * 3600;
constexpr long long kMaxRuns = 10'000'000;
constexpr long long kMaxWarmup = 1'000'000;
constexpr long long kMaxThreads = 1024;

// Requests and reports carry every argument as JSON text, which must be UTF-8: the first
// argument of `command` that is not, as "--option: 'escaped' ...".
std::optional<std::string> nonUtf8Argument(const CLI::App& command) {
    for (const CLI::Option* option : command.get_options()) {
        for (const std::string& value : option->results()) {
            if (!utf8::isValid(value))
                return option->get_name() + ": " + files::printable(value) +
                       " is not valid UTF-8; retype it (FuseScope keeps arguments as UTF-8 text)";
        }
    }
    return std::nullopt;
}

// The file an output must never replace, when the input is a file at all.
std::vector<files::InputFile> inputFiles(const std::string& path, const std::string& what) {
    if (files::isModelName(path))
        return {};
    return {{path, what}};
}

// The measurement and placement options `compare` and `tune` share (docs/cli.md); their defaults
// are what `settings` holds when they are added.
void addMeasureOptions(CLI::App* app, CompareSettings& settings, std::string& threads, std::string& pin) {
    app->add_option("--warmup", settings.measure.warmup, "Warm-up iterations per side")
        ->check(countIn(0, kMaxWarmup))
        ->type_name("N")
        ->capture_default_str();
    app->add_option("--min-runs", settings.measure.minRuns, "Timed iterations at least")
        ->check(countIn(0, kMaxRuns))
        ->type_name("N")
        ->capture_default_str();
    app->add_option("--min-time", settings.measure.minTimeSeconds, "Seconds of timed iterations at least")
        ->check(secondsIn(0, kWeekSeconds))
        ->type_name("SECONDS")
        ->capture_default_str();
    app->add_option("--max-runs", settings.measure.maxRuns, "Timed iterations at most")
        ->check(countIn(1, kMaxRuns))
        ->type_name("N")
        ->capture_default_str();
    app->add_option("--max-time", settings.measure.maxTimeSeconds, "Seconds of timed iterations at most")
        ->check(secondsIn(0, kWeekSeconds, true))
        ->type_name("SECONDS")
        ->capture_default_str();
    app->add_option(
           "--confidence", settings.measure.confidencePct,
           "After the minimums, time until the speedup's 95 % confidence interval is within "
           "+-PCT % of it (or --max-runs/--max-time is reached); 0 turns it off (docs/measurement.md)")
        ->check(numberIn(0, 100))
        ->type_name("PCT")
        ->capture_default_str();
    app->add_option("--settle", settings.measure.settle,
                    "Untimed calls of each side right before each timed call, so no timed call is the "
                    "first after the other side ran; 0 times right after it (docs/measurement.md)")
        ->check(countIn(0, MeasureSettings::kMaxSettle))
        ->type_name("N")
        ->capture_default_str();
    app->add_option("--threads", threads,
                    "torch intra-op threads in the worker: auto (one CPU fewer than the worker may use, all "
                    "pinned ones with --pin) or N (docs/measurement.md)")
        ->check(CLI::IsMember({"auto"}) | countIn(1, kMaxThreads))
        ->type_name("N|auto")
        ->capture_default_str();
    app->add_option("--pin", pin, "CPUs the worker may run on, e.g. 0, 0-1 or 0,2 (default: all it inherits)")
        ->check(cpuListOf())
        ->type_name("CPUS");
    app->add_option(
           "--malloc", settings.placement.malloc,
           "C allocator policy in the worker and the LibTorch runner: steady (fixed glibc thresholds: "
           "a call's tensors reuse heap memory whatever ran before) or system (glibc's own, which "
           "moves with the process's history) (docs/measurement.md)")
        ->check(CLI::IsMember({"steady", "system"}))
        ->capture_default_str();
}

// --threads and --pin as parsed (checked by their validators) into the placement.
void applyPlacement(CompareSettings& settings, const std::string& threads, const std::string& pin) {
    if (threads != "auto")
        settings.placement.threads = std::stoi(threads);
    if (!pin.empty())
        settings.placement.pin = parseCpuList(pin, onlineCpus()).value_or(std::vector<int>{});
}

} // namespace

int main(int argc, char** argv) {
    fusescope::setProcessOrigin("cli", std::vector<std::string>(argv, argv + argc));
    CLI::App cli{"FuseScope: compare torch.compile backends on a model, headless."};
    cli.set_version_flag("--version", FUSESCOPE_VERSION);
    cli.require_subcommand(1);

    CompareOptions compare;
    std::string backendList = "eager,aot_eager,inductor";
    std::string mode;
    auto* cmp = cli.add_subcommand("compare", "Compile and measure MODEL with each backend");
    cmp->add_option("model", compare.settings.model,
                    "demo:mlp | demo:cnn | demo:transformer | hf:bert | hf:gpt2 | hf:llama | hf:resnet | "
                    "hf:t5 | hf:vit | FILE.py | FILE.pt")
        ->required();
    cmp->add_option("-b,--backends", backendList,
                    "Comma-separated backends, in run order; each NAME[@MODE][{OPTION,...}], e.g. "
                    "inductor,inductor{epilogue_fusion=false},inductor@max-autotune{fullgraph}")
        ->capture_default_str();
    cmp->add_option("-d,--device", compare.settings.device, "cpu or cuda")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    cmp->add_option("-t,--timeout", compare.settings.timeoutSeconds,
                    "Seconds one backend may take before it is stopped")
        ->check(secondsIn(1, kWeekSeconds))
        ->type_name("SECONDS")
        ->capture_default_str();
    cmp->add_option("-o,--out", compare.out, "Write the report (.fscope) here, atomically");
    cmp->add_flag("--json", compare.json, "Print the machine-readable summary instead of the table");
    cmp->add_flag("-q,--quiet", compare.quiet, "No progress on stderr");
    cmp->add_flag("--progress-json", compare.progressJson,
                  "Progress on stderr as one JSON object per line, for tools (docs/cli.md)");
    cmp->add_option(
        "--compile-mode", mode,
        "torch.compile mode for every backend (default, reduce-overhead, max-autotune); one backend "
        "takes its own with NAME@MODE in --backends, e.g. inductor,inductor@max-autotune");
    std::string runMode = "inference";
    cmp->add_option(
           "--mode", runMode,
           "inference (one forward) or training (forward, loss, backward, optimizer step per sample)")
        ->capture_default_str();
    cmp->add_option("--precision", compare.settings.precision,
                    "fp32, bf16 / fp16 autocast, or int8_weight_only / int8_dynamic / int8_static (torchao, "
                    "docs/quantization.md)")
        ->capture_default_str();
    std::string shapes;
    cmp->add_option(
        "--shapes", shapes,
        "Input sets to run after the main measurement, ';'-separated, each like --inputs: "
        "'1x8:int64;8x8:int64;8x32:int64'. Counts recompiles with dynamic=false and dynamic=true");
    std::string assign;
    cmp->add_option(
        "--assign", assign,
        "Also run the model with a backend per submodule, e.g. encoder=inductor,decoder=aot_eager "
        "(the rest runs eager)");
    cmp->add_flag("--search-assign", compare.settings.searchAssign,
                  "After the backends, search backend assignments over the top-level submodules (exhaustive "
                  "when small, else greedy); every candidate is kept in the report");
    std::string goal = "latency";
    cmp->add_option("--goal", goal, "What the recommendation ranks for: latency, throughput, memory, compile")
        ->capture_default_str();
    cmp->add_option("--compile-budget", compare.summary.recommend.compileBudgetSeconds,
                    "Seconds of compile time --goal compile allows")
        ->check(secondsIn(0, kWeekSeconds, true))
        ->type_name("SECONDS")
        ->capture_default_str();
    bool fullgraph = false;
    cmp->add_flag("--fullgraph", fullgraph, "torch.compile(fullgraph=True): a graph break is an error");
    std::string dynamic = "auto";
    cmp->add_option("--dynamic", dynamic, "torch.compile(dynamic=...): true, false or auto")
        ->check(CLI::IsMember({"true", "false", "auto"}))
        ->capture_default_str();
    std::vector<std::string> inductorConfig;
    cmp->add_option("--inductor-config", inductorConfig,
                    "Inductor option KEY=VALUE (VALUE as JSON, else a string), repeatable; e.g. "
                    "--inductor-config epilogue_fusion=false");
    std::string threads = "auto";
    std::string pin;
    addMeasureOptions(cmp, compare.settings, threads, pin);
    cmp->add_flag("--warm-cache", compare.settings.warmCache,
                  "Reuse Inductor's compile caches (faster; compile time is then not a cold compile)");
    cmp->add_flag("--no-stages{false}", compare.settings.captureStages, "Skip IR stage capture");
    cmp->add_flag("--trace", compare.settings.captureTrace,
                  "Record kernel traces of a few extra iterations (PyTorch profiler on CPU, CUPTI on CUDA)");
    bool measureRoofs = false, noRoofs = false;
    auto* measureRoofsFlag =
        cmp->add_flag("--measure-roofs", measureRoofs,
                      "With --trace: measure the machine's bandwidth and compute roofs again (at most 5 s) "
                      "instead of reading them from the cache (docs/roofline.md)");
    cmp->add_flag("--no-roofs", noRoofs, "With --trace: neither measure nor read the machine's roofs")
        ->excludes(measureRoofsFlag);
    bool bisect = false;
    double bisectBudget = kDefaultBisectBudgetSeconds;
    cmp->add_flag("--bisect", bisect,
                  "When a backend fails accuracy, find the first FX node (and its kernel, module, source "
                  "line) where it diverges from eager (docs/accuracy.md)");
    cmp->add_option("--bisect-budget", bisectBudget, "Seconds the bisect of one backend may take")
        ->check(secondsIn(0, kWeekSeconds, true))
        ->type_name("SECONDS")
        ->capture_default_str();
    std::string inputs;
    cmp->add_option("--inputs", inputs, "Input spec for TorchScript files, e.g. 4x16:float32,4:int64");

    TuneOptions tune;
    // Racing measures each candidate briefly and comes back to the close ones (docs/tuning.md).
    tune.settings.measure.minTimeSeconds = 0.5;
    tune.settings.measure.maxTimeSeconds = 3;
    std::string tuneThreads = "auto", tunePin, tuneRunMode = "inference";
    auto* tun = cli.add_subcommand(
        "tune",
        "Race backends, modes and options on MODEL within a time budget and print the torch.compile call "
        "to paste (docs/tuning.md)");
    tun->add_option("model", tune.settings.model, "demo:mlp | ... | FILE.py | FILE.pt, as for compare")
        ->required();
    tun->add_option("--budget", tune.budget,
                    "Time the whole tuning may take, in seconds (300) or with a unit (90s, 5m, 1h); it ends "
                    "within it and keeps what it measured")
        ->required()
        ->type_name("DURATION");
    tun->add_option("--goal", tune.goal, "What to tune for: latency, throughput, memory, compile")
        ->capture_default_str();
    tun->add_option("--space", tune.space,
                    "A TOML file that narrows or extends the search space (docs/tuning.md, \"Space files\")")
        ->type_name("FILE.toml");
    tun->add_option("-d,--device", tune.settings.device, "cpu or cuda")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    tun->add_option("--mode", tuneRunMode, "inference or training (forward, loss, backward, optimizer step)")
        ->capture_default_str();
    tun->add_option("-t,--timeout", tune.settings.timeoutSeconds, "Seconds one candidate's run may take")
        ->check(secondsIn(1, kWeekSeconds))
        ->type_name("SECONDS")
        ->capture_default_str();
    tun->add_option("--inputs", tune.settings.inputs, "Input spec for TorchScript files, e.g. 4x16:float32");
    tun->add_option("-o,--out", tune.out, "Write the report (.fscope) here, atomically, after every run");
    tun->add_flag("--json", tune.json, "Print {\"tuning\": ...} (docs/tuning.md) instead of the table");
    tun->add_flag("-q,--quiet", tune.quiet, "No progress on stderr");
    tun->add_flag("--progress-json", tune.progressJson, "Progress on stderr as JSON lines (docs/cli.md)");
    tun->add_flag("--trace", tune.settings.captureTrace,
                  "Record kernel traces in each candidate's first run (the Traces and Roofline views)");
    addMeasureOptions(tun, tune.settings, tuneThreads, tunePin);

    std::string showPath;
    bool showJson = false;
    auto* show = cli.add_subcommand("show", "Print a saved report");
    show->add_option("file", showPath, "A .fscope report")->required();
    show->add_flag("--json", showJson, "Print the machine-readable summary");
    std::string showBy, showBackend;
    show->add_option("--by", showBy, "Traced kernel time per module or per source line instead of the table")
        ->type_name("module|line");
    show->add_option("--backend", showBackend,
                     "With --by or --roofline: only this backend (default: every traced one / every one)");
    bool showRoofline = false;
    show->add_flag(
        "--roofline", showRoofline,
        "Each traced kernel's bytes, FLOPs, GB/s, GFLOP/s and fraction of the machine's roofs, and "
        "the bytes per call against eager's (docs/roofline.md)");
    std::string showGoal = "latency";
    SummaryOptions showSummary;
    show->add_option("--goal", showGoal,
                     "What the recommendation ranks for: latency, throughput, memory, compile")
        ->capture_default_str();
    show->add_option("--compile-budget", showSummary.recommend.compileBudgetSeconds,
                     "Seconds of compile time --goal compile allows")
        ->check(secondsIn(0, kWeekSeconds, true))
        ->type_name("SECONDS")
        ->capture_default_str();

    ExportOptions exportOptions;
    auto* exp = cli.add_subcommand(
        "export",
        "Write a picture of one stage graph of a saved report, its trace, or the whole report as HTML");
    exp->add_option("report", exportOptions.report, "A .fscope report")->required();
    auto* exportHtml =
        exp->add_option("--html", exportOptions.html,
                        "Write the whole report as one self-contained HTML page that opens offline "
                        "(docs/html-report.md)");
    auto* exportBackend =
        exp->add_option("--backend", exportOptions.backend, "Backend whose stage (or trace) to export");
    exp->add_option("--stage", exportOptions.stage,
                    "Stage key (dynamo_fx, aot_forward, post_grad, pre_fusion, post_fusion, name#graph); "
                    "default: the first stage after fusion (post_fusion for Inductor)");
    auto* exportOut = exp->add_option("-o,--out", exportOptions.out, "FILE.png, FILE.svg or FILE.pdf");
    exp->add_flag(
        "--trace", exportOptions.trace,
        "Export the backend's kernel trace: FILE.json is Chrome-trace JSON (Perfetto), FILE.csv the "
        "kernel table");
    exp->add_flag("--time", exportOptions.measuredTime,
                  "Colour the graph's nodes by measured kernel time, with a legend (needs a traced run)");
    exp->add_option("--scale", exportOptions.scale, "PNG pixels per point")
        ->check(numberIn(0.1, 16.0))
        ->type_name("X")
        ->capture_default_str();

    DiffOptions diffOptions;
    auto* diff =
        cli.add_subcommand("diff", "Compare two reports (or two backends of one): latency, kernels, breaks");
    diff->add_option("a", diffOptions.reportA, "The baseline report (A)")->required();
    diff->add_option("b", diffOptions.reportB, "The report compared with it (B); may be A itself")
        ->required();
    diff->add_option("--backend", diffOptions.backend,
                     "Compare only this backend (default: every one in both)");
    diff->add_option("--backend-b", diffOptions.backendB,
                     "B's backend to compare with A's --backend, e.g. two backends of one report");
    diff->add_flag("--json", diffOptions.json, "Print JSON (docs/diff.md)");

    CheckOptions checkOptions;
    auto* check = cli.add_subcommand(
        "check", "Gate a report on a baseline for CI: exit 1 naming each regression beyond the thresholds "
                 "and the noise, 2 on unusable input (docs/ci.md)");
    check->add_option("new", checkOptions.candidate, "The new report (or sweep folder)")->required();
    check
        ->add_option("--baseline", checkOptions.baseline,
                     "The report (or sweep folder) it must not regress from")
        ->required();
    check
        ->add_option("--max-slowdown", checkOptions.maxSlowdownPct,
                     "Slowdown allowed, in percent: a backend regresses when its latency ratio's whole 95 % "
                     "interval lies above 1 + PCT/100")
        ->check(numberIn(0.0, 1000.0))
        ->type_name("PCT")
        ->capture_default_str();
    check
        ->add_option("--max-compile-growth", checkOptions.maxCompileGrowthPct,
                     "Compile-time growth allowed, in percent")
        ->check(numberIn(0.0, 100000.0))
        ->type_name("PCT")
        ->capture_default_str();
    check->add_option("--markdown", checkOptions.markdown,
                      "Also write the verdict as Markdown (a PR comment) here");
    check->add_option("--junit", checkOptions.junit, "Also write the checks as JUnit XML here");

    ImportOptions importOptions;
    auto* imp = cli.add_subcommand(
        "import", "Read a TORCH_TRACE directory or .log (or another supported log/trace) into a report");
    imp->add_option("input", importOptions.input,
                    "What to import; its format is found from its content (docs/import.md)")
        ->required();
    imp->add_option("-o,--out", importOptions.out, "Write the report (.fscope) here, atomically")->required();
    imp->add_flag("-q,--quiet", importOptions.quiet, "Print nothing on success");
    auto* importInto =
        imp->add_option("--into", importOptions.into,
                        "A PyTorch profiler trace: attach it to a backend of this report (written "
                        "to --out; this one is not changed) instead of making a report of its own");
    auto* importBackend = imp->add_option(
        "--backend", importOptions.backend,
        "With --into: the backend the trace becomes the trace of (its kernels link to its graphs by name)");
    importInto->needs(importBackend);
    importBackend->needs(importInto);

    bool backendsJson = false;
    auto* backends =
        cli.add_subcommand("backends", "List every backend known, available or not, and why not");
    backends->add_flag("--json", backendsJson, "Print JSON");
    SweepCommands sweepCommands;
    addSweepCommands(cli, sweepCommands);

    // The interpreter every worker runs in (docs/worker.md, "Your own Python").
    std::string python;
    for (CLI::App* command : {cmp, tun, backends})
        command
            ->add_option("--python", python,
                         "Python interpreter (with torch) the worker runs in, e.g. ~/venv/bin/python; "
                         "default: FUSESCOPE_PYTHON, else the build's")
            ->type_name("PATH");

    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = cli.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }

    // Paths are checked before anything runs: a bad one is a usage error, never a run whose report
    // cannot be saved or one that replaces its own input.
    if (*exp && exportOptions.html.empty() && !exportOptions.out.empty()) {
        if (auto bad = files::checkOutputPath(exportOptions.out, {{exportOptions.report, "the report"}})) {
            std::fprintf(stderr, "error: --out: %s\n", bad->message.c_str());
            return kExitUsage;
        }
    }
    if (*imp) {
        std::vector<files::InputFile> importInputs{{importOptions.input, "the input"}};
        if (!importOptions.into.empty())
            importInputs.push_back({importOptions.into, "the --into report"});
        if (auto bad = files::checkOutputPath(importOptions.out, importInputs)) {
            std::fprintf(stderr, "error: --out: %s\n", bad->message.c_str());
            return kExitUsage;
        }
    }
    if (*cmp) {
        if (auto bad = files::checkModelPath(compare.settings.model)) {
            std::fprintf(stderr, "error: model: %s\n", bad->message.c_str());
            return kExitUsage;
        }
        if (!compare.out.empty()) {
            if (auto bad = files::checkOutputPath(compare.out,
                                                  inputFiles(compare.settings.model, "the model file"))) {
                std::fprintf(stderr, "error: --out: %s\n", bad->message.c_str());
                return kExitUsage;
            }
        }
        if (auto bad = nonUtf8Argument(*cmp)) {
            std::fprintf(stderr, "error: %s\n", bad->c_str());
            return kExitUsage;
        }
    }

    if (*tun) {
        if (auto bad = files::checkModelPath(tune.settings.model)) {
            std::fprintf(stderr, "error: model: %s\n", bad->message.c_str());
            return kExitUsage;
        }
        if (!tune.out.empty())
            if (auto bad =
                    files::checkOutputPath(tune.out, inputFiles(tune.settings.model, "the model file"))) {
                std::fprintf(stderr, "error: --out: %s\n", bad->message.c_str());
                return kExitUsage;
            }
        if (auto bad = nonUtf8Argument(*tun)) {
            std::fprintf(stderr, "error: %s\n", bad->c_str());
            return kExitUsage;
        }
    }

    if (*exp) {
        if (!exportOptions.html.empty()) {
            for (const CLI::Option* other : exp->get_options())
                if (other != exportHtml && other->count() > 0 && other->get_name() != "report" &&
                    other->get_name() != "--help") {
                    std::fprintf(stderr, "error: --html writes the whole report: it takes no %s\n",
                                 other->get_name().c_str());
                    return kExitUsage;
                }
            if (auto bad =
                    files::checkOutputPath(exportOptions.html, {{exportOptions.report, "the report"}})) {
                std::fprintf(stderr, "error: %s\n", bad->message.c_str());
                return kExitUsage;
            }
            return runExportHtml(exportOptions);
        }
        for (const CLI::Option* needed : {exportBackend, exportOut})
            if (needed->count() == 0) {
                std::fprintf(stderr, "error: %s is required (or --html FILE for the whole report)\n",
                             needed->get_name().c_str());
                return kExitUsage;
            }
        // Drawing needs fonts, hence a GUI application, but never a display.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        return runExport(exportOptions);
    }
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("fusescope-cli");
    QCoreApplication::setApplicationVersion(FUSESCOPE_VERSION);
    if (auto code = runSweepCommands(sweepCommands))
        return *code;

    if (!python.empty()) {
        auto env = inspectPython(QString::fromStdString(python));
        if (!env) {
            std::fprintf(stderr, "error: --python: %s\n", env.error().message.c_str());
            return kExitUsage;
        }
        if (!env.value().torchTested && !compare.quiet)
            std::fprintf(stderr,
                         "warning: --python: torch %s is outside the tested range (%s); stages whose "
                         "torch APIs are missing are reported unsupported, naming them\n",
                         env.value().torch.c_str(), torchTestedRange().c_str());
        // Relative to here, not to wherever a worker starts.
        const QString chosen = QString::fromStdString(python);
        WorkerConfig::setChosenPython(chosen.contains('/') ? QFileInfo(chosen).absoluteFilePath() : chosen);
    }

    if (*cmp) {
        // The CLI and the GUI build their requests with planSession (capture/SessionPlan.h), which
        // checks every setting, and each --backends entry as the session will read it.
        CompareSettings& settings = compare.settings;
        settings.backends = splitBackendList(backendList);
        settings.compileMode = mode;
        settings.fullgraph = fullgraph;
        settings.dynamic = dynamic;
        settings.inductorConfig = inductorConfig;
        settings.inputs = inputs;
        settings.mode = runMode;
        settings.shapes = shapes;
        settings.assign = assign;
        if (bisect)
            settings.bisectBudgetSeconds = bisectBudget;
        settings.roofs = measureRoofs ? "measure" : noRoofs ? "skip" : "cached";
        applyPlacement(settings, threads, pin);
        Setting bad = Setting::Backends;
        auto plan = planSession(settings, &bad);
        if (!plan) {
            std::fprintf(stderr, "error: %s: %s\n", settingFlag(bad), plan.error().message.c_str());
            return kExitUsage;
        }
        compare.plan = std::move(plan.value());
        auto parsedGoal = goalFromString(goal);
        if (!parsedGoal) {
            std::fprintf(stderr, "error: --goal: '%s' is not one of latency, throughput, memory, compile\n",
                         goal.c_str());
            return kExitUsage;
        }
        compare.summary.goal = *parsedGoal;
        return runCompare(compare);
    }
    if (*tun) {
        tune.settings.mode = tuneRunMode;
        applyPlacement(tune.settings, tuneThreads, tunePin);
        return runTune(tune);
    }
    if (*show) {
        auto parsedGoal = goalFromString(showGoal);
        if (!parsedGoal) {
            std::fprintf(stderr, "error: --goal: '%s' is not one of latency, throughput, memory, compile\n",
                         showGoal.c_str());
            return kExitUsage;
        }
        showSummary.goal = *parsedGoal;
        if (showRoofline && !showBy.empty()) {
            std::fprintf(stderr, "error: --roofline and --by are separate views: give one\n");
            return kExitUsage;
        }
        if (showRoofline)
            return runShowRoofline(showPath, showBackend, showJson);
        if (!showBy.empty())
            return runShowTime(showPath, showBy, showBackend, showJson);
        if (!showBackend.empty()) {
            std::fprintf(stderr, "error: --backend needs --by module|line or --roofline\n");
            return kExitUsage;
        }
        return runShow(showPath, showJson, showSummary);
    }
    if (*backends)
        return runBackends(backendsJson);
    if (*imp)
        return runImport(importOptions);
    if (*check) {
        for (const std::string* out : {&checkOptions.markdown, &checkOptions.junit})
            if (!out->empty())
                if (auto bad = files::checkOutputPath(*out, {{checkOptions.candidate, "the new report"},
                                                             {checkOptions.baseline, "the baseline"}})) {
                    std::fprintf(stderr, "error: %s\n", bad->message.c_str());
                    return kExitUsage;
                }
        return runCheck(checkOptions);
    }
    if (*diff) {
        if (!diffOptions.backendB.empty() && diffOptions.backend.empty()) {
            std::fprintf(stderr, "error: --backend-b needs --backend (A's backend to compare it with)\n");
            return kExitUsage;
        }
        return runDiff(diffOptions);
    }
    return kExitUsage;
}
