#pragma once

#include "model/BackendRun.h"

#include <string>
#include <vector>

namespace fusescope {

// Readable name of a compile phase ("C++/Triton compilation" for kernel_compilation); the name
// itself for a phase this build does not know.
std::string compilePhaseLabel(const std::string& phase);

// Seconds of the phases torch's timers account for: all but first_run and unaccounted.
double timedPhaseSeconds(const std::vector<CompilePhase>& phases);

// The compile-time account of one run for `show` and the GUI's details: compile_s and what it
// is, the warm and capture compiles, then one line per phase ("  Dynamo tracing  0.19 s  2 %").
// Empty when the run has none of these numbers.
std::vector<std::string> compileTimeLines(const BackendRun& run);

} // namespace fusescope
