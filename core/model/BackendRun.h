#pragma once

#include "CompileTime.h"
#include "Deployment.h"
#include "KernelTrace.h"
#include "Quantization.h"
#include "Roofs.h"
#include "RunSettings.h"
#include "StageGraph.h"
#include "Tuning.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusescope {

enum class RunStatus { Pending, Running, Ok, Failed, Unavailable, Cancelled };

const char* toString(RunStatus status);
RunStatus runStatusFromString(const std::string& text);

// Why a backend run did not succeed. `code` is one of docs/protocol.md's error codes.
struct RunError {
    std::string code;
    std::string message;
    std::string file;
    std::string traceback;
};

// One named submodule of the model (root excluded), for assignments and the module tree.
struct ModuleInfo {
    std::string name; // qualified: encoder.layers.0
    std::string className;
    int64_t parameters = 0;
    int depth = 1;
};

struct ModelInfo {
    std::string name;
    std::string source;
    std::string className;
    int64_t parameters = 0;
    std::vector<TensorSpec> inputs;
    std::vector<ModuleInfo> modules;
};

// Where an accuracy failure starts (docs/accuracy.md, "Bisect"): the first FX node of the graph
// the backend received whose value leaves eager's, and the kernel of the measured compile that
// holds it. Only on request (--bisect); every field but method/compiles/seconds may be unknown.
struct FirstDivergence {
    std::string node;                 // the Dynamo FX node's name; empty when none was found (see reason)
    int graph = -1;                   // the Dynamo graph it is in
    std::string stage;                // the stage whose node it names: dynamo_fx
    std::string op;                   // its target, as the stage's nodes name it (aten.relu, torch.relu ...)
    std::string kernel;               // the first post-fusion kernel that contains it; empty when unknown
    std::vector<std::string> kernels; // every kernel that contains it (recomputation)
    std::string module;               // nn_module_stack path
    std::string moduleType;
    std::string file; // the model's source line
    int line = 0;
    std::string code;
    std::optional<double> maxAbs; // of that node's value against eager
    std::optional<double> maxRel;
    std::string method; // intermediate_outputs
    int compiles = 0;   // compiles the bisect made
    double seconds = 0;
    std::optional<double> budgetSeconds;
    bool budgetExhausted = false;
    std::string reason; // why no node is named (budget, no divergence exposed, backend)
};

struct Accuracy {
    double maxAbs = 0;
    double maxRel = 0;
    double cosine = 0;
    double rmse = 0;
    bool pass = false;
    std::string rule;
    double tolerance = 0;
    std::string precision; // fp32, bf16, fp16: the tolerance follows it
    // The verdict as PyTorch's harness names it (docs/measurement.md): pass, fail_accuracy,
    // nonfinite, eager_two_runs_differ, fail_to_run, OOM. Empty in reports older than it.
    std::string status;
    std::string reason; // why it did not pass: which output leaf, and what; empty on a pass
    std::optional<FirstDivergence> firstDivergence; // the accuracy bisect's answer, on request
};

// One line for people (fusescope-cli show, the GUI's details): node, op, kernel, module, file:line,
// how far off, what the bisect cost; or why it names no node.
std::string firstDivergenceText(const FirstDivergence& d);

// `status`, or for a report written before statuses existed what `pass` says.
std::string accuracyStatus(const Accuracy& accuracy);

struct GraphBreak {
    std::string reason;
    std::string file;
    int line = 0;
    std::string detail; // Dynamo's full message
    int graph = -1;     // graphs Dynamo had produced in that frame before the break; -1 unknown
};

// Training mode (docs/workloads.md): what a step was, and how the backward compares.
struct TrainingResult {
    std::string loss;
    std::string optimizer;
    std::optional<int64_t> batchSize;
    std::optional<double> compileForwardSeconds;
    std::optional<double> compileBackwardSeconds;
    std::optional<Accuracy> gradientAccuracy;
    std::string worstParameter;
};

