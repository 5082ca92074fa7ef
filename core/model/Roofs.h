#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fusescope {

// The machine's roofs a traced run measured or read from the worker's cache (result and report
// `roofs`, docs/roofline.md "The roofs"): sustained memory bandwidth (STREAM copy/triad) and peak
// compute per dtype (a large matmul), with the run's threads. `error` says why there are none
// (skipped, or not measurable); absent in reports older than the roofline.
struct Roofs {
    std::optional<double> bandwidthGbs;            // 10^9 bytes per second
    std::map<std::string, double> gflops;          // dtype ("float32", "bfloat16") -> GFLOP/s
    std::map<std::string, std::string> unmeasured; // what was not measured -> why
    std::string method;
    std::string measuredAt; // ISO 8601, UTC
    std::string device;
    std::string cache; // hit, miss, refreshed
    int threads = 0;
    std::optional<double> seconds; // time the measurement took (absent on a cache hit)
    std::string error;
    nlohmann::json samples = nlohmann::json::object(); // `stream` and `gemm` as the worker wrote them

    bool operator==(const Roofs&) const = default;
};

// Encoder and decoder: codec/RunCodec.h.

} // namespace fusescope
