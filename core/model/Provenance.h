#pragma once

#include <map>
#include <string>
#include <vector>

namespace fusescope {

// What produced a report (docs/report-format.md, "provenance"): the FuseScope build, how it was
// started, the torch build the worker ran, the environment variables that change what
// torch.compile does, and the machine. Optional in a report: older reports have none.
struct Provenance {
    std::string fusescope;                // FUSESCOPE_VERSION of the build that wrote the report
    std::string frontEnd;                 // cli | gui | import
    std::vector<std::string> commandLine; // the process's arguments, argv[0] first
    // torch as the worker saw it (empty until a worker answered, or for an import).
    std::string torch;      // torch.__version__
    std::string torchGit;   // torch.version.git_version
    std::string torchBuild; // "cuda 12.4", "rocm 6.2" or "cpu"
    std::string python;
    // TORCHINDUCTOR_*, TORCH_COMPILE_*, TORCHDYNAMO_*, TORCH_LOGS... in effect (ProvenanceCollect.h).
    std::map<std::string, std::string> environment;
    std::string cpu;               // model name, e.g. "Intel(R) Xeon(R) ... @ 2.20GHz"
    int cpuCount = 0;              // logical CPUs online
    std::vector<std::string> gpus; // GPU models (NVIDIA driver or the worker's CUDA devices)
    std::string os;                // "Ubuntu 24.04 LTS, Linux 6.8.0"

    bool operator==(const Provenance&) const = default;
};

// Encoder and decoder: codec/ReportCodec.h.

// The provenance as a few "key: value" lines for `show` and the GUI's details.
std::vector<std::string> provenanceLines(const Provenance& p);

} // namespace fusescope
