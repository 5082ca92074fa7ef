#pragma once

#include "model/Result.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fusescope::codec {

// What any JSON FuseScope reads may hold (docs/report-format.md, "Limits"). Reports and protocol
// lines come from other machines and from code we did not write: every limit is explicit, and
// going past one is an error that names the place, never a crash.
struct JsonLimits {
    // Arrays and objects inside each other. The deepest record we write is ~10 levels.
    size_t maxDepth = 128;
    // One string (a generated kernel's source, a log). Larger ones are refused.
    size_t maxStringBytes = size_t(256) << 20;
    // Elements of one array or members of one object (a trace of 10^7 events fits).
    size_t maxItems = size_t(50) << 20;
};

struct ParsedJson {
    nlohmann::json value;
    // Ill-formed UTF-8 sequences that were replaced by U+FFFD before parsing: text we keep is
    // always valid UTF-8, and the reader says how much was not.
    size_t replacedSequences = 0;
};

// Parses JSON text without ever throwing. Error codes: json_invalid (syntax), json_truncated
// (the text ends inside a value), json_limit (a limit or a non-finite number). The message says where: a JSON
// path to the value that broke a rule ("backends[2].samples.eager[17]: expected a finite number, got 1e309")
// or the byte offset of a syntax error. Numbers outside double's range are refused (JSON has no
// infinity), so every number in the result is finite.
Result<ParsedJson> parseJson(std::string_view text, const JsonLimits& limits = {});

// Serialises without ever throwing: strings that are not valid UTF-8 (they can only come from
// outside: a model's message, a path) are written with U+FFFD in place of the bad bytes.
std::string dumpJson(const nlohmann::json& value, int indent = -1);

// A tensor size kept as text ("4", "s0", "2*s1") back to JSON: an integer when it is one.
nlohmann::json sizeJson(const std::string& dim);

// "backends[2].samples" style paths: key appended to a path.
std::string joinPath(const std::string& path, std::string_view key);
std::string joinPath(const std::string& path, size_t index);

} // namespace fusescope::codec
