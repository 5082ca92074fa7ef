#pragma once

#include "model/BackendRun.h"

#include <string>
#include <vector>

namespace fusescope {

// The deployment account of one run for `show` and the GUI's details (model/Deployment.h):
// "artifact model.pt2 1.2 MiB (eager state_dict 300 KiB, 4.1x)", then the load and first call in
// fresh processes and the file cache they ran with. Empty when the run has no deployment.
std::vector<std::string> deploymentLines(const BackendRun& run);

// artifact_bytes / eager_model_bytes, when both are known and the eager size is > 0.
std::optional<double> artifactSizeRatio(const Deployment& d);

} // namespace fusescope
