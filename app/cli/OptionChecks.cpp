#include "OptionChecks.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

namespace fusescope::cli {

namespace {

// Numbers in messages the way a person writes them: 604800, 0.1, 1e+12 (never 300 digits).
std::string shortNumber(double v) {
    std::ostringstream out;
    out.precision(6);
    out << v;
    return out.str();
}

std::string shown(const std::string& s) {
    // A long argument is cut: the message stays one short line.
    return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'";
}

std::string rangeText(double min, double max, bool minExclusive, const std::string& unit) {
    const std::string u = unit.empty() ? "" : " " + unit;
    std::string text = minExclusive ? "more than " + shortNumber(min) + u + ", up to " + shortNumber(max) + u
                                    : shortNumber(min) + " to " + shortNumber(max) + u;
    if (unit == "s" && max == 7 * 24 * 3600)
        text += " (7 days)";
    return text;
}

// Empty when `input` is a finite number in range, else why not.
std::string checkNumber(const std::string& input, double min, double max, bool minExclusive,
                        const std::string& unit) {
    const char* begin = input.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    const bool whole =
        !input.empty() && end == begin + input.size() && !std::isspace(static_cast<unsigned char>(input[0]));
    if (!whole)
        return shown(input) + " is not a number; expected " + rangeText(min, max, minExclusive, unit);
    if (!std::isfinite(v) || errno == ERANGE)
        return shown(input) + " is not a finite number; expected " + rangeText(min, max, minExclusive, unit);
    if (v < min || v > max || (minExclusive && v == min))
        return shown(input) + " is out of range: " + rangeText(min, max, minExclusive, unit);
    return {};
}

} // namespace

CLI::Validator secondsIn(double min, double max, bool minExclusive) {
    return CLI::Validator([=](std::string& input) { return checkNumber(input, min, max, minExclusive, "s"); },
                          rangeText(min, max, minExclusive, "s"));
}

CLI::Validator numberIn(double min, double max) {
    return CLI::Validator([=](std::string& input) { return checkNumber(input, min, max, false, ""); },
                          rangeText(min, max, false, ""));
}

CLI::Validator countIn(long long min, long long max) {
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    return CLI::Validator(
        [=](std::string& input) -> std::string {
            const size_t start = !input.empty() && input[0] == '-' ? 1 : 0;
            const bool digits =
                input.size() > start && input.find_first_not_of("0123456789", start) == std::string::npos;
            if (!digits)
                return shown(input) + " is not a whole number; expected " + range;
            // Past 18 digits it is out of any range here, and strtoll would saturate.
            if (input.size() - start > 18)
                return shown(input) + " is out of range: " + range;
            const long long v = std::strtoll(input.c_str(), nullptr, 10);
            if (v < min || v > max)
                return shown(input) + " is out of range: " + range;
            return {};
        },
        range);
}

std::optional<std::vector<int>> parseCpuList(const std::string& text, int cpuCount, std::string* why) {
    const std::string range = cpuCount > 1 ? "0 to " + std::to_string(cpuCount - 1) : "0";
    auto fail = [&](const std::string& what) -> std::optional<std::vector<int>> {
        if (why)
            *why = shown(text) + " " + what + "; expected CPUs from " + range + " like 0, 0-1 or 0,2";
        return std::nullopt;
    };
    // One CPU number: digits only, at most 6 of them (no machine has a million CPUs).
    auto number = [](const std::string& s) -> std::optional<int> {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        return std::stoi(s);
    };
    std::set<int> cpus;
    std::stringstream items(text);
    std::string item;
    if (text.empty() || text.back() == ',')
        return fail("is not a CPU list");
    while (std::getline(items, item, ',')) {
        const auto dash = item.find('-');
        auto first = number(item.substr(0, dash));
        auto last = dash == std::string::npos ? first : number(item.substr(dash + 1));
        if (!first || !last || *last < *first)
            return fail("is not a CPU list");
        for (int cpu = *first; cpu <= *last; ++cpu) {
            if (cpu >= cpuCount)
                return fail("names CPU " + std::to_string(cpu) + ", which this machine does not have");
            if (!cpus.insert(cpu).second)
                return fail("names CPU " + std::to_string(cpu) + " twice");
        }
    }
    return std::vector<int>(cpus.begin(), cpus.end());
}

int onlineCpus() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

CLI::Validator cpuListOf(int cpuCount) {
    const int count = cpuCount > 0 ? cpuCount : onlineCpus();
    return CLI::Validator(
        [=](std::string& input) -> std::string {
            std::string why;
            return parseCpuList(input, count, &why) ? std::string() : why;
        },
        "CPUS");
}

} // namespace fusescope::cli
