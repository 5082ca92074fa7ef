#include "TorchScriptRunner.h"

#include "LibTorchUtil.h"
#include "TorchScriptGraph.h"
#include "model/ErrorCode.h"

#include <ATen/Parallel.h>
#include <chrono>
#include <torch/csrc/jit/codegen/fuser/interface.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/tensorexpr/codegen.h>
#include <torch/csrc/jit/tensorexpr/kernel.h>
#include <torch/script.h>

namespace fusescope {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// LibTorch's JIT switches are process-wide (a few are thread-local); set them for one run and
// put back what was there.
struct JitSettings {
    bool profiling = torch::jit::getProfilingMode();
    bool executor = torch::jit::getExecutorMode();
    bool optimize = torch::jit::getGraphExecutorOptimize();
    bool texpr = torch::jit::tensorExprFuserEnabled();
    bool cpuFuse = torch::jit::canFuseOnCPU();
    bool mustLlvm = torch::jit::tensorexpr::getTEMustUseLLVMOnCPU();
    bool reductions = torch::jit::texprReductionsEnabled();

    void apply() const {
        torch::jit::getProfilingMode() = profiling;
        torch::jit::getExecutorMode() = executor;
        torch::jit::setGraphExecutorOptimize(optimize);
        torch::jit::setTensorExprFuserEnabled(texpr);
        torch::jit::overrideCanFuseOnCPU(cpuFuse);
        torch::jit::tensorexpr::getTEMustUseLLVMOnCPU() = mustLlvm;
        torch::jit::setTexprReductionsEnabled(reductions);
    }
};

bool containsKind(const torch::jit::Block* block, const char* kind) {
    for (const auto* node : block->nodes()) {
        if (std::string(node->kind().toQualString()) == kind)
            return true;
        for (const auto* inner : node->blocks())
            if (containsKind(inner, kind))
                return true;
    }
    return false;
}

RunError error(ErrorCode code, const std::string& message) {
    return RunError{toString(code), message, {}, {}};
}

} // namespace

struct TorchScriptRunner::Impl {
    Mode mode;
    JitSettings saved;
    std::string modelPath;
    JitSettings run; // applied once the module is loaded (below)
    torch::jit::Module module;
    std::vector<c10::IValue> args;
    std::unordered_map<std::string, c10::IValue> kwargs;
    std::vector<at::Tensor> reference;
    double loadSeconds = 0;
    double compileSeconds = 0;
    double firstCallSeconds = 0;
    bool firstCallOnly = false;
    std::vector<StageGraph> stages;
    std::optional<Accuracy> accuracy;
    nlohmann::json info = nlohmann::json::object();

    c10::IValue call() {
        torch::NoGradGuard noGrad;
        return module.get_method("forward")(args, kwargs);
    }
};

TorchScriptRunner::TorchScriptRunner(Mode mode)
    : d(std::make_unique<Impl>()) {
    // OpenMP's thread count is per thread: a thread other than main must set it up, or ATen's
    // parallel regions can oversubscribe the CPU (observed: 38 ms instead of 0.13 ms per call).
    at::init_num_threads();
    d->mode = mode;
    d->info["intra_op_threads"] = at::get_num_threads();
    JitSettings run = d->saved;
    if (mode == Mode::Nnc) {
        const bool llvm = nncCpuCodegen() == "llvm";
        run.profiling = true;
        run.executor = true;
        run.optimize = true;
        run.texpr = true;
        run.cpuFuse = true;
        // Without LLVM, NNC refuses CPU fusion groups unless told it may use its IR evaluator.
        run.mustLlvm = llvm;
        // Reductions (softmax, sum) may join groups: without them a transformer has no two
        // adjacent ops NNC accepts and forms no group at all (docs/libtorch.md).
        run.reductions = true;
        d->info["texpr_reductions"] = true;
        d->info["executor"] = "profiling";
        d->info["nnc_cpu_codegen"] = llvm ? "llvm" : "ir_eval";
    } else {
        // The plain interpreter: no profiling, no optimization passes beyond the required ones,
        // no fuser (the closest TorchScript gets to eager).
        run.profiling = false;
        run.executor = false;
        run.optimize = false;
        run.texpr = false;
        run.cpuFuse = false;
        d->info["executor"] = "simple (profiling off, optimizations off)";
    }
    d->run = run;
}

TorchScriptRunner::~TorchScriptRunner() {
    d->saved.apply();
}

std::string TorchScriptRunner::nncCpuCodegen() {
    try {
        torch::jit::tensorexpr::RegisterCodeGenList::GetInstance().FindStmtFactoryMethod("llvm_codegen");
        return "llvm";
    } catch (const std::exception&) {
        return "ir_eval";
    }
}

