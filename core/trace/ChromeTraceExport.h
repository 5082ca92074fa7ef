#pragma once

#include "model/KernelTrace.h"
#include "model/Result.h"
#include "trace/KernelStats.h"

#include <nlohmann/json.hpp>
#include <string>

namespace fusescope {

// A KernelTrace in the Chrome trace event format (the JSON object form), which Perfetto UI and
// chrome://tracing open. CPU threads go in one process and CUDA streams in another, one thread
// per track; memory in use becomes a counter per device. Times are microseconds relative to the
// trace's first event, so the fractional part keeps nanoseconds (absolute epoch times in a double
// would lose them).
nlohmann::json chromeTraceJson(const KernelTrace& trace, const std::string& label);
Status writeChromeTrace(const KernelTrace& trace, const std::string& label, const std::string& path);

// The kernel table as CSV, one header line, names quoted when they need it.
std::string kernelStatsCsv(const KernelStatsTable& table);
Status writeKernelStatsCsv(const KernelStatsTable& table, const std::string& path);

} // namespace fusescope
