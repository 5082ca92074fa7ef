// `fusescope-cli show REPORT --roofline [--backend B] [--json]`: each traced kernel against the
// machine's roofs, and the bytes fusion saved per call (core/analysis/Roofline, docs/roofline.md).
#include "Commands.h"
#include "ExitCodes.h"
#include "analysis/Format.h"
#include "analysis/Roofline.h"
#include "codec/Json.h"
#include "codec/RunCodec.h"
#include "model/JsonUtil.h"
#include "report/ReportFile.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace fusescope::cli {

namespace {

using jsonutil::orNull;
using nlohmann::json;

json orNullText(const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
}

// The `roofs` object of the JSON (docs/roofline.md): the report's record without its samples.
json roofsJson(const Roofs& roofs) {
    json j = roofs;
    for (const char* key : {"stream", "gemm", "seconds"})
        j.erase(key);
    return j;
}

json kernelJson(const KernelRoofline& k) {
    return {{"name", k.name},
            {"stage", orNullText(k.stageKey)},
            {"group", orNullText(k.groupId)},
            {"kind", orNullText(k.kind)},
            {"calls", k.calls},
            {"time_ms", k.timeMs},
            {"bytes", orNull(k.bytes)},
            {"bytes_source", orNullText(k.bytesSource)},
            {"flops", orNull(k.flops)},
            {"eager_bytes", orNull(k.eagerBytes)},
            {"dtype", orNullText(k.dtype)},
            {"gbs", orNull(k.gbs)},
            {"gflops", orNull(k.gflops)},
            {"intensity", orNull(k.intensity)},
            {"roof_fraction", orNull(k.roofFraction)},
            {"bound", orNullText(k.bound)},
            {"unknown_reason", orNullText(k.unknownReason)},
            {"note", orNullText(k.note)}};
}

std::string rate(std::optional<double> value, const char* unit) {
    if (!value)
        return "-";
    char buf[48];
    std::snprintf(buf, sizeof buf,
                  *value >= 100  ? "%.0f %s"
                  : *value >= 10 ? "%.1f %s"
                                 : "%.2f %s",
                  *value, unit);
    return buf;
}

std::string roofsLine(const Roofs& roofs) {
    if (!roofs.error.empty())
        return "no roofs: " + roofs.error;
    std::string line = "roofs: " + rate(roofs.bandwidthGbs, "GB/s");
    for (const auto& [dtype, gflops] : roofs.gflops)
        line += ", " + rate(gflops, "GFLOP/s") + " " + dtype;
    line += " (" + std::to_string(roofs.threads) + " thread" + (roofs.threads == 1 ? "" : "s") +
            ", measured " + roofs.measuredAt + (roofs.cache == "hit" ? ", from the cache" : "") + ")";
    return line;
}

std::string totalsLine(const BackendRoofline& b) {
    std::string line = b.backend + ": ";
    if (!b.bytesPerCall) {
        line += "bytes per call unknown";
        if (!b.bytesUnknownReason.empty())
            line += " (" + b.bytesUnknownReason + ")";
        return line;
    }
    line += "kernels move " + format::bytes(b.bytesPerCall) + " per call";
    if (auto r = b.bytesRatio()) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f %%", 100 * *r);
        line += ", " + std::string(pct) + " of the " + format::bytes(b.eagerBytesPerCall) + " eager moves";
    }
    if (b.speedup)
        line += "; speedup " + format::ratio(b.speedup);
    return line;
}

