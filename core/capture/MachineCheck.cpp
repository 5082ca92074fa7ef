#include "MachineCheck.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sched.h>
#include <sstream>

namespace fusescope {

namespace {

std::string readFile(const char* path) {
    std::ifstream in(path);
    if (!in)
        return {};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string fixed(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

} // namespace

std::map<int, CpuTicks> parseProcStat(const std::string& text) {
    std::map<int, CpuTicks> cpus;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 ||
            !std::isdigit(static_cast<unsigned char>(line[3])))
            continue;
        std::istringstream fields(line.substr(3));
        int cpu = -1;
        fields >> cpu;
        int64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (auto& x : v)
            if (!(fields >> x)) {
                x = 0;
                break;
            }
        if (cpu < 0)
            continue;
        // user nice system idle iowait irq softirq steal (guest time is inside user)
        cpus[cpu] = {v[0] + v[1] + v[2] + v[5] + v[6], v[3] + v[4], v[7]};
    }
    return cpus;
}

std::optional<int64_t> parsePidStatTicks(const std::string& text) {
    // The command name is in parentheses and may hold spaces or parentheses: count from the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    std::vector<std::string> rest;
    while (fields >> field)
        rest.push_back(field);
    // rest[0] is field 3 (state); utime, stime, cutime, cstime are fields 14..17.
    if (rest.size() < 15)
        return std::nullopt;
    try {
        return std::stoll(rest[11]) + std::stoll(rest[12]) + std::stoll(rest[13]) + std::stoll(rest[14]);
    } catch (...) {
        return std::nullopt;
    }
}

MachineSnapshot readMachineSnapshot(const std::vector<int>& alsoOurs) {
    MachineSnapshot s;
    s.cpus = parseProcStat(readFile("/proc/stat"));
    s.ownTicks = parsePidStatTicks(readFile("/proc/self/stat"));
    for (int pid : alsoOurs)
        if (auto ticks = parsePidStatTicks(readFile(("/proc/" + std::to_string(pid) + "/stat").c_str()));
            ticks && s.ownTicks)
            *s.ownTicks += *ticks;
    return s;
}

std::vector<int> ownAffinity() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            cpus.push_back(cpu);
    return cpus;
}

std::vector<RunWarning> assessWindow(const MachineSnapshot& before, const MachineSnapshot& after,
                                     std::vector<int> cpus, const std::string& what) {
    std::vector<RunWarning> out;
    if (cpus.empty())
        for (const auto& [cpu, ticks] : after.cpus)
            cpus.push_back(cpu);
    std::vector<int> known;
    for (int cpu : cpus)
        if (before.cpus.count(cpu) && after.cpus.count(cpu))
            known.push_back(cpu);
    if (known.empty())
        return out;
    int64_t busy = 0, elapsedSum = 0, steal = 0;
    for (int cpu : known) {
        const auto& a = before.cpus.at(cpu);
        const auto& b = after.cpus.at(cpu);
        busy += b.busy - a.busy;
        elapsedSum += b.total() - a.total();
        steal += b.steal - a.steal;
    }
    const double elapsed = static_cast<double>(elapsedSum) / static_cast<double>(known.size());
    if (elapsed <= 0)
        return out;
    if (before.ownTicks && after.ownTicks) {
        const double ours = static_cast<double>(*after.ownTicks - *before.ownTicks);
        const double cores = std::max(static_cast<double>(busy) - ours, 0.0) / elapsed;
        // Judged less the tick resolution, so a short window never warns on rounding alone.
        const double resolution = static_cast<double>(known.size() + 1) / elapsed;
        if (cores - resolution > kBusyCores)
            out.push_back({"machine_busy", "other processes used " + fixed(cores, 2) + " of " +
                                               std::to_string(known.size()) + " cores " + what +
                                               "; timings are distorted (docs/measurement.md)"});
    }
    const double stealShare = static_cast<double>(steal) / static_cast<double>(elapsedSum);
    if (elapsedSum > 0 && stealShare > kStealFraction)
        out.push_back(
            {"cpu_steal", "the hypervisor took " + fixed(100.0 * stealShare, 0) +
                              "% of this machine's CPU time (steal) " + what +
                              "; timings include waits for other virtual machines (docs/measurement.md)"});
    return out;
}

} // namespace fusescope
