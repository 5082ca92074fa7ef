#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

// The deployment view of a LibTorch backend (docs/libtorch.md, "Deployment"): what the artifact a
// user would ship weighs on disk, and what loading it costs in a process that has never loaded
// it. Each load is measured in a fresh fusescope-libtorch-runner process of its own
// (`--deploy-load`), started by the runner while the export's files still exist.
namespace fusescope::libtorch {

inline constexpr const char* kDeployLoadFlag = "--deploy-load";
inline constexpr int kDeployFreshProcesses = 3;

// Child side: `fusescope-libtorch-runner --deploy-load BACKEND ARTIFACT DATA THREADS` loads the
// artifact with the backend's loader, makes one call, and sends one line
// {"type": "deploy_load", "load_s", "first_call_s"} (or {"type": "deploy_load", "error"}).
int runDeployLoad(int argc, char** argv, const std::function<void(const nlohmann::json&)>& send);

// Parent side: the result's `deployment` object (docs/protocol.md) for `backend`, from the
// export reply (model_path / package_path, data_path, eager_model_bytes). `threads` is the
// runner's intra-op thread count, given to each fresh process (the pin is inherited). Runs
// `processes` fresh processes one after another; stops early when `stopRequested` says so.
// Never throws: what failed is the object's `error`, with the sizes still filled in.
nlohmann::json measureDeployment(const std::string& backend, const nlohmann::json& exported, int threads,
                                 const std::function<bool()>& stopRequested,
                                 int processes = kDeployFreshProcesses);

// The fraction of `path`'s pages in the OS page cache now (mmap + mincore), or -1 when it
// cannot be told.
double residentFraction(const std::string& path);

} // namespace fusescope::libtorch