void printBackend(const BackendRun& run, const BackendRoofline& b) {
    std::printf("%s\n", totalsLine(b).c_str());
    if (!b.traced) {
        std::printf("  no kernel trace (compare with --trace)\n");
        return;
    }
    if (run.roofs)
        std::printf("  %s\n", roofsLine(*run.roofs).c_str());
    else
        std::printf("  no roofs in this report (traced by a FuseScope older than the roofline)\n");
    std::printf("  %-44s %6s %10s %10s %10s %11s %7s %6s %-7s\n", "kernel", "calls", "ms/call", "bytes",
                "GB/s", "GFLOP/s", "FLOP/B", "roof", "bound");
    for (const auto& k : b.kernels) {
        std::string name = k.name.size() > 44 ? k.name.substr(0, 41) + "..." : k.name;
        char intensity[24] = "-", roof[24] = "-";
        if (k.intensity)
            std::snprintf(intensity, sizeof intensity, "%.2f", *k.intensity);
        if (k.roofFraction)
            std::snprintf(roof, sizeof roof, "%.0f%%", 100 * *k.roofFraction);
        std::printf("  %-44s %6lld %10.4f %10s %10s %11s %7s %6s %-7s\n", name.c_str(),
                    static_cast<long long>(k.calls), k.timeMs, format::bytes(k.bytes).c_str(),
                    rate(k.gbs, "").c_str(), rate(k.gflops, "").c_str(), intensity, roof,
                    k.bound.empty() ? "-" : k.bound.c_str());
        if (!k.unknownReason.empty() && (!k.roofFraction || !k.bytes || !k.flops))
            std::printf("      %s\n", k.unknownReason.c_str());
        if (!k.note.empty())
            std::printf("      %s\n", k.note.c_str());
    }
}

} // namespace

int runShowRoofline(const std::string& path, const std::string& backend, bool asJson) {
    const auto report = openReportPrintingNotes(path);
    if (!report)
        return kExitError;
    std::vector<const BackendRun*> runs;
    for (const auto& run : report->backends)
        if (backend.empty() || run.name == backend)
            runs.push_back(&run);
    if (!backend.empty() && runs.empty()) {
        std::fprintf(stderr, "error: report %s has no backend '%s'\n", path.c_str(), backend.c_str());
        return kExitError;
    }
    const Roofs* roofs = nullptr;
    for (const BackendRun* run : runs)
        if (run->roofs && run->roofs->error.empty() && !roofs)
            roofs = &*run->roofs;
    if (!roofs)
        for (const BackendRun* run : runs)
            if (run->roofs && !roofs)
                roofs = &*run->roofs;
    json out{{"roofs", roofs ? roofsJson(*roofs) : json(nullptr)}, {"backends", json::array()}};
    for (const BackendRun* run : runs) {
        const auto links =
            run->trace ? std::optional<KernelLinks>(linkKernelsToGroups(*run->trace, afterFusionStages(*run)))
                       : std::nullopt;
        const BackendRoofline b = computeRoofline(*run, links ? &*links : nullptr);
        if (!asJson) {
            printBackend(*run, b);
            continue;
        }
        json kernels = json::array();
        for (const auto& k : b.kernels)
            kernels.push_back(kernelJson(k));
        json entry{{"name", run->name},
                   {"traced", b.traced},
                   {"iterations", b.iterations},
                   {"bytes_per_call", orNull(b.bytesPerCall)},
                   {"eager_bytes_per_call", orNull(b.eagerBytesPerCall)},
                   {"bytes_ratio", orNull(b.bytesRatio())},
                   {"flops_matrix_per_call", orNull(b.flopsMatrixPerCall)},
                   {"flops_pointwise_per_call", orNull(b.flopsPointwisePerCall)},
                   {"bytes_unknown_reason", orNullText(b.bytesUnknownReason)},
                   {"speedup", orNull(b.speedup)},
                   {"kernels", std::move(kernels)}};
        if (run->roofs && roofs && !(*run->roofs == *roofs)) // measured apart (other threads): its own
            entry["roofs"] = roofsJson(*run->roofs);
        out["backends"].push_back(std::move(entry));
    }
    if (asJson)
        std::cout << codec::dumpJson(out, 2) << std::endl;
    return kExitOk;
}

} // namespace fusescope::cli
