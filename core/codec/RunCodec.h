#pragma once

#include "Reader.h"
#include "model/BackendRun.h"
#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// One backend's run (model/BackendRun.h) and the records inside it, as a report saves them and a
// worker's `result` message carries them (docs/report-format.md, docs/protocol.md "result"): each
// record's encoder and decoder side by side. Stages, traces and the workload echo have codecs of
// their own (StageCodec.h, TraceCodec.h, SettingsCodec.h).

namespace fusescope {

void to_json(nlohmann::json& j, const BackendRun& run);
void to_json(nlohmann::json& j, const ModelInfo& model);
void to_json(nlohmann::json& j, const Accuracy& accuracy);
void to_json(nlohmann::json& j, const FirstDivergence& d);
void to_json(nlohmann::json& j, const GraphBreak& item);
void to_json(nlohmann::json& j, const TrainingResult& training);
void to_json(nlohmann::json& j, const ShapeStudy& study);
void to_json(nlohmann::json& j, const AssignedPart& part);
void to_json(nlohmann::json& j, const RunWarning& warning);
void to_json(nlohmann::json& j, const RunPlacement& placement);
void to_json(nlohmann::json& j, const RunMeasure& measure);
void to_json(nlohmann::json& j, const Deployment& deployment);
void to_json(nlohmann::json& j, const Quantization& quantization);
void to_json(nlohmann::json& j, const Tuning& tuning);
void to_json(nlohmann::json& j, const Roofs& roofs);

// {phase: seconds} (`compile_breakdown`), or null when there are no phases.
nlohmann::json compileBreakdownJson(const std::vector<CompilePhase>& phases);
// [{compile_id, phases, total_s}] (`compile_breakdown_graphs`).
nlohmann::json compileGraphsJson(const std::vector<GraphCompileTime>& graphs);

} // namespace fusescope

namespace fusescope::codec {

Result<BackendRun> decodeBackendRun(const nlohmann::json& j, const std::string& origin = {});
Result<ModelInfo> decodeModelInfo(const nlohmann::json& j, const std::string& origin = {});
Result<CodeArtifact> decodeCodeArtifact(const nlohmann::json& j, const std::string& origin = {});
Result<RunError> decodeRunError(const nlohmann::json& j, const std::string& origin = {});

// The measured fields a `result` message carries (the same names a saved backend run uses),
// applied onto `run` where present. The protocol's `trace` member (the worker's account of the
// trace) lands in run.traceInfo. Nothing is changed when it fails.
Status decodeRunResult(const nlohmann::json& message, BackendRun& run, const std::string& origin = {});

// For the other decoders.
void readBackendRun(const Reader& r, BackendRun& run);
// A backend run's "stages" member (readBackendRun reads it too; codec/StageSpans.h alone).
void readStages(const Reader& r, std::vector<StageGraph>& out);
void readModelInfo(const Reader& r, ModelInfo& m);
// `warnings`: [{code, message}], of a run or of the whole report.
std::vector<RunWarning> readWarnings(const Reader& r);

} // namespace fusescope::codec
