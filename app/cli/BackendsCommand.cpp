#include "Commands.h"
#include "ExitCodes.h"
#include "Registry.h"
#include "capture/WorkerConfig.h"
#include "codec/Json.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace fusescope::cli {

int runBackends(bool json) {
    // The environment the workers run in, named before what they found in it.
    const QString python = WorkerConfig::fromEnvironment().python;
    const auto env = inspectPython(python);
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
        nlohmann::json environment = {{"path", python.toStdString()}};
        if (env) {
            environment["python"] = env.value().python;
            environment["torch"] = env.value().torch;
            environment["torch_tested"] = env.value().torchTested;
            environment["torch_lib"] = env.value().torchLib;
        } else {
            environment["error"] = env.error().message;
        }
        std::cout << codec::dumpJson(nlohmann::json{{"python", environment}, {"backends", out}}, 2)
                  << std::endl;
        return kExitOk;
    }
    if (env)
        std::cout << "python: " << describe(env.value())
                  << (env.value().torchTested ? "" : "; torch outside the tested range " + torchTestedRange())
                  << "\n";
    else
        std::cout << "python: " << env.error().message << "\n";
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
