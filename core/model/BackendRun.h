#pragma once

#include "StageGraph.h"
#include "trace/KernelTrace.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
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

struct TensorSpec {
    std::vector<std::string> shape;
    std::string dtype;
};

struct ModelInfo {
    std::string name;
    std::string source;
    std::string className;
    int64_t parameters = 0;
    std::vector<TensorSpec> inputs;
};

struct Accuracy {
    double maxAbs = 0;
    double maxRel = 0;
    double cosine = 0;
    double rmse = 0;
    bool pass = false;
    std::string rule;
    double tolerance = 0;
};

struct GraphBreak {
    std::string reason;
    std::string file;
    int line = 0;
};

// Generated source a backend produced (Inductor's output_code.py, a TVM module...).
struct CodeArtifact {
    std::string name;
    std::string language;
    std::string stage;
    std::string text;
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
    double wallSeconds = 0;

    // Interleaved samples from the same worker process: eager is this run's baseline.
    std::vector<double> eagerSamplesMs;
    std::vector<double> compiledSamplesMs;

    std::optional<int64_t> peakMemoryBytes;
    std::optional<int64_t> eagerPeakMemoryBytes;
    std::string memoryMethod;

    std::optional<Accuracy> accuracy;

    int graphs = -1;
    int graphBreaks = -1;
    int recompiles = -1;
    std::vector<GraphBreak> breakReasons;

    std::vector<StageGraph> stages;
    std::vector<CodeArtifact> code;
    std::optional<ModelInfo> model;
    std::optional<KernelTrace> trace; // kernels of a few separately traced iterations
    // The worker's account of the trace: overhead (untraced vs traced ms), or why there is none.
    nlohmann::json traceInfo;

    nlohmann::json options = nlohmann::json::object();
    std::string log; // tail of the worker's stderr

    bool finished() const {
        return status == RunStatus::Ok || status == RunStatus::Failed || status == RunStatus::Unavailable ||
               status == RunStatus::Cancelled;
    }
    const StageGraph* findStage(const std::string& key) const;
};

void to_json(nlohmann::json& j, const BackendRun& run);
void from_json(const nlohmann::json& j, BackendRun& run);
void to_json(nlohmann::json& j, const ModelInfo& model);
void from_json(const nlohmann::json& j, ModelInfo& model);
void to_json(nlohmann::json& j, const Accuracy& accuracy);
void from_json(const nlohmann::json& j, Accuracy& accuracy);

} // namespace fusescope
