#include "Deployment.h"

#include "Format.h"

#include <cstdio>

namespace fusescope {

std::optional<double> artifactSizeRatio(const Deployment& d) {
    if (!d.artifactBytes || !d.eagerModelBytes || *d.eagerModelBytes <= 0)
        return std::nullopt;
    return static_cast<double>(*d.artifactBytes) / static_cast<double>(*d.eagerModelBytes);
}

std::vector<std::string> deploymentLines(const BackendRun& run) {
    std::vector<std::string> lines;
    if (!run.deployment)
        return lines;
    const Deployment& d = *run.deployment;
    std::string head = "artifact " + (d.artifact.empty() ? std::string("?") : d.artifact) + " " +
                       format::bytes(d.artifactBytes) + " (eager state_dict " +
                       format::bytes(d.eagerModelBytes);
    if (auto ratio = artifactSizeRatio(d)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, ", %.2fx", *ratio);
        head += buf;
    }
    lines.push_back(head + ")");
    if (d.loadSeconds) {
        std::string load =
            "  load " +
            format::milliseconds(d.loadSeconds ? std::optional(*d.loadSeconds * 1e3) : std::nullopt) +
            " ms, first call " +
            format::milliseconds(d.firstCallSeconds ? std::optional(*d.firstCallSeconds * 1e3)
                                                    : std::nullopt) +
            " ms (median of " + std::to_string(d.freshProcesses) + " fresh process" +
            (d.freshProcesses == 1 ? "" : "es");
        if (d.processSeconds)
            load += ", each " + format::seconds(d.processSeconds) + " s start to exit";
        load += "; " + (d.loader.empty() ? std::string("loader not recorded") : d.loader) + ")";
        lines.push_back(load);
        std::string cache = "  OS file cache " + (d.fileCache.empty() ? std::string("unknown") : d.fileCache);
        if (d.fileCacheResident) {
            char buf[48];
            std::snprintf(buf, sizeof buf, " (%.0f %% of the artifact's pages resident)",
                          *d.fileCacheResident * 100);
            cache += buf;
        }
        lines.push_back(cache);
    }
    if (!d.error.empty())
        lines.push_back("  load not measured: " + d.error);
    return lines;
}

} // namespace fusescope
