#pragma once

#include "model/KernelTrace.h"
#include "model/Result.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>

namespace fusescope {

// Builds a KernelTrace from the worker's `trace` messages (docs/protocol.md), which arrive while
// the run goes on. Each chunk is self-contained: its events index the chunk's own `names`, so a
// chunk never depends on one that was lost; the merger re-interns names into the trace.
class TraceChunkMerger {
public:
    explicit TraceChunkMerger(KernelTrace& trace);

    // Adds one chunk, or nothing when it is malformed (the error names the bad field; the
    // stream reports it). Never throws.
    Status add(const nlohmann::json& chunk);

private:
    int32_t intern(const std::string& name);

    KernelTrace& m_trace;
    std::unordered_map<std::string, int32_t> m_nameIndex;
};

} // namespace fusescope
