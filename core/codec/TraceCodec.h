#pragma once

#include "Reader.h"
#include "model/BackendRun.h"
#include "model/KernelTrace.h"
#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>

// A run's kernel trace (model/KernelTrace.h) and the worker's account of it (TraceInfo), as a
// report saves them and the protocol's `trace` chunks carry them (docs/report-format.md,
// docs/protocol.md): encoders and decoders side by side.

namespace fusescope {

// Events and memory as arrays, not objects: a trace of 10^5 events stays a few MB.
void to_json(nlohmann::json& j, const KernelTrace& trace);
// The members it has, and the unknown ones as they were written.
void to_json(nlohmann::json& j, const TraceInfo& info);

} // namespace fusescope

namespace fusescope::codec {

// A saved trace, or one `trace` chunk of the protocol (same fields; a chunk's events index its
// own names). Name and track indices are checked.
Result<KernelTrace> decodeKernelTrace(const nlohmann::json& j, const std::string& origin = {});
// A report's `trace_info` or a result's `trace`; null is no account.
Result<std::optional<TraceInfo>> decodeTraceInfo(const nlohmann::json& j, const std::string& origin = {});

// For the other decoders.
void readKernelTrace(const Reader& r, KernelTrace& t);
std::optional<TraceInfo> readTraceInfo(const Reader& r);

} // namespace fusescope::codec
