#pragma once

#include "LineSplitter.h"
#include "model/BackendRun.h"
#include "model/Report.h"
#include "model/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fusescope {

inline constexpr int kWorkerProtocolVersion = 1;
inline constexpr const char* kWorkerProtocolName = "fusescope-worker";

// What a protocol line meant, for whoever shows progress. The run itself is updated in place.
struct StreamEvent {
    enum class Kind {
        Hello,
        Progress,
        Model,
        Stage,
        Code,
        Samples,
        Trace,
        Result,
        Error,
        Backends,
        Bye,
        Unknown,
        Malformed
    };
    Kind kind = Kind::Unknown;
    std::string phase;      // progress
    double fraction = -1;   // progress, 0..1
    std::string message;    // progress text, error message, malformed-line description
    nlohmann::json payload; // the whole message: Samples, Backends, Bye and Unknown only
};

// Reads the capture worker's stdout (docs/protocol.md) into one BackendRun: checks the handshake,
// applies each message, and keeps every protocol problem with its line number.
class WorkerStream {
public:
    explicit WorkerStream(BackendRun& run);

    // The per-run channel token (docs/protocol.md): once set, a line counts only when it starts
    // with the token and one space; any other line (a model writing into the channel's
    // descriptor) is refused as a problem and never applied. Empty: plain JSON lines.
    void setChannelToken(std::string token) { m_token = std::move(token); }

    std::vector<StreamEvent> feed(std::string_view bytes);
    // Call at end of stream. Reports a truncated last line.
    std::vector<StreamEvent> finish();

    bool handshakeSeen() const { return m_handshakeSeen; }
    bool resultSeen() const { return m_resultSeen; }
    bool errorSeen() const { return m_errorSeen; }
    // A broken handshake or an unusable stream: the run can't be trusted past this point.
    bool fatal() const { return m_fatal; }
    const WorkerEnvironment& environment() const { return m_env; }
    // The first kMaxProblems protocol problems, and how many there were in all.
    static constexpr size_t kMaxProblems = 100;
    const std::vector<std::string>& problems() const { return m_problems; }
    size_t problemCount() const { return m_problemCount; }
    const nlohmann::json& backendsList() const { return m_backends; }

private:
    StreamEvent applyLine(const std::string& line);
    StreamEvent apply(const nlohmann::json& message);
    // Each applies a whole message or, when a field is malformed, nothing (the Error says which).
    Status applyResult(const nlohmann::json& message);
    Status applyError(const nlohmann::json& message);
    void recordError(RunError error);
    StreamEvent problem(const std::string& what);

    BackendRun& m_run;
    std::string m_token;
    LineSplitter m_lines;
    WorkerEnvironment m_env;
    nlohmann::json m_backends;
    std::vector<std::string> m_problems;
    size_t m_problemCount = 0;
    int m_lineNumber = 0;
    bool m_handshakeSeen = false;
    bool m_resultSeen = false;
    bool m_errorSeen = false;
    bool m_fatal = false;
};

} // namespace fusescope
