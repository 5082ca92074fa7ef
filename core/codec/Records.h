#pragma once

#include "Json.h"
#include "model/BackendRun.h"
#include "model/Report.h"
#include "model/Result.h"
#include "model/StageGraph.h"
#include "trace/KernelTrace.h"

#include <nlohmann/json.hpp>
#include <string>

namespace fusescope::codec {

// One decoder per record of the worker protocol and the .fscope report (docs/report-format.md,
// docs/protocol.md). Each reads a parsed JSON value, never throws, and on a wrong-typed or
// out-of-range field returns an Error whose message is the JSON path of the first bad field
// and what was wrong with it. The stream (WorkerStream) and the report reader use the same ones;
// the encoders are the records' to_json functions.
//
// `origin` is the path of the value inside its document ("backends[2]"), for messages.

// A whole report: manifest (format, schema range), then every record in it. `code` of errors:
// report_not_fscope, report_newer_schema, report_corrupt.
Result<Report> decodeReport(const nlohmann::json& j);

Result<BackendRun> decodeBackendRun(const nlohmann::json& j, const std::string& origin = {});
Result<StageGraph> decodeStageGraph(const nlohmann::json& j, const std::string& origin = {});
Result<ModelInfo> decodeModelInfo(const nlohmann::json& j, const std::string& origin = {});
Result<WorkerEnvironment> decodeEnvironment(const nlohmann::json& j, const std::string& origin = {});
// A saved trace, or one `trace` chunk of the protocol (same fields; a chunk's events index its
// own names). Name and track indices are checked.
Result<KernelTrace> decodeKernelTrace(const nlohmann::json& j, const std::string& origin = {});
Result<CodeArtifact> decodeCodeArtifact(const nlohmann::json& j, const std::string& origin = {});
Result<RunError> decodeRunError(const nlohmann::json& j, const std::string& origin = {});

// The measured fields a `result` message carries (the same names a saved backend run uses),
// applied onto `run` where present. The protocol's `trace` member (the worker's account of the
// trace) lands in run.traceInfo. Nothing is changed when it fails.
Status decodeRunResult(const nlohmann::json& message, BackendRun& run, const std::string& origin = {});

// Run-wide settings, a run's workload echo, options, trace_info and the search outcome stay JSON
// for the views, after a shape check of every member a view reads (nulls of optional members
// dropped), inside decodeReport / decodeBackendRun / decodeRunResult.

} // namespace fusescope::codec
