#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fusescope::format {

// Human-readable numbers shared by the CLI table and the GUI, so both say the same thing.
std::string bytes(std::optional<int64_t> value);       // "12.3 MiB", "-" when absent
std::string milliseconds(std::optional<double> value); // "1.234", "-" when absent
std::string seconds(std::optional<double> value);      // "12.3", "-" when absent
std::string ratio(std::optional<double> value);        // "1.84x", "-" when absent
std::string scientific(std::optional<double> value);   // "3.1e-06", "-" when absent
std::string count(std::optional<int> value);           // "12", "-" when absent

} // namespace fusescope::format
