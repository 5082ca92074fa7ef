#include "WorkerStream.h"

#include "model/JsonUtil.h"
#include "trace/TraceChunkMerger.h"

namespace fusescope {

using jsonutil::optional;
using jsonutil::valueOr;
using nlohmann::json;

namespace {

std::string excerpt(const std::string& line) {
    constexpr size_t kMax = 80;
    return line.size() <= kMax ? line : line.substr(0, kMax) + "...";
}

} // namespace

WorkerStream::WorkerStream(BackendRun& run)
    : m_run(run) {
}

std::vector<StreamEvent> WorkerStream::feed(std::string_view bytes) {
    std::vector<StreamEvent> events;
    for (const auto& line : m_lines.feed(bytes)) {
        ++m_lineNumber;
        if (line.empty())
            continue;
        events.push_back(applyLine(line));
    }
    if (m_lines.overflowed() && !m_fatal) {
        m_fatal = true;
        events.push_back(problem("a line longer than 512 MiB; the stream was abandoned"));
    }
    return events;
}

std::vector<StreamEvent> WorkerStream::finish() {
    std::vector<StreamEvent> events;
    if (!m_lines.pending().empty()) {
        ++m_lineNumber;
        events.push_back(problem("the stream ended inside a line (truncated output: \"" +
                                 excerpt(m_lines.pending()) + "\")"));
    }
    return events;
}

StreamEvent WorkerStream::problem(const std::string& what) {
    const std::string text = "line " + std::to_string(m_lineNumber) + ": " + what;
    m_problems.push_back(text);
    StreamEvent ev;
    ev.kind = StreamEvent::Kind::Malformed;
    ev.message = text;
    return ev;
}

StreamEvent WorkerStream::applyLine(const std::string& line) {
    if (m_fatal)
        return problem("ignored after an earlier fatal protocol error");
    json message = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded())
        return problem("not JSON: \"" + excerpt(line) + "\"");
    if (!message.is_object() || !message.contains("type") || !message["type"].is_string())
        return problem("a JSON value without a string \"type\": \"" + excerpt(line) + "\"");
    try {
        return apply(message);
    } catch (const json::exception& e) {
        return problem("message \"" + message["type"].get<std::string>() +
                       "\" has a field of the wrong type (" + e.what() + ")");
    }
}

StreamEvent WorkerStream::apply(const json& m) {
    const auto type = m["type"].get<std::string>();
    StreamEvent ev;
    ev.payload = m;
    if (!m_handshakeSeen) {
        if (type != "hello") {
            m_fatal = true;
            return problem("expected the \"hello\" handshake first, got \"" + type + "\"");
        }
        const auto protocol = valueOr<std::string>(m, "protocol", "");
        const auto version = valueOr<int>(m, "version", 0);
        if (protocol != kWorkerProtocolName) {
            m_fatal = true;
            return problem("the worker speaks protocol \"" + protocol + "\", not \"" + kWorkerProtocolName +
                           "\"");
        }
        if (version != kWorkerProtocolVersion) {
            m_fatal = true;
            return problem("worker speaks protocol version " + std::to_string(version) +
                           ", this FuseScope understands " + std::to_string(kWorkerProtocolVersion));
        }
        m_handshakeSeen = true;
        m_env = m.get<WorkerEnvironment>();
        ev.kind = StreamEvent::Kind::Hello;
        return ev;
    }
    if (type == "progress") {
        ev.kind = StreamEvent::Kind::Progress;
        ev.phase = valueOr<std::string>(m, "phase", "");
        ev.fraction = valueOr<double>(m, "fraction", -1);
        ev.message = valueOr<std::string>(m, "message", "");
    } else if (type == "model") {
        ev.kind = StreamEvent::Kind::Model;
        m_run.model = m.get<ModelInfo>();
    } else if (type == "stage") {
        ev.kind = StreamEvent::Kind::Stage;
        auto stage = m.at("stage").get<StageGraph>();
        ev.message = stage.key();
        m_run.stages.push_back(std::move(stage));
    } else if (type == "code") {
        ev.kind = StreamEvent::Kind::Code;
        m_run.code.push_back({valueOr<std::string>(m, "name", ""), valueOr<std::string>(m, "language", ""),
                              valueOr<std::string>(m, "stage", ""), valueOr<std::string>(m, "text", "")});
    } else if (type == "samples") {
        ev.kind = StreamEvent::Kind::Samples;
        const auto series = m.at("series").get<std::string>();
        auto& target = series == "eager" ? m_run.eagerSamplesMs : m_run.compiledSamplesMs;
        for (const auto& v : m.at("ms"))
            target.push_back(v.get<double>());
        ev.phase = series;
    } else if (type == "result") {
        ev.kind = StreamEvent::Kind::Result;
        applyResult(m);
    } else if (type == "error") {
        ev.kind = StreamEvent::Kind::Error;
        applyError(m);
        ev.message = m_run.error->message;
    } else if (type == "trace") {
        ev.kind = StreamEvent::Kind::Trace;
        if (!m_run.trace)
            m_run.trace.emplace();
        TraceChunkMerger(*m_run.trace).add(m);
        ev.message = std::to_string(m_run.trace->events.size()) + " trace events";
    } else if (type == "backends") {
        ev.kind = StreamEvent::Kind::Backends;
        m_backends = valueOr<json>(m, "backends", json::array());
    } else if (type == "bye") {
        ev.kind = StreamEvent::Kind::Bye;
    } else {
        ev.kind = StreamEvent::Kind::Unknown; // newer workers may add messages: ignore them
    }
    return ev;
}

