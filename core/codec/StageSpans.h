#pragma once

#include "Json.h"
#include "model/Result.h"
#include "model/StageGraph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Where a report's stage graphs lie in its text, so that a large report can be read in two steps
// (docs/performance.md, "First paint"): everything but the stages first, for the table and the
// charts, and each backend's stages after, for the graphs. A scan for brackets and quotes costs a
// small part of a parse, and the stages are nearly all of a large report's bytes.

namespace fusescope::codec {

// The text of one backend's "stages" array: backends[backend].stages is text[begin, end).
struct StageSpan {
    size_t backend = 0;
    size_t begin = 0;
    size_t end = 0;
};

// The array of each `backends[i].stages` of a report's text, in order. nullopt when the text is
// not shaped so that the answer is certain (a bracket that does not close, a root that is not an
// object, a key written with escapes, a duplicated "backends" or "stages"): the caller then reads
// the report whole, whose parse names the fault.
std::optional<std::vector<StageSpan>> findStageSpans(std::string_view text);

// `text` with each span's array replaced by [] (the report without its stages).
std::string withoutSpans(std::string_view text, const std::vector<StageSpan>& spans);

struct DecodedStages {
    std::vector<StageGraph> stages;
    size_t replacedSequences = 0; // ill-formed UTF-8 in the span (ParsedJson)
};

// Decodes each span's text as backends[span.backend].stages, with the limits a whole read applies
// there (three levels below the root). Errors name the member path and, for syntax, the byte of
// the whole file; a syntax error outranks a wrong type, as in a whole read.
// Every span, each stage graph parsed and decoded on its own by up to `threads` threads (the
// calling one included); one result per span, in order.
std::vector<Result<DecodedStages>> decodeStageSpans(std::string_view text,
                                                    const std::vector<StageSpan>& spans, unsigned threads,
                                                    const JsonLimits& limits = {});

} // namespace fusescope::codec
