#include "Commands.h"
#include "ExitCodes.h"
#include "Registry.h"
#include "codec/Json.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace fusescope::cli {

int runBackends(bool json) {
    auto families = createBackendFamilies();
    std::vector<BackendInfo> all;
    for (auto& family : families) {
        auto found = family->probe();
        all.insert(all.end(), found.begin(), found.end());
    }
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& b : all)
            out.push_back({{"name", b.name},
                           {"family", b.family},
                           {"available", b.available},
                           {"reason", b.available ? nlohmann::json(nullptr) : nlohmann::json(b.reason)},
                           {"tags", b.tags}});
        std::cout << codec::dumpJson(nlohmann::json{{"backends", out}}, 2) << std::endl;
        return kExitOk;
    }
    size_t width = 7;
    for (const auto& b : all)
        width = std::max(width, b.name.size());
    for (const auto& b : all) {
        std::cout << b.name << std::string(width - b.name.size() + 2, ' ')
                  << (b.available ? "available  " : "unavailable") << "  " << b.family;
        if (!b.tags.empty()) {
            std::cout << " [";
            for (size_t i = 0; i < b.tags.size(); ++i)
                std::cout << (i ? "," : "") << b.tags[i];
            std::cout << "]";
        }
        if (!b.available)
            std::cout << "  - " << b.reason;
        std::cout << "\n";
    }
    return kExitOk;
}

} // namespace fusescope::cli
