#pragma once

#include "RunSettings.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// One backend on one model: what the C++ side asks a backend family to do.
struct RunRequest {
    std::string model;   // demo:transformer, /path/model.py, /path/model.pt
    std::string backend; // eager, aot_eager, inductor, ...
    std::string device = "cpu";
    nlohmann::json options = nlohmann::json::object(); // mode, fullgraph, dynamic, inductor{}
    InputSet inputs; // the inputs of a TorchScript file (--inputs); empty: none
    MeasureSettings measure;
    Placement placement;
    Workload workload; // training, precision, shape list, per-submodule backends
    bool captureStages = true;
    bool captureCode = true;
    bool captureTrace = false; // kernels of a few extra iterations (profiler on CPU, CUPTI on CUDA)
    // With a trace, the machine's roofs (docs/roofline.md): cached (read, or measure on a miss),
    // measure (again), skip.
    std::string roofs = "cached";
    // Bisect an accuracy failure within this many seconds (docs/accuracy.md); unset: no bisect.
    std::optional<double> bisectBudgetSeconds;
    bool warmCache = false;      // reuse compile caches: faster, but compile time is then not cold
    double timeoutSeconds = 900; // the whole run, load to result

    // The `run` request line of docs/protocol.md: codec::encodeRunRequest (codec/MessageCodec.h).
};

} // namespace fusescope
