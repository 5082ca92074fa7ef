#include "Quantization.h"

#include <cstdio>

namespace fusescope {

const std::vector<std::string>& workloadPrecisions() {
    static const std::vector<std::string> all = {"fp32",         "bf16",       "fp16", "int8_weight_only",
                                                 "int8_dynamic", "int8_static"};
    return all;
}

bool isQuantizedPrecision(const std::string& precision) {
    return precision == "int8_weight_only" || precision == "int8_dynamic" || precision == "int8_static";
}

namespace {

std::string bytesText(int64_t bytes) {
    char buf[32];
    if (bytes >= 1 << 30)
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1 << 30));
    else if (bytes >= 1 << 20)
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
    else if (bytes >= 1 << 10)
        std::snprintf(buf, sizeof buf, "%.0f KiB", double(bytes) / double(1 << 10));
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

} // namespace

std::string quantizationText(const Quantization& q) {
    std::string text = q.mode.empty() ? std::string("quantized") : q.mode;
    if (!q.library.empty())
        text += " (" + q.library + (q.version.empty() ? "" : " " + q.version) + ")";
    const size_t layers = q.quantizedModules.size() + q.skippedModules.size();
    text += ": " + std::to_string(q.quantizedModules.size()) + " of " + std::to_string(layers) +
            (layers == 1 ? " layer" : " layers") + " quantized";
    if (q.weightBytes) {
        text += ", weights " + bytesText(*q.weightBytes);
        if (q.fp32WeightBytes && *q.fp32WeightBytes > 0) {
            char pct[16];
            std::snprintf(pct, sizeof pct, "%.0f",
                          100.0 * double(*q.weightBytes) / double(*q.fp32WeightBytes));
            text += std::string(" = ") + pct + " % of fp32's " + bytesText(*q.fp32WeightBytes);
        }
    }
    if (q.quantizeSeconds) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.2f", *q.quantizeSeconds);
        text += std::string(", quantized in ") + secs + " s (not in compile)";
    }
    return text;
}

} // namespace fusescope
