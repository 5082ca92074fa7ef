#pragma once

#include "Import.h"
#include "model/Report.h"
#include "model/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fusescope::import {

// The structured trace torch writes with TORCH_TRACE=DIR (torch/_logging/structured.py, read by
// tlparse; docs/import.md). One envelope per record:
//   V1201 15:48:10.296000 8435 torch/_dynamo/output_graph.py:2841] {"dynamo_output_graph": {...},
//       "frame_id": 0, "frame_compile_id": 0, "attempt": 1, "has_payload": "<md5>"}
// followed, when has_payload is set, by payload lines that each start with a tab.

// Every bound on what a log may hold; past one the import stops with an error naming it.
struct TorchTraceLimits {
    uint64_t maxFileBytes = uint64_t(2) << 30;  // one .log file, read whole
    size_t maxEnvelopeBytes = size_t(16) << 20; // one envelope line's JSON
    size_t maxPayloadBytes = size_t(256) << 20; // one record's payload
    size_t maxRecords = 20'000'000;             // records in one file
    size_t maxNotes = 50;                       // skipped-line notes kept (the rest are counted)
};

struct TraceRecord {
    std::string file;        // the log it came from
    size_t line = 0;         // 1-based line of its envelope
    std::string kind;        // the first key that is not an id field: dynamo_start, artifact, ...
    nlohmann::json metadata; // the value of `kind`
    int frameId = -1;        // -1: the record belongs to no compile
    int frameCompileId = -1;
    int attempt = 0;
    int compiledAutogradId = -1;
    bool hasPayload = false;
    std::string payload; // the payload lines without their tab, joined by '\n'

    // tlparse's name for the compile: "0/1", "0/1_2" for attempt 2, "!3/0/1" under compiled autograd;
    // empty when the record belongs to no compile.
    std::string compileId() const;
};

struct TorchTraceLog {
    std::vector<TraceRecord> records;
    std::vector<std::string> notes; // lines skipped and why ("FILE:LINE: ..."), at most maxNotes
    size_t skippedLines = 0;        // every skipped line, noted or not
};

// Parses one log's text; `origin` (its path) names it in every message. Damaged lines (a
// truncated envelope, bad JSON, a payload line with no envelope, a payload whose md5 is not the one
// announced) are skipped with a note "FILE:LINE: what" and the parse goes on, as tlparse does; a
// limit exceeded is an error (import_limit). Never throws.
Result<TorchTraceLog> parseTorchTraceText(std::string_view text, const std::string& origin,
                                          const TorchTraceLimits& limits = {});

// A file or a directory of logs (each dedicated_log_torch_trace_*.log, or every *.log in it,
// in name order). Errors name the file.
Result<TorchTraceLog> readTorchTrace(const std::string& path, const TorchTraceLimits& limits = {});

// Whether text starts like a structured trace: an envelope line with a JSON object after "] ".
bool looksLikeTorchTraceText(std::string_view head);
bool looksLikeTorchTrace(const ImportProbe& probe);

// The log turned into a report (docs/import.md "What is mapped").
Result<Report> reportFromTorchTrace(const TorchTraceLog& log, const std::string& source);
Result<Report> importTorchTrace(const std::string& path);

} // namespace fusescope::import
