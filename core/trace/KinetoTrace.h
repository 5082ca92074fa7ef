#pragma once

#include "model/KernelTrace.h"
#include "model/Report.h"
#include "model/Result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace fusescope::import {

// PyTorch profiler (Kineto) traces: what `prof.export_chrome_trace("trace.json")` writes, CPU
// or CUDA (docs/import.md, "PyTorch profiler traces"). The Chrome trace JSON becomes the
// KernelTrace a backend's captured trace is: top-level CPU ops per thread (profiler wrappers left
// out, Inductor's graph_N_ kernel prefix dropped, as the worker's own CPU trace does), GPU kernels,
// memcpy/memset per stream, runtime calls, [memory] events; ProfilerStep#N (or FuseScope's
// iteration marks) number the iterations.

// Past this a file is no trace we import (it is read whole into memory).
inline constexpr uint64_t kMaxKinetoTraceBytes = uint64_t(1) << 30;
// Events kept from one trace; a trace with more is refused with import_limit, never cut silently.
inline constexpr size_t kMaxKinetoEvents = size_t(20) << 20;
// A name longer than this (a Python frame with a huge argument list) is cut: names are labels.
inline constexpr size_t kMaxKinetoNameBytes = 1024;

// The text of a trace file -> a KernelTrace. `file` names the input in messages. Error code
// import_corrupt, message "FILE: traceEvents[17].ts: expected a finite number, got \"x\"" (the
// JSON path of the first bad field). Never throws, whatever the bytes.
Result<KernelTrace> parseKinetoTrace(std::string_view text, const std::string& file);

// Reads and parses a trace file (regular files only, at most kMaxKinetoTraceBytes: else
// import_limit; import_not_found, import_unreadable as for any import).
Result<KernelTrace> readKinetoTraceFile(const std::string& path);

// Detection for the import dispatch (import/Import.h): a file (not a directory) whose first bytes
// are a JSON object showing a "traceEvents" member.
bool looksLikeKinetoTrace(bool isDirectory, const std::string& head);

// A report of its own: one backend (named after the file, family "import") holding the trace,
// no latency samples (absent, not invented).
Result<Report> importKinetoTrace(const std::string& path);

// What attaching a trace to a backend found.
struct AttachOutcome {
    size_t events = 0;
    size_t kernelNames = 0; // distinct kernel-kind names in the trace
    size_t linkedNames = 0; // of those, how many match a kernel group of the backend's graphs
};

// Puts the trace of `path` on backend `backend` of `report` (replacing any trace it had), so its
// kernels link by name to that backend's captured or imported graphs (trace/KernelLinks). Errors:
// import_no_backend naming the backend and the report's backends; the reader's errors.
Result<AttachOutcome> attachKinetoTrace(Report& report, const std::string& backend, const std::string& path);

} // namespace fusescope::import
