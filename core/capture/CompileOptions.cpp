#include "CompileOptions.h"

namespace fusescope {

namespace {

std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

Result<nlohmann::json> parseInductorConfig(const std::vector<std::string>& items)
{
    nlohmann::json config = nlohmann::json::object();
    for (const auto& raw : items) {
        const std::string item = trimmed(raw);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return Error{"bad_option", "Inductor option '" + item + "' is not KEY=VALUE"};
        const std::string value = trimmed(item.substr(eq + 1));
        auto parsed = nlohmann::json::parse(value, nullptr, false);
        config[trimmed(item.substr(0, eq))] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
    }
    return config;
}

} // namespace fusescope
