#pragma once

#include "model/Report.h"
#include "model/Result.h"
#include "model/RunRequest.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The worker protocol's own messages (docs/protocol.md): the `run` request FuseScope writes, and
// the small messages a worker writes (hello, progress, samples). The records a worker sends
// (model, stage, code, trace, result, error) decode through RunCodec.h, StageCodec.h and
// TraceCodec.h; stream/WorkerStream applies them in order. Errors carry `protocol_error`.

namespace fusescope::codec {

// The `run` request line (without the channel token).
nlohmann::json encodeRunRequest(const RunRequest& request, const std::string& id);

// The handshake: which protocol and version the worker speaks, and its environment.
struct Hello {
    std::string protocol;
    int64_t version = 0;
    WorkerEnvironment environment;
};
Result<Hello> decodeHello(const nlohmann::json& message);

struct Progress {
    std::string phase;
    double fraction = -1; // 0..1, -1: not said
    std::string message;
};
Result<Progress> decodeProgress(const nlohmann::json& message);

// A batch of timed calls of one series, eager or compiled.
struct Samples {
    std::string series;
    std::vector<double> ms;
};
Result<Samples> decodeSamples(const nlohmann::json& message);

} // namespace fusescope::codec
