#pragma once

#include "capture/PairedTiming.h"
#include "model/BackendRun.h"
#include "model/Report.h"
#include "stream/LineSplitter.h"

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusescope {

// The export worker's stdout as the LibTorch runner reads it (plugins/libtorch/runner/ExportWorker.h,
// docs/libtorch.md "Flow of one run"): token-prefixed JSON lines, its `hello` first; until the
// export's reply, its progress, model, stage, code, samples and error messages are passed on as
// they came; after the reply, `eager_ms` answers and an error that ends the eager calls. Every
// line is hostile input: a line that breaks the protocol is counted as a problem and skipped,
// never a crash (fuzz_export_stream). Neither torch nor Qt: unit-tested and fuzzed in core.
class ExportStream {
public:
    struct Handlers {
        // The handshake, decoded once: the runner turns it into its own hello.
        std::function<void(const WorkerEnvironment&)> hello = [](const WorkerEnvironment&) {};
        // Messages before the reply that the runner passes on as its own (progress, model,
        // stage, code, samples, and the export's error).
        std::function<void(const nlohmann::json&)> relay = [](const nlohmann::json&) {};
    };

    // `token`: the channel token every line starts with; `replyType`: torchscript_exported or
    // aoti_exported.
    ExportStream(std::string token, std::string replyType, Handlers handlers);

    void feed(std::string_view bytes);
    // End of the stream: a last line without its '\n' is a problem (truncated output).
    void finish();

    bool handshakeDone() const { return m_handshake; }
    // The export's reply (null until it came) and the error it reported instead (relayed).
    const nlohmann::json& reply() const { return m_reply; }
    const std::optional<RunError>& exportError() const { return m_exportError; }

    // After the reply: the answer to the pending eager call, taken once; and the error the
    // worker reported while answering eager calls (the first one; it stays).
    std::optional<EagerSample> takeEagerAnswer();
    const std::optional<RunError>& eagerError() const { return m_eagerError; }

    // Refused lines: the first 100 descriptions and how many in all.
    const std::vector<std::string>& problems() const { return m_problems; }
    size_t problemCount() const { return m_problemCount; }
    // The run note for refused lines after a handshake (none before it: then the run failed
    // with the first problem as its error).
    std::vector<std::string> notes() const;

private:
    void line(const std::string& text);
    void problem(std::string what);

    std::string m_token;
    std::string m_replyType;
    Handlers m_handlers;
    LineSplitter m_lines;
    bool m_handshake = false;
    nlohmann::json m_reply;
    std::optional<RunError> m_exportError;
    std::optional<EagerSample> m_eagerAnswer;
    std::optional<RunError> m_eagerError;
    std::vector<std::string> m_problems;
    size_t m_problemCount = 0;
};

// A relayed progress message's `fraction` (0..1 of the export) as a share of the runner's whole
// run (0..share); a negative, non-finite, null or absent fraction becomes -1 (indeterminate), one
// above 1 counts as 1. A fraction that is not a number is left for the engine to refuse.
void scaleExportProgress(nlohmann::json& message, double share);

} // namespace fusescope
