#include "WorkerStream.h"

#include "codec/Json.h"
#include "codec/MessageCodec.h"
#include "codec/Reader.h"
#include "codec/RunCodec.h"
#include "codec/StageCodec.h"
#include "codec/Utf8.h"
#include "model/ErrorCode.h"
#include "trace/TraceChunkMerger.h"

namespace fusescope {

using nlohmann::json;

namespace {

// The start of a line for a message: cut on a character boundary and made valid UTF-8, since
// the line is whatever bytes arrived.
std::string excerpt(const std::string& line) {
    constexpr size_t kMax = 80;
    if (line.size() <= kMax)
        return utf8::sanitize(line);
    return utf8::sanitize(std::string_view(line).substr(0, utf8::boundaryAtOrBefore(line, kMax))) + "...";
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
        if (!m_token.empty()) {
            if (line.size() <= m_token.size() || line.compare(0, m_token.size(), m_token) != 0 ||
                line[m_token.size()] != ' ') {
                events.push_back(problem("a line that did not come from the worker's protocol writer "
                                         "(no channel token); ignored"));
                continue;
            }
            events.push_back(applyLine(line.substr(m_token.size() + 1)));
            continue;
        }
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
    ++m_problemCount;
    StreamEvent ev;
    // A model flooding the channel must not grow memory or the console without bound: the first
    // kMaxProblems are kept and shown, the rest only counted.
    if (m_problems.size() >= kMaxProblems) {
        ev.kind = StreamEvent::Kind::Unknown;
        return ev;
    }
    m_problems.push_back(text);
    ev.kind = StreamEvent::Kind::Malformed;
    ev.message = text;
    return ev;
}

StreamEvent WorkerStream::applyLine(const std::string& line) {
    if (m_fatal)
        return problem("ignored after an earlier fatal protocol error");
    auto parsed = codec::parseJson(line);
    if (!parsed)
        return problem("not JSON (" + parsed.error().message + "): \"" + excerpt(line) + "\"");
    if (parsed.value().replacedSequences > 0)
        m_problems.push_back("line " + std::to_string(m_lineNumber) + ": " +
                             std::to_string(parsed.value().replacedSequences) +
                             " ill-formed UTF-8 sequence(s) replaced by U+FFFD");
    const json& message = parsed.value().value;
    if (!message.is_object() || !message.contains("type") || !message["type"].is_string())
        return problem("a JSON value without a string \"type\": \"" + excerpt(line) + "\"");
    return apply(message);
}

StreamEvent WorkerStream::apply(const json& m) {
    const auto type = m["type"].get<std::string>();
    StreamEvent ev;
    // Only the small messages whose readers want the raw JSON carry it: a stage graph or a trace
    // chunk (megabytes) is decoded into the run and never copied into its event.
    if (type == "samples" || type == "backends" || type == "bye")
        ev.payload = m;
    const auto bad = [&](const Error& e) { return problem("message \"" + type + "\": " + e.message); };
    if (!m_handshakeSeen) {
        if (type != "hello") {
            m_fatal = true;
            return problem("expected the \"hello\" handshake first, got \"" + type + "\"");
        }
        auto hello = codec::decodeHello(m);
        if (!hello) {
            m_fatal = true;
            return bad(hello.error());
        }
        const auto& protocol = hello.value().protocol;
        const auto version = hello.value().version;
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
        m_env = std::move(hello).value().environment;
        ev.kind = StreamEvent::Kind::Hello;
        return ev;
    }
    if (type == "progress") {
        auto progress = codec::decodeProgress(m);
        if (!progress)
            return bad(progress.error());
        ev.kind = StreamEvent::Kind::Progress;
        ev.phase = progress.value().phase;
        ev.fraction = progress.value().fraction;
        ev.message = progress.value().message;
    } else if (type == "model") {
        auto model = codec::decodeModelInfo(m);
        if (!model)
            return bad(model.error());
        ev.kind = StreamEvent::Kind::Model;
        m_run.model = std::move(model).value();
    } else if (type == "stage") {
        if (!m.contains("stage"))
            return problem("message \"stage\" has no \"stage\" member");
        auto stage = codec::decodeStageGraph(m["stage"], "stage");
        if (!stage)
            return bad(stage.error());
        ev.kind = StreamEvent::Kind::Stage;
        ev.message = stage.value().key();
        m_run.stages.push_back(std::move(stage).value());
    } else if (type == "code") {
        auto code = codec::decodeCodeArtifact(m);
        if (!code)
            return bad(code.error());
        ev.kind = StreamEvent::Kind::Code;
        m_run.code.push_back(std::move(code).value());
    } else if (type == "samples") {
        auto samples = codec::decodeSamples(m);
        if (!samples)
            return bad(samples.error());
        const auto& series = samples.value().series;
        const auto& values = samples.value().ms;
        if (series != "eager" && series != "compiled")
            return problem("message \"samples\": series: expected \"eager\" or \"compiled\", got \"" +
                           excerpt(series) + "\"");
        ev.kind = StreamEvent::Kind::Samples;
        auto& target = series == "eager" ? m_run.eagerSamplesMs : m_run.compiledSamplesMs;
        target.insert(target.end(), values.begin(), values.end());
        ev.phase = series;
    } else if (type == "result") {
        if (auto e = applyResult(m))
            return bad(*e);
        ev.kind = StreamEvent::Kind::Result;
    } else if (type == "error") {
        if (auto e = applyError(m))
            return bad(*e);
        ev.kind = StreamEvent::Kind::Error;
        ev.message = m_run.error->message;
    } else if (type == "trace") {
        const bool first = !m_run.trace;
        if (first)
            m_run.trace.emplace();
        // The merger decodes the whole chunk before it touches the trace.
        if (auto e = TraceChunkMerger(*m_run.trace).add(m)) {
            if (first)
                m_run.trace.reset();
            return bad(*e);
        }
        ev.kind = StreamEvent::Kind::Trace;
        ev.message = std::to_string(m_run.trace->events.size()) + " trace events";
    } else if (type == "backends") {
        const codec::Reader r(m);
        json list = r.raw("backends", json::array());
        if (!list.is_array())
            return problem("message \"backends\": backends: expected an array");
        ev.kind = StreamEvent::Kind::Backends;
        m_backends = std::move(list);
    } else if (type == "bye") {
        ev.kind = StreamEvent::Kind::Bye;
    } else {
        ev.kind = StreamEvent::Kind::Unknown; // newer workers may add messages: ignore them
        ev.payload = m;
    }
    return ev;
}

Status WorkerStream::applyResult(const json& m) {
    const codec::Reader r(m);
    const auto status = r.str("status", "failed");
    std::optional<RunError> error;
    if (auto e = r.object("error")) {
        auto decoded = codec::decodeRunError(e->value(), "error");
        if (!decoded)
            return decoded.error();
        error = std::move(decoded).value();
    }
    if (auto e = r.error(toString(ErrorCode::ProtocolError)))
        return e;
    if (auto e = codec::decodeRunResult(m, m_run))
        return e;
    m_resultSeen = true;
    m_run.status = status == "ok" ? RunStatus::Ok : RunStatus::Failed;
    if (error)
        recordError(std::move(*error));
    return std::nullopt;
}

Status WorkerStream::applyError(const json& m) {
    auto decoded = codec::decodeRunError(m);
    if (!decoded)
        return decoded.error();
    recordError(std::move(decoded).value());
    return std::nullopt;
}

void WorkerStream::recordError(RunError err) {
    m_errorSeen = true;
    // The first error is the cause; a later `result` repeating it must not lose the traceback.
    if (!m_run.error)
        m_run.error = std::move(err);
    if (m_run.error->code == toString(ErrorCode::BackendUnavailable))
        m_run.status = RunStatus::Unavailable;
    else if (m_run.status != RunStatus::Ok)
        m_run.status = RunStatus::Failed;
}

} // namespace fusescope
