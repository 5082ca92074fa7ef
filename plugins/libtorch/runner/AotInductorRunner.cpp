#include "AotInductorRunner.h"

#include "LibTorchUtil.h"
#include "model/ErrorCode.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#if __has_include(<torch/csrc/inductor/aoti_package/model_package_loader.h>)
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#define FUSESCOPE_HAS_AOTI_LOADER 1
#else
#define FUSESCOPE_HAS_AOTI_LOADER 0
#endif

namespace fusescope {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

RunError error(ErrorCode code, const std::string& message) {
    return RunError{toString(code), message, {}, {}};
}

bool isExecutableFile(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return !ec && std::filesystem::is_regular_file(status) &&
           (status.permissions() & std::filesystem::perms::owner_exec) != std::filesystem::perms::none;
}

// `program` as the shell would find it: a path as given, else the first match along PATH.
bool onPath(const std::string& program) {
    if (program.find('/') != std::string::npos)
        return isExecutableFile(program);
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && isExecutableFile(std::filesystem::path(dir) / program))
            return true;
    return false;
}

} // namespace

struct AotInductorRunner::Impl {
#if FUSESCOPE_HAS_AOTI_LOADER
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
#endif
    std::string packagePath;
    std::vector<at::Tensor> inputs;
    std::vector<at::Tensor> reference;
    double workerCompileSeconds = 0; // torch.export + AOTInductor, capture overhead left out
    double captureOverhead = 0;
    double packageLoadSeconds = 0;
    double firstCallSeconds = 0;
    std::vector<StageGraph> stages;
    std::optional<Accuracy> accuracy;
    std::string quantized; // the int8 mode of a quantized package (export_aoti.py), else empty
    nlohmann::json info = nlohmann::json::object();

    std::vector<at::Tensor> call() {
        c10::InferenceMode inference;
#if FUSESCOPE_HAS_AOTI_LOADER
        return loader->run(inputs);
#else
        return {};
#endif
    }
};

AotInductorRunner::AotInductorRunner()
    : d(std::make_unique<Impl>()) {
    // As in TorchScriptRunner: OpenMP's thread count is per thread, set it up on this one.
    at::init_num_threads();
    d->info["intra_op_threads"] = at::get_num_threads();
}

AotInductorRunner::~AotInductorRunner() = default;

std::string AotInductorRunner::unavailableReason() {
#if !FUSESCOPE_HAS_AOTI_LOADER
    return "this LibTorch has no torch/csrc/inductor/aoti_package/model_package_loader.h "
           "(AOTIModelPackageLoader); it needs torch 2.6 or newer";
#else
    // Inductor builds the package's library with the compiler of config.cpp.cxx: $CXX, else g++.
    const char* env = std::getenv("CXX");
    const std::string cxx = env && *env ? env : "g++";
    if (!onPath(cxx))
        return "Inductor builds the package with a C++ compiler, and '" + cxx +
               "' is not on PATH (install g++ or set CXX)";
    return {};
#endif
}

std::optional<RunError> AotInductorRunner::load(const nlohmann::json& exported) {
    d->packagePath = exported.value("package_path", std::string());
    const std::string dataPath = exported.value("data_path", std::string());
    d->workerCompileSeconds = exported.value("export_s", 0.0) + exported.value("aoti_compile_s", 0.0);
    d->captureOverhead = exported.value("capture_overhead_s", 0.0);
    for (const char* key : {"export_s", "aoti_compile_s", "capture_overhead_s", "kernels", "package_files"})
        if (exported.contains(key))
            d->info[key] = exported.at(key);
    if (auto q = exported.find("quantization"); q != exported.end() && q->is_object())
        if (auto mode = q->find("mode"); mode != q->end() && mode->is_string())
            d->quantized = mode->get<std::string>();
    if (!std::filesystem::is_regular_file(d->packagePath))
        return error(ErrorCode::Internal, "the worker reported the AOTInductor package " + d->packagePath +
                                              ", which does not exist");
    try {
        auto data = libtorch::readTensorData(dataPath);
        if (!data.kwargs.empty())
            return error(ErrorCode::Internal,
                         dataPath + ": keyword inputs; export_aoti saves inputs flattened");
        for (const auto& v : data.args) {
            if (!v.isTensor())
                return error(ErrorCode::BadRequest,
                             dataPath + ": a non-tensor input; aot_inductor takes tensors only");
            d->inputs.push_back(v.toTensor());
        }
        d->reference = std::move(data.reference);
    } catch (const std::exception& e) {
        return error(ErrorCode::Internal,
                     "cannot read the example inputs and reference outputs " + dataPath + ": " + e.what());
    }
    return std::nullopt;
}

std::optional<RunError> AotInductorRunner::compile() {
#if !FUSESCOPE_HAS_AOTI_LOADER
    return error(ErrorCode::BackendUnavailable, "backend aot_inductor: " + unavailableReason());
#else
    const auto start = Clock::now();
    try {
        d->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(d->packagePath, "model");
    } catch (const std::exception& e) {
        return error(ErrorCode::CompileFailed,
                     "cannot load the AOTInductor package " + d->packagePath + ": " + e.what());
    }
    d->packageLoadSeconds = secondsSince(start);
    d->info["package_load_s"] = d->packageLoadSeconds;
    try {
        nlohmann::json metadata = nlohmann::json::object();
        for (const auto& [key, value] : d->loader->get_metadata())
            metadata[key] = value;
        d->info["package_metadata"] = metadata;
    } catch (const std::exception&) {
        // Metadata is informative only; a package without it still runs.
    }
    try {
        const auto callStart = Clock::now();
        d->call();
        d->firstCallSeconds = secondsSince(callStart);
    } catch (const std::exception& e) {
        return error(ErrorCode::RunFailed,
                     "the AOTInductor package " + d->packagePath + " raised when run: " + e.what());
    }
    return std::nullopt;
#endif
}

void AotInductorRunner::call() {
    d->call();
}

PeakMemory AotInductorRunner::measurePeakMemory() {
    return libtorch::profilerAllocatorPeak([this] { d->call(); });
}

std::optional<RunError> AotInductorRunner::checkAccuracy() {
    std::vector<at::Tensor> outputs;
    try {
        outputs = d->call();
    } catch (const std::exception& e) {
        return error(ErrorCode::RunFailed, std::string("the AOTInductor package raised: ") + e.what());
    }
    d->accuracy = libtorch::compareOutputs(outputs, d->reference, d->quantized);
    return std::nullopt;
}

double AotInductorRunner::compileSeconds() const {
    return d->workerCompileSeconds + d->packageLoadSeconds;
}
double AotInductorRunner::firstCallSeconds() const {
    return d->firstCallSeconds;
}
std::optional<double> AotInductorRunner::captureOverheadSeconds() const {
    return d->captureOverhead;
}
const std::vector<StageGraph>& AotInductorRunner::stages() const {
    return d->stages;
}
const std::optional<Accuracy>& AotInductorRunner::accuracy() const {
    return d->accuracy;
}
const nlohmann::json& AotInductorRunner::info() const {
    return d->info;
}

} // namespace fusescope
