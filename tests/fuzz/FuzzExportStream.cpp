// libFuzzer target: bytes -> ExportStream (core/capture/ExportStream.h), the LibTorch runner's
// reading of its export worker's stdout, fed in chunks the way a pipe delivers them, then
// finish(); then what the runner does with it: relays the messages (dumped), takes eager answers,
// builds the run note and the protocol_error from the first problem.
//
// Input layout: PipeChunks.h's header, then the worker's stdout, whose lines carry the token
// "fuzz" (scripts/fuzz_seeds.py writes the seeds so).
#include "PipeChunks.h"
#include "capture/ExportStream.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace fusescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t relayed = 0;
    ExportStream::Handlers handlers;
    handlers.hello = [&](const WorkerEnvironment& env) { relayed += env.torch.size(); };
    handlers.relay = [&](const nlohmann::json& message) {
        nlohmann::json copy = message; // as RunnerMain's relayExport: progress scaled, then sent
        if (copy.value("type", "") == "progress")
            fusescope::scaleExportProgress(copy, 0.3);
        relayed += copy.dump().size();
    };
    ExportStream stream("fuzz", "torchscript_exported", std::move(handlers));
    const bool fed = fuzz::feedInPipeChunks(data, size, [&](std::string_view chunk) {
        stream.feed(chunk);
        if (auto answer = stream.takeEagerAnswer())
            relayed += answer->ms.has_value() + answer->faults.has_value();
    });
    if (!fed)
        return 0;
    stream.finish();
    (void)stream.reply().dump();
    if (stream.exportError())
        relayed += stream.exportError()->message.size();
    if (stream.eagerError())
        relayed += stream.eagerError()->message.size();
    for (const auto& note : stream.notes())
        relayed += note.size();
    if (!stream.handshakeDone() && !stream.problems().empty())
        relayed += ("protocol_error: " + stream.problems().front()).size();
    return relayed == SIZE_MAX; // never: keeps the work from being optimized away
}