std::optional<RunError> TorchScriptRunner::load(const std::string& modelPath, const std::string& dataPath) {
    const auto start = Clock::now();
    try {
        // Loaded with LibTorch's default settings, so the scripted graph is compiled (and inlined)
        // the same way for both backends; the executor settings of the run apply from the first
        // call on, when the executor is created.
        d->module = torch::jit::load(modelPath);
        d->module.eval();
        d->modelPath = modelPath;
        d->run.apply();
    } catch (const std::exception& e) {
        return error(ErrorCode::CompileFailed,
                     "cannot load the TorchScript module " + modelPath + ": " + e.what());
    }
    d->loadSeconds = secondsSince(start);
    try {
        auto data = libtorch::readTensorData(dataPath);
        d->args = std::move(data.args);
        d->kwargs = std::move(data.kwargs);
        d->reference = std::move(data.reference);
    } catch (const std::exception& e) {
        return error(ErrorCode::Internal,
                     "cannot read the example inputs and reference outputs " + dataPath + ": " + e.what());
    }
    return std::nullopt;
}

std::optional<RunError> TorchScriptRunner::load(const nlohmann::json& exported) {
    return load(exported.value("model_path", std::string()), exported.value("data_path", std::string()));
}

std::optional<RunError> TorchScriptRunner::compile() {
    const auto start = Clock::now();
    constexpr int kMaxCalls = 20;
    int calls = 0;
    std::shared_ptr<torch::jit::Graph> optimized;
    try {
        // The profiling executor runs getNumProfiledRuns() profiled calls, then builds and runs
        // the optimized (fused) plan; the plain interpreter's plan exists after the first call.
        while (calls < kMaxCalls) {
            const auto callStart = Clock::now();
            d->call();
            ++calls;
            if (calls == 1)
                d->firstCallSeconds = secondsSince(callStart);
            if (d->firstCallOnly) {
                d->compileSeconds = d->loadSeconds + secondsSince(start);
                return std::nullopt;
            }
            optimized = torch::jit::lastExecutedOptimizedGraph();
            if (optimized && !containsKind(optimized->block(), "prim::profile") &&
                !containsKind(optimized->block(), "prim::profile_ivalue"))
                break;
        }
    } catch (const std::exception& e) {
        return error(ErrorCode::RunFailed,
                     std::string("the TorchScript module raised when run: ") + e.what());
    }
    d->compileSeconds = d->loadSeconds + secondsSince(start);
    d->info["calls_until_optimized"] = calls;
    d->info["profiled_runs"] = static_cast<int64_t>(torch::jit::getNumProfiledRuns().load());

    // The before stage comes from a second copy of the module, inlined with the optimizer flag on
    // (Inline only expands calls then): the same graph for both backends, and the module that
    // runs keeps the caches its own executor settings produced.
    std::shared_ptr<torch::jit::Graph> graph;
    try {
        torch::jit::GraphOptimizerEnabledGuard optimizerOn(true);
        auto copy = torch::jit::load(d->modelPath);
        graph = copy.get_method("forward").graph()->copy();
        torch::jit::Inline(*graph);
    } catch (const std::exception& e) {
        return error(ErrorCode::Internal, std::string("cannot read the scripted forward graph: ") + e.what());
    }
    std::vector<std::string> keys;
    d->stages.push_back(beforeFusionStage(*graph, keys));
    if (!optimized) {
        StageGraph after;
        after.name = "torchscript_optimized";
        after.level = "torchscript";
        after.fusion = d->mode == Mode::Nnc ? "after" : "none";
        after.status = StageStatus::Failed;
        after.reason =
            "LibTorch reported no executed optimized graph after " + std::to_string(calls) + " calls";
        d->stages.push_back(std::move(after));
        return std::nullopt;
    }
    auto after = optimizedStage(*optimized, d->stages.front(), keys, d->mode == Mode::Nnc ? "after" : "none");
    if (d->mode == Mode::Nnc && after.groups.empty())
        after.reason = "NNC formed no fusion group for this model (min group size 2, supported ops only)";
    d->info["fusion_groups"] = after.groups.size();
    d->stages.push_back(std::move(after));
    return std::nullopt;
}

void TorchScriptRunner::call() {
    d->call();
}

PeakMemory TorchScriptRunner::measurePeakMemory() {
    return libtorch::profilerAllocatorPeak([this] { d->call(); });
}

std::optional<RunError> TorchScriptRunner::checkAccuracy() {
    std::vector<at::Tensor> outputs;
    try {
        libtorch::flattenTensors(d->call(), outputs);
    } catch (const std::exception& e) {
        return error(ErrorCode::RunFailed, std::string("the TorchScript module raised: ") + e.what());
    }
    d->accuracy = libtorch::compareOutputs(outputs, d->reference);
    return std::nullopt;
}

void TorchScriptRunner::setFirstCallOnly(bool firstCallOnly) {
    d->firstCallOnly = firstCallOnly;
}
double TorchScriptRunner::loadSeconds() const {
    return d->loadSeconds;
}
double TorchScriptRunner::compileSeconds() const {
    return d->compileSeconds;
}
double TorchScriptRunner::firstCallSeconds() const {
    return d->firstCallSeconds;
}
const std::vector<StageGraph>& TorchScriptRunner::stages() const {
    return d->stages;
}
const std::optional<Accuracy>& TorchScriptRunner::accuracy() const {
    return d->accuracy;
}
const nlohmann::json& TorchScriptRunner::info() const {
    return d->info;
}

} // namespace fusescope
