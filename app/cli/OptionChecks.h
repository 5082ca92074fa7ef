#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope::cli {

// Validators for numeric options. CLI::Range and CLI::PositiveNumber let nan and inf through
// (every comparison with nan is false) and print their bounds with 300 digits; these refuse
// anything that is not a finite number in range, with the range in words (docs/cli.md).

// Seconds from `min` to `max`; `minExclusive` makes the lower bound itself invalid (0 < S).
CLI::Validator secondsIn(double min, double max, bool minExclusive = false);

// A plain number from `min` to `max` (e.g. a scale).
CLI::Validator numberIn(double min, double max);

// A whole number (no sign tricks, no fraction, no exponent) from `min` to `max`.
CLI::Validator countIn(long long min, long long max);

// A CPU list as taskset and cgroups write it: "0", "0-3", "0,2,4-5". Every CPU from 0 to
// cpuCount - 1, none twice. nullopt, with why in `why`, otherwise.
std::optional<std::vector<int>> parseCpuList(const std::string& text, int cpuCount,
                                             std::string* why = nullptr);

// CPUs online on this machine (what the worker's os.cpu_count() sees), at least 1.
int onlineCpus();

// parseCpuList as a validator; cpuCount 0 means this machine's online CPUs.
CLI::Validator cpuListOf(int cpuCount = 0);

} // namespace fusescope::cli