void WorkerStream::applyResult(const json& m) {
    m_resultSeen = true;
    const auto status = valueOr<std::string>(m, "status", "failed");
    m_run.status = status == "ok" ? RunStatus::Ok : RunStatus::Failed;
    if (auto v = optional<double>(m, "compile_s"))
        m_run.compileSeconds = v;
    if (auto v = optional<double>(m, "compile_capture_overhead_s"))
        m_run.captureOverheadSeconds = v;
    if (auto v = optional<double>(m, "first_call_s"))
        m_run.firstCallSeconds = v;
    if (auto v = optional<int64_t>(m, "peak_memory_bytes"))
        m_run.peakMemoryBytes = v;
    if (auto v = optional<int64_t>(m, "eager_peak_memory_bytes"))
        m_run.eagerPeakMemoryBytes = v;
    m_run.memoryMethod = valueOr<std::string>(m, "memory_method", m_run.memoryMethod);
    if (auto it = m.find("accuracy"); it != m.end() && it->is_object())
        m_run.accuracy = it->get<Accuracy>();
    m_run.graphs = valueOr<int>(m, "graphs", m_run.graphs);
    m_run.graphBreaks = valueOr<int>(m, "graph_breaks", m_run.graphBreaks);
    m_run.recompiles = valueOr<int>(m, "recompiles", m_run.recompiles);
    if (auto it = m.find("break_reasons"); it != m.end() && it->is_array())
        m_run.breakReasons = it->get<std::vector<GraphBreak>>();
    if (auto it = m.find("notes"); it != m.end() && it->is_array())
        for (const auto& note : *it)
            if (note.is_string())
                m_run.notes.push_back(note.get<std::string>());
    readWorkloadResults(m, m_run);
    if (auto it = m.find("options"); it != m.end() && it->is_object())
        m_run.options = *it;
    if (auto it = m.find("trace"); it != m.end() && it->is_object())
        m_run.traceInfo = *it;
    if (auto it = m.find("error"); it != m.end() && it->is_object())
        applyError(*it);
}

void WorkerStream::applyError(const json& m) {
    m_errorSeen = true;
    RunError err{valueOr<std::string>(m, "code", "internal"), valueOr<std::string>(m, "message", ""),
                 valueOr<std::string>(m, "file", ""), valueOr<std::string>(m, "traceback", "")};
    // The first error is the cause; a later `result` repeating it must not lose the traceback.
    if (!m_run.error)
        m_run.error = std::move(err);
    if (m_run.error->code == "backend_unavailable")
        m_run.status = RunStatus::Unavailable;
    else if (m_run.status != RunStatus::Ok)
        m_run.status = RunStatus::Failed;
}

} // namespace fusescope
