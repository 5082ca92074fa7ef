#include "Format.h"

#include <cmath>
#include <cstdio>

namespace fusescope::format {

namespace {

template <typename... Args> std::string printf(const char* fmt, Args... args) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

} // namespace

std::string bytes(std::optional<int64_t> value) {
    if (!value)
        return "-";
    const double v = static_cast<double>(*value);
    const double a = std::fabs(v);
    if (a < 1024)
        return printf("%lld B", static_cast<long long>(*value));
    if (a < 1024.0 * 1024)
        return printf("%.1f KiB", v / 1024);
    if (a < 1024.0 * 1024 * 1024)
        return printf("%.1f MiB", v / (1024.0 * 1024));
    return printf("%.2f GiB", v / (1024.0 * 1024 * 1024));
}

std::string milliseconds(std::optional<double> value) {
    if (!value)
        return "-";
    if (*value >= 100)
        return printf("%.1f", *value);
    if (*value >= 1)
        return printf("%.3f", *value);
    return printf("%.4f", *value);
}

std::string seconds(std::optional<double> value) {
    return value ? printf("%.2f", *value) : "-";
}

std::string ratio(std::optional<double> value) {
    if (!value)
        return "-";
    // Three significant digits below 0.1x: a 1000x slowdown must not read as "0.00x".
    return *value >= 0.1 ? printf("%.2fx", *value) : printf("%.3gx", *value);
}

std::string scientific(std::optional<double> value) {
    return value ? printf("%.1e", *value) : "-";
}

std::string breakPlacement(int graphsBefore) {
    if (graphsBefore < 0)
        return {};
    return graphsBefore == 0 ? "before graph 0" : "after graph " + std::to_string(graphsBefore - 1);
}

std::string count(std::optional<int> value) {
    return value ? std::to_string(*value) : "-";
}

std::string inputSet(const InputSet& set) {
    std::string out;
    for (const auto& input : set) {
        if (!out.empty())
            out += ",";
        for (size_t d = 0; d < input.shape.size(); ++d)
            out += (d ? "x" : "") + input.shape[d];
        out += ":" + (input.dtype.empty() ? std::string("float32") : input.dtype);
    }
    return out;
}

std::string shapeList(const std::vector<InputSet>& sets) {
    std::string out;
    for (size_t i = 0; i < sets.size(); ++i)
        out += (i ? ";" : "") + inputSet(sets[i]);
    return out;
}

std::string searchSummary(const SearchOutcome& search) {
    if (!search.ran())
        return "not run: " + search.error;
    return (search.strategy.empty() ? std::string("strategy unknown") : search.strategy) + ", " +
           std::to_string(search.candidates.size()) + " candidates, " +
           std::to_string(search.candidatesOk()) + " ran ok: " + search.verdict;
}

} // namespace fusescope::format
