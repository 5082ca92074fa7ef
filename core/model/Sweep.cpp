#include "Sweep.h"

namespace fusescope {

std::string axesText(const nlohmann::json& axes) {
    std::string out;
    if (!axes.is_object())
        return out;
    for (const auto& [key, value] : axes.items())
        out += (out.empty() ? "" : ", ") + key + "=" +
               (value.is_string() ? value.get<std::string>() : value.dump());
    return out;
}

std::string SuiteJob::label() const {
    const std::string axesPart = axesText(axes);
    return axesPart.empty() ? model : model + " [" + axesPart + "]";
}

} // namespace fusescope
