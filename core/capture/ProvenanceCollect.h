#pragma once

#include "model/Provenance.h"
#include "model/Report.h"

#include <string>
#include <vector>

namespace fusescope {

// How this process was started, recorded in the provenance of every report it writes. Called once
// by each front end's main() before any session starts (not thread-safe against a running one).
void setProcessOrigin(const std::string& frontEnd, const std::vector<std::string>& arguments);

// Whether an environment variable changes what torch.compile does and belongs in a report's
// provenance: TORCHINDUCTOR_*, TORCH_COMPILE_*, TORCHDYNAMO_*, TORCH_LOGS, TORCH_TRACE,
// TORCHINDUCTOR/INDUCTOR_*, TRITON_*, PYTORCH_*, CUDA_VISIBLE_DEVICES, OMP_NUM_THREADS,
// MKL_NUM_THREADS, KMP_AFFINITY.
bool isCompileEnvironmentVariable(const std::string& name);

// The provenance of a run started now: the process origin, this build's version, the compile
// environment variables the worker will inherit, the CPU, the GPUs the NVIDIA driver lists, the OS.
Provenance collectProvenance();

// Fills the torch fields (and the GPUs when the driver listed none) from a worker's handshake.
void addWorkerEnvironment(Provenance& p, const WorkerEnvironment& env);

// "model name" of /proc/cpuinfo-formatted text (x86 "model name", arm "Model"/"Hardware"), or "".
std::string cpuModelFromCpuinfo(const std::string& cpuinfo);

} // namespace fusescope
