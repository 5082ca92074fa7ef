#pragma once

#include "model/BackendRun.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusescope {

// The run-wide machine check before the first backend (docs/measurement.md, "Machine check and
// warnings"): over a short window while FuseScope itself waits, how many cores did other
// processes keep busy? The same rule as the worker's per-backend check
// (fusescope_worker/machine_check.py), on /proc numbers read here; the judgement is pure, so
// tests run it on scripted snapshots.
struct CpuTicks {
    int64_t busy = 0; // user + nice + system + irq + softirq
    int64_t idle = 0; // idle + iowait
    int64_t steal = 0;
    int64_t total() const { return busy + idle + steal; }
};

struct MachineSnapshot {
    std::map<int, CpuTicks> cpus;    // /proc/stat cpuN lines
    std::optional<int64_t> ownTicks; // utime + stime + cutime + cstime of this process
};

inline constexpr double kBusyCores = 0.2;      // as machine_check.BUSY_CORES
inline constexpr double kStealFraction = 0.05; // as machine_check.STEAL_FRACTION
inline constexpr double kPreRunWindowSeconds = 0.5;

// Parsers of /proc/stat and /proc/PID/stat text; empty / nullopt on what they cannot read.
std::map<int, CpuTicks> parseProcStat(const std::string& text);
std::optional<int64_t> parsePidStatTicks(const std::string& text);

// Reads /proc now (empty snapshot where it is not readable: the check is then skipped).
// `alsoOurs`: processes whose CPU time counts as this process's (the LibTorch runner's export
// worker, which runs the eager calls of its pairs); one that has gone adds nothing.
MachineSnapshot readMachineSnapshot(const std::vector<int>& alsoOurs = {});
// The CPUs this process may run on (sched_getaffinity), or empty.
std::vector<int> ownAffinity();

// machine_busy / cpu_steal warnings for the window, on `cpus` (empty: every CPU in both
// snapshots). `what` names the window in the message.
std::vector<RunWarning> assessWindow(const MachineSnapshot& before, const MachineSnapshot& after,
                                     std::vector<int> cpus, const std::string& what);

} // namespace fusescope
