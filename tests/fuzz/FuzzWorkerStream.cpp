// libFuzzer target: bytes -> WorkerStream, fed in chunks the way a pipe delivers them, then
// finish(); then what the engine does with the run: WorkerJob's protocol_error message from the
// first problem (core/capture/WorkerJob.cpp), the summary, and the report's JSON.
//
// Input layout: byte 0 picks the largest chunk (2^(byte0 & 15) bytes: 0 feeds byte by byte),
// byte 1 seeds the chunk lengths, the rest is the worker's stdout. Seeds carry this header
// (scripts/fuzz_seeds.py), so mutations of it move the split points.
#include "analysis/Summary.h"
#include "stream/WorkerStream.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

using namespace fusescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    const size_t maxChunk = size_t(1) << (data[0] & 15);
    uint32_t state = 0x9e3779b9u ^ data[1];
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);

    BackendRun run;
    run.name = "fuzz";
    WorkerStream stream(run);
    for (size_t pos = 0; pos < bytes.size();) {
        state = state * 1664525u + 1013904223u;
        const size_t length = 1 + (state >> 8) % maxChunk;
        for (const auto& event : stream.feed(bytes.substr(pos, length)))
            (void)event.payload.dump();
        pos += length;
    }
    stream.finish();

    if (stream.fatal() || !stream.handshakeSeen()) {
        const auto& problems = stream.problems();
        run.status = RunStatus::Failed;
        run.error = RunError{"protocol_error",
                             "fuzz: the worker's output broke the protocol (" +
                                 (problems.empty() ? std::string("no handshake") : problems.front()) + ")",
                             {},
                             {}};
    }
    (void)stream.backendsList().dump();

    Report report;
    report.environment = stream.environment();
    report.backends.push_back(run);
    (void)summaryJson(report).dump();
    (void)nlohmann::json(report).dump();
    return 0;
}
