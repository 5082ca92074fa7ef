// libFuzzer target: bytes -> ExportStream (core/capture/ExportStream.h), the LibTorch runner's
// reading of its export worker's stdout, fed in chunks the way a pipe delivers them, then
// finish(); then what the runner does with it: relays the messages (dumped), takes eager answers,
// builds the run note and the protocol_error from the first problem.
//
// Input layout as fuzz_worker_stream's: byte 0 picks the largest chunk (2^(byte0 & 15) bytes),
// byte 1 seeds the chunk lengths, the rest is the worker's stdout, whose lines carry the token
// "fuzz" (scripts/fuzz_seeds.py writes the seeds so).
#include "capture/ExportStream.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace fusescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    const size_t maxChunk = size_t(1) << (data[0] & 15);
    uint32_t state = 0x9e3779b9u ^ data[1];
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);

    size_t relayed = 0;
    ExportStream::Handlers handlers;
    handlers.hello = [&](const WorkerEnvironment& env) { relayed += env.torch.size(); };
    handlers.relay = [&](const nlohmann::json& message) { relayed += message.dump().size(); };
    ExportStream stream("fuzz", "torchscript_exported", std::move(handlers));
    for (size_t pos = 0; pos < bytes.size();) {
        state = state * 1664525u + 1013904223u;
        const size_t length = 1 + (state >> 8) % maxChunk;
        stream.feed(bytes.substr(pos, length));
        if (auto answer = stream.takeEagerAnswer())
            relayed += answer->ms.has_value() + answer->faults.has_value();
        pos += length;
    }
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
