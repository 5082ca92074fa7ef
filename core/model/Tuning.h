#pragma once

#include <optional>
#include <string>

namespace fusescope {

// A tuned backend's schedule search (result `tvm_tuning`, docs/protocol.md; docs/tvm.md
// "Tuning"): what was asked, what ran, and whether the schedules came from the tuning cache.
// Its time (`tune_s`) is apart from compile_s. Only tuned rows have one; absent in older reports.
struct Tuning {
    std::string method;                 // "MetaSchedule (evolutionary search, ...)"
    int trialsRequested = 0;            // tune=N
    int trials = 0;                     // candidates measured by this run; 0 on a cache hit
    int tasks = 0;                      // kernels (tuning tasks) in the module
    int tunedTasks = 0;                 // kernels that got a tuned schedule
    std::string cache;                  // "hit" or "miss"
    double seconds = 0;                 // tune_s: tuning, or applying cached schedules
    std::string key;                    // the cache entry's key
    std::string dir;                    // the cache entry's directory
    std::string stoppedBy;              // "tune_time", "search space exhausted", or empty
    std::optional<int> trialsWhenTuned; // on a hit: trials the cached entry was tuned with

    bool operator==(const Tuning&) const = default;
};

// Encoder and decoder: codec/RunCodec.h.

// One line for `show` and the details: "tuning 35.2 s (MetaSchedule, not in compile): 4 of 4
// trials, 3 of 5 kernels tuned, cache miss".
std::string tuningLine(const Tuning& t);

} // namespace fusescope
