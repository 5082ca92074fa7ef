#include "capture/ExportStream.h"

#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

using nlohmann::json;

namespace fusescope {

namespace {

constexpr size_t kKeptProblems = 100;

// An eager_ms answer's fields: `ms` a finite time above zero, `faults` a count; anything else
// is left out (the runner refuses a timed answer without `ms`).
EagerSample decodeEagerAnswer(const json& message) {
    EagerSample sample;
    if (auto ms = message.find("ms"); ms != message.end() && ms->is_number()) {
        const double value = ms->get<double>();
        if (std::isfinite(value) && value > 0)
            sample.ms = value;
    }
    if (auto faults = message.find("faults"); faults != message.end()) {
        if (faults->is_number_unsigned() && faults->get<uint64_t>() <= uint64_t(INT64_MAX))
            sample.faults = static_cast<int64_t>(faults->get<uint64_t>());
        else if (faults->is_number_integer() && faults->get<int64_t>() >= 0)
            sample.faults = faults->get<int64_t>();
    }
    return sample;
}

} // namespace

ExportStream::ExportStream(std::string token, std::string replyType, Handlers handlers)
    : m_token(std::move(token))
    , m_replyType(std::move(replyType))
    , m_handlers(std::move(handlers)) {
}

void ExportStream::problem(std::string what) {
    if (m_problems.size() < kKeptProblems)
        m_problems.push_back(std::move(what));
    ++m_problemCount;
}

std::vector<std::string> ExportStream::notes() const {
    if (m_problemCount == 0 || !m_handshake)
        return {};
    return {
        std::to_string(m_problemCount) +
        " line(s) on the export worker's protocol channel were refused; the first: " + m_problems.front()};
}

std::optional<EagerSample> ExportStream::takeEagerAnswer() {
    std::optional<EagerSample> answer;
    answer.swap(m_eagerAnswer);
    return answer;
}

void ExportStream::feed(std::string_view bytes) {
    const bool overflowedBefore = m_lines.overflowed();
    for (const auto& text : m_lines.feed(bytes))
        line(text);
    if (m_lines.overflowed() && !overflowedBefore)
        problem("a line longer than " + std::to_string(LineSplitter::kMaxLineBytes >> 20) + " MiB");
}

void ExportStream::finish() {
    if (!m_lines.pending().empty())
        problem("the stream ended inside a line (truncated output)");
}

void ExportStream::line(const std::string& text) {
    if (text.empty())
        return;
    if (text.size() <= m_token.size() || text.compare(0, m_token.size(), m_token) != 0 ||
        text[m_token.size()] != ' ') {
        problem("a line without the channel token; ignored");
        return;
    }
    auto parsed = codec::parseJson(std::string_view(text).substr(m_token.size() + 1));
    if (!parsed || !parsed.value().value.is_object()) {
        problem(parsed ? "a line that is not a JSON object" : "not JSON (" + parsed.error().message + ")");
        return;
    }
    json message = std::move(parsed.value().value);
    const auto typeField = message.find("type");
    if (typeField != message.end() && !typeField->is_string()) {
        problem("a message whose \"type\" is not a string");
        return;
    }
    const std::string type = typeField == message.end() ? std::string() : typeField->get<std::string>();
    const bool exported = !m_reply.is_null();
    if (!m_handshake) {
        if (type != "hello") {
            problem("expected the \"hello\" handshake first, got \"" + type + "\"");
            return;
        }
        auto env = codec::decodeEnvironment(message);
        if (!env) {
            problem("hello: " + env.error().message);
            return;
        }
        m_handshake = true;
        m_handlers.hello(env.value());
    } else if (type == "error") {
        auto error = codec::decodeRunError(message);
        if (!error) {
            problem("error: " + error.error().message);
            return;
        }
        if (exported) { // an eager call failed: the runner's row says so, with what it has
            if (!m_eagerError)
                m_eagerError = std::move(error).value();
            return;
        }
        if (!m_exportError)
            m_exportError = std::move(error).value();
        m_handlers.relay(message);
    } else if (exported) {
        if (type == "eager_ms")
            m_eagerAnswer = decodeEagerAnswer(message);
        else if (type != "bye")
            problem("\"" + type + "\" after the export's reply");
    } else if (type == "progress" || type == "model" || type == "stage" || type == "code" ||
               type == "samples") {
        m_handlers.relay(message);
    } else if (type == m_replyType) {
        m_reply = std::move(message);
    }
}

void scaleExportProgress(json& message, double share) {
    auto fraction = message.find("fraction");
    if (fraction == message.end() || fraction->is_null()) {
        message["fraction"] = -1.0;
        return;
    }
    if (!fraction->is_number())
        return; // the engine's WorkerStream refuses it with its reason
    const double value = fraction->get<double>();
    *fraction = std::isfinite(value) && value >= 0 ? std::min(value, 1.0) * share : -1.0;
}

} // namespace fusescope
