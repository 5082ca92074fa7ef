#pragma once

#include <CLI/CLI.hpp>
#include <string>

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

} // namespace fusescope::cli
