#pragma once

#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fusescope {

// Inductor options as users type them, KEY=VALUE each (VALUE read as JSON when it parses, else
// kept as a string), into the object torch.compile(options=...) takes. The CLI and the GUI share it.
Result<nlohmann::json> parseInductorConfig(const std::vector<std::string>& items);
// One option value as users type it back: strings bare unless they would read back otherwise.
std::string formatOptionValue(const nlohmann::json& value);
// An Inductor options object as `k=v,k2=v2` (splitBackendList + parseInductorConfig read it back).
std::string formatInductorOptions(const nlohmann::json& options);

// One entry of a backend list as users type it (docs/cli.md, "Backends and their options"):
//   NAME[@MODE][{OPTION,...}]
// OPTION is `fullgraph`, `fullgraph=true|false`, `dynamic=true|false|auto`, `precision=P` (the
// row's workload precision, e.g. int8_dynamic: docs/quantization.md), `dynamo.NAME=VALUE` (a
// torch._dynamo.config option, e.g. dynamo.capture_scalar_outputs=true), or any other KEY=VALUE,
// an Inductor option. The entry's options apply on top of the run-wide ones, so one
// comparison can hold `inductor` and `inductor{epilogue_fusion=false}` side by side.
struct BackendEntry {
    std::string backend;
    std::string mode; // empty: the run-wide mode
    nlohmann::json options =
        nlohmann::json::object(); // only what the entry sets: fullgraph, dynamic, dynamo{}, inductor{}

    bool hasOptions() const { return !options.empty(); }
};

Result<BackendEntry> parseBackendEntry(const std::string& label);
// The OPTION list inside an entry's braces -> {fullgraph, dynamic, dynamo{}, inductor{}} (only what
// it sets).
Result<nlohmann::json> parseEntryOptions(const std::string& body);
// The entry's own precision (`precision=...`), or "" for the run-wide one.
std::string entryPrecision(const BackendEntry& entry);
// The canonical spelling of an entry (options in a fixed order); parseBackendEntry reads it back.
std::string formatBackendEntry(const BackendEntry& entry);
// `base` (a request's options) with the entry's mode and options applied; Inductor options merge
// key by key.
nlohmann::json applyEntryOptions(nlohmann::json base, const BackendEntry& entry);
// NAME or NAME@MODE without options: what a submodule of a mixed run can be given.
bool isAssignableEntry(const std::string& label);
// Splits a comma-separated backend list at the commas outside {...}, [...] and "...".
std::vector<std::string> splitBackendList(const std::string& text);

} // namespace fusescope
