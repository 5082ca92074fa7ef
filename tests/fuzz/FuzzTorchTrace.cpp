// libFuzzer target: bytes -> the TORCH_TRACE log parser (core/import/TorchTraceLog, docs/import.md),
// then the mapping to a report (the FX-text and output-code readers on every payload) and the
// report's encoding. parseTorchTraceText and reportFromTorchTrace must never throw and never
// crash, whatever the bytes; a refused input is an Error.
#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "import/FxText.h"
#include "import/TorchTraceLog.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

using namespace fusescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    import::TorchTraceLimits limits;
    limits.maxPayloadBytes = 1 << 20;
    limits.maxRecords = 100'000;
    auto log = import::parseTorchTraceText(text, "fuzz.log", limits);
    // The readers also on the raw bytes: a payload can be anything.
    (void)import::parseFxText(text);
    (void)import::postFusionStage(import::parseOutputCode(text));
    if (!log)
        return 0;
    auto report = import::reportFromTorchTrace(log.value(), "fuzz.log");
    if (report)
        (void)codec::dumpJson(nlohmann::json(report.value()));
    return 0;
}
