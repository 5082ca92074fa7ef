#pragma once

#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fusescope {

// What `fusescope-cli tune` searches (docs/tuning.md, "The search space"). Each dimension's values
// are candidates of their own, one change at a time from the base backend (inductor): the tuner
// races them and lets advice and the results add more, so the space stays linear in its values
// rather than their product.

// A backend as the families probed it (capture/BackendFamily.h's BackendInfo, without Qt).
struct BackendChoice {
    std::string name;
    std::string family; // torch_compile, libtorch, tvm
    bool available = false;
    std::string reason; // why not, when unavailable
    std::vector<std::string> tags;
};

struct TuneDimensions {
    std::vector<std::string> backends; // whole-model backends to race, in screening order
    std::string base = "inductor";     // the backend the modes and options vary
    std::vector<std::string> modes;    // torch.compile modes besides the default
    std::vector<std::string> dynamic;  // dynamic= values besides auto: "false", "true"
    bool fullgraph = true;             // a fullgraph=true variant
    // Inductor options, each value one candidate (KEY=VALUE on the base backend).
    std::vector<std::pair<std::string, std::vector<nlohmann::json>>> inductorOptions;
    std::vector<std::string> entries; // more entries, verbatim, after the dimensions'
    bool advice = true;               // advice from finished rows adds candidates
    bool assignments = true;          // then per-submodule assignments of the two fastest (Tuner.h)
    int maxRounds = 5;                // worker processes per candidate at most
    std::vector<std::string> notes;   // what the defaults left out here, and why
};

// What the machine offers: the device and, on a CPU, whether it has AVX-512 (cpp.simdlen=256 is
// then a real choice; on an AVX2 machine it is the default already).
struct TuneMachine {
    std::string device = "cpu";
    bool avx512 = false;
    bool training = false; // the workload trains: freezing is inference only
};

// This machine, for `device` and the workload: AVX-512 from /proc/cpuinfo on a CPU.
TuneMachine tuneMachineHere(const std::string& device, bool training);

// The defaults for these backends on this machine.
TuneDimensions defaultTuneDimensions(const std::vector<BackendChoice>& backends, const TuneMachine& machine);

// `--space FILE.toml` read over `dims`: every key it sets replaces that dimension; `entries` adds.
// An unknown key, a value of the wrong type or an entry that does not parse is an error naming
// the file and the key (the CLI's usage error, exit 64).
Result<TuneDimensions> applyTuneSpaceText(TuneDimensions dims, const std::string& text,
                                          const std::string& fileName);
Result<TuneDimensions> applyTuneSpaceFile(TuneDimensions dims, const std::string& path);
// The keys a space file may set, in docs/tuning.md order.
const std::vector<std::string>& tuneSpaceKeys();

// One candidate of the space, as the tuner starts from it.
struct TuneSpaceEntry {
    std::string entry; // canonical (formatBackendEntry), as --backends takes it
    std::string origin = "space";
    std::string why; // the dimension it comes from: "mode", "inductor option freezing", ...
    bool operator==(const TuneSpaceEntry&) const = default;
};

// The candidates of `dims`, each once, in screening order: the base backend, the other backends,
// then the base's modes, dynamic, fullgraph and options, then the extra entries.
std::vector<TuneSpaceEntry> expandTuneSpace(const TuneDimensions& dims);

// "5m", "300", "1h", "90s", "2.5m" -> seconds; an error for anything else or a budget <= 0.
Result<double> parseTuneBudget(const std::string& text);

} // namespace fusescope
