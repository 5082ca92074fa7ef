#pragma once

#include "model/Result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fusescope {

// Inductor options as users type them, KEY=VALUE each (VALUE read as JSON when it parses, else
// kept as a string), into the object torch.compile(options=...) takes. The CLI and the GUI share it.
Result<nlohmann::json> parseInductorConfig(const std::vector<std::string>& items);

} // namespace fusescope
