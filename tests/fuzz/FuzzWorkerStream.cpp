// libFuzzer target: bytes -> WorkerStream, fed in chunks the way a pipe delivers them, then
// finish(); then what the engine does with the run: WorkerJob's protocol_error message from the
// first problem (core/capture/WorkerJob.cpp), the summary, and the report's JSON.
//
// Input layout: byte 0 picks the largest chunk (2^(byte0 & 15) bytes: 0 feeds byte by byte),
// byte 1 seeds the chunk lengths, the rest is the worker's stdout. Seeds carry this header
// (scripts/fuzz_seeds.py), so mutations of it move the split points.
#include "PipeChunks.h"
#include "analysis/Summary.h"
#include "codec/ReportCodec.h"
#include "stream/WorkerStream.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

using namespace fusescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    BackendRun run;
    run.name = "fuzz";
    WorkerStream stream(run);
    const bool fed = fuzz::feedInPipeChunks(data, size, [&](std::string_view chunk) {
        for (const auto& event : stream.feed(chunk))
            (void)event.payload.dump();
    });
    if (!fed)
        return 0;
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