// One input set of a shape list, run after the main measurement.
struct ShapePoint {
    int index = 0;
    std::string status; // ok | failed
    bool recompiled = false;
    std::optional<double> firstCallSeconds;
    std::vector<double> eagerMs;
    std::vector<double> compiledMs;
    std::string error;
};

// Every input set fed to one fresh compile with dynamic=false or dynamic=true.
struct ShapeRun {
    bool dynamic = false;
    int recompiles = -1;
    int guardFailures = -1;
    int recompileLimit = -1;
    bool limitHit = false; // Dynamo gave up recompiling and silently ran eager
    std::vector<ShapePoint> points;
};

struct ShapeStudy {
    std::vector<InputSet> sets; // the input sets, as requested
    std::vector<ShapeRun> runs;
    std::string error; // why the shape list did not run for this backend (e.g. tvm), or empty
};

// One submodule of a mixed run and the backend that compiled it.
struct AssignedPart {
    std::string module;
    std::string backend;
    int graphs = -1;
    int graphBreaks = -1;
    std::optional<double> compileSeconds;
};

// Something that makes a run's numbers less trustworthy (docs/measurement.md, "Warnings"), e.g.
// machine_busy: the worker saw other processes keep a core busy while samples were taken.
struct RunWarning {
    std::string code;
    std::string message;
    bool operator==(const RunWarning&) const = default;
};

// Threads and CPUs in effect in the worker while it ran (result `placement`).
struct RunPlacement {
    int threads = 0;                     // torch.get_num_threads()
    std::optional<int> threadsRequested; // --threads, or nullopt for the worker's default
    std::vector<int> affinity;           // os.sched_getaffinity
    std::vector<int> pin;                // --pin, or empty
    std::string malloc;                  // allocator policy in effect (steady, system...); empty: not said
};

// How the worker's timing loop ended (result `measure`, docs/measurement.md "Stopping rule").
// Facts only: the achieved confidence interval is computed from the samples (analysis/Confidence.h).
struct RunMeasure {
    double confidencePct = 0; // the target half-width of the speedup's 95 % CI; 0: rule off
    std::string stoppedBy;    // confidence | min | max_runs | max_time (empty: not said)
    // Minor page faults of the worker per timed call (`faults_per_call`), each side; absent in
    // older results and from runners that do not count them.
    std::optional<double> eagerFaultsPerCall;
    std::optional<double> compiledFaultsPerCall;
    // Untimed calls of each side before each timed call (`settle`, docs/measurement.md); absent
    // in results from before settle calls, which were measured with none.
    std::optional<int> settle;
};

// The worker's account of a run's trace (result `trace`, report `trace_info`): what traced it and
// what tracing cost, or why there is no trace. `unknown` keeps, as written, members this build
// does not know.
struct TraceInfo {
    std::string source; // cpu-profiler, cupti, import
    std::string error;  // why there is no trace; empty when there is one
    std::optional<int64_t> iterations;
    std::optional<double> untracedMs; // median call without the tracer, around the traced ones
    std::optional<double> tracedMs;
    std::optional<double> overheadRatio; // traced / untraced
    std::optional<int64_t> dropped;      // records the tracer lost
    std::optional<int64_t> events;
    std::optional<int64_t> kernels;
    std::optional<int64_t> chunks;
    std::string file; // import: the trace file read
    nlohmann::json unknown = nlohmann::json::object();
    bool operator==(const TraceInfo&) const = default;
};

// Generated source a backend produced (Inductor's output_code.py, a TVM module...).
struct CodeArtifact {
    std::string name;
    std::string language;
    std::string stage;
    std::string text;
};

// One worker process's share of a row measured by several (the tuner's revisits, docs/tuning.md):
// the samples from `firstSample` up to the next round's came from it. A failed round adds none.
struct MeasureRound {
    int64_t firstSample = 0;
    std::optional<double> compileSeconds;
    std::string cache = "cold"; // cold | warm: the compile caches that round started with
    std::string status = "ok";  // a run status
    std::string error;          // why a round that did not finish failed
    double wallSeconds = 0;     // the round's worker process, start to result
    bool operator==(const MeasureRound&) const = default;
};

