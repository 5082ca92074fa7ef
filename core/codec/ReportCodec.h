#pragma once

#include "Reader.h"
#include "model/Report.h"
#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>

// The .fscope report (model/Report.h; docs/report-format.md): the manifest, the header records
// (environment, settings, search outcome, provenance) and the backend rows through RunCodec.h.
// Encoders and decoders side by side.

namespace fusescope {

void to_json(nlohmann::json& j, const WorkerEnvironment& env);
void to_json(nlohmann::json& j, const Provenance& provenance);
void to_json(nlohmann::json& j, const SpeedupRecord& speedup);
void to_json(nlohmann::json& j, const SearchCandidate& candidate);
// {"error": why} when the search did not run; else every member, null where unknown.
void to_json(nlohmann::json& j, const SearchOutcome& search);
// report `tuning` and `tune --json`'s `tuning` (docs/tuning.md): the contract's members, then ours.
void to_json(nlohmann::json& j, const TuneOutcome& tuning);
void to_json(nlohmann::json& j, const Report& report);

} // namespace fusescope

namespace fusescope::codec {

// A whole report: manifest (format, schema range), then every record in it. `code` of errors:
// report_not_fscope, report_newer_schema, report_corrupt.
Result<Report> decodeReport(const nlohmann::json& j);
// A report's `environment`, or the worker's handshake (which names the protocol version
// `version` where a report says `protocol`).
Result<WorkerEnvironment> decodeEnvironment(const nlohmann::json& j, const std::string& origin = {});
// A report's `search`; null is no search.
Result<std::optional<SearchOutcome>> decodeSearchOutcome(const nlohmann::json& j,
                                                         const std::string& origin = {});

// A report's `tuning`; null is no tuning.
Result<std::optional<TuneOutcome>> decodeTuneOutcome(const nlohmann::json& j, const std::string& origin = {});

} // namespace fusescope::codec