// Everything one backend produced for one model: stages, samples, numbers, errors.
struct BackendRun {
    std::string name;
    std::string family = "torch_compile";
    RunStatus status = RunStatus::Pending;
    std::optional<RunError> error;

    std::optional<double> compileSeconds;
    std::optional<double> captureOverheadSeconds;
    std::optional<double> firstCallSeconds;
    // docs/measurement.md "Compile time": the capturing compile's first call (a compile apart
    // from the timed one) and a recompile with the on-disk caches warm; absent in older reports.
    std::optional<double> captureSeconds;
    std::optional<double> warmCompileSeconds;
    // Which compile the stages came from: "timed_compile" (one compile: the timed one captured),
    // "second_compile" (a compile apart, captureFromReason says why), "" (older reports: apart).
    std::string captureFrom;
    std::string captureFromReason;
    // compile_s by phase, from torch's compile timers (empty: not measured), and per Dynamo compile.
    std::vector<CompilePhase> compileBreakdown;
    std::vector<GraphCompileTime> graphCompileBreakdown;
    std::optional<Tuning> tuning; // tvm{tune=N}: the schedule search, apart from compile_s (Tuning.h)
    double wallSeconds = 0;

    // Interleaved samples from the same worker process: eager is this run's baseline.
    std::vector<double> eagerSamplesMs;
    std::vector<double> compiledSamplesMs;
    // Empty: one worker process measured every sample (every `compare` row). Else one per process,
    // in order; round 1 is the row's own run (its compile_s, stages, trace).
    std::vector<MeasureRound> rounds;

    std::optional<int64_t> peakMemoryBytes;
    std::optional<int64_t> eagerPeakMemoryBytes;
    std::string memoryMethod;
    std::optional<Deployment> deployment;     // the artifact a user would ship (Deployment.h)
    std::optional<Quantization> quantization; // int8 rows: what torchao quantized (Quantization.h)

    std::optional<Accuracy> accuracy;

    int graphs = -1;
    int graphBreaks = -1;
    int recompiles = -1;
    std::vector<GraphBreak> breakReasons;
    // What a reader needs to read the numbers right, e.g. reduce-overhead on cpu used no CUDA graphs.
    std::vector<std::string> notes;
    // Stored warnings from the worker's machine check; derived ones (high_variance) are computed
    // in analysis/RunWarnings.h, so a report never disagrees with its own samples.
    std::vector<RunWarning> warnings;
    std::optional<RunPlacement> placement;
    std::optional<RunMeasure> measure; // absent in reports written before the confidence rule

    std::vector<StageGraph> stages;
    std::vector<CodeArtifact> code;
    std::optional<ModelInfo> model;
    std::optional<KernelTrace> trace; // kernels of a few separately traced iterations
    // The worker's account of the trace: overhead (untraced vs traced ms), or why there is none.
    std::optional<TraceInfo> traceInfo;
    // The machine's roofs beside the trace (Roofs.h), or why there are none; untraced rows: absent.
    std::optional<Roofs> roofs;

    // The compile options the row ran with (model/BackendEntry.h), an open map kept as JSON.
    nlohmann::json options = nlohmann::json::object();
    std::optional<Workload> workload; // the worker's echo of the request's workload
    std::optional<TrainingResult> training;
    std::optional<ShapeStudy> shapes;
    std::vector<std::pair<std::string, std::string>> assign; // mixed runs: submodule -> backend
    std::vector<AssignedPart> parts;
    std::string log; // tail of the worker's stderr

    bool finished() const {
        return status == RunStatus::Ok || status == RunStatus::Failed || status == RunStatus::Unavailable ||
               status == RunStatus::Cancelled;
    }
    const StageGraph* findStage(const std::string& key) const;
};

// Encoders and decoders: codec/RunCodec.h.

} // namespace fusescope
